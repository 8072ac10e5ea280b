"""What the monitor measures: samples per GPU and host, what a source says up front, and the
source protocols. Data only; the sources and the sampler build these.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    pass


HISTORY_SECONDS = 300.0  # the ring buffer keeps the last 5 minutes

# ---- samples ------------------------------------------------------------------


@dataclass
class ProcessSample:
    pid: int
    name: str | None
    gpu_memory: int | None  # bytes; None where the driver does not say (WSL2, no permission)


@dataclass
class GpuSample:
    index: int
    name: str | None = None
    util_gpu: int | None = None  # percent
    util_mem: int | None = None  # percent (memory controller busy)
    mem_used: int | None = None  # bytes
    mem_total: int | None = None
    temperature: int | None = None  # degrees C
    power_w: float | None = None
    power_limit_w: float | None = None
    sm_clock: int | None = None  # MHz
    sm_clock_max: int | None = None
    mem_clock: int | None = None
    mem_clock_max: int | None = None
    fan: int | None = None  # percent
    pstate: int | None = None  # 0 = P0 (fastest)
    pcie_rx_kbs: int | None = None
    pcie_tx_kbs: int | None = None
    throttle: list[str] | None = None
    processes: list[ProcessSample] | None = None
    na: dict[str, str] = field(default_factory=dict)  # field -> ErrorKind value, why it is None
    lost: bool = False

    @property
    def mem_percent(self) -> float | None:
        if self.mem_used is None or not self.mem_total:
            return None
        return 100.0 * self.mem_used / self.mem_total

    @property
    def power_percent(self) -> float | None:
        if self.power_w is None or not self.power_limit_w:
            return None
        return 100.0 * self.power_w / self.power_limit_w


@dataclass
class HostSample:
    cpu_percent: list[float]  # per core
    ram_used: int
    ram_total: int

    @property
    def cpu_mean(self) -> float:
        return statistics.fmean(self.cpu_percent) if self.cpu_percent else 0.0

    @property
    def ram_percent(self) -> float:
        return 100.0 * self.ram_used / self.ram_total if self.ram_total else 0.0


@dataclass
class SourceInfo:
    """What the monitor says up front, before any numbers."""

    driver: str | None = None
    gpu_count: int = 0
    no_gpu_reason: str | None = None  # why there is no GPU panel
    notes: list[str] = field(default_factory=list)  # WSL2, shadowing pynvml, ...
    simulated: bool = False
    processes_available: bool = True  # False under WSL2: say so instead of an empty table


@dataclass
class Sample:
    t: float  # seconds on the sampler's clock (monotonic), for windows and history
    gpus: list[GpuSample]
    host: HostSample
    simulated: bool = False
    no_gpu_reason: str | None = None
    cost_s: float = 0.0  # CPU time this tick took (time.process_time), for the sampler's own cost

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---- sources ------------------------------------------------------------------


class GpuSource(Protocol):
    def open(self) -> SourceInfo: ...
    def read(self) -> tuple[list[GpuSample], str | None]: ...  # (gpus, no-GPU reason)
    def close(self) -> None: ...


class HostReader(Protocol):
    def read(self) -> HostSample: ...


@dataclass
class FieldSummary:
    min: float
    mean: float
    max: float
    n: int


SUMMARY_FIELDS = ("util_gpu", "util_mem", "mem_used", "temperature", "power_w", "sm_clock")
