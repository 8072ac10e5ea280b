"""The resolver's candidates: one row per TensorFlow release x install method."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import DataTable

from wizard.text import t

if TYPE_CHECKING:
    from wizard.choose.choice import Candidate, Recommendation


def method_label(method: str) -> str:
    return t(f"app.method.{method}")


class CandidateTable(DataTable[Text]):
    """Recommended row marked and preselected; the reason beside every other row."""

    DEFAULT_CSS = """
    CandidateTable { height: 1fr; min-height: 5; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.candidates: list[Candidate] = []

    def on_mount(self) -> None:
        c = "app.choose."
        self.add_column(t(c + "col_mark"), key="mark", width=1)
        self.add_column(t(c + "col_tf"), key="tf")
        self.add_column(t(c + "col_method"), key="method")
        self.add_column(t(c + "col_python"), key="python")
        self.add_column(t(c + "col_cuda"), key="cuda")
        self.add_column(t(c + "col_cudnn"), key="cudnn")
        self.add_column(t(c + "col_why"), key="why")

    def show(self, rec: Recommendation, show_all: bool = False) -> None:
        from wizard.choose.resolver import useful_candidates

        self.clear()
        self.candidates = useful_candidates(rec, show_all)
        best_row = 0
        for row, cand in enumerate(self.candidates):
            recommended = rec.recommended is not None and cand is rec.recommended
            if recommended:
                best_row = row
            style = "bold" if recommended else ("" if cand.ok else "dim")
            if recommended:
                mark = Text(t("app.choose.mark_recommended"), style="bold")
            elif cand.ok:
                mark = Text(t("app.choose.mark_ok"))
            else:
                mark = Text(t("app.choose.mark_bad"), style="dim")
            why = cand.reasons[0] if cand.reasons else (t("app.choose.ok") if cand.ok else "")
            s = cand.set
            self.add_row(
                mark,
                Text(s.tensorflow, style=style),
                Text(method_label(s.method), style=style),
                Text(s.python, style=style),
                Text(s.cuda or "-", style=style),
                Text(s.cudnn or "-", style=style),
                Text(why, style=style),
                key=str(row),
            )
        if self.candidates:
            self.move_cursor(row=best_row, animate=False, scroll=True)

    def highlighted(self) -> Candidate | None:
        if not self.candidates or self.cursor_row < 0 or self.cursor_row >= len(self.candidates):
            return None
        return self.candidates[self.cursor_row]
