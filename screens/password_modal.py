"""The sudo password, asked once for a root step. It goes to the runner and nowhere else."""

from __future__ import annotations

import getpass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from wizard.text import t


class PasswordModal(ModalScreen[str | None]):
    """Dismisses with the password, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", t("app.password.cancel"))]

    def __init__(
        self,
        step_title: str,
        *,
        attempt: int = 1,
        simulated: bool = False,
        blink: bool = True,
        user: str | None = None,
    ) -> None:
        super().__init__()
        self.simulated = simulated
        self.user = user  # a demo machine's user (plan.build.machine_user); None: this one's
        self.step_title = step_title
        self.attempt = attempt
        self.blink = blink

    def compose(self) -> ComposeResult:
        user = self.user
        if user is None:
            try:
                user = getpass.getuser()
            except (KeyError, OSError):
                user = "you"
        with Vertical(id="password-dialog", classes="dialog"):
            yield Static(t("app.password.title"), classes="dialog-title")
            yield Static(t("app.password.prompt", step=self.step_title, user=user), markup=False)
            if self.simulated:
                yield Static(t("app.password.simulated"), classes="warning-text", markup=False)
            if self.attempt > 1:
                yield Static(
                    t("app.password.again", attempt=self.attempt), classes="error-text", markup=False
                )
            field = Input(placeholder=t("app.password.placeholder"), password=True, id="password-input")
            field.cursor_blink = self.blink
            yield field
            with Horizontal(classes="button-row"):
                yield Button(t("app.password.ok"), id="ok", variant="primary", compact=True)
                yield Button(t("app.password.cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#password-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self.dismiss(self.query_one("#password-input", Input).value)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
