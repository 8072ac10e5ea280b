"""The plan's steps: on/off, title, where it runs (you, ROOT, WINDOWS) and the download."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import DataTable

from wizard.text import t

if TYPE_CHECKING:
    from wizard.plan.model import Plan, Step

WHERE_STYLE = {"root": "bold red", "windows-host": "bold magenta", "user": ""}
WHERE_KEY = {"root": "where_root", "windows-host": "where_windows", "user": "where_user"}


def size_text(mib: int | None) -> str:
    if mib is None:
        return t("app.plan.unknown_size")
    if mib <= 0:
        return t("app.plan.none_size")
    from wizard.plan.view import size_text as plan_size

    return plan_size(mib)


def where_text(where: str) -> Text:
    return Text(t(f"app.plan.{WHERE_KEY.get(where, 'where_user')}"), style=WHERE_STYLE.get(where, ""))


class PlanStepTable(DataTable[Text]):
    DEFAULT_CSS = """
    PlanStepTable { height: 1fr; min-height: 5; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", **kwargs)  # type: ignore[arg-type]
        self.steps: list[Step] = []

    def on_mount(self) -> None:
        p = "app.plan."
        self.add_column(t(p + "col_on"), key="on", width=3)
        self.add_column(t(p + "col_num"), key="num", width=2)
        self.add_column(t(p + "col_where"), key="where")
        self.add_column(t(p + "col_size"), key="size")
        self.add_column(t(p + "col_title"), key="title")

    def show(self, plan: Plan) -> None:
        row = self.cursor_row
        self.clear()
        self.steps = list(plan.steps)
        for i, step in enumerate(self.steps, start=1):
            style = "" if step.enabled else "dim strike"
            on = "[x]" if step.enabled else "[ ]"
            title = step.title + ("  ⟳" if step.restart else "")
            self.add_row(
                Text(on if step.optional else "[•]", style="" if step.optional else "dim"),
                Text(str(i), style=style),
                where_text(step.where),
                Text(size_text(step.download_mib), style=style),
                Text(title, style=style),
                key=step.id,
            )
        if self.steps:
            self.move_cursor(row=max(0, min(row, len(self.steps) - 1)), animate=False)

    def highlighted(self) -> Step | None:
        if not self.steps or not 0 <= self.cursor_row < len(self.steps):
            return None
        return self.steps[self.cursor_row]
