"""A one-line banner that says the flow runs on a demo profile, with commands simulated."""

from __future__ import annotations

from textual.widgets import Static

from wizard.text import t


class SimulatedBanner(Static):
    """Shown on every screen while the profile is a saved or demo one."""

    DEFAULT_CSS = """
    SimulatedBanner {
        width: 1fr;
        height: auto;
        background: $warning;
        color: $background;
        text-style: bold;
        padding: 0 1;
    }
    SimulatedBanner.-hidden { display: none; }
    """

    def show_for(self, label: str | None) -> None:
        """Show the banner for `label`; None hides it."""
        if label is None:
            self.add_class("-hidden")
            self.update("")
        else:
            self.remove_class("-hidden")
            self.update(t("app.simulated_banner", label=label))
