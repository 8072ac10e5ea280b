"""Column widths a DataTable gets from its caller, with its rows, in one handler.

A DataTable measures auto-width columns on its next idle, and its line cache is keyed by an update
count the measuring does not change: a header drawn before that idle (a busy machine draws early)
stays at the labels' widths above wider rows. Widths given with the rows leave nothing to measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from textual.widgets import DataTable


def widest(label: str, cells: Sequence[str]) -> int:
    """The cells a column needs: its label's and its widest cell's."""
    return max([cell_len(label), *(cell_len(c) for c in cells)])


def set_widths(table: DataTable[Any], widths: Sequence[int]) -> None:
    """Each of the table's columns, in order, at its width (no longer measured by the table)."""
    for column, width in zip(table.ordered_columns, widths, strict=False):
        column.width, column.auto_width = width, False
    table.refresh()
