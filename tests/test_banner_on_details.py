"""A demo never looks like this machine, on any view: `d` (a step's or a row's detail on the whole
screen) keeps the SIMULATED banner on its first line, in English and Chinese, at 80x24 and 120x40;
Escape gives the screen back with the banner where it was."""

from __future__ import annotations

from typing import Any

import pytest

from screens.widgets.simulated_banner import SimulatedBanner
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_choose, to_plan
from wizard.text import set_language, t

SIZES = [(80, 24), (120, 40)]


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Any:
    set_language(request.param)
    yield request.param
    set_language("en")


def _banner_line(app: Any) -> str:
    """The first line under the screen's top that says SIMULATED (模拟), as the user sees it."""
    word = t("app.simulated_banner_tiny", label="").split(" ")[0]
    lines = screen_text(app).split("\n")
    return next((line for line in lines[:2] if line.strip().startswith(word)), "")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("where", ["choose", "plan"])
async def test_details_view_keeps_the_simulated_banner(size: tuple[int, int], where: str, lang: str) -> None:
    app = build_app("ubuntu-22.04-rtx3060-secure-boot")
    async with app.run_test(size=size) as pilot:
        await (to_plan(pilot) if where == "plan" else to_choose(pilot))
        label = app.session.label[:24]  # a long label wraps at 80 columns
        assert label in _banner_line(app)  # the frame as it was
        await pilot.press("d")
        await pilot.pause()
        assert app.screen.maximized is not None  # the detail has the whole screen...
        banner = app.screen.query_one(SimulatedBanner)
        assert banner.display and banner.region.height >= 1 and banner.region.y == 0
        assert label in _banner_line(app)  # ...but for the banner, on top
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None
        assert label in _banner_line(app)
