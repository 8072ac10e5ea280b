"""kill -9 in the middle of a step; the next start resumes and finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.test_runner_helpers import PY, Recorder, make_plan, runs, touch_step
from wizard.plan.model import Check, Plan, Step
from wizard.run.journal import Journal
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

DRIVER = """
import json, sys
from wizard.plan.model import Plan
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession
plan = Plan.from_dict(json.load(open(sys.argv[1])))
result = Runner(plan, sudo=SudoSession(sudo="/nonexistent", is_root=True)).run()
print(result.outcome)
"""

# Writes its pid, sleeps as long as sleep.txt says, then creates the step's result.
SLOW = (
    "import os, pathlib, sys, time; d = pathlib.Path(sys.argv[1]); "
    "(d / 'slow.pid').write_text(str(os.getpid())); "
    "time.sleep(float((d / 'sleep.txt').read_text())); (d / 'slow.done').write_text('x')"
)
EXISTS = "import pathlib, sys; sys.exit(0 if pathlib.Path(sys.argv[1]).exists() else 1)"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def _plan(tmp: Path) -> Plan:
    slow = Step(
        "slow",
        "a slow step",
        "test",
        "user",
        ((PY, "-c", SLOW, str(tmp)),),
        Check((PY, "-c", EXISTS, str(tmp / "slow.done")), "slow.done exists"),
    )
    return make_plan(touch_step("first", tmp / "first"), slow, touch_step("last", tmp / "last"))


def test_sigkill_mid_step_then_resume(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    (tmp_path / "plan.json").write_text(json.dumps(plan.to_dict()))
    (tmp_path / "sleep.txt").write_text("60")
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "plan.json")], cwd=Path.cwd())
    pid_file = tmp_path / "slow.pid"
    deadline = time.monotonic() + 60
    while not pid_file.exists():
        assert time.monotonic() < deadline, "the slow step never started"
        assert proc.poll() is None, "the runner ended early"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    leftover = int(pid_file.read_text())
    assert _alive(leftover), "the command has its own session and outlives the runner"

    state = Journal().load()
    assert state is not None, "the journal must survive kill -9"
    assert state.steps["first"].status == "done"
    assert state.steps["slow"].status == "running"
    assert state.steps["last"].status == "pending"
    assert not state.finished

    assert state.steps["slow"].pid == leftover

    (tmp_path / "sleep.txt").write_text("0")
    rec = Recorder()
    runner = Runner(Plan.from_dict(state.plan.to_dict()), rec, sudo=SudoSession(is_root=True))
    result = runner.run()
    assert result.outcome == "finished"
    assert runner.notice and str(leftover) in runner.notice  # the leftover was stopped, not raced
    deadline = time.monotonic() + 10
    while _alive(leftover) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(leftover)
    assert rec.statuses() == {"first": "done", "slow": "done", "last": "done"}
    assert runs(tmp_path / "first") == 1 and runs(tmp_path / "last") == 1
    final = Journal().load()
    assert final is not None and final.finished
