"""The plan's steps: on/off, title, where it runs (you, ROOT, WINDOWS) and the download."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import DataTable

from screens.widgets.path_wrap import wrap_paths
from wizard.plan.model import step_numbers
from wizard.safe.display import safe
from wizard.text import t

if TYPE_CHECKING:
    from wizard.plan.model import Plan, Step

WHERE_STYLE = {"root": "bold red", "windows-host": "bold magenta", "user": ""}
WHERE_KEY = {"root": "where_root", "windows-host": "where_windows", "user": "where_user"}
RESTART_KEY = {"reboot": "then_reboot", "wsl-shutdown": "then_wsl_shutdown"}
FIXED = ("on", "num", "where", "size")
MIN_TITLE = 16


def size_text(mib: int | None) -> str:
    if mib is None:
        return t("app.plan.unknown_size")
    if mib <= 0:
        return t("app.plan.none_size")
    from wizard.plan.view import size_text as plan_size

    return plan_size(mib)


def where_text(where: str) -> Text:
    return Text(t(f"app.plan.{WHERE_KEY.get(where, 'where_user')}"), style=WHERE_STYLE.get(where, ""))


def title_text(step: Step, there: bool = False) -> str:
    """The step's title, and in words what follows it (a restart), never a bare symbol. A step
    already there is not run, so no restart follows it."""
    title = safe(step.title, 400)
    key = "" if there else RESTART_KEY.get(step.restart or "")
    return f"{title} · {t('app.plan.' + key)}" if key else title


class PlanStepTable(DataTable[Text]):
    """Every title whole: the title column takes the width the others leave and a long
    title wraps onto more lines between words, so `tensorflow-cpu==2.21.0` is never cut
    into another version."""

    # A table of rows, never wider than its panel: Home and End go to the first and last row
    # (DataTable's own go to the first and last column, which here is nothing).
    BINDINGS = [
        Binding("home", "scroll_top", show=False),
        Binding("end", "scroll_bottom", show=False),
    ]
    DEFAULT_CSS = """
    PlanStepTable { height: 1fr; min-height: 5; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", **kwargs)  # type: ignore[arg-type]
        self.steps: list[Step] = []
        self._plan: Plan | None = None
        self._fixed = 0
        self._room_used = 0  # the room the titles were wrapped to (a resize that changes it wraps again)
        self.there: set[str] = set()  # steps the runner's preview found already satisfied (or done)

    def mark_there(self, statuses: dict[str, str]) -> None:
        """The runner's preview: a step already there shows [✓], as Run will then show it."""
        there = {k for k, v in statuses.items() if v in ("done", "satisfied")}
        if there != self.there:
            self.there = there
            if self._plan is not None:
                self.show(self._plan)

    def show(self, plan: Plan) -> None:
        row = self.cursor_row
        self._plan = plan
        self.clear(columns=True)
        self.steps = list(plan.steps)
        p = "app.plan."
        numbers = step_numbers(plan)  # Run's numbers: a step switched off has none
        rows = [self._cells(numbers.get(step.id), step, step.id in self.there) for step in self.steps]
        widths = {key: cell_len(t(p + "col_" + key)) for key in FIXED}
        for cells in rows:
            for key, cell in zip(FIXED, cells, strict=True):
                widths[key] = max(widths[key], cell.cell_len)
        for key in FIXED:
            self.add_column(t(p + "col_" + key), key=key, width=widths[key])
        titles = [title_text(step, step.id in self.there and step.enabled) for step in self.steps]
        self._fixed = sum(widths.values())
        # Each title in lines of the room left, between words (and between Chinese characters), a
        # path broken only after a "/": a long path in one title ("Fix: ... (/usr/lib/x86_64-linux-
        # gnu/libnvidia-ml.so.1)") made the column as wide as the path, wider than the room, and every
        # title lost its right part off the edge. Only a word wider than the room (no "/" to break at)
        # still widens the column: it is never cut into another name.
        room = max(self._room(self._fixed), MIN_TITLE)
        self._room_used = room
        wrapped = [wrap_paths(title, room) for title in titles]
        longest = max((cell_len(line) for lines in wrapped for line in lines.split("\n")), default=0)
        self.add_column(t(p + "col_title"), key="title", width=max(room, longest))
        for step, cells, lines in zip(self.steps, rows, wrapped, strict=True):
            text = Text(lines, style="" if step.enabled else "dim strike")
            self.add_row(*cells, text, key=step.id, height=max(1, lines.count("\n") + 1))
        if self.steps:
            self.move_cursor(row=max(0, min(row, len(self.steps) - 1)), animate=False)

    @staticmethod
    def _cells(n: int | None, step: Step, there: bool = False) -> list[Text]:
        style = "" if step.enabled else "dim strike"
        on = "[x]" if step.enabled else "[ ]"
        if there and step.enabled:  # already satisfied: Run will check it and not run it
            mark = Text("[✓]", style="green")
        else:
            mark = Text(on if step.optional else "[•]", style="" if step.optional else "dim")
        return [
            mark,
            Text("" if n is None else str(n), style=style),
            where_text(step.where),
            Text(size_text(step.download_mib), style=style),
        ]

    def _room(self, fixed: int) -> int:
        """Cells left for the titles, a vertical scrollbar's width kept free."""
        width = self.size.width - self.styles.scrollbar_size_vertical
        return width - fixed - 2 * self.cell_padding * (len(FIXED) + 1)

    def on_resize(self, event: Resize) -> None:
        if self._plan is not None and max(self._room(self._fixed), MIN_TITLE) != self._room_used:
            self.show(self._plan)

    def watch_virtual_size(self) -> None:
        """The rows' height changed (the preview marked a step [✓]: its title lost its restart and a
        line): decide the scrollbar again now. ScrollView decides it only when the table's own size
        changes, so a table that grew to fit its rows in the same layout kept a scrollbar over rows
        that all fit: its last column drawn as an empty black strip until the next resize."""
        self._refresh_scrollbars()

    def highlighted(self) -> Step | None:
        if not self.steps or not 0 <= self.cursor_row < len(self.steps):
            return None
        return self.steps[self.cursor_row]
