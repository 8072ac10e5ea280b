"""A scrolling detail pane that `d` can show on the whole screen (screens.base.toggle_details)."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.events import Resize

from screens.widgets.path_text import PathText


class DetailBox(VerticalScroll):
    """Focusable (Tab, then the arrows scroll it) and maximizable: containers are not by default.

    Its PathTexts are wrapped again whenever its own width changes (the table beside it settling
    its columns, a scrollbar that came or went): a PathText held wide by a long argument keeps its
    size, so it never hears of the box's change itself, and its hint stayed wrapped for the old width
    (the 120x40 plan snapshot that failed under load)."""

    ALLOW_MAXIMIZE = True

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self._rewrap)

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        self.call_after_refresh(self._rewrap)

    def _rewrap(self) -> None:
        for text in self.query_children(PathText):
            text.rewrap()
