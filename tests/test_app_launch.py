"""Launch time: from starting `tf-gpu-wizard` to the first screen drawn on a terminal."""

from __future__ import annotations

import os
import select
import signal
import sys
import time

import pytest

pty = pytest.importorskip("pty")

NEEDLE = b"What will happen"


def time_to_first_screen(argv: list[str], timeout: float = 15.0) -> float | None:
    """Seconds until the welcome screen's text reaches the terminal (a real pty)."""
    import fcntl
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: the wizard itself, on the pty
        os.environ["TERM"] = "xterm-256color"
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    start = time.perf_counter()
    seen = b""
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return None
            if not chunk:
                return None
            seen += chunk
            if NEEDLE in seen:
                return time.perf_counter() - start
        return None
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_first_screen_is_up_quickly() -> None:
    argv = [sys.executable, "-m", "wizard", "--profile", "wsl2-rtx4060-laptop"]
    # The first start may be cold (nothing in the page cache, no bytecode on a shared CI box): it
    # must still come up, later; the quick ones are the measure.
    times = [time_to_first_screen(argv, timeout=60.0 if i == 0 else 15.0) for i in range(3)]
    assert all(t is not None for t in times), times
    best = min(t for t in times if t is not None)
    print(f"launch to first screen: best {best:.2f} s of {[round(t or 0, 2) for t in times]}")
    # The goal is < 1 s on a quiet machine; the CI box is shared, so this guards regressions only.
    assert best < 3.0
