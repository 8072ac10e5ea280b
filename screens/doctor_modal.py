"""The doctor's view of a failed step: known failures in its output and in the profile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wizard.text import t


class DoctorModal(ModalScreen[None]):
    """Shows wizard.doctor.Diagnosis items (title, why, fix, evidence)."""

    BINDINGS = [Binding("escape,q", "close", t("app.key.close"))]

    def __init__(self, diagnoses: Sequence[Any]) -> None:
        super().__init__()
        self.diagnoses = list(diagnoses)

    def compose(self) -> ComposeResult:
        with Vertical(id="doctor-dialog", classes="dialog"):
            yield Static(t("app.doctor.title"), classes="dialog-title")
            with VerticalScroll(id="doctor-list"):
                if not self.diagnoses:
                    yield Static(t("app.doctor.nothing"), markup=False)
                else:
                    yield Static(t("app.doctor.intro"), markup=False)
                for d in self.diagnoses:
                    yield Static(
                        Content.from_markup(
                            # A machine state's why is its fix, said once as the fix.
                            "[bold $warning]▲ $title[/]\n"
                            + ("  $why\n" if d.why else "")
                            + "  [$success]→ $fix[/]\n  [$text-muted]$evidence[/]",
                            title=d.title,
                            why=d.why,
                            fix=d.fix,
                            evidence=d.evidence,
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
