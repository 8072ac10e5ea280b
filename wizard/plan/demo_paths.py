"""A demo plan names the wizard's own files as they are on the demo machine, not on this one.

A real plan names this installation's uv (the `uv` dependency's binary) and the programs folder
in this user's data folder. A demo profile's plan must show what the real program would run on
that machine: the same uv, the same programs, but in the demo user's home (the plan's home, e.g.
/home/student): the wizard installed there by README command 1 (`./install.sh` in a clone named
tf-gpu-wizard: `~/tf-gpu-wizard/.venv/bin/uv`) and platformdirs' data folder
(`~/.local/share/tf-gpu-wizard/programs`; on Windows `AppData\\Local\\tf-gpu-wizard\\programs`).

`build_plan` sets the demo home for a simulated profile (`shown_under`); `programs.program` and
`installer.choose_installer` read it. Nothing here touches the files themselves: the programs are
still written into this machine's folder, where the exported script reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import PurePath, PurePosixPath, PureWindowsPath

_HOME: ContextVar[PurePath | None] = ContextVar("demo_home", default=None)

# The demo user's wizard, relative to their home (README command 1 in a clone of this repository).
WIZARD_CLONE = "tf-gpu-wizard"


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
