"""What a failed snapshot test differs in, as text for the CI log: the HTML report a snapshot failure
writes stays on the CI machine, and a flaky snapshot is only understood from what it showed."""

from __future__ import annotations

import difflib
import html
import pickle
import re
from pathlib import Path

_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', re.DOTALL)
_STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)
MAX_LINES = 80


def screen_lines(svg: str) -> list[str]:
    """The screen's rows as text, as a person reads the SVG (cells joined left to right)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in _TEXT.finditer(svg):
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), html.unescape(m.group(3))))
    return ["".join(t for _, t in sorted(cells)).replace("\xa0", " ") for _, cells in sorted(rows.items())]


def _styles(svg: str) -> list[str]:
    found = _STYLE.findall(svg)
    return "\n".join(found).splitlines()


def svg_difference(expected: str, actual: str) -> str:
    """A unified diff of the two screens' text; where the text is the same, of their styles."""
    old, new = screen_lines(expected), screen_lines(actual)
    what = "screen text"
    if old == new:
        old, new, what = _styles(expected), _styles(actual), "styles (the text is the same)"
    diff = list(difflib.unified_diff(old, new, "expected", "actual", lineterm="", n=1))
    if not diff:
        return "the two SVGs differ in neither text nor styles (only in layout attributes)"
    cut = diff[:MAX_LINES] + ([f"... {len(diff) - MAX_LINES} more lines"] if len(diff) > MAX_LINES else [])
    return f"{what}:\n" + "\n".join(cut)


def report_difference(data_path: Path) -> str:
    """The difference pytest-textual-snapshot recorded for one test (its report pickle), or ""."""
    try:
        data = pickle.loads(data_path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError):
        return ""
    passed, expected, actual = data[0], data[1], data[2]
    if passed or not isinstance(actual, str):
        return ""
    return svg_difference(str(expected), actual)
