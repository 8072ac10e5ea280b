"""Text and paths in lines of a given width, a path broken only right after a "/" (its file name
whole): Textual or Rich would fold such a word at the edge, mid-name ("hello_gp" / "u.py"), and a
cut name reads as another file. Used by the Run screen's log and its notice."""

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


def wrap_paths(text: str, width: int) -> str:
    """`text` in lines of at most `width` cells, broken between words (and between Chinese
    characters); a word wider than a line that holds a "/" (a path) is broken after a "/".
    Width 0 (not laid out yet): the text as it is."""
    if width <= 0:
        return text
    out: list[str] = []
    for paragraph in text.split("\n"):
        for line in wrap_words(paragraph, width):
            if cell_len(line) > width and "/" in line:  # one word on its own line: a long path
                out.extend(fold_path(line, width))
            else:
                out.append(line)
    return "\n".join(out)
