"""`doctor --run`: run the student's command in the target environment and read its output live.

    env = target_env(venv)                      # the venv's bin first on PATH, VIRTUAL_ENV set
    run = WatchedRun(argv, env)                 # an argument list, never a shell
    for number, line in run.lines():            # stdout and stderr together, as they come
        ...
    run.returncode

Lines are read with a length limit, so a child that prints without newlines cannot fill the
memory; nothing is kept here (the caller keeps only what it matched).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from wizard.doctor.catalogue import MAX_LINE_CHARS
from wizard.safe.error_words import os_error
from wizard.text import t


class CannotStart(Exception):
    """The command does not exist or cannot be executed; str() is the reason."""


def venv_bin(venv: Path) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin")


def target_env(venv: Path | None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a command runs in: the venv's bin first on PATH, as `activate` would do."""
    env = dict(os.environ if base is None else base)
    if venv is not None and venv_bin(venv).is_dir():
        env["PATH"] = os.pathsep.join([str(venv_bin(venv)), env.get("PATH", "")])
        env["VIRTUAL_ENV"] = str(venv)
        env.pop("PYTHONHOME", None)
    env["PYTHONUNBUFFERED"] = "1"  # a Python child prints as it goes, so the doctor reads it live
    return env


def resolve(argv: Sequence[str], env: Mapping[str, str]) -> str:
    """The program that will run: argv[0] looked up on the target environment's PATH."""
    found = shutil.which(argv[0], path=env.get("PATH", ""))
    if found is None:
        raise CannotStart(t("doctor.run_not_found"))
    return found


class WatchedRun:
    def __init__(self, argv: Sequence[str], env: Mapping[str, str]) -> None:
        if not argv:
            raise CannotStart("")
        self.program = resolve(argv, env)
        self.argv = [self.program, *argv[1:]]
        self.env = dict(env)
        self.returncode: int | None = None
        self._proc: subprocess.Popen[str] | None = None

    def lines(self) -> Iterator[tuple[int, str]]:
        try:
            self._proc = subprocess.Popen(  # an argument list, never a shell
                self.argv,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,  # one stream, in the order the child wrote it
                stdin=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                env=self.env,
            )
        except OSError as exc:
            raise CannotStart(os_error(exc)) from None
        stream = self._proc.stdout
        assert stream is not None
        number = 0
        while True:
            chunk = stream.readline(MAX_LINE_CHARS)  # bounded: a line without end is cut in pieces
            if not chunk:
                break
            number += 1
            yield number, chunk.rstrip("\r\n")
        self.returncode = self._proc.wait()

    def stop(self, grace: float = 5.0) -> int | None:
        """After Ctrl-C: the child got the signal too; wait for it, then insist."""
        proc = self._proc
        if proc is None:
            return None
        try:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT if sys.platform != "win32" else signal.SIGTERM)
            self.returncode = proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            self.returncode = proc.wait()
        except OSError:
            pass
        return self.returncode
