"""The benchmark beside the monitor: the verdict first, then phases, CNN images/s and matmul TFLOP/s.

Ordered for a small terminal: what the run proved (the verdict) on top, where it cannot
scroll out of sight; the phases fold into one line once they all passed; the details
follow, and the saved file comes last.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from screens.widgets.gauge import Gauge
from screens.widgets.path_wrap import wrap_paths
from wizard.bench.events import PHASES
from wizard.bench.phase_summary import phases_line
from wizard.bench.report import BenchReport
from wizard.bench.verdict import clock_note, matmul_cells, matmul_columns, matmul_header, peak_note, verdict
from wizard.safe.display import safe
from wizard.text import t

SHORT_DTYPE = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
LEVELS = ("ok", "warn", "error")


class BarChart(Widget):
    """Horizontal bars, one per (label, value); the longest bar fills the width."""

    DEFAULT_CSS = """
    BarChart { height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bars: list[tuple[str, float, str]] = []  # label, value, style
        self.caption = ""

    def set(self, bars: list[tuple[str, float, str]], caption: str = "") -> None:
        self.bars, self.caption = bars, caption
        self.refresh(layout=True)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return len(self.bars) + (1 if self.caption else 0)

    def render(self) -> Text:
        width = self.size.width
        top = max((v for _, v, _ in self.bars), default=0.0) or 1.0
        label_width = max((cell_len(label) for label, _, _ in self.bars), default=0)
        lines = []
        for label, value, style in self.bars:
            number = f" {value:,.0f}"
            room = max(1, width - label_width - 1 - cell_len(number))
            line = Text(label + " " * (label_width - cell_len(label) + 1), style="bold")
            line.append("█" * max(1, round(room * value / top)), style=style)
            line.append(number)
            lines.append(line)
        if self.caption:
            lines.append(Text(self.caption, style="bold"))
        return Text("\n").join(lines)


PHASE_STYLE = {"ok": "green", "failed": "red", "running": "bold", "skipped": "dim", "stopped": "yellow"}


class BenchPanel(VerticalScroll):
    """Redrawn from a `BenchReport` after every event (`show`)."""

    def compose(self) -> ComposeResult:
        yield Static(t("bench.not_started"), id="bench-status")
        yield Static(id="bench-verdict")
        yield Static(id="bench-phases")
        yield Gauge("", label_width=0, id="bench-progress")
        yield Static(t("bench.bar_chart"), id="bench-chart-title", classes="section-title")
        yield BarChart(id="bench-chart")
        yield Static(id="bench-results")
        yield Static(id="bench-no-peak", classes="muted")
        yield Static(id="bench-footer", classes="muted")

    def on_mount(self) -> None:
        self.border_title = t("bench.title")
        # Nothing to show before the first run: no empty gauge, no empty chart.
        for selector in (
            "#bench-verdict",
            "#bench-progress",
            "#bench-chart-title",
            "#bench-results",
            "#bench-no-peak",
            "#bench-footer",
        ):
            self.query_one(selector).display = False
        self.query_one("#bench-phases", Static).update(self._phase_lines(BenchReport()))  # what will happen

    def set_status(self, text: str, level: str = "ok") -> None:
        status = self.query_one("#bench-status", Static)
        status.update(Content(safe(text, 2000, multiline=True)))  # errors quote the script: not markup
        status.display = bool(text)
        for name in LEVELS:
            status.set_class(name == level, f"-{name}")

    def set_footer(self, text: str) -> None:
        """The end of the panel: how long the run took and where its result was saved."""
        footer = self.query_one("#bench-footer", Static)
        self._footer_text = safe(text, 2000, multiline=True)  # a path is data: not markup
        footer.display = bool(text)
        self._wrap_footer()
        self.call_after_refresh(self._wrap_footer)  # once the footer has its width

    def _wrap_footer(self) -> None:
        """The saved file's path broken only after a "/", never mid-name ("bench-2026120" /
        "6-0718.json" read as another file), again whenever the panel's width changes."""
        footer = self.query_one("#bench-footer", Static)
        width = footer.content_region.width
        text = getattr(self, "_footer_text", "")
        footer.update(Content(wrap_paths(text, width) if width > 0 else text))

    def on_resize(self) -> None:
        self._wrap_footer()

    def show(self, report: BenchReport) -> None:
        self._verdict(report)
        self._phases(report)
        self._table(report)
        self._chart(report)

    def _verdict(self, report: BenchReport) -> None:
        widget = self.query_one("#bench-verdict", Static)
        found = verdict(report)
        widget.display = found is not None
        if found is not None:
            widget.update(Content(found.text))
            for name in LEVELS:
                widget.set_class(name == found.level, f"-{name}")

    def _phases(self, report: BenchReport) -> None:
        gauge = self.query_one("#bench-progress", Gauge)
        gauge.display = not report.done
        self.query_one("#bench-phases", Static).update(self._phase_lines(report))
        current = report.current
        if current is not None and current.total:
            gauge.set(100.0 * current.done / current.total, f"{current.done}/{current.total}", "ok")
        elif report.done:
            gauge.set(100.0, "", "ok" if report.ok else "warn")
        else:
            gauge.set(0.0, "", "na")

    @staticmethod
    def _phase_lines(report: BenchReport) -> Text:
        states = [report.phases[name] for name in PHASES]
        what_ran = phases_line(report)
        if what_ran is not None:
            # All passed or not run: one line (what ran, and why a phase did not), so the results
            # below stay in sight on a small terminal.
            return Text(what_ran, style="green")
        lines = Text()
        for i, state in enumerate(states):
            mark = t(f"bench.status.{state.status}")
            style = PHASE_STYLE.get(state.status, "dim")
            if i:
                lines.append("\n")
            lines.append(f"{mark} {t('bench.phase.' + state.name)}", style=style)
            if state.status == "stopped":
                lines.append(t("story.bench.phase_stopped"), style=style)
            elif report.stopped and state.status == "pending":
                lines.append(t("story.bench.phase_not_run"), style="dim")
            if state.seconds is not None:
                lines.append(f"  {state.seconds:.1f} s", style="dim")
        return lines

    def _table(self, report: BenchReport) -> None:
        # A Rich table in a Static: it shrinks its columns to the panel, where a
        # DataTable would scroll sideways at 80 columns.
        table = Table(box=None, pad_edge=False, padding=(0, 1), collapse_padding=True, header_style="bold")
        # The CLI's columns and cells (wizard.bench.verdict): % of this GPU at the clock it ran at,
        # else of the published peak, only where some row has one.
        for col in matmul_columns(report):
            table.add_column(
                matmul_header(col),
                justify="left" if col in ("device", "dtype") else "right",
                no_wrap=True,
            )
        # The best size per device and precision: what a student compares. The JSON has every size.
        seen: set[tuple[str, str, str | None]] = set()
        for r in report.matmul:
            key = (r.device, r.dtype, r.precision)
            if key in seen or report.best(r.device, r.dtype, r.precision) is not r:
                continue
            seen.add(key)
            table.add_row(*matmul_cells(report, r))
        widget = self.query_one("#bench-results", Static)
        widget.update(table if seen else "")
        widget.display = bool(seen)
        notes = [n for n in (peak_note(report), clock_note(report)) if n] if seen else []
        note = "\n".join(notes) if notes else None
        no_peak = self.query_one("#bench-no-peak", Static)
        no_peak.update(Content(note or ""))
        no_peak.display = note is not None

    def _chart(self, report: BenchReport) -> None:
        bars: list[tuple[str, float, str]] = []
        # The GPU+XLA bar shows what jit_compile adds; a CPU-only run has the CPU bar alone.
        for device, xla, label in (("CPU", False, "CPU"), ("GPU", False, "GPU"), ("GPU", True, "GPU+XLA")):
            rate = report.train_rate(device, xla)
            if rate is not None:
                bars.append((label, rate, "green" if device == "GPU" else "yellow"))
        self.query_one("#bench-chart", BarChart).set(bars)
        self.query_one("#bench-chart-title").display = bool(bars)
