"""A one-line banner that says the flow runs on a demo profile, with commands simulated."""

from __future__ import annotations

from rich.cells import cell_len
from textual.events import Resize
from textual.widgets import Static

from wizard.safe.display import safe
from wizard.text import t

# Longest first: the banner uses the first that fits on one line, so a small terminal
# keeps one line for it (and for the screen below) instead of two.
VARIANTS = ("app.simulated_banner", "app.simulated_banner_short", "app.simulated_banner_tiny")


def banner_text(label: str, width: int) -> str:
    """The longest banner sentence that fits `width` cells; the shortest one (wrapped) if none does."""
    label = safe(label, 120)  # a profile's label is data: escapes shown, never sent to the terminal
    texts = [t(key, label=label) for key in VARIANTS]
    return next((text for text in texts if cell_len(text) <= width), texts[-1])


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

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", markup=False, id=id, classes=classes)
        self.label: str | None = None
        self.text = ""

    def show_for(self, label: str | None) -> None:
        """Show the banner for `label`; None hides it."""
        self.label = label
        if label is None:
            self.add_class("-hidden")
            self._show("")
        else:
            self.remove_class("-hidden")
            self._show(banner_text(label, self.content_size.width or 10_000))

    def on_resize(self, event: Resize) -> None:
        # After this layout pass: an update made during it would not get its new height.
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        if self.label is not None:
            self._show(banner_text(self.label, self.content_size.width))

    def _show(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.update(text)
