"""The live log of the current step; it wraps its lines again when its width changes."""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.cells import cell_len
from textual.events import Resize
from textual.message import Message
from textual.widgets import RichLog

from screens.widgets.path_wrap import fold_path, wrap_arguments, wrap_paths
from wizard.paths import shown
from wizard.safe.display import safe
from wizard.text import t

MAX_LINES = 2000
CONTINUED = "  "  # a command's continuation lines, under its first: one command, not its output


def is_command(line: str) -> bool:
    """A command the runner shows before it runs it: "$ …", or "SIMULATED $ …" in a demo (in the
    reader's language, as the runner words it)."""
    return line.startswith("$ ") or line.startswith(f"{t('app.simulated_short')} $ ")


def command_pieces(line: str, width: int) -> list[str]:
    """A command line in lines of `width` cells, broken only between its arguments
    (path_wrap.wrap_arguments), its continuations indented; an argument wider than the log stays
    whole on a line of its own (the log scrolls sideways to it)."""
    first, *rest = wrap_arguments(line, width)
    if not rest or not line.startswith(first):
        return [first, *rest]
    return [first, *wrap_arguments(CONTINUED + line[len(first) :].lstrip(" "), width)]


class StepLog(RichLog):
    """A RichLog that keeps its text, so a resize (or the wide layout arriving) re-wraps it."""

    class FloorChanged(Message):
        """The log's least height changed: it holds a path that must stay in sight, or no more."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            wrap=True, markup=False, highlight=False, max_lines=MAX_LINES, min_width=20, **kwargs
        )
        self.texts: deque[str | tuple[str, str]] = deque(maxlen=MAX_LINES)  # (label, path): a path line
        self._wrapped_at = 0
        self.drawn_width = 0  # the content width its lines were last written at (0: none yet)
        self._stale = False  # lines were added while hidden: written again once it has a width

    def add(self, line: str) -> None:
        line = safe(line, 4000, multiline=True)  # command output and paths: escapes shown, not sent
        self.texts.append(line)
        if not self._hidden():
            self._write(line)
        self._keep_path_in_sight()

    def add_path(self, label: str, path: object) -> None:
        """The label, then the path on its own lines: the home as ~, broken only after a "/" where
        it is wider than the log (a file name stays whole), so it can be read and copied."""
        entry = (safe(label, 200), safe(shown(str(path)), 4000))
        self.texts.append(entry)
        if not self._hidden():
            self._write(entry)
        self._keep_path_in_sight()

    def _keep_path_in_sight(self) -> None:
        """The last entry a path (the run's "Full log:" and where the log is): the log is never
        shorter than it, whatever the path's length (a home, a temporary folder), so the label
        and the whole path stay in sight; the lines above scroll back. Otherwise the stylesheet's
        min-height holds."""
        if not self.texts or isinstance(self.texts[-1], str):
            if self.styles.inline.has_rule("min_height"):
                self.styles.min_height = None
                self.post_message(self.FloorChanged())
            return
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # not laid out yet (or hidden): once it has a width
        label, path = self.texts[-1]
        lines = [label, *fold_path(path, width)]
        rows = sum(max(1, -(-cell_len(line) // width)) for line in lines)  # a piece wider than the log wraps
        rows += self.styles.gutter.height
        floor = self.styles.inline.min_height
        if floor is None or floor.value != rows:
            self.styles.min_height = rows
            self.post_message(self.FloorChanged())
        # The new floor changes the log's height after its last write scrolled to the end: once laid
        # out again, its end (the path's last line) is scrolled to, or a loaded machine left it one
        # line short of the path.
        self.call_after_refresh(self.scroll_end, animate=False, immediate=True, x_axis=False)

    def _hidden(self) -> bool:
        """Laid out once, but hidden now (the Run screen hides the log while a Windows step waits
        on a short terminal): RichLog would wrap at its minimum width, 20 cells, and keep those
        lines when it shows again. The text waits in `texts` and is written when it has a width."""
        if self._size_known and self.scrollable_content_region.width <= 0:
            self._stale = True
            return True
        return False

    def _write(self, entry: str | tuple[str, str]) -> None:
        width = self.scrollable_content_region.width
        self.drawn_width = width
        if isinstance(entry, str):
            if width > 0 and cell_len(entry) > width and "\n" not in entry and is_command(entry):
                # Copied from here, a command must be whole: never a break inside an argument.
                for piece in command_pieces(entry, width):
                    # An argument wider than the log at its own width, so Rich never folds it.
                    self.write(piece, width=max(cell_len(piece), width))
                return
            # A command's line wider than the log, with a path in it (pip's "Requirement already
            # satisfied: … in /home/…/site-packages"): broken between words and after a "/", not
            # mid-name. Other lines are Rich's to wrap, their spacing (a table) as it is.
            if width > 0 and "/" in entry and cell_len(entry) > width:
                for piece in wrap_paths(entry, width).split("\n"):
                    self.write(piece)
            else:
                self.write(entry)
            return
        label, path = entry
        self.write(label)
        for piece in fold_path(path, width):
            self.write(piece)

    def reset(self) -> None:
        self.texts.clear()
        self.clear()
        self._keep_path_in_sight()

    def on_resize(self, event: Resize) -> None:
        # RichLog's own handler (called after this one) renders writes made before the first size.
        width = event.size.width
        if self._wrapped_at and width and (width != self._wrapped_at or self._stale):
            self._rewrite()
        if width:
            self._wrapped_at = width
        self._keep_path_in_sight()

    def on_show(self) -> None:
        if self._stale and self.scrollable_content_region.width > 0:
            self._rewrite()

    def _rewrite(self) -> None:
        self._stale = False
        texts = list(self.texts)
        self.clear()  # RichLog's clear; `texts` stays
        for line in texts:
            self._write(line)
        self._keep_path_in_sight()
