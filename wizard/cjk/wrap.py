"""Plain-text wrapping by terminal cells, for the CLI's own text (the plan, apply's steps).

`textwrap` counts characters, so a line of Chinese (two cells a character) runs past the
terminal's edge, which then breaks it wherever it is full. Here a line is filled by cells, with
the break units of `linebreak.words` (between Chinese characters, at spaces elsewhere); a unit
wider than the line (a long path, a command) stays whole on a line of its own rather than being cut.
"""

from __future__ import annotations

import re
import shutil

from rich.cells import cell_len

from wizard.cjk.commands import KEEP, keep_commands
from wizard.cjk.linebreak import words

_CODE = re.compile(r"`[^`\n]{1,60}`")
_KEEP = KEEP  # a private-use character: a space that is not a break point


def terminal_width(default: int = 100, least: int = 40) -> int:
    """The terminal's columns (COLUMNS, else the tty), never under `least`; `default` off a tty."""
    return max(least, shutil.get_terminal_size((default, 24)).columns)


def wrap(
    text: str, width: int, indent: str = "", subsequent: str | None = None, *, keep_code: bool = True
) -> list[str]:
    """`text` as lines of at most `width` cells (a single unit wider than that excepted).
    `keep_code`: a `quoted command` stays on one line (the CLI's text; a narrow column breaks it)."""
    rest_indent = indent if subsequent is None else subsequent
    if keep_code:  # its spaces do not count as break points
        text = _CODE.sub(lambda m: m.group(0).replace(" ", _KEEP), text)
    lines: list[str] = []
    line, used = indent, cell_len(indent)
    for _start, _end, unit in words(text):
        stripped = unit.rstrip()
        if used + cell_len(stripped) > width and line.strip():
            lines.append(line.rstrip())
            line, used = rest_indent, cell_len(rest_indent)
            unit = unit.lstrip()
            stripped = unit.rstrip()
        line += unit
        used += cell_len(unit)
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return [line.replace(_KEEP, " ") for line in lines]


def command_lines(text: str, width: int, indent: str = "  ") -> list[str]:
    """Prose that names commands (a doctor's fix), as lines of `width` cells: it breaks between
    words, never inside a command (wizard.cjk.commands); a command wider than the line has a
    line of its own. Control characters are made visible first (the text may quote a log)."""
    from wizard.safe.display import safe

    return wrap(keep_commands(safe(text, None)), width, indent, indent + "  ", keep_code=False)
