"""The snapshot difference a failed snapshot test prints in CI (tests/snapshot_diff.py)."""

from __future__ import annotations

from pathlib import Path

from tests.snapshot_diff import screen_lines, svg_difference

SVG = Path(__file__).parent / "__snapshots__" / "test_monitor_screen" / "test_snapshot_no_gpu[size0].svg"


def test_screen_lines_read_the_screen_as_a_person_does() -> None:
    lines = screen_lines(SVG.read_text(encoding="utf-8"))
    assert len(lines) == 24  # one per terminal row
    assert "GPU monitor" in lines[0] and "Benchmark" in lines[0]
    assert "&#160;" not in "".join(lines)


def test_a_changed_cell_shows_its_row_both_ways() -> None:
    svg = SVG.read_text(encoding="utf-8")
    changed = svg.replace("Benchmark", "Bench&#160;run", 1)
    diff = svg_difference(svg, changed)
    assert diff.startswith("screen text:")
    removed = [x for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    added = [x for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++")]
    assert len(removed) == len(added) == 1
    assert "Benchmark" in removed[0] and "Bench run" in added[0]


def test_the_same_text_in_other_colours_shows_the_styles() -> None:
    svg = SVG.read_text(encoding="utf-8")
    start = svg.index("<style>")
    rule = svg.index("fill:", start)
    changed = svg[:rule] + "fill: #123456;" + svg[svg.index(";", rule) + 1 :]
    diff = svg_difference(svg, changed)
    assert diff.startswith("styles (the text is the same):") and "#123456" in diff


def test_identical_svgs_say_so() -> None:
    svg = SVG.read_text(encoding="utf-8")
    assert "differ in neither" in svg_difference(svg, svg)
