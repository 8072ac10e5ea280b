"""One run at a time, and an install that cannot be left half-done.

Real processes throughout: a first run in a child process while second runs (in this process, through
the real CLI, and in the app) are refused; a command left running by a killed run that takes its time
to stop, or ignores SIGTERM; and the runner killed with SIGKILL at every point of a plan, then resumed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import DEMO, build_app, to_run
from tests.test_runner_helpers import PY, Recorder, make_plan, runs, touch_step
from wizard.demo import load_demo
from wizard.plan.model import Check, Plan, Step
from wizard.run.journal import Journal, journal_for
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession
from wizard.safe.lock import RunLock, holder

ROOT = Path(__file__).resolve().parents[1]
NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)

DRIVER = """
import json, sys
from wizard.plan.model import Plan
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession
plan = Plan.from_dict(json.load(open(sys.argv[1])))
result = Runner(plan, sudo=SudoSession(sudo="/nonexistent", is_root=True)).run()
print(result.outcome, flush=True)
"""

# Writes its pid, sleeps as long as sleep.txt says, then creates the step's result.
SLOW = (
    "import os, pathlib, sys, time; d = pathlib.Path(sys.argv[1]); "
    "(d / 'slow.pid').write_text(str(os.getpid())); "
    "time.sleep(float((d / 'sleep.txt').read_text())); (d / 'slow.done').write_text('x')"
)
EXISTS = "import pathlib, sys; sys.exit(0 if pathlib.Path(sys.argv[1]).exists() else 1)"


def _slow_plan(tmp: Path) -> Plan:
    slow = Step(
        "slow",
        "a slow step",
        "test",
        "user",
        ((PY, "-c", SLOW, str(tmp)),),
        Check((PY, "-c", EXISTS, str(tmp / "slow.done")), "slow.done exists"),
    )
    return make_plan(touch_step("first", tmp / "first"), slow, touch_step("last", tmp / "last"))


def _wait_for(path: Path, proc: subprocess.Popen[Any], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        assert proc.poll() is None, "the first run ended early"
        time.sleep(0.05)


def _journal_once_running(proc: subprocess.Popen[Any], timeout: float = 30) -> bytes:
    """The journal's bytes once it records the slow step's running command."""
    deadline = time.monotonic() + timeout
    while True:
        data = Journal().path.read_bytes()
        if json.loads(data)["steps"].get("slow", {}).get("pid") is not None:
            return data
        assert time.monotonic() < deadline, "the slow step's command never reached the journal"
        assert proc.poll() is None, "the first run ended early"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_a_second_run_is_refused_and_the_first_finishes_unharmed(tmp_path: Path) -> None:
    plan = _slow_plan(tmp_path)
    (tmp_path / "plan.json").write_text(json.dumps(plan.to_dict()))
    (tmp_path / "sleep.txt").write_text("4")
    first = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(tmp_path / "plan.json")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    _wait_for(tmp_path / "slow.pid", first)
    slow_pid = int((tmp_path / "slow.pid").read_text())
    # The command writes its pid before its runner has journalled it (the runner records the
    # process group once Popen returns): the first run's own write is not the second runs' doing.
    journal_before = _journal_once_running(first)
    refused = 0

    # In this process, as the app's run screen would: the same plan and another one.
    other = make_plan(touch_step("x", tmp_path / "x"))
    for attempt in (plan, Plan.from_dict(plan.to_dict()), other):
        result = Runner(attempt, Recorder(), sudo=NOT_ROOT).run()
        assert result.outcome == "locked", result.message
        assert str(first.pid) in result.message and "\n" not in result.message
        refused += 1
    assert runs(tmp_path / "x") == 0

    # Through the real command line, twice.
    for _ in range(2):
        second = subprocess.run(
            [sys.executable, "-m", "wizard", "apply", "--yes"], cwd=ROOT, capture_output=True, text=True
        )
        assert second.returncode == 1 and "Traceback" not in second.stderr
        assert str(first.pid) in second.stderr and second.stderr.count("\n") == 1
        refused += 1

    # The first run never noticed: its command was not stopped, its journal not touched.
    assert _alive(slow_pid)
    assert Journal().path.read_bytes() == journal_before
    out, _ = first.communicate(timeout=60)
    assert out.strip() == "finished"
    assert (tmp_path / "slow.done").exists() and runs(tmp_path / "last") == 1
    final = Journal().load()
    assert final is not None and final.finished and final.plan.id == plan.id
    assert holder(Journal().lock_path) is None
    print(f"\nconcurrent runs refused: {refused}; first run finished: yes")


async def test_the_app_says_which_process_holds_the_run(tmp_path: Path) -> None:
    lock_path = journal_for(True, load_demo(DEMO)).lock_path
    holder_proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from wizard.safe.lock import RunLock; "
            "RunLock(Path(sys.argv[1])).acquire(); print('held', flush=True); time.sleep(60)",
            str(lock_path),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder_proc.stdout is not None and holder_proc.stdout.readline().strip() == "held"
        app = build_app(DEMO, offer_resume=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0.3)
            shown = [str(n.message) for n in app._notifications]
            assert any(str(holder_proc.pid) in m and "in progress" in m for m in shown), shown
            await to_run(pilot)
            for _ in range(100):
                if str(holder_proc.pid) in screen_text(app):
                    break
                await pilot.pause(0.05)
            assert str(holder_proc.pid) in screen_text(app)
    finally:
        os.kill(holder_proc.pid, signal.SIGKILL)
        holder_proc.wait()


# ---- a command left running by a killed run -----------------------------------------------------

# The first start stays running (like pip in the middle of an unpack) and, on SIGTERM, takes a second to
# finish what it writes ("finish") or ignores it ("ignore"). A later start of the same command (the
# resumed run redoing the step) records when it started and ends.
STUBBORN = """
import os, pathlib, signal, sys, time
d, mode = pathlib.Path(sys.argv[1]), sys.argv[2]
if (d / "slow.pid").exists():
    (d / "redo.start").write_text(repr(time.time()))
    sys.exit(0)
