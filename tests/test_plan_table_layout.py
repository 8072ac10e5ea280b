"""The plan table after a late preview (a loaded machine, slow checks): the preview marks a step
already there [✓], its title loses its restart and a line, and the table grows to fit its rows in
the same layout. It must then drop its scrollbar: ScrollView decided it only when the table's own
size changed, so the table kept a scrollbar over rows that all fit, drawn as an empty black column
at its right edge (the 80x24 plan snapshot flake)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from screens.plan_screen import PlanScreen
from screens.widgets.plan_step_table import PlanStepTable
from tests.apps.wizard_app import build_app, settle, to_choose, wait_still, wait_until
from wizard.run.runner import Runner


@pytest.fixture
def held_preview(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The runner's preview waits until the test lets it go, as a slow check would."""
    release = threading.Event()
    preview = Runner.preview

    def slow_preview(self: Runner, *args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return preview(self, *args, **kwargs)

    monkeypatch.setattr(Runner, "preview", slow_preview)
    return release


async def test_a_late_preview_leaves_no_scrollbar_over_rows_that_fit(held_preview: threading.Event) -> None:
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen) and bool(app.screen.session.plan))
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        table = screen.query_one(PlanStepTable)
        await wait_still(pilot)
        # Before the preview: one more line than the table holds, so it scrolls.
        assert not screen.previewed and table.show_vertical_scrollbar
        assert table.virtual_size.height > table.scrollable_content_region.height
        held_preview.set()
        await settle(pilot)
        await wait_until(pilot, lambda: screen.previewed)
        await wait_still(pilot)
        assert table.there == {"windows-driver"}
        assert table.virtual_size.height <= table.size.height  # every row fits now ...
        assert not table.show_vertical_scrollbar  # ... so no scrollbar
        assert table.scrollable_content_region.width == table.size.width  # rows drawn to the edge
