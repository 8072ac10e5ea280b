"""Python: version, interpreter, and whether it lives in a venv or a conda env."""

from __future__ import annotations

from pathlib import PurePath

from wizard.probe.context import ProbeContext
from wizard.probe.installers import probe_installers
from wizard.profile import MachineProfile
from wizard.text import t


def probe_python(ctx: ProbeContext, profile: MachineProfile) -> str:
    py = ctx.python
    info = profile.python
    info.version = py.version
    info.executable = py.executable
    info.pip = py.has_pip
    info.venv_module = py.has_venv
    env = ctx.system.environ
    conda_prefix = env.get("CONDA_PREFIX")
    if ctx.system.exists(str(PurePath(py.prefix) / "conda-meta")) or (
        conda_prefix and PurePath(conda_prefix) == PurePath(py.prefix)
    ):
        info.env = "conda"
        info.env_name = env.get("CONDA_DEFAULT_ENV") or PurePath(py.prefix).name
    elif py.prefix != py.base_prefix:
        info.env = "venv"
        info.env_name = PurePath(py.prefix).name
    else:
        info.env = "system"
    probe_installers(ctx, info)
    if not py.has_venv and profile.platform in ("linux", "wsl2"):
        ctx.note(t("probe.no_venv_module", version=".".join(py.version.split(".")[:2])))
    return "python"
