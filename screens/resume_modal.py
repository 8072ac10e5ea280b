"""Offered at start when a run stopped before it finished (reboot, Ctrl-Q, kill -9)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wizard.text import t


class ResumeModal(ModalScreen[bool]):
    """`state` is a wizard.journal.RunState; dismisses True to resume."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", t("app.resume.no")),
        Binding("y", "answer(True)", t("app.resume.yes")),
    ]

    def __init__(self, state: Any) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        finished, total = self.state.position
        plan = self.state.plan
        what = plan.label or f"TensorFlow {plan.set.tensorflow}"
        if plan.simulated:
            what += f" ({t('app.simulated_short')})"
        body = t("app.resume.body", what=what, step=min(finished + 1, total), total=total)
        with Vertical(id="resume-dialog", classes="dialog"):
            yield Static(t("app.resume.title"), classes="dialog-title")
            yield Static(body, markup=False)
            with Horizontal(classes="button-row"):
                yield Button(t("app.resume.yes"), id="yes", variant="primary", compact=True)
                yield Button(t("app.resume.no"), id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, resume: bool) -> None:
        self.dismiss(resume)
