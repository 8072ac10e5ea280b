"""What every probe part receives: the system door, NVML, and a place for notes."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from wizard.nvml import NvmlBackend, PynvmlBackend
from wizard.profile import Evidence, Note, note
from wizard.sysio import CommandResult, System


@dataclass(frozen=True)
class PythonFacts:
    """The interpreter being described; the running one unless a test says otherwise."""

    version: str
    executable: str
    prefix: str
    base_prefix: str
    platform: str  # sys.platform
    machine: str  # platform.machine()
    has_pip: bool
    has_venv: bool  # venv + ensurepip usable (Debian splits ensurepip into python3-venv)
    libc: str = ""  # os.confstr("CS_GNU_LIBC_VERSION"): "glibc 2.35"; "" off glibc (musl, macOS, Windows)
    # Inside a venv (the wizard's own .venv): the interpreter it was made from, with its pip and venv.
    # "" / None: not in a venv, or not known (python_env then looks under base_prefix).
    base_executable: str = ""
    base_has_pip: bool | None = None
    base_has_venv: bool | None = None


def running_python() -> PythonFacts:
    import importlib.util
    import platform

    def has(mod: str) -> bool:
        try:
            return importlib.util.find_spec(mod) is not None
        except (ImportError, ValueError):
            return False

    base_prefix = getattr(sys, "base_prefix", sys.prefix)
    in_venv = sys.prefix != base_prefix
    return PythonFacts(
        version=platform.python_version(),
        executable=sys.executable,
        prefix=sys.prefix,
        base_prefix=base_prefix,
        platform=sys.platform,
        machine=platform.machine(),
        has_pip=has("pip"),
        has_venv=has("venv") and has("ensurepip"),
        libc=_libc(),
        base_executable=getattr(sys, "_base_executable", sys.executable),
        base_has_pip=_base_has("pip", base_prefix) if in_venv else None,
        base_has_venv=(_stdlib_has("venv") and _stdlib_has("ensurepip")) if in_venv else None,
    )


def _stdlib_has(name: str) -> bool:
    """A venv shares the base interpreter's standard library (os lives there)."""
    import os

    return os.path.isdir(os.path.join(os.path.dirname(os.__file__), name))


def _base_has(name: str, base_prefix: str) -> bool:
    """A package in the base interpreter's own site-packages (dist-packages on Debian)."""
    import importlib.machinery
    import site

    try:
        paths = site.getsitepackages([base_prefix])
        return importlib.machinery.PathFinder.find_spec(name, paths) is not None
    except (ImportError, ValueError, AttributeError, OSError):
        return False


def _libc() -> str:
    import os

    try:
        return os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):  # no confstr (Windows) or no such name (musl, macOS)
        return ""


def installed_version(name: str) -> str | None:
    """The installed version of one distribution; asking by name avoids reading
    every package's metadata (which took half of `detect`'s time)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@dataclass
class ProbeContext:
    system: System = field(default_factory=System)
    nvml_factory: Callable[[], NvmlBackend] = PynvmlBackend
    python: PythonFacts = field(default_factory=running_python)
    installed: Callable[[str], str | None] = installed_version
    nvml_timeout: float = 5.0
    notes: list[Note] = field(default_factory=list)
    # What one part read that a later one judges (wizard.probe.states): raw answers by name.
    seen: dict[str, Any] = field(default_factory=dict)
    # Replaying a dump: the answers the real machine gave where the probe asks Python, not the
    # System (the wizard's own uv, RAM/CPUs/free disk). None: ask this machine.
    bundled_uv: Callable[[], str | None] | None = None
    resources_reader: Callable[[], dict[str, Any]] | None = None

    def note(self, code: str, **fields: object) -> None:
        """A note as a catalogue key under probe. and its fields (worded when shown)."""
        self.add(note(code, **fields))

    def add(self, item: Note) -> None:
        if item not in self.notes:
            self.notes.append(item)


def command_evidence(argv: Sequence[str], result: CommandResult, line: str = "") -> Evidence:
    """A command's answer as evidence: its words, exit code and the deciding line (its first
    non-empty output line when none is named)."""
    if not line:
        text = (result.stdout + "\n" + result.stderr).strip().splitlines()
        line = next((x.strip() for x in text if x.strip()), "")
    code = None if result.missing else result.returncode
    return Evidence(source=shlex.join(argv), exit=code, line=line[:1000])


def file_evidence(path: str, line: str) -> Evidence:
    return Evidence(source=path, exit=None, line=line[:1000])
