"""One marked block in a shell start-up file (~/.bashrc): added once, backed up, removable.

    # >>> tf-gpu-wizard cuda >>>
    export PATH=...
    # <<< tf-gpu-wizard cuda <<<

One implementation: the bash program assets/programs/shellblock.sh, which plan steps and the
exported script run with the file, the markers and the block's lines as arguments (one each, so a
printed command stays one line). `add_block`, `remove_block` and `has_block` here run that same
program, so the wizard and its plans cannot disagree (CRLF files, heredocs, line breaks).

What the program guarantees: the whole new file is written to a temp file beside it, synced and
renamed over it after a backup (its own name each time), so a kill leaves the old file or the new
one; a symlinked file is written through the link; add then remove gives back the file byte for
byte (a CRLF file gets a CRLF block); the block counts only when its start marker is followed by
its end marker outside any heredoc; a start marker alone is cleaned up; a file that ends inside an
unterminated heredoc, a read-only or immutable file and a special file are refused with one line
and a non-zero exit (ShellBlockError here).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from wizard.assets import asset_file
from wizard.plan.model import Check
from wizard.plan.programs import program
from wizard.text import t

TAG = "tf-gpu-wizard"

PROGRAM = "shellblock.sh"  # assets/programs: the same block logic in bash, for plan steps


def markers(name: str) -> tuple[str, str]:
    return f"# >>> {TAG} {name} >>>", f"# <<< {TAG} {name} <<<"


def _normal_body(body: str) -> str:
    return body if body.endswith("\n") or not body else body + "\n"


def backup_suffix() -> str:
    return f"{TAG}-{time.strftime('%Y%m%d-%H%M%S')}"


def add_command(path: Path, name: str, body: str) -> tuple[str, ...]:
    begin, end = markers(name)
    # The backup's date is taken by the shell at run time, not frozen into the plan.
    return ("bash", program(PROGRAM), "add", str(path), begin, end, *_normal_body(body).splitlines())


def remove_command(path: Path, name: str) -> tuple[str, ...]:
    begin, end = markers(name)
    return ("bash", program(PROGRAM), "remove", str(path), begin, end)


def present_check(path: Path, name: str) -> Check:
    begin, end = markers(name)
    # The program's check: the same heredoc rule as its add and remove.
    return Check(
        ("bash", program(PROGRAM), "check", str(path), begin, end),
        t("story.check.block_present", path=str(path), tag=TAG, name=name),
    )


class ShellBlockError(OSError):
    """The program refused or failed (a read-only, immutable or special file, a heredoc left open):
    `str()` is its one line."""


def _run(action: str, path: Path, name: str, *lines: str) -> int:
    """The shipped program (assets/programs/shellblock.sh): the one implementation of the block."""
    begin, end = markers(name)
    script = asset_file(f"programs/{PROGRAM}")
    done = subprocess.run(
        ["bash", str(script), action, str(path), begin, end, *lines], capture_output=True, text=True
    )
    if done.returncode != 0 and action != "check":
        raise ShellBlockError(done.stderr.strip() or f"{PROGRAM} {action} exited {done.returncode}")
    return done.returncode


def has_block(path: Path, name: str) -> bool:
    """A complete block: the start marker, then the end marker, outside any heredoc."""
    return _run("check", path, name) == 0


def add_block(path: Path, name: str, body: str) -> bool:
    """Add the block unless it is there; back up an existing file first. True if changed."""
    if has_block(path, name):
        return False
    _run("add", path, name, *_normal_body(body).splitlines())
    return True


def remove_block(path: Path, name: str) -> bool:
    """Delete exactly the block (markers and the line break add put before it), after a backup.
    True if changed."""
    target = Path(os.path.realpath(path))
    try:
        before = target.read_bytes() if target.is_file() else None
    except OSError:
        return False
    _run("remove", path, name)
    try:
        return before is not None and target.read_bytes() != before
    except OSError:
        return False
