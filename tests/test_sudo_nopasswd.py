"""sudo with a NOPASSWD rule: `sudo -n true` is tried first and the password is never asked or sent;
a rule for some commands only cannot hand the password to the command's stdin either.

The stand-in sudo programs behave like the real one for the case they model and log their argv.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.test_runner_helpers import PY, Recorder, make_plan
from wizard.plan.model import Check, Step
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

SECRET = "hunter2-Sekr3t"

# NOPASSWD: ALL. Never reads stdin; runs whatever follows "--".
NOPASSWD_ALL = """#!/bin/bash
printf '%s\\n' "$*" >> "$SUDO_LOG"
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in true) exit 0 ;; esac
  shift
done
shift
exec "$@"
"""

# NOPASSWD for the command only: `sudo -n true` needs a password (fails), but the command itself runs
# without reading one, so whatever was written to sudo's stdin is still there for the command.
NOPASSWD_COMMAND = """#!/bin/bash
printf '%s\\n' "$*" >> "$SUDO_LOG"
if [ "$1" = "-n" ] || [ "$2" = "-n" ]; then exit 1; fi
for a in "$@"; do if [ "$a" = "true" ] && [ "$1" = "-k" ] && [ "$#" -eq 5 ]; then
  IFS= read -r pw; [ "$pw" = "$SUDO_SECRET" ] && exit 0 || exit 1
fi; done
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
exec "$@"
"""

READ_STDIN = "import sys; print('stdin was:', repr(sys.stdin.read()))"


def _sudo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program: str) -> tuple[SudoSession, Path]:
    exe = tmp_path / "sudo"
    exe.write_text(program)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "sudo.log"
    monkeypatch.setenv("SUDO_LOG", str(log))
    monkeypatch.setenv("SUDO_SECRET", SECRET)
    return SudoSession(sudo=str(exe), is_root=False), log


def _root_step() -> Step:
    return Step(
        "r", "root step", "t", "root", ((PY, "-c", READ_STDIN),), Check(("true",), "ok"), check_before=False
    )


def test_nopasswd_is_found_first_and_no_password_is_asked_or_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sudo, log = _sudo(tmp_path, monkeypatch, NOPASSWD_ALL)
    rec = Recorder(password=SECRET)
    result = Runner(make_plan(_root_step()), rec, sudo=sudo, confirm_root=False).run()
    assert result.outcome == "finished", result.message
    assert rec.asked_password == 0
    assert "stdin was: ''" in rec.lines
    calls = log.read_text().splitlines()
    assert calls[0] == "-k -n true" and all("-S" not in c for c in calls)
    # Even a password handed over anyway is not used with NOPASSWD.
    assert sudo.try_password(SECRET) and sudo.wrap(["id"]).stdin is None


def test_a_command_only_rule_never_gets_the_password_on_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sudo, _ = _sudo(tmp_path, monkeypatch, NOPASSWD_COMMAND)
    rec = Recorder(password=SECRET)
    result = Runner(make_plan(_root_step()), rec, sudo=sudo, confirm_root=False).run()
    assert result.outcome == "finished", result.message
    assert rec.asked_password == 1
    assert "stdin was: ''" in rec.lines and not any(SECRET in line for line in rec.lines)
