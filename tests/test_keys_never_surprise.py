"""Keys that never surprise (issue 36): a key that reads or scrolls never changes a choice, and
focus comes back where it was. Each test presses the keys a student would."""

from __future__ import annotations

from typing import Any

import pytest

from screens.choose_screen import ChooseScreen
from screens.plan_screen import PlanScreen
from screens.widgets.candidate_table import CandidateTable
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle, to_choose
from wizard.text import set_language

WSL_3080 = "wsl2-rtx3080-laptop-driver527"  # its Choose detail is cut at 80x24: it scrolls


def _table(app: Any) -> CandidateTable:
    return app.screen.query_one(CandidateTable)


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Any:
    set_language(request.param)
    yield request.param
    set_language("en")


async def test_pagedown_end_home_on_choose_scroll_the_detail_and_keep_the_set(lang: str) -> None:
    app = build_app(WSL_3080)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        table = _table(app)
        chosen = table.highlighted()
        assert chosen is not None and chosen is app.session.recommendation.recommended
        box = app.screen.query_one("#choose-detail-box")
        assert box.max_scroll_y > 0  # the detail is cut: the student pages down to read on
        for key in ("pagedown", "end", "pageup", "home", "ctrl+end", "ctrl+home", "pagedown"):
            await pilot.press(key)
            await pilot.pause()
            assert table.highlighted() is chosen, key
            assert app.screen.focused is table, key
        assert box.scroll_y > 0  # PageDown read on in the detail
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PlanScreen)
        assert app.session.candidate is chosen  # what is planned is the set shown, not CPU only


async def test_the_summary_names_the_set_p_will_plan_when_another_row_is_highlighted() -> None:
    app = build_app(WSL_3080)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        assert "p plans:" not in screen_text(app)
        await pilot.press("down")
        await pilot.pause()
        chosen = _table(app).highlighted()
        flat = " ".join(screen_text(app).split())
        assert f"p plans: TensorFlow {chosen.set.tensorflow}" in flat
        await pilot.press("up")
        await pilot.pause()
        assert "p plans:" not in screen_text(app)


async def test_focus_comes_back_to_the_table_after_details_and_after_plan() -> None:
    app = build_app(WSL_3080)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        table = _table(app)
        await pilot.press("d")
        await pilot.pause()
        assert app.screen.maximized is not None
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None and app.screen.focused is table
        await pilot.press("down")  # the arrows work again
        await pilot.pause()
        assert table.cursor_row == 1
        second = table.highlighted()
        await pilot.press("d", "p")  # plan from the maximized detail, then come back
        await settle(pilot)
        assert isinstance(app.screen, PlanScreen)
        assert app.session.candidate is second
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ChooseScreen)
        assert app.screen.maximized is None and app.screen.focused is table
        await pilot.press("up")
        await pilot.pause()
        assert table.cursor_row == 0


async def test_a_demo_picked_in_the_app_changes_welcome_and_its_hints() -> None:
    """Point 9: after a demo is picked inside the app, Welcome no longer offers to detect this
    machine, Detect again says how to detect this computer (no --profile was given), and every
    hint names the demo."""
    from screens.detect_screen import DetectScreen
    from screens.welcome_screen import WelcomeScreen
    from wizard.safe.profile_hint import session_profile
    from wizard.text import t

    app = build_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert str(app.screen.query_one("#start").label) == t("app.welcome.start")
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("enter")  # the first demo in the list
        await settle(pilot)
        assert isinstance(app.screen, DetectScreen) and app.session.simulated
        demo = app.session.profile.demo
        assert session_profile() == demo and app.start_hint().endswith(f"--profile {demo}")
        await pilot.press("r")
        await settle(pilot)
        toasts = [str(n.message) for n in app._notifications]
        assert t("keys.detect.redetect_picked") in toasts
        assert t("story.detect.redetect_simulated") not in toasts
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        assert str(app.screen.query_one("#start").label) == t("app.welcome.start_simulated")
        assert t("app.welcome.detect_simulated") in screen_text(app)
        assert not app.screen.query_one("#welcome-demo-hint").display
    assert session_profile() is None  # the app's session ends with it


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_details_fill_the_screen_at_every_size(size: tuple[int, int]) -> None:
    """Point 8: `d` shows the detail on the whole screen (no hatch around a 15-line window)."""
    app = build_app(WSL_3080)
    async with app.run_test(size=size) as pilot:
        await to_choose(pilot)
        await pilot.press("d")
        await pilot.pause()
        box = app.screen.query_one("#choose-detail-box")
        assert app.screen.maximized is box
        assert box.outer_size.height >= size[1] - 4  # header, banner, footer: the rest is the detail
        assert box.max_scroll_y == 0  # at 120x40 it reads whole, without scrolling


async def test_escape_at_a_restart_never_skips_it_and_the_check_names_the_gpu() -> None:
    """Point 15: on a fresh RTX 4090 (no driver yet), the simulated driver step asks for a restart;
    Escape there stays (and says why) instead of going on without it; after `n` the GPU check
    names the GPU the machine has, not "NVIDIA GPU, compute capability ?"."""
    from tests.apps.wizard_app import run_screen, to_restart, wait_until
    from wizard.text import t

    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_restart(pilot)
        run = run_screen(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is run and run.state == "restart"
        assert t("keys.run.restart_pending_sim") in [str(n.message) for n in app._notifications]
        await pilot.press("n")
        await wait_until(pilot, lambda: run.state == "finished")
        from wizard.paths import log_dir

        text = "\n".join(p.read_text() for p in sorted(log_dir().glob("apply-*.log")))
        assert "NVIDIA GPU, compute capability ?" not in text
        assert "GeForce RTX 4090" in text


async def test_welcome_down_arrow_reads_on_and_the_footer_says_pagedown() -> None:
    """Point 19: on Welcome at 80x24 the Down arrow scrolls the page (the focus is on a button, and
    the buttons are one row), and the footer names PageDown while the page reads on."""
    from textual.widgets import Button

    from tests.apps.wizard_app import wait_until

    app = build_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        body = app.screen.query_one("#welcome-body")
        assert body.max_scroll_y > 0 and isinstance(app.screen.focused, Button)
        # The footer is told after the first refresh (call_after_refresh): on a loaded machine that
        # lands after one pause (a fresh-clone CI once read the footer before it).
        await wait_until(pilot, lambda: "pgdn Scroll" in screen_text(app))
        await pilot.press("down", "down")
        await pilot.pause()
        assert body.scroll_y == 2
        await pilot.press("up")
        await pilot.pause()
        assert body.scroll_y == 1
    app = build_app(None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#welcome-body").max_scroll_y == 0
        assert "pgdn Scroll" not in screen_text(app)  # nothing to read on: no hint
