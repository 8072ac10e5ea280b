"""A check that does not answer in time proves nothing either way, and the run says so.

The real fault: a check that hangs (here it starts a child and sleeps, as lockfile.py starts
installed_ok.py and a stuck disk or NVML call would leave it). Before the commands, no answer is not
"already there": the step runs and its check after the commands decides. After the commands, no
answer is a failure named for what it is ("did not answer within N s"), never "did not pass", and
the check is stopped with everything it started.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from tests.test_runner_helpers import PY, Recorder, make_plan, runs, touch_step
from wizard.plan.model import Check
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

HANGS = (
    "import pathlib, subprocess, sys, time; "
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
    "pathlib.Path(sys.argv[1]).write_text(str(child.pid)); time.sleep(120)"
)
NOT_ROOT = SudoSession(is_root=False)


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True  # ended, waiting to be reaped
        except OSError:
            return True
        time.sleep(0.1)
    return False


def test_a_check_before_that_does_not_answer_runs_the_step_and_says_why(tmp_path: Path) -> None:
    target = tmp_path / "made"
    child = tmp_path / "child.pid"
    step = replace(touch_step("s", target), recheck=Check((PY, "-c", HANGS, str(child)), "hangs"))
    rec = Recorder()
    runner = Runner(make_plan(step), rec, sudo=NOT_ROOT)
    runner.check_timeout_s = 1.0
    result = runner.run()
    assert result.outcome == "finished", result.message
    assert runs(target) == 1 and rec.statuses() == {"s": "done"}  # proven by the check after
    said = "\n".join(rec.lines)
    assert "did not answer within 1 s" in said and "the step runs" in said, said
    assert _gone(int(child.read_text())), "the check's child was left running beside the step"
    assert result.log_path is not None and "no answer (timed out after 1 s)" in result.log_path.read_text()


def test_a_check_after_that_does_not_answer_is_not_proven_and_not_called_wrong(tmp_path: Path) -> None:
    target = tmp_path / "made"
    child = tmp_path / "child.pid"
    step = replace(
        touch_step("s", target), check=Check((PY, "-c", HANGS, str(child)), "the result is in place")
    )
    runner = Runner(make_plan(step), Recorder(), sudo=NOT_ROOT)
    runner.check_timeout_s = 1.0
    started = time.monotonic()
    result = runner.run()
    assert time.monotonic() - started < 60  # stopped, not waited for
    assert result.outcome == "failed" and result.failed_step == "s"
    assert "did not answer within 1 s" in result.message and "not proven" in result.message, result.message
    assert "did not pass" not in result.message
    assert _gone(int(child.read_text())), "the check's child was left running"
