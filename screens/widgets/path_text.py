"""Text with paths and commands in it, wrapped at the width of the box it is in: prose between
words, a command (an indented line) between its arguments, and never inside a word, a path or an
argument (path_wrap.wrap_whole): a command copied from the screen must be whole. A line that still
does not fit (one argument wider than the box) makes the text that much wider, and the box scrolls
sideways to it (its box has `overflow-x: auto`), and a hint under it says so and how to copy it
whole (`hint`): nothing cut at the edge reads as the whole command.

Display only: the text itself (what the runner and the CLI print) is left as it is.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.content import Content
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Static

from screens.widgets.fit import wrap_words
from screens.widgets.path_wrap import wrap_whole


class PathText(Static):
    """A Static whose text (plain, no markup) is wrapped by `wrap_whole` at its box's width,
    again whenever that width changes."""

    DEFAULT_CSS = "PathText { text-wrap: nowrap; }"

    def __init__(self, text: str = "", *, hint: str = "", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.text = text
        self.hint = hint  # said under the text when a line is wider than the box
        self.too_wide = False
        self._wrapped_at = -1

    def set_hint(self, hint: str) -> None:
        """Another hint (the same box read whole on the screen says another way to scroll)."""
        if hint != self.hint:
            self.hint = hint
            self._wrapped_at = -1
            self._wrap(self._room())

    def set_text(self, text: str) -> None:
        self.text = text
        self._wrapped_at = -1
        self._wrap(self._room())

    def _room(self) -> int:
        """The cells a line may take: the box's width (not this widget's, which a long argument
        widens), less this widget's padding and border."""
        box = self.parent
        width = box.scrollable_content_region.width if isinstance(box, Widget) else self.size.width
        return width - self.styles.gutter.width

    def on_resize(self, event: Resize) -> None:
        self._wrap(self._room())

    def rewrap(self) -> None:
        """The box changed its width (a resize, a scrollbar that came or went)."""
        self._wrap(self._room())

    def _wrap(self, width: int) -> None:
        if width == self._wrapped_at:
            return
        self._wrapped_at = width
        # Not laid out yet (width 0): let Textual wrap it meanwhile, never a line cut at the edge.
        self.styles.text_wrap = "nowrap" if width > 0 else "wrap"
        wrapped = wrap_whole(self.text, width)
        widest = max((cell_len(line) for line in wrapped.split("\n")), default=0)
        # Wider than the box only for an argument that cannot be broken: the box scrolls to it.
        self.too_wide = width > 0 and widest > width
        self.styles.min_width = widest + self.styles.gutter.width if self.too_wide else None
        if self.too_wide and self.hint:  # at the box's width: read without scrolling
            wrapped += "\n" + "\n".join(wrap_words(self.hint, width))
        self.update(Content(wrapped))

    @property
    def commands(self) -> list[str]:
        """The commands in the text (its indented lines), whole, as `c` copies them."""
        return [line.strip() for line in self.text.split("\n") if line.startswith(" ") and line.strip()]
