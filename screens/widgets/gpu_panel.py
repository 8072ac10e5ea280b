"""One GPU: gauges (utilization, memory, temperature, power), a history graph, the facts."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from screens.widgets.gauge import Gauge
from screens.widgets.history import History
from wizard.monitor.model import GpuSample
from wizard.monitor.view import Row, gpu_rows, level, memory_text, pct, power_text, unit
from wizard.text import t


class Facts(Widget):
    """label-value items packed into lines; an item is never split across lines."""

    DEFAULT_CSS = """
    Facts { height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: list[Row] = []

    def set(self, items: list[Row]) -> None:
        self.items = items
        self.refresh(layout=True)

    def _lines(self, width: int) -> list[Text]:
        lines: list[Text] = []
        line = Text()
        for row in self.items:
            item = Text.assemble(
                (f"{row.label} ", "dim"), (row.value, "yellow" if row.level == "warn" else "")
            )
            if line.cell_len and line.cell_len + 2 + item.cell_len > width:
                lines.append(line)
                line = Text()
            if line.cell_len:
                line.append("  ")
            line.append_text(item)
        if line.cell_len:
            lines.append(line)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._lines(width)))

    def render(self) -> Text:
        return Text("\n").join(self._lines(self.size.width))


class GpuPanel(Vertical):
    """Updated in place every tick (`show`), so the layout never jumps."""

    def __init__(self, index: int) -> None:
        super().__init__(id=f"gpu-{index}", classes="gpu-panel")
        self.index = index

    def compose(self) -> ComposeResult:
        yield Gauge(t("monitor.field.util_gpu"), id="util")
        yield Gauge(t("monitor.field.mem"), id="mem")
        yield Gauge(t("monitor.field.temperature"), id="temp")
        yield Gauge(t("monitor.field.power"), id="power")
        yield History(id="history")
        yield Facts(id="facts", classes="gpu-facts")
        yield Static(id="lost", classes="gpu-lost")

    def show(self, g: GpuSample, history: Sequence[float]) -> None:
        name = (g.name or "?").replace("NVIDIA ", "")
        self.border_title = f"GPU {g.index} · {name}"
        self.set_class(g.lost, "-lost")
        if g.lost:
            self.query_one("#lost", Static).update(t("monitor.lost", index=g.index))
            return
        self.query_one("#util", Gauge).set(
            None if g.util_gpu is None else float(g.util_gpu), pct(g.util_gpu), level("util", g.util_gpu)
        )
        self.query_one("#mem", Gauge).set(g.mem_percent, memory_text(g), level("mem", g.mem_percent))
        temp = None if g.temperature is None else float(g.temperature)
        # A 0-100 bar suits degrees C well enough: 85 °C is hot on every NVIDIA GPU.
        self.query_one("#temp", Gauge).set(temp, unit(g.temperature, " °C"), level("temp", temp))
        self.query_one("#power", Gauge).set(g.power_percent, power_text(g), level("power", g.power_percent))
        self.query_one("#history", History).set(history)
        self.query_one("#facts", Facts).set(gpu_rows(g))
