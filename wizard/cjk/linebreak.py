"""Line breaks for Chinese text in Rich and Textual.

Rich (and Textual's Content, which uses Rich's `divide_line`) breaks lines only at spaces:
a run of Chinese without spaces is one "word", so "需要你的 sudo 密码，向导只在内存中……"
leaves "sudo" alone on a line and pushes the whole run to the next, or chops it at the
edge. Chinese typesetting may break between any two characters, except that closing
punctuation (，。）」…) never starts a line and opening punctuation (（「“) never ends one.

`words(text)` splits text into such break units, each with the whitespace around it, in
the shape of `rich._wrap.words`; `install_cjk_wrapping()` makes Rich use it. For text
without CJK characters the units are exactly Rich's words, so English wraps as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# CJK radicals, punctuation, kana, bopomofo, ideographs (A and the main block), compatibility
# ideographs, vertical forms, CJK compatibility forms, full-width forms.
_CJK = (
    "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef"
)
# Never at the start of a line (closing brackets, stops, commas, ellipsis, long dash...).
_CLOSE = "，。、；：！？）］｝」』】》〉〕〗〙〛”’…—～·％,.;:!?)\\]}%"
# Never at the end of a line.
_OPEN = "（［｛「『【《〈〔〖〘〚“‘"

_UNIT = (
    rf"[{_OPEN}]*"
    rf"(?:[^\s{_CJK}]+|[{_CJK}])"  # a run of anything else up to a space (a Latin word), or one CJK character
    rf"[{_CLOSE}]*"
)
RE_WORD = re.compile(rf"\s*(?:{_UNIT}|\S)\s*")


def words(text: str) -> Iterable[tuple[int, int, str]]:
    """(start, end, word) for each break unit of `text`, trailing whitespace included."""
    position = 0
    match = RE_WORD.match(text, position)
    while match is not None and match.end() > position:
        start, end = match.span()
        yield start, end, match.group(0)
        position = end
        match = RE_WORD.match(text, position)


def install_cjk_wrapping() -> bool:
    """Make Rich (and so Textual) break Chinese lines between characters. True when in place."""
    try:
        from rich import _wrap
    except ImportError:
        return False
    if not callable(getattr(_wrap, "words", None)) or not callable(getattr(_wrap, "divide_line", None)):
        return False  # a Rich without the function this replaces: leave it as it is
    _wrap.words = words  # divide_line looks it up at call time
    return True
