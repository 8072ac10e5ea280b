"""One status model (issue 18, point 3): done, already satisfied, skipped by you, pending, failed.

Plan, Run, `apply` (and --dry-run) say the same of each step: a step finished before a resume
is "done", not "skipped"; a step whose check already passes is "already satisfied" everywhere;
the resume prompt names the first step that is not done."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from screens.confirm_quit_modal import ConfirmQuitModal
from screens.resume_modal import ResumeModal
from screens.run_screen import RunScreen
from screens.widgets.plan_step_table import PlanStepTable
from screens.widgets.run_step_list import RunStepList
from tests.apps.holding_runner import HoldingRunner, wait_for_the_lock
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle, to_plan, to_run, wait_until
from tests.test_runner_helpers import Recorder, make_plan, touch_step
from wizard.cli.main import main
from wizard.plan.model import DONE, SATISFIED, SKIPPED, first_unfinished
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)


def test_a_step_already_there_is_satisfied_and_one_left_out_is_skipped(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    a.write_text("there before")
    rec = Recorder()
    plan = make_plan(touch_step("a", a), touch_step("b", b), touch_step("c", c, optional=True))
    assert Runner(plan, rec, sudo=NOT_ROOT).run(skip={"c"}).outcome == "finished"
    assert rec.statuses() == {"a": SATISFIED, "b": DONE, "c": SKIPPED}


def test_a_resumed_run_shows_what_it_finished_as_done(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    plan = make_plan(touch_step("a", a), touch_step("b", b, confirm="Go on?"))
    first = Runner(plan, Recorder(answer=False), sudo=NOT_ROOT).run()
    assert first.outcome == "cancelled" and first.statuses["a"] == DONE
    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT).run().outcome == "finished"
    assert rec.statuses() == {"a": DONE, "b": DONE}  # not "skipped": this run's own first part


def test_first_unfinished_names_the_step_to_resume() -> None:
    plan = make_plan(*(touch_step(s, Path("/nonexistent") / s) for s in ("a", "b", "c")))
    assert first_unfinished(plan, {"a": DONE, "b": SATISFIED, "c": "pending"}) == (3, plan.steps[2])
    assert first_unfinished(plan, {"a": DONE, "b": "failed", "c": DONE}) == (2, plan.steps[1])
    assert first_unfinished(plan, {"a": DONE, "b": SKIPPED, "c": DONE}) is None


async def _quit_after_two_done(pilot: Pilot[Any]) -> None:
    await to_run(pilot)
    run = pilot.app.screen
    assert isinstance(run, RunScreen)
    await wait_until(pilot, lambda: list(run.query_one(RunStepList).status.values()).count("done") >= 2)
    await pilot.press("ctrl+q")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmQuitModal))
    await pilot.press("y")
    await pilot.pause()


async def test_resume_names_the_first_step_not_done_and_shows_done_steps_done() -> None:
    demo = "no-nvidia-gpu"
    app = build_app(
        demo,
        runner_factory=functools.partial(HoldingRunner, after_done=2),
        runner_options={"sim_delay": 0.01},
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await _quit_after_two_done(pilot)
    wait_for_the_lock(demo)  # the cancelled worker lets go of the run lock
    again = build_app(demo, offer_resume=True, runner_options={"sim_delay": 0.01})
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, ResumeModal))
        state = again.screen.state  # type: ignore[attr-defined]
        statuses = {k: r.status for k, r in state.steps.items()}
        number, step = first_unfinished(state.plan, statuses) or (0, None)
        assert step is not None and statuses[step.id] != DONE
        # The modal is on top before its first frame is drawn (the Welcome text, which says
        # "Resume" too, may still be what a loaded machine shows): wait for the prompt's own words.
        shown: list[str] = []  # the frame that showed the prompt is the one the asserts read

        def prompt_shown() -> bool:
            shown.append(screen_text(again))
            return f"step {number} of" in shown[-1]

        await wait_until(pilot, prompt_shown)
        assert step.title[:30] in " ".join(shown[-1].split())
        await pilot.press("y")
        await wait_until(pilot, lambda: any(isinstance(s, RunScreen) for s in again.screen_stack))
        run = next(s for s in again.screen_stack if isinstance(s, RunScreen))
        await wait_until(pilot, lambda: run.state == "finished")
        statuses_shown = dict(run.query_one(RunStepList).status)
        assert statuses_shown["venv"] == DONE and statuses_shown["tensorflow"] == DONE
        assert "skipped" not in screen_text(again)


async def test_plan_count_dry_run_and_run_agree_on_an_already_satisfied_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # WSL2 demo: the Windows driver is new enough, so its step is already satisfied.
    demo = "wsl2-rtx4060-laptop"
    app = build_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_plan(pilot)
        await settle(pilot)
        plan = app.session.plan
        assert plan is not None and plan.step("windows-driver").presumed_done
        summary = " ".join(screen_text(app).split())
        to_run_count = len(plan.active_steps) - 1
        assert f"{to_run_count} steps to run" in summary and "1 already satisfied" in summary
        table = app.screen.query_one(PlanStepTable)
        row = [s.id for s in table.steps].index("windows-driver")
        assert str(table.get_row_at(row)[0]) == "[✓]"  # the step itself shows it
        # Its details say so before the commands, which are not for now.
        detail = app.screen.query_one("#plan-detail", Static)
        table.move_cursor(row=row)
        there = f"there already, nothing to do: {plan.step('windows-driver').check.proves}"
        await wait_until(pilot, lambda: there in str(detail.render()))
        # Not run, so no restart follows it: neither its row nor its details say "then restart WSL".
        assert "wsl --shutdown afterwards" not in app.screen.detail_text()
        assert "restart" not in str(app.screen.query_one("#plan-restart", Static).render())
        assert "restart WSL" not in str(table.get_row_at(row)[-1])
        assert "restart WSL" in str(table.get_row_at(row + 1)[-1])  # the next step does restart it
        other = [s.id for s in table.steps].index(plan.active_steps[1].id)
        table.move_cursor(row=other)
        await wait_until(
            pilot, lambda: "Why" in str(detail.render()) and "there already" not in str(detail.render())
        )
    assert main(["apply", "--dry-run", "--profile", demo]) == 0
    out = capsys.readouterr().out
    blocks = out.split("\n\n")
    driver_block = next(b for b in blocks if "NVIDIA driver" in b and "Windows" in b)
    assert "already satisfied" in driver_block
    assert out.count("would run") == to_run_count
    app = build_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_run(pilot)
        run = app.screen
        assert isinstance(run, RunScreen)
        await wait_until(pilot, lambda: run.query_one(RunStepList).status["windows-driver"] != "pending")
        steps = run.query_one(RunStepList)
        assert steps.status["windows-driver"] == SATISFIED
        # Nothing was run for it, so no clock ("0:00") beside it.
        n = [s.id for s in steps.steps].index("windows-driver") + 1
        cell = str(steps.query_one(f"#step-{n} .step-status", Static).render())
        assert "already satisfied" in cell and ":" not in cell


def test_the_script_says_already_satisfied(tmp_path: Path) -> None:
    from wizard.plan.script import render_script

    step = dataclasses.replace(touch_step("a", tmp_path / "a"))
    text = render_script(make_plan(step))
    assert "already satisfied" in text
