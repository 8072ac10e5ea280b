"""The live log of the current step; it wraps its lines again when its width changes."""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from rich.cells import cell_len
from textual.events import Resize
from textual.widgets import RichLog

from wizard.paths import shown
from wizard.safe.display import safe

MAX_LINES = 2000


class StepLog(RichLog):
    """A RichLog that keeps its text, so a resize (or the wide layout arriving) re-wraps it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            wrap=True, markup=False, highlight=False, max_lines=MAX_LINES, min_width=20, **kwargs
        )
        self.texts: deque[str | tuple[str, str]] = deque(maxlen=MAX_LINES)  # (label, path): a path line
        self._wrapped_at = 0

    def add(self, line: str) -> None:
        line = safe(line, 4000, multiline=True)  # command output and paths: escapes shown, not sent
        self.texts.append(line)
        self.write(line)

    def add_path(self, label: str, path: object) -> None:
        """The label, then the path on its own lines: the home as ~, broken only after a "/" where
        it is wider than the log (a file name stays whole), so it can be read and copied."""
        entry = (safe(label, 200), safe(shown(str(path)), 4000))
        self.texts.append(entry)
        self._write(entry)

    def _write(self, entry: str | tuple[str, str]) -> None:
        if isinstance(entry, str):
            self.write(entry)
            return
        label, path = entry
        self.write(label)
        for piece in fold_path(path, self.scrollable_content_region.width):
            self.write(piece)

    def reset(self) -> None:
        self.texts.clear()
        self.clear()

    def on_resize(self, event: Resize) -> None:
        # RichLog's own handler (called after this one) renders writes made before the first size.
        width = event.size.width
        if self._wrapped_at and width and width != self._wrapped_at:
            self.clear()
            for line in self.texts:
                self._write(line)
        if width:
            self._wrapped_at = width


def fold_path(path: str, width: int) -> list[str]:
    """`path` in lines of at most `width` cells, each break right after a "/"; a part wider than
    `width` on its own stays whole (the log wraps it). Width 0 (not laid out yet): one line."""
    if width <= 0 or cell_len(path) <= width:
        return [path]
    lines, line = [], ""
    for piece in re.findall(r"[^/]*/|[^/]+$", path):  # each ends with its "/", the file name last
        if line and cell_len(line + piece) > width:
            lines.append(line)
            line = piece
        else:
            line += piece
    return [*lines, line] if line else lines
