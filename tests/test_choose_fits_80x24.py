"""Choose at 80x24 never scrolls the screen as the student moves between rows: another row's
"p plans: ..." line makes the summary longer, and the detail gives up the lines it needs, so the
method, Python and folder options and "Use this setup" stay above the footer (en and zh)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Button

from screens.widgets.candidate_table import CandidateTable
from tests.apps.wizard_app import build_app, to_choose, wait_until
from wizard.text import set_language


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Any:
    set_language(request.param)
    yield request.param
    set_language("en")


@pytest.mark.parametrize("name", ["ubuntu-24.04-rtx4090-fresh", "ubuntu-22.04-rtx3060-mismatch-after-update"])
async def test_moving_between_rows_keeps_the_options_on_the_screen(name: str, lang: str) -> None:
    app = build_app(name)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        screen = app.screen
        rows = len(screen.query_one(CandidateTable).candidates)
        for key in ["down"] * (rows - 1) + ["up"] * (rows - 1):
            await pilot.press(key)
            # The detail is fitted over a few refreshes: on a loaded machine (CI's workers) they may
            # take seconds, so the settled screen is waited for (wait_until's limit), then checked.
            use = screen.query_one("#use", Button)
            await wait_until(
                pilot, lambda b=use: screen.max_scroll_y == 0 and b.region.bottom <= screen.size.height - 1
            )
            assert screen.max_scroll_y == 0, key
            assert use.region.bottom <= screen.size.height - 1  # above the footer, in sight
