"""How monitor values read to people: units, N/A, and colour levels.

Shared by the CLI (`tf-gpu-wizard monitor`) and the Textual screen so both say
the same thing the same way. No Textual, no Rich: plain strings and level names.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.monitor.model import GpuSample
from wizard.text import has, t

# Where a gauge turns from ok to warn to hot. Utilization is good when high, but
# memory, temperature and power near their limits are worth a glance.
THRESHOLDS: dict[str, tuple[float, float]] = {
    "util": (101.0, 101.0),  # a busy GPU is what we want: never "hot"
    "mem": (80.0, 95.0),
    "temp": (75.0, 85.0),
    "power": (85.0, 98.0),
    "cpu": (70.0, 90.0),
    "ram": (80.0, 92.0),
}


def level(kind: str, value: float | None) -> str:
    """ "ok" | "warn" | "hot" | "na": a CSS class / Rich style key."""
    if value is None:
        return "na"
    warn, hot = THRESHOLDS.get(kind, (101.0, 101.0))
    return "hot" if value >= hot else "warn" if value >= warn else "ok"


def na() -> str:
    return t("monitor.na")


def gib(n: int | float | None) -> str:
    return na() if n is None else f"{n / 1024**3:.1f} GiB"


def mib(n: int | float | None) -> str:
    return na() if n is None else f"{n / 1024**2:.0f} MiB"


def pct(v: float | None) -> str:
    return na() if v is None else f"{v:.0f}%"


def unit(v: float | int | None, suffix: str, fmt: str = "{:.0f}") -> str:
    return na() if v is None else fmt.format(v) + suffix


def bar(percent: float | None, width: int) -> str:
    """A text gauge: ████▌····· (eighths for a smooth edge)."""
    if width <= 0:
        return ""
    if percent is None:
        return "·" * width
    cells = max(0.0, min(100.0, percent)) / 100.0 * width
    full = int(cells)
    eighths = int((cells - full) * 8)
    partial = " ▏▎▍▌▋▊▉"[eighths] if full < width and eighths else ""
    return ("█" * full + partial).ljust(width, "·")


@dataclass(frozen=True)
class Row:
    label: str
    value: str
    level: str = "ok"


def gpu_rows(g: GpuSample) -> list[Row]:
    """The non-gauge facts of one GPU, label + value, N/A where NVML would not say."""
    clocks = f"{unit(g.sm_clock, '')}/{unit(g.sm_clock_max, ' MHz')}"
    mem_clocks = f"{unit(g.mem_clock, '')}/{unit(g.mem_clock_max, ' MHz')}"
    pcie = f"{unit(_mb(g.pcie_rx_kbs), '', '{:.0f}')}/{unit(_mb(g.pcie_tx_kbs), ' MB/s', '{:.0f}')}"
    throttle = (
        na() if g.throttle is None else (", ".join(map(_reason, g.throttle)) or t("monitor.throttle.none"))
    )
    return [
        Row(t("monitor.field.sm_clock"), clocks),
        Row(t("monitor.field.mem_clock"), mem_clocks),
        Row(t("monitor.field.fan"), pct(g.fan)),
        Row(t("monitor.field.pstate"), pstate_text(g.pstate)),
        Row(t("monitor.field.pcie"), pcie),
        Row(t("monitor.field.throttle"), throttle, "warn" if g.throttle and g.throttle != ["idle"] else "ok"),
    ]


def pstate_text(pstate: int | None) -> str:
    """NVIDIA's performance state in words, the P-number kept: P0 is flat out, P8 idles."""
    if pstate is None:
        return na()
    word = "busy" if pstate <= 2 else "idle" if pstate >= 8 else "medium"
    return t(f"monitor.pstate.{word}", p=pstate)


def _reason(name: str) -> str:
    """An NVML throttle reason in the user's language (the JSON keeps NVML's own name)."""
    key = "monitor.throttle." + name.replace(" ", "_")
    return t(key) if has(key) else name


def _mb(kbs: int | None) -> float | None:
    return None if kbs is None else kbs / 1000.0


def power_text(g: GpuSample) -> str:
    return f"{unit(g.power_w, '')}/{unit(g.power_limit_w, ' W')}"


def memory_text(g: GpuSample) -> str:
    return f"{gib(g.mem_used)}/{gib(g.mem_total)}"
