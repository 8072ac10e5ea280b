"""Pick a bundled demo machine; the whole flow then runs on it, simulated."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from wizard.profile import MachineProfile
from wizard.text import t


class DemoPickerModal(ModalScreen[MachineProfile | None]):
    BINDINGS = [Binding("escape", "cancel", t("app.demo.cancel"))]

    def compose(self) -> ComposeResult:
        from wizard.demo import demo_profiles

        options = [Option(demo.label, id=demo.name) for demo in demo_profiles()]
        with Vertical(id="demo-dialog", classes="dialog"):
            yield Static(t("app.demo.title"), classes="dialog-title")
            yield Static(t("app.demo.intro"), markup=False)
            yield OptionList(*options, id="demo-list")
            yield Button(t("app.demo.cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        from wizard.demo import load_demo
        from wizard.profile import ProfileError

        name = event.option.id
        if name is None:
            return
        try:
            profile = load_demo(name)
        except ProfileError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.dismiss(profile)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
