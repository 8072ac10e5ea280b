"""Text and paths in lines of a given width, a path broken only right after a "/" (its file name
whole): Textual or Rich would fold such a word at the edge, mid-name ("hello_gp" / "u.py"), and a
cut name reads as another file. An indented line is a command to copy (wizard.plan.next_steps):
its first word stays with its path and each continuation keeps the indent. Used by the Run
screen's log and its notice."""

from __future__ import annotations

import re

from rich.cells import cell_len

from screens.widgets.fit import wrap_words


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


# One shell argument and the spaces after it: a quoted part ('...' or "...", spaces and all) is
# inside its argument, never a place to break (`bash -c 'v=$(...) && ...' _`).
_ARGUMENT = re.compile(r"""(?:'[^']*'?|"(?:\\.|[^"\\])*"?|[^ '"]+)+ *| +""")
# A command's pieces for wrap_command: each ends where a break may go, after a "/" or a space; an
# argument's first "/" stays with its first name, so no line ends in a lone "/" before its path.
_PATH_PIECE = re.compile(r"/?[^ /]+/|/?[^ /]+ *|/ *| +")


def wrap_arguments(line: str, width: int) -> list[str]:
    """An indented command `line` in lines of at most `width` cells, broken only between its
    arguments (at a space), never inside one: each argument is copied whole. Continuations keep
    the indent (none where the width leaves too little room); an argument wider than the room
    stays whole on a line of its own (the screen scrolls sideways to it, and `c` copies it)."""
    return _fill_indented(line, width, _ARGUMENT)


def wrap_command(line: str, width: int) -> list[str]:
    """An indented `line` in lines of at most `width` cells, each under the same indent (none when
    the width leaves too little room), filled as far as it goes and broken after a space or a "/":
    `python /home/…/share/` then `tf-gpu-wizard/hello_gpu.py`, never `python` alone above its
    path. A piece wider than the room on its own stays whole."""
    return _fill_indented(line, width, _PATH_PIECE)


def _fill_indented(line: str, width: int, pieces: re.Pattern[str]) -> list[str]:
    """`line` in lines of at most `width` cells under its indent (none where the width leaves too
    little room), filled piece by piece (`pieces` ends each where a break may go); a piece wider
    than the room stays whole."""
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    if width <= 0 or cell_len(line) <= width:
        return [line]
    if cell_len(indent) * 4 > width:
        indent = ""
    room = width - cell_len(indent)
    lines, current = [], ""
    for piece in pieces.findall(body):
        if current and cell_len((current + piece).rstrip(" ")) > room:
            lines.append(indent + current.rstrip(" "))
            current = piece.lstrip(" ")
        else:
            current += piece
    if current.strip(" "):
        lines.append(indent + current.rstrip(" "))
    return lines


def wrap_whole(text: str, width: int) -> str:
    """`text` in lines of at most `width` cells where it can be: prose between words, a command
    (an indented line) between its arguments; a word or an argument wider than a line is never
    broken (a path or a command copied from the screen must be whole)."""
    if width <= 0:
        return text
    out: list[str] = []
    for paragraph in text.split("\n"):
        if paragraph.startswith(" ") and paragraph.strip(" "):
            out.extend(wrap_arguments(paragraph, width))
        else:
            out.extend(wrap_words(paragraph, width))
    return "\n".join(out)


def wrap_paths(text: str, width: int) -> str:
    """`text` in lines of at most `width` cells, broken between words (and between Chinese
    characters); a word wider than a line that holds a "/" (a path) is broken after a "/"; an
    indented line is a command (`wrap_command`).
    Width 0 (not laid out yet): the text as it is."""
    if width <= 0:
        return text
    out: list[str] = []
    for paragraph in text.split("\n"):
        if paragraph.startswith(" ") and paragraph.strip(" "):
            out.extend(wrap_command(paragraph, width))
            continue
        for line in wrap_words(paragraph, width):
            if cell_len(line) > width and "/" in line:  # one word on its own line: a long path
                out.extend(fold_path(line, width))
            else:
                out.append(line)
    return "\n".join(out)
