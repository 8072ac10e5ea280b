"""One run at a time: an exclusive `flock` on a file in the state dir, holding the holder's pid.

    lock = RunLock(path)        # e.g. Journal.lock_path: state/run.lock
    lock.acquire()              # LockBusy (one line naming the pid) when another process holds it
    ...                         # or: `with RunLock(path):`
    lock.release()
    holder(path) -> int | None  # the pid of the live holder; None when nobody holds it

The kernel releases the lock when the holder exits or is killed (kill -9 included), so a stale
file never blocks the next run; the file itself stays (deleting a lock file races with the next
locker). The pid is written in one small write at offset 0, for the message only: the lock is the
flock, not the file's text. Within one process the lock is re-entrant per path (the CLI takes it
before reading the journal, the runner takes it again), counted, released by the last release.
The descriptor is close-on-exec: commands the runner starts never inherit the lock. The file is
opened with O_NOFOLLOW and must be a regular file with one link (`NotRegular` otherwise, one line):
the lock never writes through a symlink or into a FIFO.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

from wizard.safe.atomic import NotRegular, WriteError, open_regular
from wizard.text import t

if sys.platform == "win32":  # no flock: a byte-range lock past the pid text does the same job
    import msvcrt

    _FAR = 1 << 30

    def _lock(fd: int, shared: bool = False) -> None:
        os.lseek(fd, _FAR, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None

    def _unlock(fd: int) -> None:
        os.lseek(fd, _FAR, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

    _CLOEXEC = 0
else:
    import fcntl

    def _lock(fd: int, shared: bool = False) -> None:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

    _CLOEXEC = os.O_CLOEXEC

_HELD: dict[str, list[int]] = {}  # real path -> [fd, count], for re-entrancy within this process
_GUARD = threading.Lock()


class LockBusy(Exception):
    """Another process holds the lock. `str()` is one line naming its pid."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        key = "safe.lock_busy" if pid is not None else "safe.lock_busy_unknown"
        super().__init__(t(key, pid=pid, path=str(path)))


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 32)
    except OSError:
        return None
    text = raw.decode("ascii", "replace").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 12 else None


def _lock_soon(fd: int) -> None:
    """The exclusive lock, tried twice: `holder()` takes the lock shared for a moment to look, and
    that look must not turn away a run that starts at the same instant."""
    try:
        _lock(fd)
    except BlockingIOError:
        time.sleep(0.05)
        _lock(fd)


def holder(path: Path) -> int | None:
    """The pid holding the lock now, or None when it is free (or cannot be read)."""
    try:
        fd = open_regular(path, os.O_RDWR, follow=False, links_ok=False)
    except OSError:
        return None
    try:
        try:
            _lock(fd, shared=True)
        except BlockingIOError:
            return _read_pid(fd) or 0  # held; 0 when its pid cannot be read
        _unlock(fd)
        return None
    finally:
        os.close(fd)


class RunLock:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._owned = 0  # how many times this object acquired it

    @property
    def held(self) -> bool:
        return self._owned > 0

    def _key(self) -> str:
        return os.path.realpath(self.path)

    def acquire(self) -> None:
        with _GUARD:
            key = self._key()
            entry = _HELD.get(key)
            if entry is not None:
                entry[1] += 1
                self._owned += 1
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # Never through a link (O_NOFOLLOW), never a FIFO or a device, never a file with
                # another name (a hard link): the pid is written and the file truncated, and a run
                # as root over a folder a user controls must not empty a file of their choosing.
                fd = open_regular(self.path, os.O_RDWR | os.O_CREAT, 0o644, follow=False, links_ok=False)
            except NotRegular:
                raise
            except OSError as exc:
                raise WriteError(self.path, exc) from None
            try:
                _lock_soon(fd)
            except BlockingIOError:
                pid = _read_pid(fd)
                os.close(fd)
                raise LockBusy(self.path, pid) from None
            except OSError as exc:
                os.close(fd)
                raise WriteError(self.path, exc) from None
            mine = f"{os.getpid()}\n".encode()
            try:
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, mine)
                os.ftruncate(fd, len(mine))
            except OSError:
                pass  # a full disk: the lock still holds; only the pid in the message is missing
            _HELD[key] = [fd, 1]
            self._owned += 1

    def release(self) -> None:
        with _GUARD:
            if self._owned == 0:
                return
            self._owned -= 1
            key = self._key()
            entry = _HELD.get(key)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] > 0:
                return
            del _HELD[key]
            fd = entry[0]
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
            try:
                _unlock(fd)
            except OSError:
                pass  # closing the descriptor releases it anyway
            finally:
                os.close(fd)

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
