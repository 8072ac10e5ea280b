"""The yes/no dialogs: the arrows move between the buttons (a person presses them in a row of
buttons); the safe answer keeps the focus as the dialog opens, so Enter alone never says yes."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.screen import ModalScreen
from textual.widgets import Button

from screens.confirm_quit_modal import ConfirmQuitModal
from screens.confirm_step_modal import ConfirmStepModal


class Host(App[None]):
    def __init__(self, modal: ModalScreen[bool]) -> None:
        super().__init__()
        self.modal = modal
        self.answers: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.modal, self.answers.append)


def _focused(app: App[Any]) -> str | None:
    focused = app.screen.focused
    return focused.id if isinstance(focused, Button) else None


@pytest.mark.parametrize(
    "make", [lambda: ConfirmStepModal("Install the driver", "Run it?"), ConfirmQuitModal]
)
async def test_arrows_move_between_the_buttons_and_enter_answers_the_focused_one(make: Any) -> None:
    app = Host(make())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        start = _focused(app)
        assert start is not None
        await pilot.press("left")
        moved = _focused(app)
        assert moved is not None and moved != start
        await pilot.press("right")
        assert _focused(app) == start  # and back
        await pilot.press("left", "enter")
        await pilot.pause()
    assert app.answers == [moved == "yes"]


async def test_enter_on_the_opened_step_dialog_says_no() -> None:
    app = Host(ConfirmStepModal("Install the driver", "Run it?"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert app.answers == [False]
