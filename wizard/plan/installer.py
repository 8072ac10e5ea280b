"""pip or uv: the commands that make the environment and install packages into it.

uv when the probe found it (the wizard depends on the `uv` package, so it always does on a machine
it runs on), pip where the person picks it (TF_GPU_WIZARD_INSTALLER=pip) or uv cannot be used; the
same constraints file and the same checks either way. Downloads go through uv's cache: a repeat or a
repair takes what it already has from there. uv is several times faster (maint/measure_installers.py measures
both; tensorflow-cpu 2.21.0 into a fresh env on a busy 2-core machine: pip 74-81 s,
uv 8-12 s with a cold cache, 2 s warm). uv does not read pip's configuration, so the index settings the
probe read from pip (a mirror, a private index, local wheels) are passed to it on the
command line; no index is ever named here. An index URL with a password in it is not
put on a command line: the plan then uses pip, which reads it from its own config.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from wizard.plan.demo_paths import demo_home, demo_uv
from wizard.profile import MachineProfile

UV_MIN = "0.4"  # `uv python`, `uv venv --seed --allow-existing`, `--index-strategy`


@dataclass(frozen=True)
class Installer:
    name: str  # "uv" or "pip"
    uv: str = ""  # uv's path
    index_args: tuple[str, ...] = ()  # pip's index settings as uv options

    @property
    def is_uv(self) -> bool:
        return self.name == "uv"

    def venv_commands(
        self, creator: str, venv: str, python: str, repair: tuple[str, ...] = ()
    ) -> tuple[tuple[str, ...], ...]:
        """Make the environment at `venv` with `creator` (an interpreter, or for uv a version).

        `repair` (a program and its arguments, given the env's folder) removes what an interrupted
        pip left and a damaged pip, so that the command after it installs pip whole again."""
        if self.is_uv:
            # No ensurepip needed (no python3-venv), and no `pip install --upgrade pip` to be killed
            # half-way: uv makes the env, then puts pip in it (for the student's own `pip install`),
            # from its cache when it has it.
            make = (self.uv, "venv", "--allow-existing", "--python", creator, venv)
            fix = ((python, *repair, venv),) if repair else ()
            return (make, *fix, self.install_command(python, "pip"))
        fix = ((creator, *repair, venv),) if repair else ()
        # `python -m venv` on an existing env runs ensurepip again, which puts back a pip removed above.
        return (*fix, (creator, "-m", "venv", venv), (python, "-m", "pip", "install", "--upgrade", "pip"))

    def install_command(self, python: str, *args: str) -> tuple[str, ...]:
        """`pip install ARGS` into the environment whose interpreter is `python`."""
        if self.is_uv:
            return (self.uv, "pip", "install", "--python", python, *self.index_args, *args)
        return (python, "-m", "pip", "install", *args)

    def locked_install_command(self, python: str, requirements: str) -> tuple[str, ...]:
        """Install exactly a hashed requirements file (every package `==` with its sha256): nothing
        resolved, nothing else pulled in. The same for uv and pip."""
        return self.install_command(python, "--require-hashes", "--no-deps", "-r", requirements)

    def python_install_command(self, version: str) -> tuple[str, ...]:
        """uv downloads a standalone CPython into the user's home: no root, no PPA."""
        return (self.uv, "python", "install", version)

    def python_find_command(self, version: str) -> tuple[str, ...]:
        return (self.uv, "python", "find", version)


PIP = Installer("pip")


def uv_index_args(profile: MachineProfile) -> tuple[str, ...]:
    """pip's index settings as uv options: uv then asks exactly the indexes pip would."""
    info = profile.python
    args: list[str] = []
    if info.uv_index_configured:
        return ()
    if info.pip_index_url:
        args += ["--index-url", info.pip_index_url]
    extra = (info.pip_extra_index_urls or "").split()
    for url in extra:
        args += ["--extra-index-url", url]
    for link in (info.pip_find_links or "").split():
        args += ["--find-links", link]
    if extra:
        # pip takes the best version across all its indexes; uv's default stops at the first.
        args += ["--index-strategy", "unsafe-best-match"]
    return tuple(args)


# The person's pick: `pip` makes every environment with venv + pip, as before uv came with the wizard.
INSTALLER_ENV = "TF_GPU_WIZARD_INSTALLER"


def choose_installer(profile: MachineProfile) -> Installer:
    """uv (the wizard brings its own, so a detected machine always has one) unless the person picked
    pip, the profile has none (an old saved profile), it is too old, or pip's index needs a secret.

    A demo profile shows what the real program would do there: the wizard's own uv, named where
    it is on the demo machine (wizard.plan.demo_paths), with the index settings its pip has."""
    info = profile.python
    if os.environ.get(INSTALLER_ENV, "").strip().lower() == "pip":
        return PIP
    if profile.platform == "windows" or info.pip_index_private:
        return PIP
    if not info.uv and profile.simulated:
        return Installer("uv", demo_uv(demo_home()), uv_index_args(profile))
    if not info.uv:
        return PIP
    try:
        if Version(info.uv_version or "0") < Version(UV_MIN):
            return PIP
    except InvalidVersion:
        return PIP
    return Installer("uv", info.uv, uv_index_args(profile))
