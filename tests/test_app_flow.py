"""Pilot tests: the wizard app walked as a user would, asserting what the user sees."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Button, OptionList, Static

from screens.app import WizardApp
from screens.detect_screen import DetectScreen
from screens.help_screen import HelpScreen
from screens.welcome_screen import WelcomeScreen
from screens.widgets.simulated_banner import SimulatedBanner
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle, to_choose, to_detect
from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, context, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.profile import MachineProfile


def text_of(widget: Static) -> str:
    return str(widget.render())


async def test_welcome_says_what_happens_and_offers_a_demo() -> None:
    app = build_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        seen = screen_text(app)
        assert "What will happen" in seen and "Try a demo machine" in seen
        assert app.screen.query_one("#demo", Button)
        assert (
            not app.screen.query_one(SimulatedBanner).display
            or "-hidden" in app.screen.query_one(SimulatedBanner).classes
        )


async def test_welcome_names_the_environment_folder_choose_will_name() -> None:
    # A Windows machine's environment is made in Ubuntu (WSL2): Welcome said this machine's home.
    from textual.widgets import Input

    from tests.apps.wizard_app import to_choose

    for profile in ("windows11-rtx3070", "wsl2-rtx4060-laptop"):
        app = build_app(profile)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            touch = " ".join(text_of(w) for w in app.screen.query("#welcome-touch Static").results(Static))
            await to_choose(pilot)
            folder = app.screen.query_one("#choose-venv", Input).value.strip()
            assert f"(default {folder})" in " ".join(touch.split()), (profile, folder, touch)


async def test_demo_profile_is_labelled_simulated_everywhere() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        banner = app.screen.query_one(SimulatedBanner)
        assert "SIMULATED" in text_of(banner)
        await to_detect(pilot)
        assert isinstance(app.screen, DetectScreen)
        assert "SIMULATED" in text_of(app.screen.query_one(SimulatedBanner))
        assert "RTX 4060 Laptop" in screen_text(app)


async def test_detect_shows_each_part_as_it_finishes_then_the_problems(tmp_path: Path) -> None:
    root = tree(tmp_path, {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204})
    gate = threading.Semaphore(0)

    def detector(on_part: Callable[[str, MachineProfile], None]) -> MachineProfile:
        def slowly(part: str, profile: MachineProfile) -> None:
            on_part(part, profile)
            gate.acquire(timeout=10)  # the test lets each part through in turn

        return detect(
            context=context(root), nvml=FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND), on_part=slowly
        )

    app = WizardApp(None, detector=detector, blink=False, offer_resume=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, DetectScreen)
        for _ in range(50):
            await pilot.pause(0.02)
            if screen.done:
                break
        assert screen.done == ["platform"]
        seen = screen_text(app)
        assert "Ubuntu 22.04" in seen and "◌ Python" in seen and "1 of 8" in seen
        assert screen.query_one("#next", Button).disabled
        gate.release()
        for _ in range(50):
            await pilot.pause(0.02)
            if len(screen.done) == 2:
                break
        assert screen.done == ["platform", "python"]
        assert "◌ Python" not in screen_text(app)
        for _ in range(10):
            gate.release()
        await settle(pilot)
        assert app.session.detected and app.session.profile is not None
        assert not app.session.profile.simulated
        seen = screen_text(app)
        assert "Detection finished" in seen and "no NVIDIA driver found" in seen
        # No GPU here: the screen says so and offers the demo machines.
        assert screen.query_one("#detect-no-gpu").display
        assert app.focused is screen.query_one("#demo", Button)
        assert not screen.query_one("#next", Button).disabled


async def test_detect_again_on_a_demo_profile_stays_simulated(tmp_path: Path) -> None:
    """`r` on a demo replays the demo's detection: the banner stays and no real command can run."""
    calls: list[str] = []

    def detector(**_: object) -> MachineProfile:
        calls.append("real detection")
        raise AssertionError("a demo profile must not detect this machine")

    app = build_app(detector=detector)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_detect(pilot)
        demo = app.session.profile
        assert app.session.simulated
        await pilot.press("r")
        await settle(pilot)
        assert calls == []
        assert app.session.simulated and app.session.profile is demo
        banner = app.screen.query_one(SimulatedBanner)
        assert "-hidden" not in banner.classes and "SIMULATED" in text_of(banner)
        seen = screen_text(app)
        assert "RTX 4060 Laptop" in seen and "SIMULATED" in seen
        assert not app.screen.query_one("#next", Button).disabled
        # On to the plan: it is the demo's, and Run would simulate it (no real command).
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert app.session.plan is not None and app.session.plan.simulated
        assert "SIMULATED" in screen_text(app)


async def test_demo_picker_switches_to_a_demo_machine() -> None:
    app = build_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        index = next(i for i, label in enumerate(labels) if "RTX 3090" in label)
        options.highlighted = index
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetectScreen)
        assert app.session.simulated and app.session.profile is not None
        assert "RTX 3090" in screen_text(app)


async def test_help_opens_on_question_mark_and_f1_and_closes_on_escape() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")


async def test_ctrl_q_quits_at_once_when_nothing_runs() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_escape_goes_back_a_screen() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await to_detect(pilot)
        await pilot.press("escape")
        assert isinstance(app.screen, WelcomeScreen)


async def test_choose_shows_the_rows_worth_reading_and_all_on_a() -> None:
    from screens.widgets.candidate_table import CandidateTable

    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_choose(pilot)
        table = app.screen.query_one(CandidateTable)
        rec = app.session.recommendation
        assert rec is not None and rec.recommended is not None
        assert table.highlighted() is rec.recommended  # preselected
        few = table.row_count
        assert few < len(rec.candidates)
        assert "driver 470.256.02 supports CUDA up to 11.4" in screen_text(app)  # why TF 2.21 is out
        await pilot.press("a")
        await settle(pilot)
        assert table.row_count == len(rec.candidates)
        await pilot.press("a")
        await settle(pilot)
        assert table.row_count == few
