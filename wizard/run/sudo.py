"""Running root steps through sudo without the password leaking anywhere.

The password is asked once (by the caller, through the runner's callback),
checked with sudo, kept only in this object's memory and written to sudo's
stdin for each command: `sudo -k -S -p '' -- CMD`. `-k` makes sudo read the
password every time (ignoring a cached login), so the line is always consumed
by sudo and never reaches the command's own stdin. It is never put in argv
(the process list), the environment, a log or the journal.

When sudo needs no password (NOPASSWD, or the wizard already runs as root)
nothing is asked at all: `sudo -n true` is tried first, before any password is
asked for, checked or sent, because with a NOPASSWD rule sudo would not read the
line and it would reach the command's stdin instead. As a second guard the
command runs as `sh -c 'exec "$@" </dev/null'`: whatever sudo leaves unread on
stdin is never the command's input.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

# The command never reads what sudo left on stdin (a password sudo did not need).
STDIN_GUARD = ("/bin/sh", "-c", 'exec "$@" </dev/null', "sh")


@dataclass
class Wrapped:
    argv: list[str]
    stdin: bytes | None  # what to write to the process's stdin (then it is closed)


@dataclass
class SudoSession:
    sudo: str = "sudo"
    is_root: bool = field(default_factory=lambda: os.geteuid() == 0 if hasattr(os, "geteuid") else False)
    _password: str | None = field(default=None, repr=False)
    _passwordless: bool | None = field(default=None, repr=False)

    def __repr__(self) -> str:  # never show the password, even in a traceback
        has = self._password is not None
        return f"SudoSession(sudo={self.sudo!r}, is_root={self.is_root}, has_password={has})"

    @property
    def ready(self) -> bool:
        """True when root commands can run now without asking anything."""
        return self.is_root or self.passwordless() or self._password is not None

    def passwordless(self) -> bool:
        if self._passwordless is None:
            self._passwordless = self._sudo_ok(["-k", "-n", "true"], None)
        return self._passwordless

    def try_password(self, password: str) -> bool:
        """Check the password with sudo; keep it only when it works. With NOPASSWD it is not sent."""
        if self.is_root or self.passwordless():
            return True
        if "\n" in password or "\r" in password:
            return False
        if self._sudo_ok(["-k", "-S", "-p", "", "true"], password.encode() + b"\n"):
            self._password = password
            return True
        return False

    def forget(self) -> None:
        self._password = None

    def wrap(self, argv: Sequence[str]) -> Wrapped:
        if self.is_root:
            return Wrapped(list(argv), None)
        if self._password is not None and not self.passwordless():
            return Wrapped(
                [self.sudo, "-k", "-S", "-p", "", "--", *STDIN_GUARD, *argv], self._password.encode() + b"\n"
            )
        return Wrapped([self.sudo, "-n", "--", *argv], None)

    def _sudo_ok(self, args: list[str], stdin: bytes | None) -> bool:
        try:
            proc = subprocess.run(
                [self.sudo, *args],
                input=stdin if stdin is not None else b"",
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return proc.returncode == 0
