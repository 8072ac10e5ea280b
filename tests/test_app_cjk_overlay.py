"""The zh Method list keeps its Chinese (issue 18): a Select's open list lies over other widgets,
and Textual divides its lines at their edges; a double-width character cut there was blanked
("仅 CPU" read "   CPU" at 80x24). screens/cjk_compositor.py keeps such a character whole."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Select

from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_choose
from wizard.text import set_language


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language("en")


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
async def test_the_open_method_list_shows_every_chinese_label_whole(zh: None, size: tuple[int, int]) -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=size) as pilot:
        await to_choose(pilot)
        select = app.screen.query_one("#choose-method", Select)
        select.focus()
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert select.expanded
        lines = [line for line in screen_text(app).splitlines() if "│" in line]
        listed = [line.split("│")[1].strip() for line in lines if line.count("│") >= 2]
        for label in ("最适合该机器", "pip，自带 CUDA", "系统级 CUDA", "conda 环境", "仅 CPU"):
            assert label in listed, (label, listed)


async def test_a_covered_wide_character_is_still_cut_where_it_is_really_covered(zh: None) -> None:
    """Under the open list, the label that ends beneath its edge loses only that half-character;
    the line keeps its width (nothing shifts)."""
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        select = app.screen.query_one("#choose-method", Select)
        select.focus()
        await pilot.press("enter")
        await pilot.pause(0.2)
        strips = app.screen._compositor.render_strips()
        assert all(strip.cell_length == 80 for strip in strips)


async def test_the_header_and_the_open_list_s_footer_key_are_chinese(zh: None) -> None:
    """The app's classes are imported before the language is set (as here): the header and
    Textual's own Select key are still worded in the session's language."""
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(80, 24)) as pilot:
        assert "在你的 NVIDIA 显卡上运行 TensorFlow" in screen_text(app)
        await to_choose(pilot)
        select = app.screen.query_one("#choose-method", Select)
        select.focus()
        await pilot.press("enter")
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert "esc 收起" in footer and "Dismiss" not in footer, footer
