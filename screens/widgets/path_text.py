"""Text with paths in it, wrapped at its own width: a path wider than the line is broken only right
after a "/", its file name whole, as the log breaks its own (path_wrap.fold_path). Textual would fold
such a word at the edge, mid-name ("hello_gp" / "u.py"), and a cut name reads as another file.

Display only: the text itself (what the runner and the CLI print) is left as it is.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.events import Resize
from textual.widgets import Static

from screens.widgets.path_wrap import wrap_paths


class PathText(Static):
    """A Static whose text (plain, no markup) is wrapped by `wrap_paths` at its content width,
    again whenever that width changes."""

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.text = text
        self._wrapped_at = -1

    def set_text(self, text: str) -> None:
        self.text = text
        self._wrapped_at = -1
        self._wrap(self.size.width)

    def on_resize(self, event: Resize) -> None:
        self._wrap(event.size.width - self.styles.gutter.width)  # the event's size has the padding

    def _wrap(self, width: int) -> None:
        if width == self._wrapped_at:
            return
        self._wrapped_at = width
        self.update(Content(wrap_paths(self.text, width)))
