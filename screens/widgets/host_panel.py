"""CPU (mean and per core) and RAM, from psutil or the simulation."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from screens.widgets.gauge import Gauge
from wizard.monitor.model import HostSample
from wizard.monitor.view import level, pct
from wizard.text import t

CORE_BLOCKS = " ▁▂▃▄▅▆▇█"


class HostPanel(Vertical):
    """Two lines: CPU and RAM side by side, then one block per core. Where half the width cannot
    hold a gauge's whole value (a server's "352.7/1007.6 GiB" on 80 columns), CPU and RAM take a
    line each (-stacked): the figure a student reads is never cut."""

    DEFAULT_CSS = """
    HostPanel > Horizontal { height: 1; }
    HostPanel > Horizontal > Gauge { width: 1fr; }
    HostPanel > Horizontal > #cpu { margin-right: 2; }
    HostPanel.-stacked > Horizontal { layout: vertical; height: 2; }
    HostPanel.-stacked > Horizontal > #cpu { margin-right: 0; }
    """
    GAP = 2  # the CPU gauge's right margin, side by side

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Gauge(t("monitor.cpu"), label_width=None, id="cpu")
            yield Gauge(t("monitor.ram"), label_width=None, id="ram")
        yield Static(id="cores", classes="cores")

    def show(self, host: HostSample) -> None:
        known = bool(host.cpu_percent)  # a profile that does not say its cores: N/A, not a guess
        cpu_mean = host.cpu_mean if known else None
        self.query_one("#cpu", Gauge).set(host.cpu_mean, pct(cpu_mean), level("cpu", host.cpu_mean))
        # One block per core shows a single busy thread (a CPU-bound input pipeline) at a glance.
        cores = Text(t("monitor.cores") + " " + ("" if known else t("monitor.na")), style="dim")
        for c in host.cpu_percent[:64]:
            cores.append(CORE_BLOCKS[min(8, int(c / 100 * 8 + 0.5))], style=_core_style(c))
        if len(host.cpu_percent) > 64:
            cores.append(f" +{len(host.cpu_percent) - 64}", style="dim")
        self.query_one("#cores", Static).update(cores)
        used, total = host.ram_used / 1024**3, host.ram_total / 1024**3
        ram = f"{used:.1f}/{total:.1f} GiB" if host.ram_total else t("monitor.na")
        self.query_one("#ram", Gauge).set(host.ram_percent, ram, level("ram", host.ram_percent))
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        width = self.content_region.width
        if not width:
            return
        gauges = list(self.query(Gauge))
        for gauge in gauges:  # side by side, each its own label's width
            gauge.label_width = cell_len(gauge.label) + 1
        half = (width - self.GAP) // 2
        stacked = max(gauge.min_width() for gauge in gauges) > half
        self.set_class(stacked, "-stacked")
        if stacked:  # one above the other: the bars start in one column ("CPU " and "内存 ")
            column = max(gauge.label_width for gauge in gauges)
            for gauge in gauges:
                gauge.label_width = column
        for gauge in gauges:
            gauge.refresh()


def _core_style(c: float) -> str:
    return "red" if c >= 90 else "yellow" if c >= 70 else "green"
