"""One story from Welcome to the finish (issue 18): every demo profile walked at 80x24 as a
student would, pressing keys. On every screen the same TensorFlow version, every scrolling
region reachable to its last line by keys, and at the finish every step shown done (or already
satisfied); then, on one demo of each kind of run, the resume path: quit after the first step,
start again, resume, finish."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.containers import ScrollableContainer
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button

from screens.confirm_quit_modal import ConfirmQuitModal
from screens.confirm_step_modal import ConfirmStepModal
from screens.password_modal import PasswordModal
from screens.resume_modal import ResumeModal
from screens.run_screen import RunScreen
from screens.widgets.run_step_list import RunStepList
from screens.widgets.windows_host_panel import WindowsHostPanel
from tests.apps.holding_runner import HoldingRunner, wait_for_the_lock
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle
from wizard.demo import demo_names

pytestmark = pytest.mark.slow  # every demo from Welcome to the finish: minutes in all

SIZE = (80, 24)
TF = re.compile(r"TensorFlow (\d+\.\d+\.\d+)")
# A demo with no TensorFlow to install here has no run to walk (a Mac, WSL1: Choose says why).
NO_RUN = ("macos-arm64", "wsl1-ubuntu-22.04")
# The resume path (the same code on every demo) walked once per kind of run, not 21 times (it was a
# third of CI's time in this file): native with a restart to wait for, native without, a broken
# machine whose first step is its fix, WSL2 (with a wsl --shutdown), native Windows (a hand-over), the CPU.
RESUMED = {
    "ubuntu-22.04-rtx3060-secure-boot",
    "ubuntu-24.04-rtx4090-fresh",
    "ubuntu-22.04-rtx3060-mismatch-after-update",
    "wsl2-rtx4060-laptop",
    "windows11-rtx3070",
    "no-nvidia-gpu",  # a CPU plan: its finish is the CPU benchmark
}


def _flat(app: Any) -> str:
    return " ".join(screen_text(app).split())


def _regions(screen: Any) -> list[Widget]:
    out = []
    for w in screen.query("*").results(Widget):
        if isinstance(w, ScrollableContainer) or w.allow_vertical_scroll:
            if w.display and w.size.height > 0 and w.max_scroll_y > 0 and w.is_on_screen:
                out.append(w)
    return out


async def _every_region_scrolls_to_its_end(pilot: Pilot[Any]) -> None:
    """Each region with more than it shows: Tab to it (or stay where the screen puts the keys),
    End, and its last line is in view."""
    screen = pilot.app.screen
    for region in _regions(screen):
        await pilot.press("home")
        for _ in range(15):
            focused = screen.focused
            if focused is region or (focused is not None and region in focused.ancestors):
                break
            if not region.can_focus and screen.scroll_region() is region:  # type: ignore[attr-defined]
                break  # not focusable: the screen's scroll keys move it wherever the focus is
            await pilot.press("tab")
        await pilot.press("end")
        # The scroll is animated: on a loaded CI machine one pause can come before it ends.
        for _ in range(40):
            await pilot.pause(0.05)
            if region.scroll_y >= region.max_scroll_y - 0.5:
                break
        assert region.scroll_y >= region.max_scroll_y - 0.5, (type(screen).__name__, region)


def _versions(app: Any) -> set[str]:
    return set(TF.findall(_flat(app)))


def _laid_out(screen: Any, selector: str) -> bool:
    """The button is on screen with a size: a click before its first layout lands elsewhere (on a
    loaded machine it once hit the header's icon, which opens the command palette)."""
    button = screen.query_one(selector, Button)
    return bool(button.display and button.region.width and button.region.height)


async def _drive_run(pilot: Pilot[Any], quit_after_first: bool = False) -> RunScreen:
    app = pilot.app
    run = next(s for s in app.screen_stack if isinstance(s, RunScreen))
    deadline = time.monotonic() + 120  # a paced simulated run, on a shared CI box with 4 workers per 2 cores
    while time.monotonic() < deadline:
        await pilot.pause(0.03)
        if not run.query(RunStepList):
            continue  # pushed but not yet composed (a loaded CI box): nothing to read or press yet
        screen = app.screen
        if isinstance(screen, PasswordModal):
            await pilot.press(*"pw", "enter")
        elif isinstance(screen, ConfirmStepModal):
            await pilot.press("y")
        elif isinstance(screen, CommandPalette):
            await pilot.press("escape")  # a click that landed on the header's icon, as a person closes it
        elif screen is not run:
            pass  # a screen on its way in or out: click nothing until Run is on top again
        elif run.state == "restart" and _laid_out(run, "#continue"):
            await pilot.click("#continue")
        elif (
            run.query_one(WindowsHostPanel).display
            and not run.query_one("#windows-ran", Button).disabled
            and _laid_out(run, "#windows-ran")
        ):
            await pilot.click("#windows-ran")
        # Queried again: a press or click above may have let the screen recompose its list.
        steps = run.query(RunStepList)
        if quit_after_first and steps and "done" in steps.first().status.values():
            return run
        if run.state in ("finished", "failed"):
            return run
    raise AssertionError(f"the run did not finish: {run.state} (on top: {type(app.screen).__name__})")


@pytest.mark.parametrize("name", demo_names())
async def test_walk_welcome_to_the_finish_then_resume(
    name: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = build_app(name, runner_options={"sim_delay": 0.0})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _every_region_scrolls_to_its_end(pilot)  # Welcome
        await pilot.press("s")
        await settle(pilot)
        await _every_region_scrolls_to_its_end(pilot)  # Detect
        await pilot.press("n")
        await settle(pilot)
        rec = app.session.recommendation
        if name in NO_RUN or rec is None or rec.recommended is None:
            assert name in NO_RUN, "a demo with a GPU or a CPU set should have a plan"
            return
        tf = rec.recommended.set.tensorflow
        assert tf in _flat(app)  # Choose
        assert _versions(app) <= {tf} | {c.set.tensorflow for c in rec.candidates}
        await pilot.press("p")
        await settle(pilot)
        plan = app.session.plan
        assert plan is not None and plan.set.tensorflow == tf
        await _every_region_scrolls_to_its_end(pilot)  # Plan
        assert _versions(app) <= {tf}
        await pilot.press("r")
        run = await _drive_run(pilot)
        assert run.state == "finished", _flat(app)
        statuses = dict(run.query_one(RunStepList).status)
        assert set(statuses.values()) <= {"done", "satisfied"}, statuses
        assert _versions(app) <= {tf}
        await _every_region_scrolls_to_its_end(pilot)  # the finish
    if name not in RESUMED:
        return

    # The resume path, on a fresh machine state (the walk above finished every step): quit once
    # the first step is done; the next start resumes; what was done shows done.
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(tmp_path / "second"))
    first = build_app(name, runner_factory=HoldingRunner, runner_options={"sim_delay": 0.0})
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("r")
        run = await _drive_run(pilot, quit_after_first=True)
        finished_first = {k for k, v in run.query_one(RunStepList).status.items() if v == "done"}
        assert run.state != "finished"  # the runner holds at the next command until the quit
        await pilot.press("ctrl+q")
        if first.session.step_running:  # a run at a restart notice quits without asking
            for _ in range(300):
                await pilot.pause(0.05)
                if isinstance(first.screen, ConfirmQuitModal):
                    break
            await pilot.press("y")
        await pilot.pause()
    wait_for_the_lock(name)  # the cancelled worker lets go of the run lock
    again = build_app(name, offer_resume=True, runner_options={"sim_delay": 0.0})
    async with again.run_test(size=SIZE) as pilot:
        for _ in range(300):  # a loaded machine: the offer comes after the first refresh
            await pilot.pause(0.05)
            if isinstance(again.screen, ResumeModal):
                break
        assert isinstance(again.screen, ResumeModal), [n.message for n in again._notifications]
        await pilot.press("y")
        for _ in range(300):
            await pilot.pause(0.05)
            if any(isinstance(s, RunScreen) for s in again.screen_stack):
                break
        run = await _drive_run(pilot)
        assert run.state == "finished"
        statuses = dict(run.query_one(RunStepList).status)
        assert all(statuses[k] == "done" for k in finished_first), statuses
        assert set(statuses.values()) <= {"done", "satisfied"}, statuses
