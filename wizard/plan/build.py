"""Pick the plan builder for a profile and a chosen candidate."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePath, PureWindowsPath

from wizard.choose.choice import Candidate
from wizard.choose.driver_view import xla_limit_text
from wizard.paths import VENV_IN_HOME
from wizard.plan import conda as plan_conda
from wizard.plan import linux as plan_linux
from wizard.plan.demo_paths import demo_default_home, home_of, shown_under
from wizard.plan.model import Plan, PlanError, PlanInputs
from wizard.plan.wsl_setup import windows_home, windows_to_wsl_plan
from wizard.probe.state_view import side_words
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
    `home`); `home` defaults to the machine's (`machine_home`; fixed in golden tests).
    """

    home_path: PurePath = Path(home) if home is not None else machine_home(profile)
    elsewhere = profile.platform == "windows" and os.name != "nt"
    if elsewhere:
        # A Windows machine's plan made elsewhere (a saved or demo profile): its paths are
        # Windows paths in that user's folder, never this machine's home.
        home_path = windows_home(profile)
    venv_path: PurePath
    if venv is None:
        venv_path = home_path / VENV_IN_HOME
    elif elsewhere:
        venv_path = _windows_venv(str(venv), home_path)
    elif profile.simulated and home_path != Path.home():
        venv_path = _demo_venv(str(venv), home_path)
    else:
        venv_path = Path(venv).expanduser()
        if not venv_path.is_absolute():
            venv_path = Path.cwd() / venv_path
    inputs = PlanInputs(candidate=candidate, venv=venv_path, home=home_path)
    # A failure that does not stop the set, said as Choose says it (the same note).
    inputs.extra_notes += [t("recommend.state_note", title=w.title, fix=w.fix) for w in side_words(profile)]
    if candidate.xla_limit is not None and candidate.set.method != "cpu":
        inputs.extra_notes.append(xla_limit_text(candidate.xla_limit))  # Keras: jit_compile=False
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


def machine_home(profile: MachineProfile) -> PurePath:
    """The home folder a plan for this machine names (its venv, its ~/.bashrc, the wizard's uv and
    programs): this user's for the machine detected here; for a saved or demo profile the home it
    names (home_of), else its made-up user's (DEMO_HOME), never this machine's beside that
    machine's paths: lab staff planning from a student's saved profile get the student machine's
    commands, not their own home's (README). Windows elsewhere: `windows_home`."""
    if profile.platform == "windows" and os.name != "nt":
        return windows_home(profile)
    if not profile.simulated:
        return Path.home()
    named = home_of(profile)
    if named is not None:
        return named
    return demo_default_home(profile)


def machine_user(profile: MachineProfile) -> str | None:
    """The user a simulated plan runs as (the password prompt names them): the owner of the demo
    machine's home (sam for /home/sam); None for a plan of this machine (its own user)."""
    if not profile.simulated:
        return None
    name = machine_home(profile).name
    return name if name not in ("", "$HOME") else None


def default_venv_for(profile: MachineProfile) -> PurePath:
    """The environment folder a plan for this machine uses unless told otherwise."""
    return machine_home(profile) / VENV_IN_HOME


def _demo_venv(text: str, home: PurePath) -> PurePath:
    """A folder typed for a demo (or saved) machine's plan: ~ is that machine's home, and so is a
    relative folder's base (this machine's working folder is not there); an absolute one stays."""
    if text == "~" or text.startswith("~/"):
        return home / text[2:]
    typed = PurePath(text)
    return typed if typed.is_absolute() else home / typed


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
