"""One GPU: gauges (utilization, memory, temperature, power), a history graph, the facts."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from screens.widgets.gauge import Gauge
from screens.widgets.history import History
from wizard.monitor.model import GpuSample
from wizard.monitor.view import Row, gpu_rows, level, memory_text, pct, power_text, unit
from wizard.safe.display import safe
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
        labels = {key: t(f"monitor.field.{key}") for key in ("util_gpu", "mem", "temperature", "power")}
        # One label column for the four gauges, as wide as the widest label in this language.
        width = max(cell_len(label) for label in labels.values()) + 1
        yield Gauge(labels["util_gpu"], label_width=width, id="util")
        yield Gauge(labels["mem"], label_width=width, id="mem")
        yield Gauge(labels["temperature"], label_width=width, id="temp")
        yield Gauge(labels["power"], label_width=width, id="power")
        yield History(id="history")
        yield Facts(id="facts", classes="gpu-facts")
        yield Static(id="lost", classes="gpu-lost")

    def show(self, g: GpuSample, history: Sequence[float]) -> None:
        # The model without the brand words, so it fits the border whole ("RTX 4060 Laptop GPU").
        name = (
            safe(g.name, 60).replace("NVIDIA ", "").replace("GeForce ", "")
            if g.name is not None
            else t("monitor.na")
        )
        self.border_title = Content(f"GPU {g.index} · {name}")  # a GPU name is data, not markup
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
