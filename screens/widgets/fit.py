"""Text fitted to a width in terminal cells (a CJK character takes two), cut only between words,
or wrapped onto as many lines as it needs (`wrap_words`), every word whole.

A version or a package name is one word, so it is shown whole or not at all: a cut
`tensorflow-cpu==2.2` reads as another release.
"""

from __future__ import annotations

import re

from rich.cells import cell_len

from wizard.cjk.linebreak import words
from wizard.cjk.wrap import wrap

ELLIPSIS = "…"
# Where a reason's short head ends: the first colon or semicolon (ASCII or full-width).
_HEAD_END = re.compile(r": |; |：|；")


def head(text: str) -> str:
    """The words before the first ': ' or '; ', the short form of a reason."""
    return _HEAD_END.split(text, maxsplit=1)[0].strip()


def _is_wide(word: str) -> bool:
    return cell_len(word) > len(word)


def fit_words(text: str, width: int) -> str:
    """`text` when it fits in `width` cells, else as many whole words as fit, then '…'.

    A first word that is too long is cut by characters only when it is CJK text (where
    each character is a word); an ASCII token is never split.
    """
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    out = ""
    # Break units: words, and single characters of Chinese (wizard.cjk.linebreak), so a
    # Chinese reason fills the column instead of stopping at its first space.
    for _start, _end, unit in words(text):
        candidate = out + unit
        if cell_len(candidate.rstrip()) + 1 > width:
            break
        out = candidate
    out = out.rstrip()
    if not out:
        first = text.split(" ")[0]
        if not _is_wide(first):
            return ELLIPSIS
        for char in first:
            if cell_len(out + char) + 1 > width:
                break
            out += char
    return out.rstrip(" ,;:，；：") + ELLIPSIS


def wrap_words(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken only between words (and between Chinese
    characters, never before a closing mark): nothing is left out. A word wider than `width` on
    its own gets a line of its own, whole (the caller keeps such words out of narrow columns)."""
    if width <= 0 or cell_len(text) <= width:
        return [text]
    return wrap(text, width, keep_code=False)
