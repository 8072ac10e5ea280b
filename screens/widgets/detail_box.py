"""A scrolling detail pane that `d` can show on the whole screen (screens.base.toggle_details)."""

from __future__ import annotations

from textual.containers import VerticalScroll


class DetailBox(VerticalScroll):
    """Focusable (Tab, then the arrows scroll it) and maximizable: containers are not by default."""

    ALLOW_MAXIMIZE = True
