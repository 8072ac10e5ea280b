"""A finding (or a reason) as a student reads it: one line first, the evidence one key away.

A finding's `why` is a paragraph: the fact, the evidence (issue citations, wheel facts) and the
fix. Detect, `detect`, `recommend` and Choose lead with `lead()`: its first sentence, with the
parentheses that cite sources taken out, and its fix sentence where it has one. The whole text
is shown on a key (`w` on Detect) or with --explain. Layout only: the words are the findings'.
"""

from __future__ import annotations

import re

from wizard.text import t

LEAD_LIMIT = 400  # cells: a lead longer than this is cut (the whole text stays one key away)
CLAUSE_AT = 200  # a first sentence longer than this leads with its first clause

_OPEN, _CLOSE = "([（", ")]）"
# A parenthesis that cites a source: an issue (owner/repo#123), an address, a wheel's digest.
_CITES = re.compile(r"#[0-9]|https?://|sha256", re.IGNORECASE)


def _sentence_end(text: str, start: int = 0) -> int:
    """The index just past the first sentence of text[start:], outside parentheses."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and (ch == "。" or (ch == "." and (i + 1 == len(text) or text[i + 1] == " "))):
            return i + 1
    return len(text)


def _clause_end(text: str) -> int:
    """The index of the first "; " (or "；") outside parentheses, else len(text)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and (ch == "；" or (ch == ";" and text[i + 1 : i + 2] == " ")):
            return i
    return len(text)


def without_citations(text: str) -> str:
    """`text` with every parenthesis that cites a source removed (nested ones with it)."""
    out, depth, group = [], 0, []
    for ch in text:
        if depth == 0 and ch not in _OPEN:
            out.append(ch)
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        group.append(ch)
        if depth == 0:
            shown = "".join(group)
            if not _CITES.search(shown):
                out.append(shown)
            elif out and out[-1] == " ":
                out.pop()
            group = []
    if group:  # an unclosed parenthesis: kept as it was
        out.extend(group)
    return "".join(out)


def lead(text: str) -> str:
    """The first sentence of `text` (sources cited in parentheses left out) and, where the text
    has one, its fix sentence: what a student reads before deciding to read on."""
    flat = " ".join(text.split())
    first = flat[: _sentence_end(flat)]
    if len(without_citations(first)) > CLAUSE_AT:  # one long sentence: its first clause
        clause = _clause_end(first)
        if clause < len(first):
            first = first[:clause].rstrip()  # whole words: the --explain hint says there is more
    marker = t("keys.findings.fix_marker")
    at = flat.find(marker, len(first))
    if at >= 0:
        glue = "" if first.endswith("。") else " "
        first += glue + flat[at : _sentence_end(flat, at + len(marker))]
    short = without_citations(first).strip()
    return short if len(short) <= LEAD_LIMIT else short[: LEAD_LIMIT - 1].rstrip() + "…"


def has_more(text: str) -> bool:
    """Whether the whole text says more than its lead."""
    return " ".join(lead(text).split()) != " ".join(text.split())
