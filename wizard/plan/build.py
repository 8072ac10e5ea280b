"""Pick the plan builder for a profile and a chosen candidate."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePath, PureWindowsPath

from wizard.choose.choice import Candidate
from wizard.paths import default_venv
from wizard.plan import conda as plan_conda
from wizard.plan import linux as plan_linux
from wizard.plan.demo_paths import shown_under
from wizard.plan.model import Plan, PlanError, PlanInputs
from wizard.plan.wsl_setup import windows_home, windows_to_wsl_plan
from wizard.profile import MachineProfile
from wizard.text import t


def build_plan(
    profile: MachineProfile,
    candidate: Candidate,
    *,
    venv: Path | str | None = None,
    home: Path | str | None = None,
) -> Plan:
    """The steps that take this machine to `candidate`'s version set.

    `venv` is the environment directory (default: paths.default_venv(), under
    `home`); `home` defaults to the current user's (fixed in golden tests).
    """

    home_path: PurePath = Path(home) if home is not None else Path.home()
    elsewhere = profile.platform == "windows" and os.name != "nt"
    if elsewhere:
        # A Windows machine's plan made elsewhere (a saved or demo profile): its paths are
        # Windows paths in that user's folder, never this machine's home.
        home_path = windows_home(profile)
    venv_path: PurePath
    if venv is None:
        venv_path = home_path / default_venv().relative_to(Path.home())
    elif elsewhere:
        venv_path = _windows_venv(str(venv), home_path)
    else:
        venv_path = Path(venv).expanduser()
        if not venv_path.is_absolute():
            venv_path = Path.cwd() / venv_path
    inputs = PlanInputs(candidate=candidate, venv=venv_path, home=home_path)
    # A demo plan names the wizard's uv and programs in the demo user's home, as the venv is.
    with shown_under(home_path if profile.simulated else None):
        return _build(profile, candidate, inputs)


def _build(profile: MachineProfile, candidate: Candidate, inputs: PlanInputs) -> Plan:
    method = candidate.set.method
    if method == "cpu":
        return plan_linux.cpu_plan(profile, inputs)
    if profile.platform == "windows" and method == "conda":
        return plan_conda.conda_plan(profile, inputs)
    if profile.platform == "windows" and method == "system-cuda":
        return plan_conda.windows_system_cuda_plan(profile, inputs)
    if profile.platform == "windows" and method == "pip-and-cuda":
        return windows_to_wsl_plan(profile, inputs)
    if profile.platform not in ("linux", "wsl2"):
        raise PlanError(t("plan.error.platform", platform=profile.platform))
    if method == "pip-and-cuda":
        return plan_linux.pip_and_cuda_plan(profile, inputs)
    if method == "system-cuda":
        return plan_linux.system_cuda_plan(profile, inputs)
    if method == "conda":
        return plan_conda.conda_plan(profile, inputs)
    raise PlanError(t("plan.error.method", method=method))


def default_venv_for(profile: MachineProfile) -> PurePath:
    """The environment folder a plan for this machine uses unless told otherwise."""
    if profile.platform == "windows" and os.name != "nt":
        return windows_home(profile) / default_venv().relative_to(Path.home())
    return default_venv()


def _windows_venv(text: str, home: PurePath) -> PurePath:
    """A folder typed for a Windows machine's plan made elsewhere: a Windows path stays one;
    a path in this machine's home becomes the same place in that Windows user's folder."""
    if re.match(r"^([A-Za-z]:[\\/]|%)", text):
        return PureWindowsPath(text)
    posix = Path(text).expanduser()
    try:
        return home / posix.relative_to(Path.home())
    except ValueError:
        return home / posix.name
