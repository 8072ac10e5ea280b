"""The plan's steps while it runs: status, how long it took, the title and where it runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from wizard.safe.display import safe
from wizard.text import t

# The runner's statuses (wizard.plan.model), "restart-pending" shown as "restart", and "waiting".
STATUSES = ("pending", "running", "waiting", "restart", "satisfied", "skipped", "done", "failed")
ICON = {
    "satisfied": "✓",
    "pending": "·",
    "running": "▶",
    "waiting": "⏸",
    "restart": "⟳",
    "skipped": "↷",
    "done": "✓",
    "failed": "✖",
}
STYLE = {
    "satisfied": "$success",
    "pending": "$text-muted",
    "running": "$accent bold",
    "waiting": "$warning bold",
    "restart": "$warning bold",
    "skipped": "$text-muted",
    "done": "$success",
    "failed": "$error bold",
}
WHERE = {"root": "ROOT", "windows-host": "WINDOWS", "user": ""}


def clock_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class RunStepList(Vertical):
    """One row per step (wizard.plan.Step): status and time on the left, the title wrapping beside."""

    DEFAULT_CSS = """
    RunStepList { height: auto; }
    RunStepList > Horizontal { height: auto; }
    RunStepList .step-status { width: 23; }
    RunStepList .step-title { width: 1fr; }
    """

    def __init__(self, steps: Sequence[Any], clock: Callable[[], float], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.steps = list(steps)
        self.clock = clock
        self.status: dict[str, str] = {s.id: "pending" for s in self.steps}
        self.started: dict[str, float] = {}
        self.took: dict[str, float] = {}
        self._label_width = -1  # the status column's label width the cells were last given

    def compose(self) -> ComposeResult:
        # The status column is as wide as the longest status in cells (a Chinese one is 2 a character):
        # icon, space, status, space, time (4), and a gap.
        width = max(cell_len(t(f"app.run.status_{status}")) for status in STATUSES) + 8
        for n in range(1, len(self.steps) + 1):
            with Horizontal(id=f"step-{n}"):
                status = Static("", classes="step-status")
                status.styles.width = width
                yield status
                yield Static("", classes="step-title")

    def on_mount(self) -> None:
        self.redraw()

    def set_status(self, step_id: str, status: str) -> None:
        now = self.clock()
        if status == "running" and self.status.get(step_id) != "waiting":
            self.started[step_id] = now
            self.took.pop(step_id, None)
        elif status in ("done", "failed") and step_id in self.started:
            self.took[step_id] = now - self.started[step_id]
        elif status in ("skipped", "satisfied"):  # nothing was run: no time to show
            self.took.pop(step_id, None)
        self.status[step_id] = status
        self.redraw()
        if status in ("running", "waiting", "restart", "failed"):
            # The step the student must act on or read about stays in sight on a short terminal
            # (a WSL restart once left the list scrolled to the steps after it).
            n = next((i for i, s in enumerate(self.steps, start=1) if s.id == step_id), None)
            if n is not None:
                row = self.query_one(f"#step-{n}", Horizontal)
                self.call_after_refresh(row.scroll_visible, animate=False)

    def redraw(self) -> None:
        now = self.clock()
        labels = {status: t(f"app.run.status_{status}") for status in STATUSES}
        shown = {self.status.get(step.id, "pending") for step in self.steps}
        # While the run goes on the column fits every status (no row jumps as one changes); once
        # no step can change, only the statuses shown: the titles get the room (a finished run's
        # list beside the "how to use it" text was a few columns wide).
        settled = not shown & {"pending", "running", "waiting"}
        width = max(cell_len(labels[s]) for s in (shown if settled else labels))
        for n, step in enumerate(self.steps, start=1):
            status = self.status.get(step.id, "pending")
            if step.id in self.took:
                timing = clock_text(self.took[step.id])
            elif status in ("running", "waiting") and step.id in self.started:
                timing = clock_text(now - self.started[step.id])
            else:
                timing = ""
            style = STYLE[status]
            row = self.query_one(f"#step-{n}", Horizontal)
            cell = row.query_one(".step-status", Static)
            if width != self._label_width:  # a layout change only where the column changes
                cell.styles.width = width + 8  # icon, space, status, space, time (4), a gap
            cell.update(
                Content.from_markup(
                    f"[{style}]$icon $label[/] [$text-muted]$timing[/]",
                    icon=ICON[status],
                    label=labels[status] + " " * (width - cell_len(labels[status])),
                    timing=timing.rjust(4),
                )
            )
            row.query_one(".step-title", Static).update(
                Content.from_markup(
                    f"[{style}]$n. $title[/] [$error]$where[/]",
                    n=str(n),
                    title=safe(step.title, 400),
                    where=WHERE.get(step.where, ""),
                )
            )
        self._label_width = width
