"""Files written whole or not at all, and reads that cannot run away.

Writing
    write_text_atomic(path, text, *, mode=None, make_parents=False)
    write_bytes_atomic(path, data, *, mode=None, make_parents=False)
        A temp file in the same folder, every byte written, fsync, rename over `path`, fsync of the
        folder. A crash, kill -9 or power cut leaves the old file or the new one, never half of one.
        A symlink is followed (the file it points to is replaced, the link stays). The mode is the
        old file's, else `mode`, else 0o644. Any OSError (read-only or full disk, a folder that is a
        file, a file-size limit) raises `WriteError`: one line for the user, the old file untouched,
        no temp file left behind.

        follow_links=False (state files: the journal): a symlink at `path` is replaced by the new
        file, never written through.

Opening state files
    open_regular(path, flags, mode, *, follow=True) -> fd
        os.open with O_NONBLOCK (a FIFO never blocks), O_CLOEXEC, and O_NOFOLLOW unless `follow`;
        anything but a regular file (a FIFO, a device, a folder) raises `NotRegular` (an OSError,
        one line) and is closed again; `links_ok=False` refuses a file with other hard links too.

Reading
    read_bytes_limited(path, limit) -> bytes       `TooLarge` when the file holds more than `limit`;
                                                   `NotRegular` for a FIFO or device (never blocks)
    read_tail(path_or_binary_stream, max_bytes) -> Tail
        The last `max_bytes` of a log, streamed: a regular file is read from its end; a pipe, stdin
        or a device (/dev/zero) is read in chunks keeping only the tail, and reading stops after
        `max_scan` bytes. Decoded as UTF-8 with replacement. For `doctor --log`.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from wizard.text import t

DEFAULT_MODE = 0o644
CHUNK = 1 << 16


class WriteError(OSError):
    """A file could not be written. `str()` is one line for the user; nothing was destroyed."""

    def __init__(self, path: os.PathLike[str] | str, cause: BaseException | str) -> None:
        reason = cause if isinstance(cause, str) else _reason(cause)
        code = cause.errno if isinstance(cause, OSError) else None
        super().__init__(code or errno.EIO, reason, str(path))
        self.path = Path(path)
        self.reason = reason
        self.message = t("safe.write_failed", path=str(path), reason=reason)

    def __str__(self) -> str:
        return self.message


class NotRegular(WriteError):
    """A state or user file that is a FIFO, a device, a folder or a link where none may be.
    `str()` is one line for the user (a WriteError: every caller that says one line for a file it
    cannot write says this one too)."""

    def __init__(self, path: os.PathLike[str] | str, what: str) -> None:
        OSError.__init__(self, errno.EINVAL, what, str(path))
        self.path = Path(path)
        self.reason = what
        self.message = t("safe.not_regular", path=str(path), what=what)

    def __str__(self) -> str:
        return self.message


def _kind(mode: int) -> str:
    for test, word in (
        (stat.S_ISFIFO, "fifo"),
        (stat.S_ISDIR, "folder"),
        (stat.S_ISLNK, "link"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "device"),
        (stat.S_ISBLK, "device"),
    ):
        if test(mode):
            return t(f"safe.kind_{word}")
    return t("safe.kind_other")


def open_regular(
    path: os.PathLike[str] | str,
    flags: int = os.O_RDONLY,
    mode: int = DEFAULT_MODE,
    *,
    follow: bool = True,
    links_ok: bool = True,
) -> int:
    """An open descriptor of a regular file (see the module's docstring); OSError as os.open."""
    extra = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        extra |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | extra, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and not follow:  # O_NOFOLLOW met a symlink
            raise NotRegular(path, t("safe.kind_link")) from None
        if exc.errno == errno.ENXIO:  # a FIFO opened for writing with no reader
            raise NotRegular(path, t("safe.kind_fifo")) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(path, _kind(info.st_mode))
        if not links_ok and info.st_nlink > 1:
            raise NotRegular(path, t("safe.kind_hard_link", count=info.st_nlink))
        if extra & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class TooLarge(ValueError):
    """A file holds more than the reader accepts."""

    def __init__(self, path: os.PathLike[str] | str, limit: int) -> None:
        self.path = Path(path)
        self.limit = limit
        super().__init__(t("safe.too_large", path=str(path), limit=_size_text(limit)))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        from wizard.safe.error_words import os_error  # error_words is beside, not under, this module

        return os_error(exc)
    return str(exc) or type(exc).__name__


def _size_text(n: int) -> str:
    return f"{n / 1024**2:.0f} MiB" if n >= 1024**2 else f"{n / 1024:.0f} KiB"


def _encode(text: str, encoding: str) -> bytes:
    # surrogateescape gives back the bytes a file was read with (a .bashrc in Latin-1 stays as it
    # was); any other lone surrogate becomes visible text instead of an error.
    try:
        return text.encode(encoding, "surrogateescape")
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace")


def write_text_atomic(
    path: os.PathLike[str] | str,
    text: str,
    *,
    encoding: str = "utf-8",
    mode: int | None = None,
    make_parents: bool = False,
    follow_links: bool = True,
) -> None:
    write_bytes_atomic(
        path, _encode(text, encoding), mode=mode, make_parents=make_parents, follow_links=follow_links
    )


def write_bytes_atomic(
    path: os.PathLike[str] | str,
    data: bytes,
    *,
    mode: int | None = None,
    make_parents: bool = False,
    follow_links: bool = True,
) -> None:
    target = Path(path)
    if follow_links and target.is_symlink():
        target = Path(os.path.realpath(target))
    folder = target.parent
    tmp: str | None = None
    try:
        if make_parents:
            folder.mkdir(parents=True, exist_ok=True)
        try:
            old = os.stat(target) if follow_links else os.lstat(target)
            old_mode: int | None = stat.S_IMODE(old.st_mode) if stat.S_ISREG(old.st_mode) else None
        except FileNotFoundError:
            old_mode = None
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fchmod(fd, old_mode if old_mode is not None else (mode if mode is not None else DEFAULT_MODE))
            os.fsync(fd)  # the data is on disk before the name points at it
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(folder)
    except OSError as exc:
        raise WriteError(path, exc) from None
    finally:
        if tmp is not None:  # failed or interrupted (Ctrl-C): the temp file goes, the old file stays
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _fsync_dir(folder: Path) -> None:
    """The rename itself survives a power cut only once the folder is synced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems (9p under WSL, some network mounts) cannot sync a folder
    finally:
        os.close(fd)


def read_bytes_limited(path: os.PathLike[str] | str, limit: int) -> bytes:
    """At most `limit` bytes; `TooLarge` when there is more. OSError as `open` raises it;
    `NotRegular` (an OSError) for a FIFO, a device or a folder, at once."""
    with os.fdopen(open_regular(path), "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path, limit)
    return data


@dataclass
class Tail:
    text: str
    truncated: bool  # the beginning was left out: only the last `max_bytes` are here
    scanned: int  # bytes read to find the tail
    stopped: bool = False  # a stream that did not end was cut off after `max_scan` bytes


def read_tail(
    source: os.PathLike[str] | str | BinaryIO,
    max_bytes: int = 1 << 20,
    *,
    max_scan: int = 256 << 20,
) -> Tail:
    """The last `max_bytes` of a file or stream, read in bounded memory and time."""
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as fh:
            return _tail_of(fh, max_bytes, max_scan)
    return _tail_of(source, max_bytes, max_scan)


def _tail_of(fh: BinaryIO, max_bytes: int, max_scan: int) -> Tail:
    try:
        info = os.fstat(fh.fileno())
        regular = stat.S_ISREG(info.st_mode)
    except (OSError, ValueError, AttributeError):  # a stream without a file descriptor
        regular = False
    if regular:
        size = info.st_size
        start = max(0, size - max_bytes)
        fh.seek(start)
        data = fh.read(max_bytes)
        return _decode(data, truncated=start > 0, scanned=len(data))
    chunks: deque[bytes] = deque()
    kept = scanned = 0
    dropped = stopped = False
    while True:
        if scanned >= max_scan:
            stopped = True
            break
        chunk = fh.read(min(CHUNK, max_scan - scanned))
        if not chunk:
            break
        scanned += len(chunk)
        chunks.append(chunk)
        kept += len(chunk)
        while kept - len(chunks[0]) >= max_bytes:
            kept -= len(chunks.popleft())
            dropped = True
    data = b"".join(chunks)
    if len(data) > max_bytes:
        data, dropped = data[-max_bytes:], True
    return _decode(data, truncated=dropped, scanned=scanned, stopped=stopped)


def _decode(data: bytes, *, truncated: bool, scanned: int, stopped: bool = False) -> Tail:
    if truncated:
        newline = data.find(b"\n")
        if 0 <= newline < len(data) - 1:
            data = data[newline + 1 :]  # start at a whole line
    return Tail(data.decode("utf-8", "replace"), truncated, scanned, stopped)