def on_term(*_):
    if mode == "ignore":
        return
    time.sleep(1.0)
    (d / "left.end").write_text(repr(time.time()))
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
(d / "slow.pid").write_text(str(os.getpid()))
while True:
    time.sleep(0.05)
"""


def _killed_run_leaving_a_command(tmp: Path, mode: str) -> tuple[int, Plan]:
    step = Step(
        "s",
        "a step whose command outlives the runner",
        "t",
        "user",
        ((PY, "-c", STUBBORN, str(tmp), mode),),
        Check((PY, "-c", EXISTS, str(tmp / "redo.start")), "the step ran to its end"),
    )
    plan = make_plan(step)
    (tmp / "plan.json").write_text(json.dumps(plan.to_dict()))
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp / "plan.json")], cwd=ROOT)
    _wait_for(tmp / "slow.pid", proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    leftover = int((tmp / "slow.pid").read_text())
    assert _alive(leftover), "the command has its own session and outlives the runner"
    return leftover, plan


def test_a_leftover_gets_time_to_finish_before_its_step_is_checked(tmp_path: Path) -> None:
    leftover, plan = _killed_run_leaving_a_command(tmp_path, "finish")
    rec = Recorder()
    runner = Runner(plan, rec, sudo=NOT_ROOT)
    result = runner.run()
    assert result.outcome == "finished", result.message
    assert runner.notice and str(leftover) in runner.notice
    assert not _alive(leftover)
    # SIGTERM, then the second it needed: it ended on its own terms (no SIGKILL mid-write) ...
    ended = float((tmp_path / "left.end").read_text())
    # ... and only then was the step checked (not done) and run again, never presumed done.
    assert float((tmp_path / "redo.start").read_text()) >= ended
    assert rec.statuses() == {"s": "done"}


def test_a_leftover_that_ignores_sigterm_is_killed_then_its_step_is_checked(tmp_path: Path) -> None:
    leftover, plan = _killed_run_leaving_a_command(tmp_path, "ignore")
    rec = Recorder()
    runner = Runner(plan, rec, sudo=NOT_ROOT)
    runner.leftover_grace_s = 0.5
    started = time.monotonic()
    result = runner.run()
    assert result.outcome == "finished", result.message
    assert not _alive(leftover) and not (tmp_path / "left.end").exists()  # SIGKILL after the grace
    assert time.monotonic() - started >= 0.5
    assert rec.statuses() == {"s": "done"} and (tmp_path / "redo.start").exists()


# ---- kill -9 at every point of a plan ------------------------------------------------------------

KILLER = """
import json, os, signal, sys
from wizard.plan.model import Plan
from wizard.run.runner import Runner, RunnerEvents
from wizard.run.sudo import SudoSession
plan = Plan.from_dict(json.load(open(sys.argv[1])))
at = int(sys.argv[2])
class Events(RunnerEvents):
    n = 0
    def tick(self):
        Events.n += 1
        if Events.n == at:
            os.kill(os.getpid(), signal.SIGKILL)
    def step_started(self, *a): self.tick()
    def output_line(self, *a, **k): self.tick()
    def step_finished(self, *a): self.tick()
result = Runner(plan, Events(), sudo=SudoSession(sudo="/nonexistent", is_root=True)).run()
print("events", Events.n, result.outcome)
"""


def _kill_plan(tmp: Path) -> Plan:
    return make_plan(touch_step("a", tmp / "a"), touch_step("b", tmp / "b"), touch_step("c", tmp / "c"))


def test_kill_9_at_every_event_then_resume_finishes(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "plan.json").write_text(json.dumps(_kill_plan(probe).to_dict()))
    out = subprocess.run(
        [sys.executable, "-c", KILLER, str(probe / "plan.json"), "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    total = int(out.stdout.split()[1])
    assert total >= 12, out.stdout
    survived = 0
    for at in range(1, total + 1):
        work = tmp_path / f"k{at}"
        work.mkdir()
        plan = _kill_plan(work)
        (work / "plan.json").write_text(json.dumps(plan.to_dict()))
        killed = subprocess.run(
            [sys.executable, "-c", KILLER, str(work / "plan.json"), str(at)], cwd=ROOT, capture_output=True
        )
        assert killed.returncode == -signal.SIGKILL
        state = Journal().load()  # whole, never half-written
        assert state is not None and not state.finished
        result = Runner(plan, Recorder(), sudo=NOT_ROOT).run()
        assert result.outcome == "finished", (at, result.message)
        assert all((work / n).exists() for n in "abc")
        assert all(runs(work / n) <= 2 for n in "abc")  # a step redone at most once
        final = Journal().load()
        assert final is not None and final.finished
        assert not [p for p in Journal().path.parent.iterdir() if p.name.endswith(".tmp")]
        Journal().path.unlink()
        survived += 1
    print(f"\nkill points survived: {survived} of {total}")
    assert survived == total


def test_the_lock_of_a_killed_run_is_free_again(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    (work / "plan.json").write_text(json.dumps(_kill_plan(work).to_dict()))
    subprocess.run(
        [sys.executable, "-c", KILLER, str(work / "plan.json"), "3"], cwd=ROOT, capture_output=True
    )
    assert holder(Journal().lock_path) is None
    with RunLock(Journal().lock_path):
        pass
