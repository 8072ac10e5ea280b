"""The keys every yes/no dialog shares beside its own: the arrows move between its buttons, as a
person expects of a row of buttons (Tab and Shift+Tab still do)."""

from __future__ import annotations

from textual.binding import Binding

BUTTON_ARROWS = [
    Binding("left", "app.focus_previous", show=False),
    Binding("right", "app.focus_next", show=False),
]
