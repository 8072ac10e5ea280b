"""A history graph on a fixed 0-100 scale, newest on the right.

Textual's Sparkline rescales to the data's own min and max, which makes a GPU
going from 97% to 99% look like a cliff; a monitor needs an absolute scale.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"


class History(Widget):
    DEFAULT_CSS = """
    History { height: 2; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.values: list[float] = []

    def set(self, values: Sequence[float]) -> None:
        self.values = list(values)
        self.refresh()

    def render(self) -> Text:
        width, height = self.size.width, max(1, self.size.height)
        recent = self.values[-width:] if width else []
        pad = width - len(recent)
        rows = []
        for row in range(height - 1, -1, -1):  # top row first
            line = Text(" " * pad)
            for v in recent:
                cells = max(0.0, min(100.0, v)) / 100.0 * height  # how many rows this value fills
                fill = cells - row
                ch = BLOCKS[8] if fill >= 1 else BLOCKS[int(max(0.0, fill) * 8)]
                line.append(ch, style=_style(v))
            rows.append(line)
        return Text("\n").join(rows)


def _style(v: float) -> str:
    # Busy is good here: a GPU at 90% during training is the point of the wizard.
    return "green" if v >= 60 else "yellow" if v >= 20 else "dim"
