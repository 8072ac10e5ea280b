"""Strings from data (profiles, paths, GPU names, commands, logs) made safe to show.

Data is never markup and never terminal control. The API:

    safe(value, limit=200, *, multiline=False) -> str
        str(value) with control characters made visible and cut to `limit` characters with "…".
        Use it for everything that came from a machine, a profile, a path or a log.
    visible(text, *, multiline=False) -> str
        Only the control characters: C0 and C1 (ESC, BEL, the OSC 52 clipboard write, the screen
        clear...), DEL, lone surrogates, bidi overrides, and (single line) newline, CR and tab, each
        shown as its escape: "\\x1b", "\\u202e", "\\udc80". Printable text is unchanged.
    json_safe(json_text) -> str
        JSON text with C1, DEL, lone surrogates and bidi controls written as \\uXXXX (json.dumps
        escapes only C0 when ensure_ascii=False): for --json output.
    cut(text, limit) -> str
        At most `limit` characters, the last one "…" when something was left out.
    text(value, style="", limit=200, *, multiline=False) -> rich.text.Text
        `safe()` as a Rich Text: never parsed as markup, never highlighted. Rich tables, consoles
        and Textual widgets accept it (`Static(text(...))`); or pass `markup=False` with `safe()`.

Rich `console.print(str)` and Textual `Static(str)` parse "[...]" as markup (a path under
"x[/b]" raises MarkupError; "[old]" silently vanishes) and Rich's highlighter can take minutes on a
100,000-character line: build `Text` from data, never markup strings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

DEFAULT_LIMIT = 200
ELLIPSIS = "…"

# C0 (but \t \n kept for multi-line text), DEL, C1, lone surrogates, bidi embeddings/overrides/isolates,
# bidi marks (LRM, RLM, ALM), line and paragraph separators. A surrogate in a Python str is always a
# lone one.
_WIDE = "\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
RAW_CHARS = f"\x00-\x08\x0a-\x1f{_WIDE}"  # a character class body: every control but tab
_CONTROL_MULTI = re.compile(f"[\x00-\x08\x0b-\x1f{_WIDE}]")
_CONTROL_LINE = re.compile(f"[\x00-\x1f{_WIDE}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


# The same code points for JSON: escaped as \uXXXX there, which any JSON reader turns back into the
# data, while CJK and other printable text stays readable.
_JSON_RAW = re.compile(f"[{_WIDE}]")


def json_safe(text: str) -> str:
    """JSON text (from json.dumps(ensure_ascii=False)) with C1, DEL, surrogates and bidi controls as
    \\uXXXX escapes: the document is unchanged for a reader, and harmless for a terminal."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    named = _NAMED.get(ch)
    if named:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, multiline: bool = False) -> str:
    pattern = _CONTROL_MULTI if multiline else _CONTROL_LINE
    if "\r" in text and multiline:
        text = text.replace("\r\n", "\n")
    return pattern.sub(_escape, text)


def cut(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return text[: limit - 1] + ELLIPSIS


def safe(value: object, limit: int | None = DEFAULT_LIMIT, *, multiline: bool = False) -> str:
    raw = value if isinstance(value, str) else str(value)
    if limit is not None and limit > 0:
        # Bounded work on a huge string: each character becomes at most 6 when made visible.
        raw = raw[: limit + 1]
        return cut(visible(raw, multiline=multiline), limit)
    return visible(raw, multiline=multiline)


def text(
    value: object, style: str = "", limit: int | None = DEFAULT_LIMIT, *, multiline: bool = False
) -> Text:
    from rich.text import Text

    return Text(safe(value, limit, multiline=multiline), style=style, no_wrap=False)
