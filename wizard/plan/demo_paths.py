"""A demo plan names the wizard's own files as they are on the demo machine, not on this one.

A real plan names this installation's uv (the `uv` dependency's binary) and the programs folder
in this user's data folder. A demo profile's plan must show what the real program would run on
that machine: the same uv, the same programs, but in the demo user's home (the plan's home, e.g.
/home/student): the wizard installed there by README command 1 (`./install.sh` in a clone named
tf-gpu-wizard: `~/tf-gpu-wizard/.venv/bin/uv`) and platformdirs' data folder
(`~/.local/share/tf-gpu-wizard/programs`; on Windows `AppData\\Local\\tf-gpu-wizard\\programs`).

The demo user's home is the one the profile names (its Python or its uv under /home/NAME, as
/home/sam/tf/bin/python does), else, for a bundled demo that names none, DEMO_HOME: never this
machine's home beside that machine's Python (`home_of`, through `build.machine_home`).
`build_plan` sets the demo home for a simulated profile (`shown_under`); `programs.program` and
`installer.choose_installer` read it. Nothing here touches the files themselves: the programs are
still written into this machine's folder, where the exported script reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wizard.profile import MachineProfile

_HOME: ContextVar[PurePath | None] = ContextVar("demo_home", default=None)

# The demo user's wizard, relative to their home (README command 1 in a clone of this repository).
WIZARD_CLONE = "tf-gpu-wizard"

# A bundled demo's user where its profile names no home of its own (one clear, made-up home).
DEMO_HOME = PurePosixPath("/home/student")
DEMO_HOME_MACOS = PurePosixPath("/Users/student")

# A home in a path the profile holds: /home/NAME/..., /root/..., macOS /Users/NAME/...
_HOME_IN = re.compile(r"^(/home/[^/]+|/root|/Users/[^/]+)(?:/|$)")


def home_of(profile: MachineProfile) -> PurePosixPath | None:
    """The home folder a (saved or demo) Linux or macOS profile names: its Python's, else its uv's
    (/home/sam/tf/bin/python -> /home/sam); None when it names none (/usr/bin/python3)."""
    for path in (profile.python.executable, profile.python.uv or ""):
        found = _HOME_IN.match(path) if isinstance(path, str) else None
        if found and ".." not in found.group(1).split("/") and found.group(1).isprintable():
            return PurePosixPath(found.group(1))
    return None


def demo_default_home(profile: MachineProfile) -> PurePosixPath:
    return DEMO_HOME_MACOS if profile.platform == "macos" else DEMO_HOME


@contextmanager
def shown_under(home: PurePath | None) -> Iterator[None]:
    """While a demo plan is built: the wizard's files are named under `home` (None: this machine's)."""
    token = _HOME.set(home)
    try:
        yield
    finally:
        _HOME.reset(token)


def demo_home() -> PurePath | None:
    return _HOME.get()


def demo_programs_dir(home: PurePath) -> PurePath:
    if isinstance(home, PureWindowsPath):
        return home / "AppData" / "Local" / "tf-gpu-wizard" / "programs"
    return home / ".local" / "share" / "tf-gpu-wizard" / "programs"


def demo_uv(home: PurePath | None) -> str:
    """The wizard's own uv on the demo machine (`~/tf-gpu-wizard/.venv/bin/uv` when no home is set)."""
    base = home if home is not None else PurePosixPath("~")
    return str(base / WIZARD_CLONE / ".venv" / "bin" / "uv")


def is_demo_programs_dir(folder: PurePath) -> bool:
    """A folder a demo plan names the programs in (any demo home)."""
    parts = folder.parts
    return parts[-4:] == (".local", "share", "tf-gpu-wizard", "programs") or [
        p.lower() for p in parts[-4:]
    ] == ["appdata", "local", "tf-gpu-wizard", "programs"]
