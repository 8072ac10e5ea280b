"""What a long install is doing, while its own output is silent.

pip prints "Installing collected packages: ..." and then nothing for the 40 s (3 GB
with [and-cuda]: minutes) it takes to unpack; uv's summary lines come only at the end
of each phase. While a pip or uv command runs, `InstallProgress` reads its lines
(packages collected, bytes announced for download, uv's phases) and, whenever the
command has said nothing for `interval` seconds, gives a heartbeat line: the elapsed
time, what it is doing, and how big the environment has grown. The runner writes it
to the output and the log like any other line.
"""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from wizard.text import t

HEARTBEAT_S = 5.0

_UNITS = {"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024, "mib": 1024**2, "gib": 1024**3}
_PIP_COLLECTING = re.compile(r"^\s*Collecting (\S+)")
_PIP_DOWNLOAD = re.compile(r"^\s*Downloading \S+ \(([0-9.]+)\s*([kKmMgG]i?[bB]|[bB])\)")
_PIP_INSTALLING = re.compile(r"^\s*Installing collected packages: (.*)$")
_UV_PHASE = re.compile(r"^\s*(Resolved|Prepared|Installed|Downloaded|Uninstalled) ([0-9]+) packages?")
_UV_DOWNLOADING = re.compile(r"^\s*Downloading (\S+) \(([0-9.]+)\s*([kKmMgG]i?[bB])\)")


def is_install_command(argv: Sequence[str]) -> bool:
    """`python -m pip install ...`, `pip install ...`, `uv pip install ...`, `uv venv`, `conda create`."""
    words = [Path(w).name for w in argv[:4]]
    if len(words) >= 4 and words[1:4] == ["-m", "pip", "install"]:
        return True
    if words and words[0].startswith("pip") and words[1:2] == ["install"]:
        return True
    if words and words[0] in ("uv", "uv.exe"):
        return words[1:3] == ["pip", "install"] or words[1:2] in (["venv"], ["python"])
    conda = bool(words) and words[0] in ("conda", "conda.exe", "mamba")
    return conda and words[1:2] in (["create"], ["install"])


def install_progress(argv: Sequence[str], env_dir: str | None) -> InstallProgress | None:
    """A progress follower for an install command, None for anything else."""
    return InstallProgress(env_dir) if is_install_command(argv) else None


def folder_bytes(path: Path) -> int:
    """Bytes in a folder tree; files that vanish while it is walked are skipped."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def size_text(n: float) -> str:
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{int(n)} B"


def elapsed_text(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


class InstallProgress:
    """Follows one install command's output; `heartbeat()` says what it is doing."""

    def __init__(
        self,
        env_dir: Path | str | None,
        *,
        interval: float = HEARTBEAT_S,
        clock: Callable[[], float] = time.monotonic,
        measure: Callable[[Path], int] = folder_bytes,
    ) -> None:
        self.env_dir = Path(env_dir) if env_dir else None
        self.interval = interval
        self.clock = clock
        self.measure = measure
        self.started = clock()
        self.last_output = self.started
        self.last_beat = self.started
        self.collected = 0
        self.announced_bytes = 0.0
        self.installing = 0  # packages pip said it is installing now
        self.phase = ""  # uv's last summary: "Prepared 31 packages"

    def saw(self, line: str) -> None:
        """One line of the command's output."""
        self.last_output = self.clock()
        if _PIP_COLLECTING.match(line):
            self.collected += 1
        elif m := _PIP_DOWNLOAD.match(line):
            self.announced_bytes += float(m.group(1)) * _UNITS.get(m.group(2).lower(), 1)
        elif m := _PIP_INSTALLING.match(line):
            self.installing = len([p for p in m.group(1).split(",") if p.strip()])
        elif m := _UV_PHASE.match(line):
            self.phase = f"{m.group(1)} {m.group(2)}"
        elif m := _UV_DOWNLOADING.match(line):
            self.announced_bytes += float(m.group(2)) * _UNITS.get(m.group(3).lower(), 1)

    def due(self) -> bool:
        now = self.clock()
        return now - self.last_output >= self.interval and now - self.last_beat >= self.interval

    def heartbeat(self) -> str:
        """The line to show now: elapsed time, what the command is at, the environment's size."""
        self.last_beat = self.clock()
        elapsed = elapsed_text(self.last_beat - self.started)
        if self.installing:
            doing = t("progress.unpacking", count=self.installing)
        elif self.phase:
            doing = t("progress.uv_phase", phase=self.phase)
        elif self.collected:
            doing = t("progress.downloading", count=self.collected, size=size_text(self.announced_bytes))
        else:
            doing = t("progress.working")
        size = ""
        if self.env_dir is not None and self.env_dir.is_dir():
            size = t("progress.env_size", path=str(self.env_dir), size=size_text(self.measure(self.env_dir)))
        return t("progress.heartbeat", elapsed=elapsed, doing=doing, size=size).rstrip()


def wait_readable(fd: int, timeout: float) -> bool:
    """True when `fd` has output (or hit its end) within `timeout` seconds."""
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    except (OSError, ValueError):
        return True  # cannot wait here (no select on this fd): read, as before
    return bool(ready)
