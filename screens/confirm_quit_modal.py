"""Asked on ctrl+q while a step runs: quitting stops the step; the next start resumes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from screens.dialog_keys import BUTTON_ARROWS
from wizard.text import t


class ConfirmQuitModal(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape,n", "answer(False)", t("app.quit.no")),
        Binding("y", "answer(True)", t("app.quit.yes")),
        *BUTTON_ARROWS,
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-dialog", classes="dialog"):
            yield Static(t("app.quit.title"), classes="dialog-title")
            yield Static(t("app.quit.body"), markup=False)
            with Horizontal(classes="button-row"):
                yield Button(t("app.quit.no"), id="no", variant="primary", compact=True)
                yield Button(t("app.quit.yes"), id="yes", variant="error", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, quit_now: bool) -> None:
        self.dismiss(quit_now)
