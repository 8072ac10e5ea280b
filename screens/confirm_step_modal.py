"""A yes/no question the runner asks before a destructive step."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from screens.dialog_keys import BUTTON_ARROWS
from wizard.text import t


class ConfirmStepModal(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape,n", "answer(False)", t("app.key.no")),
        Binding("y", "answer(True)", t("app.key.yes")),
        *BUTTON_ARROWS,
    ]

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self.step_title = title
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-step-dialog", classes="dialog"):
            yield Static(self.step_title, classes="dialog-title", markup=False)
            yield Static(self.question, markup=False)
            with Horizontal(classes="button-row"):
                yield Button(t("app.key.yes"), id="yes", variant="warning", compact=True)
                yield Button(t("app.key.no"), id="no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
