"""The one door to the machine: files under a root directory and commands.

The probe (and anything else that looks at the system) reads files and runs
commands only through a `System`, so tests point it at a fixture tree and a
table of canned command results instead of patching the real machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO


@dataclass(frozen=True)
class CommandResult:
    returncode: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    missing: bool = False  # the program is not installed

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.missing


CommandRunner = Callable[[Sequence[str], float], CommandResult]


MAX_OUTPUT = 4 << 20  # bytes kept of a command's stdout and of its stderr


def run_command(argv: Sequence[str], timeout: float) -> CommandResult:
    """Run argv (never through a shell) with a timeout; never raises. The output goes to temp
    files and only the first MAX_OUTPUT bytes of each are read back, so a command that floods its
    output (or a hostile stand-in) cannot fill the wizard's memory."""
    exe = shutil.which(argv[0])
    if exe is None:
        return CommandResult(127, missing=True)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.run(
                [exe, *argv[1:]],
                stdout=out,
                stderr=err,
                timeout=timeout,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return CommandResult(124, timed_out=True)
        except OSError as exc:
            return CommandResult(126, stderr=str(exc), missing=True)
        return CommandResult(proc.returncode, _head(out), _head(err))


def _head(fh: IO[bytes]) -> str:
    fh.seek(0)
    return fh.read(MAX_OUTPUT).decode("utf-8", "replace")


@dataclass
class System:
    """Files are read relative to `root` ("/" on a real machine)."""

    root: Path = Path("/")
    runner: CommandRunner = run_command
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    home: Path = field(default_factory=Path.home)

    def path(self, p: str | os.PathLike[str]) -> Path:
        p = Path(p)
        if self.root == Path("/"):
            return p
        return self.root / p.relative_to("/") if p.is_absolute() else self.root / p

    def read_text(self, p: str | os.PathLike[str], limit: int = 1 << 20) -> str | None:
        """File text, or None when it is missing, unreadable or not a regular file (a FIFO where a
        pip.conf should be would block the probe for ever; /proc and /sys files are regular)."""
        from wizard.safe.atomic import open_regular

        try:
            with open(open_regular(self.path(p)), encoding="utf-8", errors="replace") as fh:
                return fh.read(limit)
        except OSError:
            return None

    def exists(self, p: str | os.PathLike[str]) -> bool:
        return self.path(p).exists()

    def is_dir(self, p: str | os.PathLike[str]) -> bool:
        return self.path(p).is_dir()

    def listdir(self, p: str | os.PathLike[str]) -> list[str]:
        try:
            return sorted(os.listdir(self.path(p)))
        except OSError:
            return []

    def glob(self, directory: str, pattern: str) -> list[str]:
        """Absolute (machine) paths under `directory` matching `pattern`."""
        base = self.path(directory)
        try:
            found = sorted(base.glob(pattern))
        except OSError:
            return []
        return [str(Path(directory) / f.relative_to(base)) for f in found]

    def realpath(self, p: str) -> str:
        """Where a symlink points, as a machine path."""
        real = os.path.realpath(self.path(p))
        if self.root == Path("/"):
            return real
        root = os.path.realpath(self.root)
        return "/" + os.path.relpath(real, root) if real.startswith(root) else real

    def run(self, argv: Sequence[str], timeout: float = 3.0) -> CommandResult:
        return self.runner(list(argv), timeout)


@dataclass
class CannedCommands:
    """A command runner for tests: argv prefix -> result; anything else is 'not installed'."""

    table: dict[tuple[str, ...], CommandResult] = field(default_factory=dict)
    calls: list[list[str]] = field(default_factory=list)

    def __call__(self, argv: Sequence[str], timeout: float) -> CommandResult:
        self.calls.append(list(argv))
        best: tuple[str, ...] | None = None
        for key in self.table:
            if tuple(argv[: len(key)]) == key and (best is None or len(key) > len(best)):
                best = key
        if best is None:
            return CommandResult(127, missing=True)
        return self.table[best]
