"""Offered at start when a run stopped before it finished (reboot, Ctrl-Q, kill -9)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from screens.dialog_keys import BUTTON_ARROWS
from wizard.text import t


class ResumeModal(ModalScreen[bool]):
    """`state` is a wizard.journal.RunState; dismisses True to resume."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", t("app.resume.no")),
        Binding("y", "answer(True)", t("app.resume.yes")),
        *BUTTON_ARROWS,
    ]

    def __init__(self, state: Any) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        from wizard.plan.model import first_unfinished
        from wizard.safe.display import safe

        plan = self.state.plan
        total = len(plan.active_steps)
        what = safe(plan.label, 200) or f"TensorFlow {plan.set.tensorflow}"
        if plan.simulated:
            what += f" ({t('app.simulated_short')})"
        statuses = {step_id: rec.status for step_id, rec in self.state.steps.items()}
        first = first_unfinished(plan, statuses)
        if first is None:  # every step finished, only the journal's "finished" flag is missing
            body = t("app.resume.body", what=what, step=total, total=total)
        else:  # the step it starts at, by number and name: a step already done is never offered
            number, step = first
            title = safe(step.title, 200)
            body = t("story.status.resume_body", what=what, step=number, total=total, title=title)
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
