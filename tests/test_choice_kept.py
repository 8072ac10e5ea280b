"""The row a student highlights on Choose is their choice: keys that read or scroll never move
it, Escape from Plan comes back to it, and so does Choose reached again from Detect (the same row
highlighted, the same set planned), "all rows" included."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from screens.choose_screen import ChooseScreen
from screens.plan_screen import PlanScreen
from screens.widgets.candidate_table import CandidateTable
from tests.apps.wizard_app import build_app, settle, to_choose

READING_KEYS = ["pagedown", "end", "pageup", "home", "tab", "down", "pagedown", "end", "shift+tab"]


def _choice(app: Any) -> tuple[int, Any, str]:
    screen = app.screen
    assert isinstance(screen, ChooseScreen)
    table = screen.query_one(CandidateTable)
    return table.cursor_row, table.highlighted(), str(screen.query_one("#choose-summary").render())


async def _plan_and_back(pilot: Pilot[Any]) -> Any:
    await pilot.press("p")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PlanScreen)
    planned = pilot.app.session.candidate
    await pilot.press("escape")
    await settle(pilot)
    return planned


async def test_escape_from_plan_and_from_detect_keep_the_highlighted_row() -> None:
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        await pilot.press("down", "down")
        await pilot.pause()
        chosen = _choice(app)
        assert chosen[0] == 2 and chosen[1] is not app.session.recommendation.recommended
        await pilot.press(*READING_KEYS)  # Tab into the detail, its arrows scroll, Shift+Tab back
        await pilot.pause()
        assert _choice(app)[:2] == chosen[:2]
        assert await _plan_and_back(pilot) is chosen[1]  # Plan planned the highlighted row...
        assert _choice(app) == chosen  # ...and Escape comes back to it, summary and all
        await pilot.press("escape")  # to Detect, then forward to a new Choose screen
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert _choice(app) == chosen
        assert await _plan_and_back(pilot) is chosen[1]


async def test_a_row_only_in_all_rows_comes_back_in_all_rows() -> None:
    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        await pilot.press("a")
        await pilot.pause()
        table = app.screen.query_one(CandidateTable)
        shown = [c for c in table.candidates if c.ok]
        target = table.candidates.index(shown[-1])  # a fitting row far down the whole list
        await pilot.press(*["down"] * target)
        await pilot.pause()
        chosen = _choice(app)
        assert chosen[1] is shown[-1]
        assert await _plan_and_back(pilot) is chosen[1]
        assert _choice(app) == chosen
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert _choice(app)[:2] == chosen[:2]


async def test_escape_while_typing_cancels_the_edit_and_leaves_the_field_not_the_screen() -> None:
    from textual.widgets import Input

    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        chosen = _choice(app)
        for field_id in ("#choose-python", "#choose-venv"):
            field = app.screen.query_one(field_id, Input)
            before = field.value
            field.focus()
            await pilot.pause()
            await pilot.press("3", "escape")
            await pilot.pause()
            assert isinstance(app.screen, ChooseScreen)  # still here
            assert isinstance(app.screen.focused, CandidateTable)
            assert field.value == before, field_id  # the edit taken back (a tmux walk planned "~/3")
            assert _choice(app) == chosen
        await pilot.press("escape")  # from the table: back, as before
        await settle(pilot)
        assert not isinstance(app.screen, ChooseScreen)
