"""Every scrolling region scrolls by keyboard to its last line (issue 18, point 2): Welcome and
the finish's "how to use it" at 80x24, and the finish at 120x40 in Chinese without an empty log
taking its room. The keys are pressed with the focus where the screen puts it (a button)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from screens.run_screen import RunScreen
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_plan, wait_until
from wizard.text import set_language, t

DEMO = "debian-12-gtx1060-laptop"  # a run with no password and no Windows step


def _flat(app: Any) -> str:
    return " ".join(screen_text(app).split())


def _tail(text: str, words: int = 4) -> str:
    return " ".join(text.split()[-words:])


async def _finish(pilot: Pilot[Any]) -> RunScreen:
    await to_plan(pilot)
    await pilot.press("r")
    run = next(s for s in pilot.app.screen_stack if isinstance(s, RunScreen))
    await wait_until(pilot, lambda: run.state == "finished")
    await pilot.pause(0.1)
    return run


async def test_welcome_at_80x24_scrolls_to_how_long_by_keys() -> None:
    app = build_app(DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        last = _tail(t("app.welcome.time"))
        assert last not in _flat(app)  # below the fold at first
        await pilot.press("pagedown", "pagedown", "pagedown")
        seen = _flat(app)
        assert t("app.welcome.no_touch_title") in seen and last in seen
        await pilot.press("home")
        assert t("app.welcome.heading") in _flat(app)
        await pilot.press("end")
        assert last in _flat(app)


async def test_the_finish_at_80x22_scrolls_to_vs_code_and_the_lock_by_keys() -> None:
    """At 80x24 the finish now reads whole (tests/test_whole_text_80x24.py); two lines fewer and it
    scrolls, by keys, with its scrollbar."""
    app = build_app(DEMO)
    async with app.run_test(size=(80, 22)) as pilot:
        run = await _finish(pilot)
        box = run.query_one("#run-notice-box")
        assert box.max_scroll_y > 0  # it does not all fit: a scrollbar shows
        assert box.styles.scrollbar_size_vertical >= 1
        await pilot.press("end")
        await pilot.pause()
        seen = _flat(app)
        assert "VS Code" in seen or "/bin/python" in seen
        assert "tf-gpu-wizard.lock.txt" in seen
        await pilot.press("home")
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        await pilot.pause()
        assert "tf-gpu-wizard.lock.txt" in _flat(app)


@pytest.fixture
def chinese() -> Any:
    set_language("zh")
    yield
    set_language("en")


async def test_the_finish_at_120x40_in_chinese_shows_every_line(chinese: None) -> None:
    app = build_app(DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await _finish(pilot)
        seen = _flat(app)
        assert "tf-gpu-wizard.lock.txt" in seen, screen_text(app)
        assert "VS Code" in seen
