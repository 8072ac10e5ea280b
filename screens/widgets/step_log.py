"""The live log of the current step; it wraps its lines again when its width changes."""

from __future__ import annotations

from collections import deque
from typing import Any

from textual.events import Resize
from textual.widgets import RichLog

from wizard.safe.display import safe

MAX_LINES = 2000


class StepLog(RichLog):
    """A RichLog that keeps its text, so a resize (or the wide layout arriving) re-wraps it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            wrap=True, markup=False, highlight=False, max_lines=MAX_LINES, min_width=20, **kwargs
        )
        self.texts: deque[str] = deque(maxlen=MAX_LINES)
        self._wrapped_at = 0

    def add(self, line: str) -> None:
        line = safe(line, 4000, multiline=True)  # command output and paths: escapes shown, not sent
        self.texts.append(line)
        self.write(line)

    def reset(self) -> None:
        self.texts.clear()
        self.clear()

    def on_resize(self, event: Resize) -> None:
        # RichLog's own handler (called after this one) renders writes made before the first size.
        width = event.size.width
        if self._wrapped_at and width and width != self._wrapped_at:
            self.clear()
            for line in self.texts:
                self.write(line)
        if width:
            self._wrapped_at = width
