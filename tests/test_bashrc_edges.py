""".bashrc edges, on real files with the shipped program (the one implementation; the Python API
runs it too): add then remove gives back the file byte for byte (CRLF, no final line break, empty,
Latin-1); a CRLF file gets a CRLF block; a read-only file and an immutable one (chattr +i) are a
clear failure with a non-zero exit and every byte kept; a file that ends inside an unterminated
heredoc gets no block, however often the add is retried."""

from __future__ import annotations

import inspect
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from wizard.plan import shellblock
from wizard.plan.linux import CUDA_ENV_BODY

BEGIN, END = shellblock.markers("cuda")

ORIGINALS = {
    "lf": b"# my bashrc\nalias ll='ls -l'\nexport EDITOR=vim\n",
    "no-final-break": b"alias ll='ls -l'\nexport EDITOR=vim",
    "crlf": b"alias ll='ls -l'\r\nexport EDITOR=vim\r\n",
    "crlf-no-final-break": b"alias ll='ls -l'\r\nexport EDITOR=vim",
    "empty": b"",
    "blank-lines-at-end": b"export A=1\n\n\n",
    "latin-1": "# caf\u00e9 na\u00efve\nexport A=1\n".encode("latin-1"),
    "heredoc-closed": b"cat > /tmp/x <<'EOF'\nhello\nEOF\nexport A=1\n",
}


def _program(action: str, rc: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    if action == "add":
        argv = shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)
    elif action == "remove":
        argv = shellblock.remove_command(rc, "cuda")
    else:
        argv = shellblock.present_check(rc, "cuda").argv
    return subprocess.run(list(argv), capture_output=True, text=True)


@pytest.mark.parametrize("name", list(ORIGINALS))
@pytest.mark.parametrize("how", ["program", "python"])
def test_add_then_remove_gives_back_every_byte(tmp_path: Path, name: str, how: str) -> None:
    rc = tmp_path / ".bashrc"
    original = ORIGINALS[name]
    rc.write_bytes(original)
    for _ in range(3):  # and again: no blank line piles up, cycle after cycle
        if how == "program":
            assert _program("add", rc).returncode == 0
        else:
            assert shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)
        with_block = rc.read_bytes()
        assert _program("check", rc).returncode == 0 and shellblock.has_block(rc, "cuda")
        assert with_block.count(BEGIN.encode()) == 1
        if how == "program":
            assert _program("remove", rc).returncode == 0
        else:
            assert shellblock.remove_block(rc, "cuda")
        assert rc.read_bytes() == original, (name, rc.read_bytes())


def test_a_crlf_file_gets_a_crlf_block(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(ORIGINALS["crlf"])
    assert _program("add", rc).returncode == 0
    data = rc.read_bytes()
    assert data.startswith(ORIGINALS["crlf"])
    assert data.count(b"\n") == data.count(b"\r\n"), "every line ends in CRLF, the block's too"
    assert (BEGIN + "\r\n").encode() in data and (END + "\r\n").encode() in data


def test_python_and_program_write_the_same_bytes(tmp_path: Path) -> None:
    for name, original in ORIGINALS.items():
        a, b = tmp_path / f"{name}.a", tmp_path / f"{name}.b"
        a.write_bytes(original)
        b.write_bytes(original)
        assert _program("add", a).returncode == 0
        shellblock.add_block(b, "cuda", CUDA_ENV_BODY)
        assert a.read_bytes() == b.read_bytes(), name
    # One implementation: the Python module parses no shell itself.
    source = inspect.getsource(shellblock)
    assert "def _opens" not in source and "def _strip" not in source


def _no_temp_left(folder: Path) -> None:
    assert not list(folder.glob(".tf-gpu-wizard.*")), list(folder.iterdir())


def test_a_read_only_bashrc_is_a_clear_failure_and_keeps_every_byte(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(ORIGINALS["lf"])
    rc.chmod(0o444)
    done = _program("add", rc)
    assert done.returncode != 0
    assert "read-only" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Permission denied" not in done.stderr
    assert rc.read_bytes() == ORIGINALS["lf"] and stat.S_IMODE(rc.stat().st_mode) == 0o444
    _no_temp_left(tmp_path)
    with pytest.raises(shellblock.ShellBlockError, match="read-only"):
        shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)
    # A block already there, then made read-only: remove says so too.
    rc.chmod(0o644)
    assert _program("add", rc).returncode == 0
    with_block = rc.read_bytes()
    rc.chmod(0o444)
    done = _program("remove", rc)
    assert done.returncode != 0 and "read-only" in done.stderr
    assert rc.read_bytes() == with_block


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Path]:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(ORIGINALS["lf"])
    if not shutil.which("chattr"):
        pytest.skip("no chattr")
    made = subprocess.run(["chattr", "+i", str(rc)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"chattr +i is not allowed here: {made.stderr.strip()}")
    try:
        yield rc
    finally:
        subprocess.run(["chattr", "-i", str(rc)], capture_output=True)


def test_an_immutable_bashrc_is_a_clear_failure_with_a_non_zero_exit(immutable: Path) -> None:
    done = _program("add", immutable)
    assert done.returncode != 0, "it used to print 'Operation not permitted' and exit 0"
    assert "immutable" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert immutable.read_bytes() == ORIGINALS["lf"]
    _no_temp_left(immutable.parent)
    assert _program("check", immutable).returncode != 0


UNTERMINATED = b"alias ll='ls -l'\ncat > ~/notes.txt <<EOF\nremember this\n"


def test_an_unterminated_heredoc_gets_no_block_on_any_retry(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(UNTERMINATED)
    for _ in range(3):
        done = _program("add", rc)
        assert done.returncode != 0
        assert "heredoc opened on line 2" in done.stderr, done.stderr
        assert rc.read_bytes() == UNTERMINATED
        assert _program("check", rc).returncode != 0
    _no_temp_left(tmp_path)
    assert not list(tmp_path.glob(".bashrc.tf-gpu-wizard-*.bak")), "nothing was changed, nothing backed up"
    # Once the user closes it, the add goes ahead (after the heredoc, not in it).
    rc.write_bytes(UNTERMINATED + b"EOF\n")
    assert _program("add", rc).returncode == 0 and _program("check", rc).returncode == 0
    out = subprocess.run(
        ["bash", "-c", 'source "$1" >/dev/null 2>&1; printf %s "$PATH"', "_", str(rc)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert "/usr/local/cuda/bin" in out.stdout.split(":"), "the block is shell code, not heredoc text"
