"""CPU (mean and per core) and RAM, from psutil or the simulation."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from screens.widgets.gauge import Gauge
from wizard.monitor.model import HostSample
from wizard.monitor.view import level, pct

CORE_BLOCKS = " ▁▂▃▄▅▆▇█"


class HostPanel(Vertical):
    def compose(self) -> ComposeResult:
        from wizard.text import t

        yield Gauge(t("monitor.cpu"), id="cpu")
        yield Static(id="cores", classes="cores")
        yield Gauge(t("monitor.ram"), id="ram")

    def show(self, host: HostSample) -> None:
        self.query_one("#cpu", Gauge).set(host.cpu_mean, pct(host.cpu_mean), level("cpu", host.cpu_mean))
        # One block per core shows a single busy thread (a CPU-bound input pipeline) at a glance.
        cores = Text("cores  ", style="dim")
        for c in host.cpu_percent[:64]:
            cores.append(CORE_BLOCKS[min(8, int(c / 100 * 8 + 0.5))], style=_core_style(c))
        if len(host.cpu_percent) > 64:
            cores.append(f" +{len(host.cpu_percent) - 64}", style="dim")
        self.query_one("#cores", Static).update(cores)
        used, total = host.ram_used / 1024**3, host.ram_total / 1024**3
        self.query_one("#ram", Gauge).set(
            host.ram_percent, f"{used:.1f}/{total:.1f} GiB", level("ram", host.ram_percent)
        )


def _core_style(c: float) -> str:
    return "red" if c >= 90 else "yellow" if c >= 70 else "green"
