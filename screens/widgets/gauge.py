"""A one-line gauge: label, a bar that fills the width, a value; coloured by level."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

from wizard.monitor.view import bar

LEVELS = ("ok", "warn", "hot", "na")
MIN_BAR = 4  # cells: a bar narrower than this says little; the layout gives the gauge a line of its own


class Gauge(Widget):
    """`Gauge("GPU").set(72.0, "72%", "ok")`; the level becomes a -ok/-warn/-hot/-na class."""

    DEFAULT_CSS = """
    Gauge { height: 1; width: 1fr; }
    """

    def __init__(self, label: str, *, label_width: int | None = 7, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        # In cells (a CJK character takes two); None: the label's own width and a space.
        self.label_width = cell_len(label) + 1 if label_width is None else label_width
        self.percent: float | None = None
        self.text = ""

    def set(self, percent: float | None, text: str, level: str) -> None:
        self.percent, self.text = percent, text
        for name in LEVELS:
            self.set_class(name == level, f"-{name}")
        self.refresh()

    def min_width(self) -> int:
        """Cells for the label, the whole value and a bar of MIN_BAR: the value is never cut, so a
        layout that cannot give this much puts the gauge on a line of its own (HostPanel)."""
        return self.label_width + MIN_BAR + cell_len(f" {self.text}")

    def render(self) -> Text:
        width = self.size.width
        value = f" {self.text}"
        room = max(0, width - self.label_width - cell_len(value))
        line = Text(set_cell_size(self.label, self.label_width), style="bold")
        line.append(bar(self.percent, room))
        line.append(value)
        return line
