"""Help: the keys and the screens, on `?` or F1 from anywhere."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wizard.text import t


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", t("app.key.close")),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static(t("app.help.title"), classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(t("app.help.body").strip("\n"), id="help-body", markup=False)
            yield Button(t("app.help.close"), id="help-close", compact=True)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
