"""A step's after-check alongside the next step's commands (Step.alongside_previous_check): the
locked install's RECORD digests are proven while the verify step imports TensorFlow. Real
processes, real timing marks, a real kill -9: the overlap happens, the journal never marks the
second step done before the first, a failed proof makes the first step the failure and the second
not counted, and a kill in the middle resumes whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_runner_helpers import PY, Recorder, make_plan, runs
from wizard.choose.knowledge import load_knowledge
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Check, Plan, Step
from wizard.run.journal import Journal
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

ROOT = SudoSession(sudo="/nonexistent", is_root=True)
# The first step's check: marks its start, sleeps as long as check_sleep.txt says, marks its end;
# passes when made.txt exists and poison.txt does not (a damaged install, found by the proof).
# Before the command ran (no made.txt) it fails at once.
CHECK = (
    "import os, pathlib, sys, time; d = pathlib.Path(sys.argv[1]); "
    "(d / 'made.txt').exists() or sys.exit(1); "  # the check before the command: at once
    "(d / 'check.start').write_text(repr(time.time())); (d / 'check.pid').write_text(str(os.getpid())); "
    "time.sleep(float((d / 'check_sleep.txt').read_text())); "
    "(d / 'check.end').write_text(repr(time.time())); "
    "sys.exit(0 if (d / 'made.txt').exists() and not (d / 'poison.txt').exists() else 1)"
)
MAKE = "import pathlib, sys; pathlib.Path(sys.argv[1], 'made.txt').write_text('x')"
# The second step only reads: counts its runs, marks its start, sleeps, succeeds (its own proof).
READ = (
    "import pathlib, sys, time; d = pathlib.Path(sys.argv[1]); c = d / 'read.runs'; "
    "c.write_text(str(int(c.read_text()) + 1) if c.exists() else '1'); "
    "(d / 'read.start').write_text(repr(time.time())); time.sleep(float((d / 'read_sleep.txt').read_text()))"
)
DRIVER = """
import json, sys
from wizard.plan.model import Plan
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession
plan = Plan.from_dict(json.load(open(sys.argv[1])))
print(Runner(plan, sudo=SudoSession(sudo="/nonexistent", is_root=True)).run().outcome)
"""


def _plan(tmp: Path, check_sleep: float = 2.0, read_sleep: float = 0.2) -> Plan:
    (tmp / "check_sleep.txt").write_text(str(check_sleep))
    (tmp / "read_sleep.txt").write_text(str(read_sleep))
    make = Step(
        "make",
        "make it",
        "test",
        "user",
        ((PY, "-c", MAKE, str(tmp)),),
        Check((PY, "-c", CHECK, str(tmp)), "made"),
    )
    read_argv = (PY, "-c", READ, str(tmp))
    read = Step(
        "read",
        "read it",
        "test",
        "user",
        (read_argv,),
        Check(read_argv, "it reads"),
        check_before=False,
        alongside_previous_check=True,
    )
    return make_plan(make, read)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _stamp(tmp: Path, name: str) -> float:
    return float((tmp / name).read_text())


def test_the_next_step_runs_while_the_check_proves_and_is_recorded_after_it(tmp_path: Path) -> None:
    rec = Recorder()
    result = Runner(_plan(tmp_path), rec, sudo=ROOT).run()
    assert result.outcome == "finished"
    # It really overlapped: the reading step started before the 2 s check had ended.
    assert _stamp(tmp_path, "read.start") < _stamp(tmp_path, "check.end")
    finished = [sid for kind, sid, _ in rec.events if kind == "finished"]
    assert finished == ["make", "read"]  # the first is done before the second counts
    assert rec.statuses() == {"make": "done", "read": "done"}
    state = Journal().load()
    assert state is not None and state.finished
    assert [state.steps[s].status for s in ("make", "read")] == ["done", "done"]


def test_a_failed_proof_is_the_failure_and_the_step_alongside_does_not_count(tmp_path: Path) -> None:
    (tmp_path / "poison.txt").write_text("a damaged file")
    rec = Recorder()
    result = Runner(_plan(tmp_path, check_sleep=1.0), rec, sudo=ROOT).run()
    assert result.outcome == "failed" and result.failed_step == "make"
    assert rec.statuses() == {"read": "pending", "make": "failed"}
    state = Journal().load()
    assert state is not None and not state.finished
    assert state.steps["make"].status == "failed" and state.steps["read"].status == "pending"
    # Repaired: the next run proves the first step and runs the second again.
    (tmp_path / "poison.txt").unlink()
    rec = Recorder()
    again = Runner(_plan(tmp_path, check_sleep=0.0), rec, sudo=ROOT).run()
    assert again.outcome == "finished" and rec.statuses()["read"] == "done"
    assert runs(tmp_path / "read") == 2


def test_kill_minus_9_during_the_overlap_resumes_whole(tmp_path: Path) -> None:
    plan = _plan(tmp_path, check_sleep=30.0, read_sleep=30.0)
    (tmp_path / "plan.json").write_text(json.dumps(plan.to_dict()))
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "plan.json")])
    deadline = time.monotonic() + 60
    while not ((tmp_path / "read.start").exists() and (tmp_path / "check.start").exists()):
        assert time.monotonic() < deadline and proc.poll() is None, "the overlap never started"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    state = Journal().load()
    assert state is not None and not state.finished
    assert state.steps["make"].status == "running" and state.steps["read"].status == "running"
    orphan = int((tmp_path / "check.pid").read_text())
    assert _alive(orphan)  # the check has its own session and outlives the killed runner
    rec = Recorder()
    runner = Runner(_plan(tmp_path, check_sleep=0.0, read_sleep=0.0), rec, sudo=ROOT)
    result = runner.run()
    assert result.outcome == "finished"
    # The killed run's check was stopped before anything else ran, not left to race this run.
    assert runner.notice and str(orphan) in runner.notice
    deadline = time.monotonic() + 10
    while _alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(orphan)
    # The first step is proven by its check (there already), the second runs again, whole.
    assert rec.statuses() == {"make": "satisfied", "read": "done"}
    assert runs(tmp_path / "read") == 2
    final = Journal().load()
    assert final is not None and final.finished


def test_a_simulated_run_keeps_one_step_at_a_time(tmp_path: Path) -> None:
    rec = Recorder()
    assert Runner(_plan(tmp_path), rec, simulate=True).run().outcome == "finished"
    assert not (tmp_path / "check.start").exists()  # nothing real runs in a simulation


def test_the_plans_verify_step_runs_alongside_the_locked_install_check() -> None:
    for demo in ("no-nvidia-gpu", "wsl2-rtx4060-laptop"):
        profile = load_demo(demo)
        rec = recommend(profile, load_knowledge())
        assert rec.recommended is not None
        steps = list(build_plan(profile, rec.recommended).active_steps)
        ids = [s.id for s in steps]
        verify = steps[ids.index("verify")]
        assert verify.alongside_previous_check and verify.check_is_last_command
        # Before it: only the kept proof's check, which starts no TensorFlow (env_proof.py check).
        assert verify.check_before and verify.recheck is not None and "check" in verify.recheck.argv
        assert ids[ids.index("verify") - 1] == "tensorflow"
        assert sum(s.alongside_previous_check for s in steps) == 1


def test_the_terminal_says_whose_proof_ends_under_the_next_steps_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wizard.cli.apply import TerminalEvents

    assert Runner(_plan(tmp_path, check_sleep=1.0), TerminalEvents(), sudo=ROOT).run().outcome == "finished"
    out = capsys.readouterr().out
    second = out.index("==> [2/2]")
    earlier = out.index("[done] step 1, make it: checked: made")
    assert earlier > second  # printed under step 2's header, and says it is step 1's
