"""The doctor's view of a failed step: what it recognises in the step's output, then on the machine.

The same answer as the doctor's screen and `tf-gpu-wizard doctor --log` (screens.widgets.
doctor_answer over wizard.doctor.report_view), under a heading that says it is the step's output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from screens.widgets.doctor_answer import answer_content
from wizard.doctor.report_view import doctor_report
from wizard.text import t

if TYPE_CHECKING:
    from wizard.doctor.diagnose import Diagnosis
    from wizard.profile import MachineProfile


class DoctorModal(ModalScreen[None]):
    """Shows wizard.doctor.Diagnosis items (title, why, fix, evidence), grouped as every view does."""

    BINDINGS = [Binding("escape,q", "close", t("app.key.close"))]

    def __init__(
        self,
        diagnoses: Sequence[Diagnosis],
        profile: MachineProfile | None = None,
        *,
        output_given: bool = True,
    ) -> None:
        super().__init__()
        self.diagnoses = list(diagnoses)
        self.profile = profile
        self.report = doctor_report(self.diagnoses, text_given=output_given)

    def compose(self) -> ComposeResult:
        with Vertical(id="doctor-dialog", classes="dialog"):
            yield Static(t("app.doctor.title"), classes="dialog-title")
            with VerticalScroll(id="doctor-list"):
                yield Static(
                    answer_content(
                        self.report,
                        self.profile,
                        heading="app.doctor.step_heading",
                        next_step="app.doctor.step_next",
                    ),
                    classes="diagnosis",
                )
            yield Button(t("app.key.close"), id="doctor-close", compact=True)

    def on_mount(self) -> None:
        self.query_one("#doctor-close", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
