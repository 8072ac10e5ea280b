"""Pilot tests of the whole flow on demo profiles, with commands simulated: a happy path,
a failing step with retry, resume after an interruption, and a WSL2 windows-host step."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, DataTable

from screens.app import WizardApp
from screens.choose_screen import ChooseScreen
from screens.confirm_quit_modal import ConfirmQuitModal
from screens.doctor_modal import DoctorModal
from screens.password_modal import PasswordModal
from screens.plan_screen import PlanScreen
from screens.resume_modal import ResumeModal
from screens.run_screen import RunScreen
from screens.widgets.candidate_table import CandidateTable
from screens.widgets.fit import head
from screens.widgets.step_log import StepLog
from screens.widgets.windows_host_panel import WindowsHostPanel
from tests.apps.flaky_runner import FlakyRunner
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import (
    FROZEN,
    build_app,
    run_screen,
    settle,
    to_choose,
    to_finished,
    to_plan,
    to_run,
    wait_until,
)
from tests.test_small_terminal import region_lines
from wizard.demo import load_demo
from wizard.plan.installer import INSTALLER_ENV
from wizard.text import t


def statuses(app: WizardApp) -> dict[str, str]:
    screen = app.screen_stack[-1]
    if not isinstance(screen, RunScreen):
        screen = next(s for s in app.screen_stack if isinstance(s, RunScreen))
    from screens.widgets.run_step_list import RunStepList

    return dict(screen.query_one(RunStepList).status)


async def test_choose_preselects_the_recommended_row_and_explains_the_others() -> None:
    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_choose(pilot)
        screen = app.screen
        assert isinstance(screen, ChooseScreen)
        rec = app.session.recommendation
        assert rec is not None and rec.recommended is not None
        table = screen.query_one(DataTable)
        assert table.cursor_row == rec.candidates.index(rec.recommended)
        seen = screen_text(app)
        assert f"Recommended: TensorFlow {rec.recommended.set.tensorflow}" in seen
        # A set blocked only by the driver is a row with a driver step (2.21 here), not a refusal.
        assert any(c.ok and c.driver_step for c in screen.query_one(CandidateTable).candidates)
        await pilot.press("a")  # every row: the ones that cannot work too
        await pilot.pause()
        rows = screen.query_one(CandidateTable).candidates
        bad = next(c for c in rows if not c.ok)
        seen = screen_text(app)
        # Beside the row: the reason's short head; the detail has it whole.
        assert (bad.reasons and head(bad.reasons[0]) in seen) or table.row_count > 20
        # A row that cannot work is refused with its reason.
        table.move_cursor(row=rows.index(bad))
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ChooseScreen)


async def test_choose_another_python_and_method_asks_the_resolver_again() -> None:
    app = build_app("ubuntu-22.04-rtx3090-cuda11.8")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_choose(pilot)
        first = app.session.recommendation
        assert first is not None and first.recommended is not None
        assert first.recommended.set.method == "pip-and-cuda"
        app.screen.query_one("#choose-method").value = "conda"  # type: ignore[attr-defined]
        await settle(pilot)
        second = app.session.recommendation
        assert second is not first and second is not None and second.recommended is not None
        assert second.recommended.set.method == "conda"


async def test_plan_shows_commands_markers_and_toggles_optional_steps() -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_plan(pilot)
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        plan = app.session.plan
        assert plan is not None
        seen = screen_text(app)
        # ROOT marks a sudo step; with the wizard's own uv this WSL2 plan has none (no python3-venv).
        assert "WINDOWS" in seen and "GB" in seen
        assert ("ROOT" in seen) == any(s.needs_root for s in plan.active_steps)
        optional = next(s for s in plan.steps if s.optional)
        table = screen.query_one(DataTable)
        table.move_cursor(row=[s.id for s in plan.steps].index(optional.id))
        await pilot.pause()
        assert "Why" in screen_text(app)
        before = optional.enabled
        await pilot.press("space")
        assert app.session.plan.step(optional.id).enabled is (not before)
        # A required step does not toggle.
        table.move_cursor(row=0)
        await pilot.press("space")
        assert app.session.plan.step(plan.steps[0].id).enabled


async def test_plan_exports_the_script(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    app = build_app("ubuntu-22.04-rtx3090-cuda11.8")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_plan(pilot)
        await pilot.press("e")
        await pilot.pause()
    script = tmp_path / "tf-gpu-wizard-install.sh"
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in text
    # The locked install: the lock's wheels by hash, then the GPU check file.
    assert "--require-hashes --no-deps -r" in text and "tf-gpu-wizard.lock.txt" in text
    assert "tf_gpu_check.py" in text


async def test_happy_path_to_the_monitor(monkeypatch: pytest.MonkeyPatch) -> None:
    # The person picked pip: Python 3.9 then comes from the deadsnakes PPA, a root step (with the
    # wizard's own uv it is `uv python install`, no root).
    monkeypatch.setenv(INSTALLER_ENV, "pip")
    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        # The root step asks for the password once, labelled simulated.
        await wait_until(pilot, lambda: isinstance(app.screen, PasswordModal))
        assert "Password needed" in screen_text(app) and "SIMULATED" in screen_text(app)
        await pilot.press(*"secret", "enter")
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        await wait_until(pilot, lambda: run.state == "finished")
        await pilot.pause()
        assert set(statuses(app).values()) == {"done"}
        seen = screen_text(app)
        assert "All steps finished" in seen and "SIMULATED" in seen
        assert "secret" not in seen
        assert not app.session.step_running
        await pilot.press("m")
        await pilot.pause()
        assert type(app.screen).__name__ == "MonitorScreen"


async def test_a_failing_step_offers_doctor_and_retry() -> None:
    factory = functools.partial(FlakyRunner, fail_once=["tensorflow"])
    app = build_app("ubuntu-22.04-rtx3090-cuda11.8", runner_factory=factory)
    # 40 lines: the failed uv command wraps over three, and the installer's error stays in view.
    async with app.run_test(size=(100, 40)) as pilot:
        await to_run(pilot)
        run = app.screen
        assert isinstance(run, RunScreen)
        await wait_until(pilot, lambda: run.state == "failed")
        await pilot.pause()
        assert statuses(app)["tensorflow"] == "failed"
        assert statuses(app)["verify"] == "pending"
        seen = screen_text(app)
        assert "No matching distribution found" in seen
        assert run.query_one("#retry", Button).display and run.query_one("#doctor", Button).display
        assert not run.query_one("#skip", Button).display  # a required step cannot be skipped
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DoctorModal)
        await pilot.press("escape")
        await pilot.press("r")
        await wait_until(pilot, lambda: run.state == "finished")
        await pilot.pause()
        # The retry redoes the failed step; the steps before it were already done.
        assert statuses(app)["tensorflow"] == "done" and statuses(app)["verify"] == "done"
        assert set(statuses(app).values()) <= {"done", "satisfied"}


async def test_wsl2_windows_host_step_waits_for_i_ran_it() -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        run = app.screen
        assert isinstance(run, RunScreen)
        panel = run.query_one(WindowsHostPanel)
        await wait_until(pilot, lambda: panel.display)
        # WSL already sees driver 566.36 (>= 528.33): that step is done; `wsl --update` is next.
        assert statuses(app)["windows-driver"] == "satisfied"
        assert statuses(app)["wsl-update"] == "waiting"
        assert "Run this in Windows PowerShell" in screen_text(app)
        assert "PS> wsl --update" in screen_text(app)
        await pilot.press("c")  # copy the command
        await pilot.pause()
        await pilot.click("#windows-ran")
        # wsl --update needs a `wsl --shutdown`: the run stops and says how to resume.
        await wait_until(pilot, lambda: run.state == "restart")
        await pilot.pause()
        seen = screen_text(app)
        # It names what to start again: the launcher (conftest fixes it for every checkout).
        # A demo session starts again on its demo (issue 36, point 3): the hint keeps --profile.
        flat = " ".join(seen.split())
        # The command on a line of its own (indented), so it is copied whole, not out of a sentence.
        assert "wsl --shutdown" in seen and "~/.local/bin/tf-gpu-wizard --profile wsl2-rtx4060-laptop" in flat
        command_line = next(ln for ln in seen.splitlines() if "~/.local/bin/tf-gpu-wizard" in ln)
        assert command_line.split("~/.local/bin/tf-gpu-wizard")[0].strip(" █▎▊│") == ""
        assert run.query_one("#continue", Button).display  # simulated: continue in place
        # The footer names a key for it too, and the key continues the run past the restart.
        assert "n Continue" in screen_text(app)
        # Escape does not go back past a pending restart, and the footer does not offer it: it says
        # what Escape does here, and the key says why in a notice, the run screen kept.
        assert "esc Restart first" in screen_text(app) and "esc Back" not in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is run and run.state == "restart"
        assert any("A restart is pending" in str(n.message) for n in app._notifications)
        run.query_one("#run-log").focus()  # not the button: the key itself must do it
        await pilot.press("n")
        await wait_until(pilot, lambda: run.state != "restart")
        assert statuses(app)["wsl-update"] == "done"


async def test_wsl2_old_windows_driver_is_a_step_done_by_hand() -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    profile.driver = None  # the GPU is known, but WSL sees no Windows driver version
    app = WizardApp(profile, blink=False, clock=lambda: FROZEN, offer_resume=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        run = app.screen
        assert isinstance(run, RunScreen)
        panel = run.query_one(WindowsHostPanel)
        await wait_until(pilot, lambda: panel.display)
        assert statuses(app)["windows-driver"] == "waiting"
        assert "Do this yourself" in screen_text(app)  # the driver comes from a web page
        await pilot.click("#windows-ran")
        # WSL maps a new Windows driver when it starts: the run asks for `wsl --shutdown` first.
        await wait_until(pilot, lambda: run.state == "restart")
        await pilot.pause()
        assert "wsl --shutdown" in screen_text(app)


async def test_resume_after_a_reboot() -> None:
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, PasswordModal))
        await pilot.press(*"pw", "enter")
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        await wait_until(pilot, lambda: run.state == "restart")
        assert "Restart the computer" in screen_text(app)
        await pilot.press("ctrl+q")  # nothing runs now: quits at once
    assert app.return_code == 0

    # Next start (same state directory): the run is offered first.
    again = build_app("ubuntu-24.04-rtx4090-fresh", offer_resume=True)
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, ResumeModal))
        assert "Resume the interrupted run?" in screen_text(again)
        # 5 steps on: the hello script is the last (the wizard's uv needs no python3-venv step)
        assert "step 1 of 5" in screen_text(again)
        await pilot.press("y")
        await wait_until(pilot, lambda: any(isinstance(s, RunScreen) for s in again.screen_stack))
        run = next(s for s in again.screen_stack if isinstance(s, RunScreen))
        await wait_until(
            pilot, lambda: run.state in ("finished", "failed") or isinstance(again.screen, PasswordModal)
        )
        if isinstance(again.screen, PasswordModal):
            await pilot.press(*"pw", "enter")
        await wait_until(pilot, lambda: run.state == "finished")
        assert statuses(again)["driver"] == "done"


async def test_ctrl_q_while_a_step_runs_asks_first_then_resume_is_offered() -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        run = app.screen
        assert isinstance(run, RunScreen)
        await wait_until(pilot, lambda: run.query_one(WindowsHostPanel).display)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitModal))
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is run)
        assert run.state == "running"
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitModal))
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0

    again = build_app("wsl2-rtx4060-laptop", offer_resume=True)
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, ResumeModal))
        await pilot.press("n")  # start over instead
        await pilot.pause()
        assert type(again.screen).__name__ == "WelcomeScreen"


async def test_a_failed_optional_step_can_be_skipped() -> None:
    factory = functools.partial(FlakyRunner, fail_once=["wslconfig"], match=None)
    app = build_app("wsl2-rtx4060-laptop", runner_factory=factory)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_plan(pilot)
        plan = app.session.plan
        assert plan is not None and not plan.step("wslconfig").enabled
        app.screen.query_one(DataTable).move_cursor(row=[s.id for s in plan.steps].index("wslconfig"))
        await pilot.press("space")  # the optional .wslconfig step, switched on
        assert app.session.plan.step("wslconfig").enabled
        await pilot.press("r")
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        panel = run.query_one(WindowsHostPanel)
        # Windows steps until the run gets to the .wslconfig step (a simulated restart on the way).
        for _ in range(6):
            await wait_until(pilot, lambda: run.state in ("failed", "restart") or panel.display)
            if run.state == "failed":
                break
            if run.state == "restart":
                await pilot.click("#continue")
            else:
                await pilot.click("#windows-ran")
            await pilot.pause(0.1)
        assert run.state == "failed" and statuses(app)["wslconfig"] == "failed"
        assert run.query_one("#skip", Button).display
        await pilot.press("s")
        # A simulated run shows finished Windows steps again (their checks cannot run here).
        for _ in range(8):
            await wait_until(
                pilot,
                lambda: (
                    run.state in ("finished", "restart")
                    or panel.display
                    or isinstance(app.screen, PasswordModal)
                ),
            )
            if run.state == "finished":
                break
            if isinstance(app.screen, PasswordModal):
                await pilot.press(*"pw", "enter")
            elif run.state == "restart":
                await pilot.click("#continue")
            else:
                await pilot.click("#windows-ran")
            await pilot.pause(0.1)
        assert statuses(app)["wslconfig"] == "skipped"
        assert statuses(app)["verify"] == "done"


async def _by_hand_step_at_80x24(pilot: Pilot[Any], app: WizardApp) -> RunScreen:
    """The old-driver WSL2 demo at 80x24: the run waits at the by-hand driver step, whose
    text is longer than the room the panel has."""
    await to_run(pilot)
    run = app.screen
    assert isinstance(run, RunScreen)
    panel = run.query_one(WindowsHostPanel)
    await wait_until(pilot, lambda: panel.display)
    await pilot.pause()
    assert statuses(app)["windows-driver"] == "waiting" and "Do this yourself" in screen_text(app)
    button = panel.query_one("#windows-ran", Button)
    footer_row = app.size.height - 1
    # "I ran it" is on screen, above the footer, and the footer offers its key.
    assert button.is_on_screen and button.region.bottom <= footer_row, button.region
    assert "I ran it" in screen_text(app).splitlines()[button.region.y]
    assert "i I ran it" in " ".join(screen_text(app).splitlines()[footer_row].split())
    # The long text scrolls by keys to its last line (End, from the button).
    box = panel.query_one("#windows-manual-box")
    assert box.max_scroll_y > 0
    await pilot.press("end")
    await pilot.pause()
    assert box.scroll_y >= box.max_scroll_y - 0.5
    assert "driver inside WSL." in " ".join(screen_text(app).split())  # its last words
    return run


async def test_by_hand_step_at_80x24_is_done_by_the_footer_key() -> None:
    app = build_app("wsl2-rtx3080-laptop-driver527")
    async with app.run_test(size=(80, 24)) as pilot:
        run = await _by_hand_step_at_80x24(pilot, app)
        await pilot.press("i")
        # The check ran: a new Windows driver needs `wsl --shutdown`, the run stops and says so.
        await wait_until(pilot, lambda: run.state == "restart")
        assert statuses(app)["windows-driver"] != "waiting"
        await pilot.pause()
        assert "wsl --shutdown" in screen_text(app)


async def test_by_hand_step_at_80x24_is_done_by_tab_and_enter() -> None:
    app = build_app("wsl2-rtx3080-laptop-driver527")
    async with app.run_test(size=(80, 24)) as pilot:
        run = await _by_hand_step_at_80x24(pilot, app)
        button = run.query_one("#windows-ran", Button)
        for _ in range(6):  # Tab goes round the panel's text box and back to the button
            if app.focused is button:
                break
            await pilot.press("tab")
        assert app.focused is button
        await pilot.press("enter")
        await wait_until(pilot, lambda: run.state == "restart")
        assert statuses(app)["windows-driver"] != "waiting"


async def test_retry_after_cancelling_the_password_asks_for_it_again() -> None:
    # RTX 4090 fresh, 80x24: the driver is a ROOT step. Cancelled at the password, then r:
    # the retry asks again (a real sudo would need it), it does not jump to the restart.
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_run(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, PasswordModal))
        await pilot.press("escape")
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        await wait_until(pilot, lambda: run.state == "cancelled")
        assert "Stopped before" in screen_text(app)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, PasswordModal) or run.state != "running")
        assert isinstance(app.screen, PasswordModal), run.state
        assert run.state == "running" and "restart" not in set(statuses(app).values())
        await pilot.press(*"pw", "enter")
        await wait_until(pilot, lambda: run.state == "restart")


async def test_a_cpu_plan_finishes_with_the_benchmark_not_a_gpu_monitor() -> None:
    app = build_app("no-nvidia-gpu")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        await wait_until(pilot, lambda: run.state == "finished" or isinstance(app.screen, PasswordModal))
        if isinstance(app.screen, PasswordModal):
            await pilot.press(*"pw", "enter")
            await wait_until(pilot, lambda: run.state == "finished")
        assert run.plan.set.method == "cpu"
        seen = " ".join(screen_text(app).split())
        assert "prove it with the benchmark" in seen and "GPU monitor" not in seen
        assert str(run.query_one("#monitor", Button).label) == t("app.run.monitor_cpu")
        await pilot.press("m")
        await pilot.pause()
        assert type(app.screen).__name__ == "MonitorScreen"
        assert app.screen.query_one("#monitor-left").border_title == t("monitor.title_host")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_log_path_reads_whole_in_the_log_panel(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A real user's log: under the home folder, shown with ~, on its own lines, broken only after a "/".
    monkeypatch.setenv("HOME", str(tmp_path))
    name = "apply-20250101-120000-simulated.log"
    log = tmp_path / ".local" / "state" / "tf-gpu-wizard" / "log" / name
    app = build_app("ubuntu-22.04-rtx3090-cuda11.8", runner_options={"log_path": log})
    async with app.run_test(size=size) as pilot:
        await to_finished(pilot)
        panel = run_screen(app).query_one(StepLog)
        lines = [strip.text.strip() for strip in panel.lines]  # as drawn, scrolled or not
        assert any(line.strip().endswith(name) for line in region_lines(app, panel))  # in sight at the end
        label = lines.index(t("app.run.log"))
        shown = [line for line in lines[label + 1 :] if line]
        assert "".join(shown) == "~/.local/state/tf-gpu-wizard/log/" + name
        assert shown[-1].endswith(name)  # the file name whole
        assert all(line.endswith("/") for line in shown[:-1])  # broken only after a folder
        assert str(tmp_path) not in "".join(shown)


async def test_native_windows_finish_hands_over_to_ubuntu_without_a_monitor() -> None:
    """windows11-rtx3070: the plan only sets WSL2 up; TensorFlow is installed inside Ubuntu next,
    so the finish says so and offers no GPU monitor or benchmark (there is no TensorFlow here), and
    the restart after `wsl --install` names the wizard's Windows .exe, never a Linux path."""
    app = build_app("windows11-rtx3070")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_run(pilot)
        run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        panel = run.query_one(WindowsHostPanel)
        await wait_until(pilot, lambda: panel.display and statuses(app).get("wsl-install") == "waiting")
        await pilot.click("#windows-ran")
        await wait_until(pilot, lambda: run.state == "restart")
        seen = " ".join(screen_text(app).split())
        exe = "C:\\Users\\alex\\tf-gpu-wizard\\.venv\\Scripts\\tf-gpu-wizard.exe"
        assert exe in seen
        assert "~/.local/bin" not in seen and "/bin/tf-gpu-wizard" not in seen
        await pilot.click("#continue")
        for step_id in ("wsl-first-start", "wsl-wizard"):

            def waiting(s: str = step_id) -> bool:
                return bool(panel.display) and statuses(app).get(s) == "waiting"

            await wait_until(pilot, waiting)
            await pilot.click("#windows-ran")
        await wait_until(pilot, lambda: run.state == "finished")
        seen = " ".join(screen_text(app).replace("█", " ").split())  # the notice's bar
        assert t("app.run.finished_wsl") in seen and "Follow the wizard in the Ubuntu window" in seen
        assert not run.query_one("#monitor", Button).display
        assert "Monitor" not in seen and "benchmark" not in seen
        await pilot.press("m")
        await pilot.pause()
        assert type(app.screen).__name__ != "MonitorScreen"
