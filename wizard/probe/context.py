"""What every probe part receives: the system door, NVML, and a place for notes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata

from wizard.nvml import NvmlBackend, PynvmlBackend
from wizard.sysio import System


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


def running_python() -> PythonFacts:
    import importlib.util
    import platform

    def has(mod: str) -> bool:
        try:
            return importlib.util.find_spec(mod) is not None
        except (ImportError, ValueError):
            return False

    return PythonFacts(
        version=platform.python_version(),
        executable=sys.executable,
        prefix=sys.prefix,
        base_prefix=getattr(sys, "base_prefix", sys.prefix),
        platform=sys.platform,
        machine=platform.machine(),
        has_pip=has("pip"),
        has_venv=has("venv") and has("ensurepip"),
        libc=_libc(),
    )


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
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)
