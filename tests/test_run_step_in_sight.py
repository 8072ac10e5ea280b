"""At 80x24 the Run screen's step list keeps the step the student must act on in sight: after a
Windows step that asks for `wsl --shutdown`, its "restart needed" row is on the screen, even after
PageDown and End scrolled the list on (the WSL2 demo with a shadowing library, en and zh)."""

from __future__ import annotations

from typing import Any

import pytest

from screens.widgets.run_step_list import RunStepList
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, run_screen, to_windows_step, wait_until
from wizard.text import set_language, t


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Any:
    set_language(request.param)
    yield request.param
    set_language("en")


async def test_the_step_waiting_for_a_restart_stays_in_sight(lang: str) -> None:
    app = build_app("wsl2-rtx4070-shadowing-library")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_windows_step(pilot)
        await pilot.press("pagedown", "end")  # the student scrolls down to read the steps after it
        await pilot.press("i")  # "I ran it": the step is done, WSL must restart
        await wait_until(pilot, lambda: run_screen(app).state == "restart")
        await pilot.pause(0.1)
        steps = run_screen(app).query_one(RunStepList)
        step = next(s for s in steps.steps if steps.status[s.id] == "restart")
        shown = screen_text(app)
        assert t("app.run.status_restart") in shown
        assert step.title.split(":")[-1].strip()[:12] in shown
