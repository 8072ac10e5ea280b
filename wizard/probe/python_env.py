"""Python: version, interpreter, and whether it lives in a venv or a conda env."""

from __future__ import annotations

from pathlib import PurePath

from wizard.probe.context import ProbeContext, PythonFacts
from wizard.probe.installers import probe_installers
from wizard.profile import MachineProfile


def probe_python(ctx: ProbeContext, profile: MachineProfile) -> str:
    py = ctx.python
    info = profile.python
    info.version = py.version
    info.executable = py.executable
    info.pip = py.has_pip
    info.venv_module = py.has_venv
    env = ctx.system.environ
    conda_prefix = env.get("CONDA_PREFIX")
    prefix = py.prefix
    if py.prefix != py.base_prefix and not ctx.system.exists(str(PurePath(py.prefix) / "conda-meta")):
        # A venv: the wizard's own (install.sh makes it). It is not the machine's Python, and the
        # TensorFlow environment must not be made from it: describe the interpreter it was made from.
        base = _base_executable(py)
        ctx.note("probe.python_base", venv=py.prefix, python=base)
        info.executable = base
        info.pip = py.base_has_pip
        info.venv_module = py.base_has_venv
        prefix = py.base_prefix
        conda_prefix = None  # the activated conda env (if any) is the venv's parent, not the target
    if ctx.system.exists(str(PurePath(prefix) / "conda-meta")) or (
        conda_prefix and PurePath(conda_prefix) == PurePath(prefix)
    ):
        info.env = "conda"
        info.env_name = env.get("CONDA_DEFAULT_ENV") or PurePath(prefix).name
    else:
        info.env = "system"
    probe_installers(ctx, info)
    if info.venv_module is False and profile.platform in ("linux", "wsl2"):
        ctx.note("probe.no_venv_module", version=".".join(py.version.split(".")[:2]))
    return "python"


def _base_executable(py: PythonFacts) -> str:
    """sys._base_executable when it is known and not the venv's own; else base_prefix/bin/pythonX.Y."""
    if py.base_executable and PurePath(py.base_executable) != PurePath(py.executable):
        return py.base_executable
    minor = ".".join(py.version.split(".")[:2])
    if py.platform == "win32":
        return str(PurePath(py.base_prefix) / "python.exe")
    return str(PurePath(py.base_prefix) / "bin" / f"python{minor}")
