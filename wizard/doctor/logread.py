"""`doctor --log FILE|-`: a bounded view of a log, whatever its size.

    log = read_log("train.log")      # or "-" for standard input
    for number, line in log.lines:   # number: 1-based from the start, negative from the end
        ...

The tail comes from wizard.safe.atomic.read_tail (the last TAIL_BYTES; a regular file is read
from its end, a pipe or device in chunks keeping only the tail, and a stream that never ends,
such as /dev/zero, is cut after MAX_SCAN bytes). A regular file that is longer than its tail also
gives its first HEAD_BYTES: TensorFlow prints missing libraries and driver errors at import time,
long before the end of a training log.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass, field
from typing import BinaryIO

from wizard.safe.atomic import read_tail

TAIL_BYTES = 2 << 20  # 2 MiB: ~15 000 lines of a TensorFlow log; every line matched (about 1.5 s here)
HEAD_BYTES = 256 << 10  # the start of a long file
MAX_SCAN = 256 << 20  # a stream is read at most this far looking for its end


@dataclass
class LogRead:
    lines: list[tuple[int, str]] = field(default_factory=list)
    truncated: bool = False  # the middle (or, for a stream, the beginning) was left out
    stopped: bool = False  # a stream that did not end was cut off after MAX_SCAN bytes
    tail_bytes: int = TAIL_BYTES
    scanned: int = 0


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _head(path: str) -> list[str]:
    with open(path, "rb") as fh:
        data = fh.read(HEAD_BYTES)
    cut = data.rfind(b"\n")
    return data[: cut + 1 if cut >= 0 else 0].decode("utf-8", "replace").splitlines()


def read_log(ref: str, stdin: BinaryIO | None = None) -> LogRead:
    """The lines of a log file (or "-": standard input) to match, bounded in memory and time.

    OSError as `open` raises it (a missing file, a folder, no permission)."""
    if ref == "-" and stdin is None and sys.stdin is None:  # `doctor --log - <&-`
        import errno

        from wizard.text import t

        raise OSError(errno.EBADF, t("cli.stdin_closed"), "-")
    source: str | BinaryIO = (stdin or sys.stdin.buffer) if ref == "-" else ref
    tail = read_tail(source, TAIL_BYTES, max_scan=MAX_SCAN)
    tail_lines = tail.text.splitlines()
    out = LogRead(truncated=tail.truncated, stopped=tail.stopped, scanned=tail.scanned)
    if not tail.truncated:
        out.lines = list(enumerate(tail_lines, start=1))
        return out
    if isinstance(source, str) and _is_regular(source):
        out.lines = list(enumerate(_head(source), start=1))
    count = len(tail_lines)
    out.lines += [(i - count, line) for i, line in enumerate(tail_lines)]  # -1 is the last line
    return out


def ends(lines: list[str], head: int, tail: int) -> tuple[list[str], list[str]] | None:
    """The first lines of `lines` within `head` characters and the last ones within `tail` (whole
    lines, none twice); None where the whole fits in `head + tail`."""
    if sum(len(line) + 1 for line in lines) <= head + tail:
        return None
    first = _within(lines, head)
    return first, _within(lines[len(first) :][::-1], tail)[::-1]


def _within(lines: list[str], limit: int) -> list[str]:
    """The leading lines that fit in `limit` characters (each with its line break)."""
    size = 0
    for n, line in enumerate(lines):
        size += len(line) + 1
        if size > limit:
            return lines[:n]
    return list(lines)


def read_pasted(text: str) -> LogRead:
    """A pasted text (the app's doctor), bounded like a file: its first HEAD_BYTES and last
    TAIL_BYTES (counted in characters), whole lines only, numbered as read_log numbers them."""
    lines = text.splitlines()
    parts = ends(lines, HEAD_BYTES, TAIL_BYTES)
    if parts is None:
        return LogRead(lines=list(enumerate(lines, start=1)), scanned=len(text))
    head, tail = parts
    out = LogRead(truncated=True, scanned=len(text))
    out.lines = list(enumerate(head, start=1))
    out.lines += [(i - len(tail), line) for i, line in enumerate(tail)]  # -1 is the last line
    return out


def size_text(n: int) -> str:
    """A size as the doctor's notes say it (the part of a long log that was read)."""
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"
