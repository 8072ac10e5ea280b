"""One marked block in a shell start-up file (~/.bashrc): added once, backed up, removable.

    # >>> tf-gpu-wizard cuda >>>
    export PATH=...
    # <<< tf-gpu-wizard cuda <<<

The same operations exist twice on purpose: as Python (`add_block`, `remove_block`,
used by the wizard itself and by tests) and as small bash programs (assets/programs/
shellblock.sh) that plan steps and the exported script run, with the file, the
markers and the block's lines passed as arguments (one each, so a printed command
stays one line), never pasted into the program.
A test holds the two to the same result.

The file is never appended to in place: the whole new file is written to a temp
file beside it, synced and renamed over it, so a kill at any moment leaves the
old file or the new one, with the block complete or absent. A symlinked file is
written through the link. The block counts as there only when its start marker
is followed by its end marker (the check too): a start marker alone, left by an
older version killed half-way, is not a block. Removal takes exactly the lines
from a start marker to its end marker, and a start marker with no end marker
after it is removed alone, so the user's own lines after it always stay. A marker
inside a heredoc (`cat <<'EOF'` ... `EOF`: a user's script that writes our block
somewhere) is the user's text: it neither counts as the block nor is removed.
Every backup has a name of its own (a second one in the same second gets "-2").
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from wizard.plan.model import Check
from wizard.plan.programs import program
from wizard.safe.atomic import write_text_atomic
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


def _read(path: Path) -> str:
    # surrogateescape: bytes that are not UTF-8 (a Latin-1 comment) are written back unchanged.
    from wizard.safe.atomic import open_regular

    with open(open_regular(path), "rb") as fh:  # a FIFO .bashrc: NotRegular, one line, no hang
        return fh.read().decode("utf-8", "surrogateescape")


_BREAK = set(" \t;&|<>()")


def _opens(line: str) -> list[tuple[str, bool]]:
    """The heredocs a shell line opens: (delimiter, tabs stripped by <<-), in order. Quotes, escapes,
    comments, here-strings (<<<) and arithmetic ((1 << 2)) are skipped, as bash does."""
    found: list[tuple[str, bool]] = []
    i, n, quote = 0, len(line), ""
    while i < n:
        c = line[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
            i += 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "#" and (i == 0 or line[i - 1] in " \t;&|()"):
            break
        if c in "'\"":
            quote = c
            i += 1
            continue
        if line.startswith("((", i):
            j = line.find("))", i + 2)
            if j < 0:
                break
            i = j + 2
            continue
        if not line.startswith("<<", i) or line.startswith("<<<", i):
            i += 1
            continue
        i += 2
        dash = line.startswith("-", i)
        i += dash
        while i < n and line[i] in " \t":
            i += 1
        word = ""
        while i < n and line[i] not in _BREAK:
            if line[i] not in "'\"\\":
                word += line[i]
            i += 1
        if word:
            found.append((word, dash))
    return found


def _quoted(lines: list[str]) -> set[int]:
    """The numbers of the lines that are heredoc bodies (their terminators included)."""
    inside: set[int] = set()
    pending: list[tuple[str, bool]] = []
    for n, line in enumerate(lines):
        bare = line.rstrip("\n")
        if pending:
            inside.add(n)
            word, tabs = pending[0]
            if (bare.lstrip("\t") if tabs else bare) == word:
                pending.pop(0)
            continue
        pending = _opens(bare)
    return inside


def _strip(lines: list[str], begin: str, end: str) -> list[str]:
    """Every line but the blocks, and but start markers that have no end marker after them; lines
    inside a heredoc are the user's, whatever they say."""
    stop: dict[int, int] = {}
    open_at: int | None = None
    quoted = _quoted(lines)
    for n, line in enumerate(lines):
        if n in quoted:
            continue
        bare = line.rstrip("\n")
        if bare == begin:
            open_at = n
        elif bare == end and open_at is not None:
            stop[open_at], open_at = n, None
    kept: list[str] = []
    skip_to: int | None = None
    for n, line in enumerate(lines):
        if skip_to is not None:
            if n == skip_to:
                skip_to = None
            continue
        if n in stop:
            skip_to = stop[n]
            continue
        if line.rstrip("\n") == begin and n not in quoted:
            continue
        kept.append(line)
    return kept


def has_block(path: Path, name: str) -> bool:
    """A complete block: the start marker, then the end marker."""
    begin, end = markers(name)
    try:
        lines = _read(path).splitlines()
    except OSError:
        return False
    opened = False
    quoted = _quoted(lines)
    for n, line in enumerate(lines):
        if n in quoted:
            continue
        if line == begin:
            opened = True
        elif opened and line == end:
            return True
    return False


def _target(path: Path) -> Path:
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _backup(path: Path) -> Path:
    stem = f"{path.name}.{backup_suffix()}"
    backup, n = path.with_name(f"{stem}.bak"), 1
    while backup.exists():  # never over an earlier backup (add and remove in the same second)
        n += 1
        backup = path.with_name(f"{stem}-{n}.bak")
    shutil.copy2(path, backup)
    return backup


def add_block(path: Path, name: str, body: str) -> bool:
    """Add the block unless it is there; back up an existing file first. True if changed."""
    if has_block(path, name):
        return False
    path = _target(path)
    begin, end = markers(name)
    old = ""
    if path.exists():
        _backup(path)
        old = "".join(_strip(_read(path).splitlines(keepends=True), begin, end))
        if old and not old.endswith("\n"):
            old += "\n"
    write_text_atomic(path, f"{old}\n{begin}\n{_normal_body(body)}{end}\n")
    return True


def remove_block(path: Path, name: str) -> bool:
    """Delete exactly the block (markers included), after a backup. True if changed."""
    begin, _ = markers(name)
    path = _target(path)
    try:
        lines = _read(path).splitlines(keepends=True)
    except OSError:
        return False
    _, end = markers(name)
    kept = _strip(lines, begin, end)
    if kept == lines:  # no block of ours (a marker quoted in a heredoc is not one)
        return False
    _backup(path)
    write_text_atomic(path, "".join(kept))
    return True
