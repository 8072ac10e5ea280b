"""The doctor's text box and log file line: what is pasted is kept as data a terminal can show,
and lands where it belongs.

A log copied from a terminal carries colour sequences (ESC [ ... m), progress bars' carriage
returns, sometimes other control or bidi characters. TextArea draws what it holds as it is, so a
pasted ESC would reach the terminal. Colours are taken out (they are not part of the text the
doctor reads), a lone carriage return becomes a line break, and every other control character
is written visibly (\\x1b, \\u202e) by wizard.safe.display.visible.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import Input, TextArea

from wizard.safe.display import visible

if TYPE_CHECKING:
    from textual.document._document import Location
    from textual.document._edit import EditResult

# A CSI sequence (colours, cursor moves) in its 7-bit (ESC [) or 8-bit (CSI) form.
_CSI = re.compile("(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]")


def pasteable(text: str) -> str:
    """`text` as the box keeps it: no colour sequences, line breaks as \\n, controls visible."""
    text = _CSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return visible(text, multiline=True)


class PasteBox(TextArea):
    def _replace_via_keyboard(self, insert: str, start: Location, end: Location) -> EditResult | None:
        # Every way text comes in by keyboard (a paste, the clipboard, a key) passes here.
        return super()._replace_via_keyboard(pasteable(insert), start, end)


class PathInput(Input):
    """The log file's line: a path is one line. A paste of several lines is an error text pasted in
    the wrong place: it goes to the box (TextPasted), not its first line into this one."""

    class TextPasted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def _on_paste(self, event: events.Paste) -> None:
        if len(event.text.strip().splitlines()) > 1:
            event.prevent_default()  # Input's own handler (its first line into this one) does not run
            event.stop()
            self.post_message(self.TextPasted(event.text))
        # One line: Input's own handler runs after this one (Textual calls each class's handler).
