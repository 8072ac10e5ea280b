"""wizard.safe: atomic writes against real write failures, bounded reads, strings made safe to show,
and the one-run lock held by a real second process.

Tests run as root, which ignores file permissions, so the write failures are made in ways root
cannot get around: a folder that is really a file (ENOTDIR), a target that is a folder (EISDIR), and
a file-size limit (RLIMIT_FSIZE with SIGXFSZ ignored: EFBIG, what a full disk looks like to a writer)
set in a child process.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from wizard.safe import display
from wizard.safe.atomic import TooLarge, WriteError, read_bytes_limited, read_tail, write_text_atomic
from wizard.safe.lock import LockBusy, RunLock, holder

ROOT = Path(__file__).resolve().parents[1]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ---- atomic writes -----------------------------------------------------------------------------


def test_write_replaces_whole_and_keeps_mode_and_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "bashrc"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / ".bashrc"
    link.symlink_to(real)
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert real.stat().st_mode & 0o777 == 0o640
    assert _leftovers(real.parent) == [] and _leftovers(tmp_path) == []


def test_a_folder_that_is_a_file_gives_one_line_and_no_temp(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("I am a file")
    with pytest.raises(WriteError) as err:
        write_text_atomic(blocker / "run.json", "{}", make_parents=True)
    message = str(err.value)
    assert "\n" not in message and str(blocker / "run.json") in message
    assert blocker.read_text() == "I am a file" and _leftovers(tmp_path) == []


def test_a_target_that_is_a_folder_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "profile.json"
    target.mkdir()
    (target / "keep").write_text("x")
    with pytest.raises(WriteError):
        write_text_atomic(target, "{}")
    assert (target / "keep").read_text() == "x" and _leftovers(tmp_path) == []


FULL_DISK = """
import resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
from wizard.safe.atomic import WriteError, write_text_atomic
try:
    write_text_atomic(Path(sys.argv[1]), "y" * 100_000)
except WriteError as exc:
    print("WriteError:", exc)
"""


def test_full_disk_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "journal.json"
    target.write_text("the old, complete content\n")
    out = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(target), "4096"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("WriteError:") and "File too large" in out.stdout
    assert out.stdout.count("\n") == 1  # one line
    assert target.read_text() == "the old, complete content\n"
    assert _leftovers(tmp_path) == []


# ---- bounded reads -----------------------------------------------------------------------------


def test_read_bytes_limited_refuses_a_huge_file(tmp_path: Path) -> None:
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(50 << 20)  # sparse: 50 MB that cost nothing to make
    with pytest.raises(TooLarge):
        read_bytes_limited(big, 1 << 20)
    assert read_bytes_limited(tmp_path / "big", 100 << 20)[:3] == b"\0\0\0"


def test_tail_of_a_100_mb_log_reads_only_its_end(tmp_path: Path) -> None:
    log = tmp_path / "huge.log"
    with open(log, "wb") as fh:
        fh.truncate(100 << 20)
        fh.seek(0, os.SEEK_END)
        fh.write(b"\nerror: the last line\n")
    started = time.perf_counter()
    tail = read_tail(log, 64 << 10)
    elapsed = time.perf_counter() - started
    assert tail.truncated and tail.text.endswith("error: the last line\n")
    assert tail.scanned <= 64 << 10 and elapsed < 1.0


def test_tail_of_dev_zero_stops(tmp_path: Path) -> None:
    started = time.perf_counter()
    with open("/dev/zero", "rb") as fh:
        tail = read_tail(fh, 4096, max_scan=8 << 20)
    assert tail.stopped and tail.scanned == 8 << 20 and len(tail.text) <= 4096
    assert time.perf_counter() - started < 5


def test_tail_of_a_pipe_keeps_the_end() -> None:
    stream = io.BytesIO(b"".join(b"line %d\n" % i for i in range(100_000)))
    tail = read_tail(stream, 1000)
    assert tail.truncated and tail.text.endswith("line 99999\n") and tail.text.startswith("line ")


# ---- strings made safe to show -------------------------------------------------------------------

HOSTILE = [
    "RTX \x1b]52;c;aGVsbG8=\x07",  # OSC 52: writes the clipboard
    "\x1b[2J\x1b[H cleared",  # clears the screen
    "bell \x07 and \x9b31m C1 CSI",
    "lone \ud800 surrogate",
    "\u202egnp.exe",  # right-to-left override
    "x[/b] and [old] and [bold red]",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_safe_strings_hold_no_control_characters(value: str) -> None:
    shown = display.safe(value)
    assert all(ch.isprintable() for ch in shown), repr(shown)
    shown.encode("utf-8")  # no lone surrogate left to crash an encoder


def test_safe_shows_what_it_replaced() -> None:
    assert display.safe("a\x1bb") == "a\\x1bb"
    assert display.safe("a\nb") == "a\\nb" and display.safe("a\nb", multiline=True) == "a\nb"
    assert display.safe("\ud800") == "\\ud800"


def test_long_strings_are_cut_with_an_ellipsis_quickly() -> None:
    name = "N" * 100_000
    started = time.perf_counter()
    shown = display.safe(name, 80)
    assert len(shown) == 80 and shown.endswith("…")
    assert time.perf_counter() - started < 0.05


def test_markup_in_data_is_shown_as_text_by_rich() -> None:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    table = Table()
    table.add_column("path")
    table.add_row(display.text("/home/x[/b]/v[old]/bin/python"))
    console.print(table)
    console.print(display.text("[bold red]evil[/]"))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "/home/x[/b]/v[old]/bin/python" in out and "[bold red]evil[/]" in out


# ---- one run at a time -----------------------------------------------------------------------------

HOLDER = """
import sys, time
from pathlib import Path
from wizard.safe.lock import RunLock
RunLock(Path(sys.argv[1])).acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_a_second_process_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    path = tmp_path / "state" / "run.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        assert holder(path) == proc.pid
        with pytest.raises(LockBusy) as err:
            RunLock(path).acquire()
        assert err.value.pid == proc.pid and str(proc.pid) in str(err.value)
        assert "\n" not in str(err.value)
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # the kernel releases the lock of a killed holder
        proc.wait()
    assert holder(path) is None
    with RunLock(path) as lock:
        assert lock.held and holder(path) == os.getpid()
    assert holder(path) is None


def test_the_lock_is_reentrant_in_one_process_and_not_inherited(tmp_path: Path) -> None:
    path = tmp_path / "run.lock"
    outer, inner = RunLock(path), RunLock(path)
    outer.acquire()
    inner.acquire()  # the CLI holds it, then the runner takes it again
    inner.release()
    # A child started now (like every command the runner starts) does not hold it ...
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys
                from pathlib import Path
                from wizard.safe.lock import LockBusy, RunLock
                try:
                    RunLock(Path(sys.argv[1])).acquire()
                except LockBusy as exc:
                    print("busy", exc.pid)
                """
            ),
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout.split() == ["busy", str(os.getpid())]
    outer.release()
    assert holder(path) is None


def test_a_command_that_floods_its_output_is_read_bounded() -> None:
    from wizard.sysio import MAX_OUTPUT, run_command

    result = run_command(["sh", "-c", "head -c 50000000 /dev/zero; echo done >&2"], 30)
    assert result.ok and len(result.stdout) == MAX_OUTPUT and result.stderr == "done\n"
