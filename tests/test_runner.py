"""The step runner: checks before/after, failures, journal and resume, restarts, sudo, simulation."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.test_runner_helpers import PY, Recorder, make_plan, runs, touch_step
from wizard.plan.model import Check, Step
from wizard.run.journal import Journal, unfinished
from wizard.run.runner import LineSplitter, Runner
from wizard.run.sudo import SudoSession

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)  # runs root steps directly


def lines_of(chunks: list[bytes]) -> list[tuple[str, bool]]:
    sp = LineSplitter()
    out = []
    for c in chunks:
        out += sp.feed(c)
    return out + sp.close()


# ---- output decoding ------------------------------------------------------------------


def test_line_splitter_folds_carriage_return_progress() -> None:
    out = lines_of([b"10%\r50%\r", b"100%\ndone\r\n", b"tail"])
    assert out == [("10%", True), ("50%", True), ("100%", False), ("done", False), ("tail", False)]


def test_line_splitter_keeps_utf8_split_across_chunks_and_replaces_bad_bytes() -> None:
    text = "Größe ✓\n".encode()
    out = lines_of([text[:3], text[3:7], text[7:], b"bad \xff\xfe byte\n"])
    assert out == [("Größe ✓", False), ("bad \ufffd\ufffd byte", False)]


def test_line_splitter_drops_ansi_escapes() -> None:
    assert lines_of([b"\x1b[32mgreen\x1b[0m text\n"]) == [("green text", False)]


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    assert lines_of([b"a\r", b"\nb\n"]) == [("a", False), ("b", False)]


# ---- running, skipping, failing ------------------------------------------------------------


def test_runs_steps_then_a_second_run_changes_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    plan = make_plan(touch_step("a", a), touch_step("b", b))
    rec = Recorder()
    result = Runner(plan, rec, sudo=NOT_ROOT).run()
    assert result.outcome == "finished"
    assert rec.statuses() == {"a": "done", "b": "done"}
    assert runs(a) == runs(b) == 1
    rec2 = Recorder()
    result2 = Runner(plan, rec2, sudo=NOT_ROOT).run()
    assert result2.outcome == "finished"
    assert rec2.statuses() == {"a": "satisfied", "b": "satisfied"}
    assert runs(a) == runs(b) == 1  # nothing ran again
    assert any(": satisfied: " in line for line in Path(result2.log_path or "").read_text().splitlines())


def test_output_lines_reach_the_callback_and_the_log(tmp_path: Path) -> None:
    step = Step(
        "talk",
        "talk",
        "test",
        "user",
        ((PY, "-c", "import sys; print('to out'); print('to err', file=sys.stderr)"),),
        Check(("true",), "always"),
        check_before=False,
    )
    rec = Recorder()
    result = Runner(make_plan(step), rec, sudo=NOT_ROOT).run()
    assert "to out" in rec.lines and "to err" in rec.lines
    log = Path(result.log_path or "").read_text()
    assert "to out" in log and "to err" in log
    assert Path(result.log_path or "").parent == Path(os.environ["TF_GPU_WIZARD_HOME"]) / "logs"


def test_two_runs_started_in_the_same_second_each_get_their_own_log(tmp_path: Path) -> None:
    for attempt in range(5):  # a second boundary between the two runs: try again in a fresh second
        plan = make_plan(touch_step("a", tmp_path / f"a{attempt}"))  # the first run has work to do
        while time.time() % 1 > 0.5:
            time.sleep(0.05)
        before = time.strftime("%Y%m%d-%H%M%S")
        first = Runner(plan, Recorder(), sudo=NOT_ROOT).run()
        second = Runner(plan, Recorder(), sudo=NOT_ROOT).run()
        if time.strftime("%Y%m%d-%H%M%S") == before:
            break
    else:
        pytest.skip("no two runs fitted in one second")
    assert first.log_path is not None and second.log_path is not None
    assert first.log_path != second.log_path
    assert before in first.log_path.name and before in second.log_path.name
    for result, status in ((first, "done"), (second, "satisfied")):
        log = result.log_path.read_text()  # type: ignore[union-attr]
        assert log.count("# tf-gpu-wizard apply ") == 1  # one run's header, not both
        assert f": {status}: " in log


CREATE = """
import os, sys
from pathlib import Path
from wizard.paths import create_new
for _ in range(20):
    path, fd = create_new(Path(sys.argv[1]), "apply-20250101-120000", ".log")
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
"""


def test_logs_created_at_once_by_two_processes_never_share_a_file(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    procs = [
        subprocess.Popen(
            [PY, "-c", CREATE, str(tmp_path)], cwd=root, env={**os.environ, "PYTHONPATH": str(root)}
        )
        for _ in range(2)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    files = sorted(tmp_path.iterdir())
    assert len(files) == 40
    pids = {str(p.pid) for p in procs}
    assert all(f.read_text() in pids for f in files)  # one writer each, nothing appended twice
    assert (tmp_path / "apply-20250101-120000.log").exists()
    assert (tmp_path / "apply-20250101-120000-40.log").exists()


def test_a_failing_command_stops_the_run_with_what_to_do(tmp_path: Path) -> None:
    bad = Step(
        "bad",
        "a step that breaks",
        "test",
        "user",
        ((PY, "-c", "print('E: Could not get lock /var/lib/dpkg/lock'); raise SystemExit(100)"),),
        Check(("false",), "never"),
    )
    after = touch_step("after", tmp_path / "after")
    rec = Recorder()
    result = Runner(make_plan(bad, after), rec, sudo=NOT_ROOT).run()
    assert result.outcome == "failed" and result.failed_step == "bad"
    assert "status 100" in result.message and "another program is installing" in result.message
    assert str(result.log_path) in result.message
    assert rec.statuses() == {"bad": "failed"}
    assert runs(tmp_path / "after") == 0
    state = Journal().load()
    assert state is not None and state.steps["bad"].status == "failed"


def test_a_check_that_fails_after_the_commands_fails_the_step(tmp_path: Path) -> None:
    step = Step("liar", "claims success", "test", "user", (("true",),), Check(("false",), "the impossible"))
    result = Runner(make_plan(step), Recorder(), sudo=NOT_ROOT).run()
    assert result.outcome == "failed"
    assert "the check did not pass: the impossible" in result.message


def test_a_missing_program_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    step = Step("gone", "gone", "test", "user", (("/no/such/program",),), Check(("false",), "x"))
    result = Runner(make_plan(step), Recorder(), sudo=NOT_ROOT).run()
    assert result.outcome == "failed" and "127" in result.message


def test_destructive_step_needs_confirmation(tmp_path: Path) -> None:
    target = tmp_path / "gone"
    step = touch_step("rm", target, confirm="Really?")
    rec = Recorder(answer=False)
    result = Runner(make_plan(step), rec, sudo=NOT_ROOT).run()
    assert result.outcome == "cancelled" and runs(target) == 0
    assert ("confirm", "rm", "Really?") in rec.events
    assert (
        Runner(make_plan(step), Recorder(answer=False), sudo=NOT_ROOT, assume_yes=True).run().outcome
        == "finished"
    )


def test_skip_leaves_a_step_out(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    rec = Recorder()
    Runner(make_plan(touch_step("a", a), touch_step("b", b, optional=True)), rec, sudo=NOT_ROOT).run(
        skip={"b"}
    )
    assert runs(b) == 0 and rec.statuses()["b"] == "skipped"


def test_disabled_optional_steps_are_not_run(tmp_path: Path) -> None:
    b = tmp_path / "b"
    Runner(make_plan(touch_step("b", b, optional=True, enabled=False)), Recorder(), sudo=NOT_ROOT).run()
    assert runs(b) == 0


def test_cancel_from_another_thread_stops_a_long_command(tmp_path: Path) -> None:
    step = Step(
        "sleep", "sleep", "t", "user", ((PY, "-c", "import time; time.sleep(60)"),), Check(("false",), "x")
    )
    runner = Runner(make_plan(step), Recorder(), sudo=NOT_ROOT)
    threading.Timer(0.5, runner.cancel).start()
    started = time.monotonic()
    result = runner.run()
    assert result.outcome == "cancelled"
    assert time.monotonic() - started < 10
    state = Journal().load()
    assert state is not None and state.steps["sleep"].status == "pending"


# ---- restarts and Windows-host steps -----------------------------------------------------------


def test_reboot_step_stops_and_resumes_in_the_next_boot(tmp_path: Path) -> None:
    marker, after = tmp_path / "driver", tmp_path / "after"
    plan = make_plan(touch_step("driver", marker, restart="reboot"), touch_step("after", after))
    boot = ["boot-1"]
    rec = Recorder()
    result = Runner(plan, rec, sudo=NOT_ROOT, boot_id=lambda: boot[0]).run()
    assert result.outcome == "restart" and rec.restarts == ["reboot"]
    assert runs(after) == 0
    state = Journal().load()
    assert state is not None and state.restart is not None and state.restart.boot_id == "boot-1"
    # Started again without rebooting: still asks for the reboot, runs nothing.
    rec2 = Recorder()
    assert Runner(plan, rec2, sudo=NOT_ROOT, boot_id=lambda: boot[0]).run().outcome == "restart"
    assert runs(marker) == 1 and runs(after) == 0
    boot[0] = "boot-2"
    rec3 = Recorder()
    result3 = Runner(plan, rec3, sudo=NOT_ROOT, boot_id=lambda: boot[0]).run()
    assert result3.outcome == "finished"
    assert rec3.statuses() == {"driver": "done", "after": "done"}
    assert runs(marker) == 1 and runs(after) == 1


def test_windows_host_step_waits_then_checks_from_inside(tmp_path: Path) -> None:
    flag = tmp_path / "windows-did-it"
    step = Step(
        "wsl-update",
        "Windows: update WSL",
        "test",
        "windows-host",
        (("wsl", "--update"),),
        Check(
            (PY, "-c", "import pathlib,sys; sys.exit(not pathlib.Path(sys.argv[1]).exists())", str(flag)),
            "ok",
        ),
    )
    rec = Recorder(on_wait=lambda: flag.write_text("1"))
    result = Runner(make_plan(step), rec, sudo=NOT_ROOT).run()
    assert result.outcome == "finished"
    assert "wsl --update" in rec.windows_texts[0] and "PowerShell" in rec.windows_texts[0]
    # The user says "I ran it" but did not: the check fails.
    flag.unlink()
    fail = Runner(make_plan(step), Recorder(), sudo=NOT_ROOT)
    fail.events = Recorder(windows_ok=True)
    assert fail.run().outcome == "failed"


# ---- journal -------------------------------------------------------------------------------


def test_corrupt_journal_is_set_aside_with_a_notice(tmp_path: Path) -> None:
    journal = Journal()
    journal.path.parent.mkdir(parents=True, exist_ok=True)
    journal.path.write_text('{"schema": 1, "plan": {"half')
    state, notice = unfinished()
    assert state is None and notice and "could not be read" in notice
    assert not journal.path.exists()
    assert list(journal.path.parent.glob("run.corrupt-*.json"))
    target = tmp_path / "t"
    journal.path.write_text("garbage")
    runner = Runner(make_plan(touch_step("t", target)), Recorder(), sudo=NOT_ROOT)
    assert runner.run().outcome == "finished" and runner.notice


def test_journal_holds_the_plan_and_every_status(tmp_path: Path) -> None:
    plan = make_plan(touch_step("a", tmp_path / "a"))
    Runner(plan, Recorder(), sudo=NOT_ROOT).run()
    data = json.loads(Journal().path.read_text())
    assert data["plan"]["id"] == plan.id and data["finished"] is True
    assert data["steps"]["a"]["status"] == "done"
    assert not list(Journal().path.parent.glob("*.tmp-*"))  # atomic writes leave no temp files


def test_a_different_plan_sets_the_old_journal_aside(tmp_path: Path) -> None:
    Runner(
        make_plan(touch_step("a", tmp_path / "a"), touch_step("x", tmp_path / "x", where="user")),
        Recorder(),
        sudo=NOT_ROOT,
    ).run(skip={"x"})
    Runner(make_plan(touch_step("b", tmp_path / "b")), Recorder(), sudo=NOT_ROOT).run()
    assert list(Journal().path.parent.glob("run.replaced-*.json"))


# ---- sudo ----------------------------------------------------------------------------------

FAKE_SUDO = """#!/bin/bash
# A stand-in for sudo: -n fails (a password is needed); -S reads one line and checks it.
printf '%s\\n' "$*" >> "$SUDO_LOG"
if [ "$1" = "-n" ] || [ "$2" = "-n" ]; then exit 1; fi
IFS= read -r pw
[ "$pw" = "$SUDO_SECRET" ] || { echo "Sorry, try again." >&2; exit 1; }
while [ "$1" != "--" ] && [ "$#" -gt 0 ]; do
  if [ "$1" = "true" ]; then exit 0; fi
  shift
