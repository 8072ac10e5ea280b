"""What every harvest step shares: pip, the scratch folder, progress output and error recording."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maint.harvest.resolve import Pip, manylinux_platforms, strip_urls
from maint.harvest.store import Store

# Python versions probed for wheels; 3.7 is where TF 2.10/2.11 start.
PYTHONS = ("3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")
# A Linux x86_64 host with glibc 2.35 (Ubuntu 22.04): accepts every manylinux tag up to 2_35.
LINUX_GLIBC = 35
LINUX_X86_64 = manylinux_platforms("x86_64", LINUX_GLIBC)
# The wheel that is downloaded and read is the one for this Python when it exists.
PREFERRED_PYTHON = "3.11"


@dataclass
class Context:
    pip: Pip
    store: Store
    workdir: Path
    pythons: tuple[str, ...] = PYTHONS
    force: bool = False
    started: float = field(default_factory=time.monotonic)

    def log(self, message: str) -> None:
        elapsed = time.monotonic() - self.started
        print(f"[{elapsed:7.1f}s] {message}", file=sys.stderr, flush=True)

    def stage(self, entry: dict[str, Any], name: str, step: Callable[[], None]) -> bool:
        """Run one step; a failure is recorded in entry['errors'] and the harvest goes on."""
        try:
            step()
        except Exception as exc:  # one bad artifact must not stop the harvest
            message = f"{type(exc).__name__}: {strip_urls(str(exc))}"
            entry.setdefault("errors", {})[name] = message
            self.log(f"  ! {name}: {message}")
            return False
        return True

    def discard(self, wheel: Path) -> None:
        """Wheels are gigabytes: drop the wheel and its download folder as soon as it is read."""
        shutil.rmtree(wheel.parent, ignore_errors=True)


def pick_python(available: set[str] | list[str], preferred: str = PREFERRED_PYTHON) -> str:
    if preferred in available:
        return preferred
    return max(available, key=lambda v: tuple(int(x) for x in v.split(".")))
