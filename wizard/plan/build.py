"""Pick the plan builder for a profile and a chosen candidate."""

from __future__ import annotations

from pathlib import Path

from wizard.choose.choice import Candidate
from wizard.paths import default_venv
from wizard.plan import conda as plan_conda
from wizard.plan import linux as plan_linux
from wizard.plan.model import Plan, PlanError, PlanInputs
from wizard.profile import MachineProfile


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

    home_path = Path(home) if home is not None else Path.home()
    if venv is None:
        venv_path = home_path / default_venv().relative_to(Path.home())
    else:
        venv_path = Path(venv).expanduser()
        if not venv_path.is_absolute():
            venv_path = Path.cwd() / venv_path
    inputs = PlanInputs(candidate=candidate, venv=venv_path, home=home_path)
    method = candidate.set.method
    if method == "cpu":
        return plan_linux.cpu_plan(profile, inputs)
    if profile.platform == "windows" and method == "conda":
        return plan_conda.conda_plan(profile, inputs)
    if profile.platform == "windows" and method == "system-cuda":
        return plan_conda.windows_system_cuda_plan(profile, inputs)
    if profile.platform not in ("linux", "wsl2"):
        raise PlanError(f"GPU installs are planned for Linux and WSL2; this machine is {profile.platform}")
    if method == "pip-and-cuda":
        return plan_linux.pip_and_cuda_plan(profile, inputs)
    if method == "system-cuda":
        return plan_linux.system_cuda_plan(profile, inputs)
    if method == "conda":
        return plan_conda.conda_plan(profile, inputs)
    raise PlanError(f"unknown install method {method!r}")
