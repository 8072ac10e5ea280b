"""The wizard app made deterministic for snapshots: no cursor blink, a frozen clock,
no resume offer unless asked, and helpers that walk the flow like a user would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from screens.app import WizardApp
from screens.password_modal import PasswordModal
from screens.run_screen import RunScreen
from screens.widgets.step_log import StepLog
from screens.widgets.windows_host_panel import WindowsHostPanel
from wizard.demo import load_demo

DEMO = "wsl2-rtx4060-laptop"
FROZEN = 1_000.0


def build_app(profile: str | None = DEMO, **kwargs: Any) -> WizardApp:
    kwargs.setdefault("blink", False)
    kwargs.setdefault("clock", lambda: FROZEN)
    kwargs.setdefault("offer_resume", False)
    kwargs.setdefault("suggest_mirror", False)  # no locale- or network-dependent notice
    return WizardApp(load_demo(profile) if profile else None, **kwargs)


async def settle(pilot: Pilot[Any]) -> None:
    """Let workers finish and their messages land."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def to_detect(pilot: Pilot[Any]) -> None:
    await pilot.press("enter")
    await settle(pilot)


async def to_choose(pilot: Pilot[Any]) -> None:
    await to_detect(pilot)
    await pilot.press("n")
    await settle(pilot)


async def to_plan(pilot: Pilot[Any]) -> None:
    """The plan as Run will do it: the runner's preview has landed (it marks a step already there
    [✓], its title one line shorter) and the table has been laid out again after it. A preview that
    landed after `settle` (a loaded machine) left the screenshot between two layouts: the table's
    last column unpainted where its scrollbar had just gone (the 80x24 plan flake)."""
    await to_choose(pilot)
    await pilot.press("p")
    await settle(pilot)
    # By name, not class: the zh tests import the screens afresh (another PlanScreen class).
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "previewed", False) is True)
    await wait_still(pilot)


async def to_run(pilot: Pilot[Any]) -> None:
    """Start the run; its worker waits for the user at times, so do not wait for it here."""
    await to_plan(pilot)
    await pilot.press("r")
    await pilot.pause()


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Pause until `condition()` holds (then once more, so the screen shows it). It returns as soon
    as it holds; 60 s, not 10: a fresh-clone CI with 8,000 tests on 2 cores once took longer than 10 s
    from `r` to a run's first password prompt or Windows step (3 snapshot tests, passing alone), and
    a loaded run once longer than 30 s to a simulated run's finish."""
    for _ in range(int(timeout / 0.05)):
        if condition():
            await pilot.pause(0.05)
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not reached")


async def wait_still(pilot: Pilot[Any], timeout: float = 10.0) -> None:
    """Until two screenshots a pause apart are the same: whatever a loaded machine left pending
    (a table's column widths, a panel's layout after its first sample) has been drawn. A snapshot
    is of the settled screen, not of whichever refresh happened to land first (the zh 120x40 flake)."""
    # Three equal screenshots in a row, each after the screen's queues are empty and a short
    # sleep: one equal pair could be two reads of a frame whose next refresh was still queued
    # (a 120x40 monitor snapshot failed so once, in a fresh-clone CI on a loaded machine).
    before = pilot.app.export_screenshot()
    same = 0
    for _ in range(int(timeout / 0.05)):
        await pilot.pause()
        await pilot.pause(0.05)
        now = pilot.app.export_screenshot()
        same = same + 1 if now == before else 0
        if same >= 2:
            return
        before = now
    raise AssertionError("the screen kept changing")


def run_screen(app: App[Any]) -> RunScreen:
    return next(s for s in app.screen_stack if isinstance(s, RunScreen))


async def to_windows_step(pilot: Pilot[Any]) -> None:
    """WSL2 demo: the run waits at its first windows-host step."""
    await to_run(pilot)
    await wait_until(pilot, lambda: run_screen(pilot.app).query_one(WindowsHostPanel).display)


async def to_password(pilot: Pilot[Any]) -> None:
    await to_run(pilot)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, PasswordModal))


async def to_finished(pilot: Pilot[Any]) -> None:
    """Run to the end, giving the password where a step as root asks for it (a plan made with the
    wizard's own uv may have no root step at all)."""
    await to_run(pilot)
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, PasswordModal) or run_screen(pilot.app).state == "finished",
    )
    if isinstance(pilot.app.screen, PasswordModal):
        await pilot.press(*"secret", "enter")
    await wait_until(pilot, lambda: run_screen(pilot.app).state == "finished")
    await log_settled(pilot)


async def to_restart(pilot: Pilot[Any]) -> None:
    await to_password(pilot)
    await pilot.press(*"secret", "enter")
    await wait_until(pilot, lambda: run_screen(pilot.app).state == "restart")
    await log_settled(pilot)


async def to_failed(pilot: Pilot[Any]) -> None:
    await to_run(pilot)
    await wait_until(pilot, lambda: run_screen(pilot.app).state == "failed")
    await log_settled(pilot)


async def log_settled(pilot: Pilot[Any]) -> None:
    """The live log scrolls to its end after a refresh: let that happen before a snapshot."""
    log = run_screen(pilot.app).query_one(StepLog)
    await pilot.pause(0.1)
    log.scroll_end(animate=False, immediate=True)
    await pilot.pause()


# A driver update without a reboot, as NVML says it (tests/doctor_corpus holds many like it).
DOCTOR_TEXT = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.54\n"


async def to_doctor(pilot: Pilot[Any]) -> None:
    """Welcome's `e`: the doctor's screen, its text box focused."""
    from screens.doctor_screen import DoctorScreen

    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, DoctorScreen))


async def paste(pilot: Pilot[Any], text: str) -> None:
    """What a terminal sends for a paste (bracketed paste): the app gives it to the focused widget."""
    from textual import events

    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def to_doctor_answer(pilot: Pilot[Any], text: str = DOCTOR_TEXT) -> None:
    """An error pasted and read (Ctrl+R): the answer drawn and focused."""
    await to_doctor(pilot)
    await paste(pilot, text)
    await pilot.press("ctrl+r")
    await settle(pilot)  # the reading's worker done and its answer drawn
    await wait_until(pilot, lambda: getattr(pilot.app.screen.focused, "id", None) == "doctor-report")
    await pilot.pause()