done
shift
exec "$@"
"""


@pytest.fixture
def fake_sudo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    sudo = tmp_path / "sudo"
    sudo.write_text(FAKE_SUDO)
    sudo.chmod(sudo.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SUDO_LOG", str(tmp_path / "sudo.log"))
    monkeypatch.setenv("SUDO_SECRET", "hunter2-Sekr3t")
    return sudo


def test_password_is_asked_once_and_never_leaks(tmp_path: Path, fake_sudo: Path) -> None:
    secret = "hunter2-Sekr3t"
    ps_out = tmp_path / "ps.txt"
    # A root step that records the whole process list while it runs (sudo and itself included).
    spy = (
        "import pathlib, subprocess, sys; "
        "pathlib.Path(sys.argv[1]).write_text(subprocess.run(['ps', '-eo', 'args'], "
        "capture_output=True, text=True).stdout); print('stdin was:', repr(sys.stdin.read()))"
    )
    steps = [
        Step(
            "r1",
            "root one",
            "t",
            "root",
            ((PY, "-c", spy, str(ps_out)),),
            Check(("true",), "ok"),
            check_before=False,
        ),
        touch_step("r2", tmp_path / "r2", where="root"),
    ]
    rec = Recorder(password=secret)
    sudo = SudoSession(sudo=str(fake_sudo), is_root=False)
    result = Runner(make_plan(*steps), rec, sudo=sudo, confirm_root=False).run()
    assert result.outcome == "finished", result.message
    assert rec.asked_password == 1
    assert "stdin was: ''" in rec.lines  # sudo consumed the password line; the command saw none
    assert secret not in ps_out.read_text()
    assert secret not in Path(result.log_path or "").read_text()
    assert secret not in Journal().path.read_text()
    assert secret not in (tmp_path / "sudo.log").read_text()  # not in sudo's argv either
    assert secret not in repr(sudo)


def test_wrong_password_three_times_fails_cleanly(tmp_path: Path, fake_sudo: Path) -> None:
    rec = Recorder(password="wrong")
    sudo = SudoSession(sudo=str(fake_sudo), is_root=False)
    result = Runner(
        make_plan(touch_step("r", tmp_path / "r", where="root")), rec, sudo=sudo, confirm_root=False
    ).run()
    assert result.outcome == "failed" and rec.asked_password == 3
    assert runs(tmp_path / "r") == 0


def test_root_steps_ask_before_running_unless_yes(tmp_path: Path) -> None:
    step = touch_step("r", tmp_path / "r", where="root")
    rec = Recorder(answer=False)
    assert Runner(make_plan(step), rec, sudo=NOT_ROOT).run().outcome == "cancelled"
    assert rec.events[1][0] == "confirm" and "sudo" in rec.events[1][2]
    assert (
        Runner(make_plan(step), Recorder(answer=False), sudo=NOT_ROOT, assume_yes=True).run().outcome
        == "finished"
    )


# ---- simulation ------------------------------------------------------------------------------


def test_simulated_run_executes_nothing_and_says_so(tmp_path: Path) -> None:
    target = tmp_path / "never"
    plan = make_plan(touch_step("a", target), touch_step("r", tmp_path / "r2", where="root"), simulated=True)
    rec = Recorder(password="anything")
    result = Runner(plan, rec).run()
    assert result.outcome == "finished"
    assert runs(target) == 0 and not target.exists()
    assert rec.lines and all(line.startswith("SIMULATED") for line in rec.lines)
    assert rec.asked_password == 1  # the demo shows the password prompt too
    assert Journal(simulated=True).path.exists() and not Journal().path.exists()


def test_simulated_restart_resumes_on_the_next_run(tmp_path: Path) -> None:
    plan = make_plan(
        touch_step("d", tmp_path / "d", restart="reboot"), touch_step("e", tmp_path / "e"), simulated=True
    )
    assert Runner(plan, Recorder()).run().outcome == "restart"
    rec = Recorder()
    assert Runner(plan, rec).run().outcome == "finished"
    assert rec.statuses() == {"d": "done", "e": "done"}


def test_simulated_resume_does_not_redo_finished_steps(tmp_path: Path) -> None:
    plan = make_plan(
        touch_step("a", tmp_path / "a"),
        touch_step("d", tmp_path / "d", restart="reboot"),
        touch_step("e", tmp_path / "e"),
        simulated=True,
    )
    assert Runner(plan, Recorder()).run().outcome == "restart"
    rec = Recorder()
    assert Runner(plan, rec).run().outcome == "finished"
    assert rec.statuses() == {"a": "done", "d": "done", "e": "done"}  # done before the restart
    again = Recorder()
    assert Runner(plan, again).run().outcome == "finished"
    assert set(again.statuses().values()) == {"satisfied"}  # a finished demo changes nothing


def test_simulated_run_skips_what_the_profile_shows_done(tmp_path: Path) -> None:
    import dataclasses

    done = dataclasses.replace(touch_step("driver", tmp_path / "d", where="windows-host"), presumed_done=True)
    plan = make_plan(done, touch_step("e", tmp_path / "e"), simulated=True)
    rec = Recorder()
    assert Runner(plan, rec).run().outcome == "finished"
    assert rec.statuses() == {"driver": "satisfied", "e": "done"}
    real = make_plan(dataclasses.replace(done), touch_step("e", tmp_path / "e"))
    assert (
        real.steps[0].presumed_done and Runner(real, Recorder()).check(real.steps[0]) is False
    )  # real runs check


def test_runner_never_needs_the_real_sudo_when_root() -> None:
    session = SudoSession(sudo="/nonexistent", is_root=True)
    assert session.ready and session.wrap(["id"]).argv == ["id"]


def test_python_is_this_interpreter() -> None:
    assert PY == sys.executable
