"""The resolver's candidates: one row per TensorFlow release x install method."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import DataTable

from screens.widgets.fit import head, wrap_words
from wizard.safe.display import safe
from wizard.text import t

if TYPE_CHECKING:
    from wizard.choose.choice import Candidate, Recommendation

FIXED = ("mark", "tf", "method", "python", "cuda", "cudnn")
MIN_WHY = 12  # below this the table scrolls sideways rather than show a stub


def method_label(method: str) -> str:
    return t(f"app.method.{method}")


def short_why(cand: Candidate) -> str:
    """What the row says in the why column: the head of its first reason (the detail has it all)."""
    if cand.reasons:
        return head(safe(cand.reasons[0], 400))
    return t("app.choose.ok") if cand.ok else ""


class CandidateTable(DataTable[Text]):
    """Recommended row marked and preselected; a short reason beside every row.

    The why column takes the width the others leave, so the row never scrolls sideways;
    a short reason longer than that wraps onto a second line (every word of it in sight),
    and the detail below gives the whole reason.
    """

    # The highlighted row is the set `p` plans: a key that reads or scrolls never moves it. Only
    # the arrows (and a click) choose; PageDown, PageUp, Home and End scroll what the screen shows
    # about the row (the detail below), as they do everywhere else (DataTable's own moved the
    # cursor: PageDown at 80x24 chose "CPU only" unseen).
    BINDINGS = [
        Binding("pagedown", "screen.scroll_region('page_down')", show=False),
        Binding("pageup", "screen.scroll_region('page_up')", show=False),
        Binding("end,ctrl+end", "screen.scroll_region('end')", show=False),
        Binding("home,ctrl+home", "screen.scroll_region('home')", show=False),
    ]
    DEFAULT_CSS = """
    CandidateTable { height: 1fr; min-height: 5; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.candidates: list[Candidate] = []
        self._shown: tuple[Recommendation, bool] | None = None
        self._why_width = 0
        self._fixed = 0

    def show(self, rec: Recommendation, show_all: bool = False) -> None:
        from wizard.choose.resolver import useful_candidates

        # Redrawn for a resize or "all rows": the same candidate stays highlighted.
        keep = self.highlighted() if self._shown is not None and self._shown[0] is rec else None
        self._shown = (rec, show_all)
        self.clear(columns=True)
        self.candidates = useful_candidates(rec, show_all)
        cells = [self._cells(rec, cand) for cand in self.candidates]
        c = "app.choose."
        widths = {key: cell_len(t(c + "col_" + key)) for key in FIXED}
        for row_cells in cells:
            for key, cell in zip(FIXED, row_cells, strict=True):
                widths[key] = max(widths[key], cell.cell_len)
        for key in FIXED:
            self.add_column(t(c + "col_" + key), key=key, width=widths[key])
        self._fixed = sum(widths.values())
        self._why_width = self._room(self._fixed)
        self.add_column(t(c + "col_why"), key="why", width=self._why_width)
        best_row = 0
        for i, (cand, row_cells) in enumerate(zip(self.candidates, cells, strict=True)):
            if rec.recommended is not None and cand is rec.recommended:
                best_row = i
            lines = wrap_words(short_why(cand), self._why_width)
            why = Text("\n".join(lines), style=row_cells[1].style)
            self.add_row(*row_cells, why, key=str(i), height=len(lines))
        if self.candidates:
            target = next((i for i, c in enumerate(self.candidates) if c is keep), best_row)
            self.move_cursor(row=target, animate=False, scroll=True)

    def _cells(self, rec: Recommendation, cand: Candidate) -> list[Text]:
        recommended = rec.recommended is not None and cand is rec.recommended
        style = "bold" if recommended else ("" if cand.ok else "dim")
        if recommended:
            mark = Text(t("app.choose.mark_recommended"), style="bold")
        elif cand.ok:
            mark = Text(t("app.choose.mark_ok"))
        else:
            mark = Text(t("app.choose.mark_bad"), style="dim")
        s = cand.set
        return [
            mark,
            Text(s.tensorflow, style=style),
            Text(method_label(s.method), style=style),
            Text(s.python, style=style),
            Text(s.cuda or "-", style=style),
            Text(s.cudnn or "-", style=style),
        ]

    def _room(self, fixed: int) -> int:
        """Cells left for the why column: the width, less the other columns, their padding
        and a vertical scrollbar (kept free so that showing one never pushes a column out)."""
        width = self.size.width - self.styles.scrollbar_size_vertical
        padding = 2 * self.cell_padding * (len(FIXED) + 1)
        return max(MIN_WHY, width - fixed - padding)

    def on_resize(self, event: Resize) -> None:
        if self._shown is not None and self._room(self._fixed) != self._why_width:
            rec, show_all = self._shown
            self.show(rec, show_all)

    def highlighted(self) -> Candidate | None:
        if not self.candidates or self.cursor_row < 0 or self.cursor_row >= len(self.candidates):
            return None
        return self.candidates[self.cursor_row]
