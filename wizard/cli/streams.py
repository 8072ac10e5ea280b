"""The terminal's three streams, made safe before any command runs; one place for all of them.

    closed = prepare_streams()   # at the start of main(); Streams(stdin=..., stdout=...) closed flags
    quiet_broken_pipe()          # after a BrokenPipeError: `plan --script | head -1` ends quietly

- Any locale: stdout and stderr keep the terminal's encoding (Chinese in a GBK locale prints as
  Chinese) and replace what it cannot show, never raise (a GB2312 locale has no "·" or "✓").
- A closed fd 0, 1 or 2 is opened on the null device, so no file the wizard opens later (the run
  lock, the journal, a log) takes its number and receives a command's output or a prompt's input.
- Python leaves sys.stdin / sys.stdout as None when their fd was closed at start; the caller says
  one clear line for that (`Streams`), never a traceback.
- A reader that goes away (`| head -1`): stdout is pointed at the null device, so the interpreter's
  own flush at exit finds nothing to fail on ("Exception ignored ... BrokenPipeError").
"""

from __future__ import annotations

import io
import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Streams:
    stdin_closed: bool
    stdout_closed: bool


def _reopen_closed_fds() -> None:
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def _replace_unencodable() -> None:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):  # a stream already closed
                pass


def prepare_streams() -> Streams:
    closed = Streams(stdin_closed=sys.stdin is None, stdout_closed=sys.stdout is None)
    _reopen_closed_fds()
    _replace_unencodable()
    return closed


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def say(line: str) -> None:
    """One line on stderr when there is one (a closed stderr: nothing, quietly)."""
    if sys.stderr is None:
        return
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def quiet_broken_pipe() -> None:
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a test's captured stream
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass
