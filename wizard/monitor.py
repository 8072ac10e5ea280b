"""The live monitor's sampler: NVML per GPU + psutil for the host.

    source = NvmlSource(PynvmlBackend())     # or FakeNvml(...), or monitor_sim.SimulatedSource
    sampler = Sampler(source)                # sampler.sample() -> Sample, one tick
    sampler.start(interval=0.5)              # or: its own thread, ticks never overlap
    sampler.summary(since=t0)                # min/mean/max per GPU field over a window

`make_sampler(profile)` picks the source: a simulated one for demo profiles,
the real NVML otherwise, and an explained "no GPU" when NVML is not there.
Every NVML call may fail; a field that fails is N/A (None) with the reason in
`GpuSample.na`, a lost GPU is `GpuSample.lost`, a driver that goes away
empties the GPU list and sets `SourceInfo.no_gpu_reason`. Nothing here raises
an `NvmlError` to the caller.
"""

from __future__ import annotations

import logging
import math
import platform
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import psutil

from wizard.nvml import (
    CLOCK_MEM,
    CLOCK_SM,
    ErrorKind,
    NvmlBackend,
    NvmlError,
    shadowing_pynvml,
    throttle_names,
)
from wizard.profile import MachineProfile
from wizard.text import t

if TYPE_CHECKING:
    from wizard.monitor_sim import PhaseSignal

log = logging.getLogger(__name__)

HISTORY_SECONDS = 300.0  # the ring buffer keeps the last 5 minutes
SLOW_REFRESH_SECONDS = 60.0  # name, totals, limits and max clocks barely change
DRIVER_GONE = (ErrorKind.DRIVER_NOT_LOADED, ErrorKind.LIBRARY_NOT_FOUND, ErrorKind.UNINITIALIZED)

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


class PsutilHost:
    def __init__(self) -> None:
        psutil.cpu_percent(percpu=True)  # the first call only starts the measurement

    def read(self) -> HostSample:
        vm = psutil.virtual_memory()
        return HostSample(list(psutil.cpu_percent(percpu=True)), int(vm.total - vm.available), int(vm.total))


class FixedHost:
    """A host that never changes: tests and snapshots."""

    def __init__(
        self, cpu: list[float] | None = None, ram_used: int = 6 * 1024**3, ram_total: int = 16 * 1024**3
    ):
        self.sample = HostSample(cpu if cpu is not None else [12.0, 8.0, 15.0, 5.0], ram_used, ram_total)

    def read(self) -> HostSample:
        return HostSample(list(self.sample.cpu_percent), self.sample.ram_used, self.sample.ram_total)


class ProcessNames:
    """pid -> process name via psutil, cached; pids that left are forgotten."""

    def __init__(self) -> None:
        self._cache: dict[int, str | None] = {}

    def __call__(self, pid: int) -> str | None:
        if pid not in self._cache:
            try:
                self._cache[pid] = psutil.Process(pid).name()
            except (psutil.Error, OSError):
                self._cache[pid] = None
        return self._cache[pid]

    def keep(self, pids: Iterable[int]) -> None:
        alive = set(pids)
        for pid in [p for p in self._cache if p not in alive]:
            del self._cache[pid]


def _no_gpu_text(kind: ErrorKind, detail: str = "") -> str:
    key = {
        ErrorKind.LIBRARY_NOT_FOUND: "monitor.no_gpu.library",
        ErrorKind.DRIVER_NOT_LOADED: "monitor.no_gpu.driver",
        ErrorKind.UNINITIALIZED: "monitor.no_gpu.driver_gone",
    }.get(kind, "monitor.no_gpu.error")
    return t(key, detail=detail)


# Per-field reads: (fields it fills, reader). The reader gets (backend, index) and
# returns the values in the same order. "slow" ones are cached between ticks.
FieldReader = Callable[[NvmlBackend, int], tuple[Any, ...]]

_SLOW: dict[str, tuple[tuple[str, ...], FieldReader]] = {
    "name": (("name",), lambda b, i: (b.name(i),)),
    "memory_total": (("mem_total",), lambda b, i: (b.memory(i)[1],)),
    "power_limit": (("power_limit_w",), lambda b, i: (b.power_limit(i) / 1000.0,)),
    "max_clock": (
        ("sm_clock_max", "mem_clock_max"),
        lambda b, i: (b.max_clock(i, CLOCK_SM), b.max_clock(i, CLOCK_MEM)),
    ),
}
_FAST: dict[str, tuple[tuple[str, ...], FieldReader]] = {
    "utilization": (("util_gpu", "util_mem"), lambda b, i: b.utilization(i)),
    "memory": (("mem_used",), lambda b, i: (b.memory(i)[0],)),
    "temperature": (("temperature",), lambda b, i: (b.temperature(i),)),
    "power_usage": (("power_w",), lambda b, i: (b.power_usage(i) / 1000.0,)),
    "clock": (("sm_clock", "mem_clock"), lambda b, i: (b.clock(i, CLOCK_SM), b.clock(i, CLOCK_MEM))),
    "fan_speed": (("fan",), lambda b, i: (b.fan_speed(i),)),
    "performance_state": (("pstate",), lambda b, i: (b.performance_state(i),)),
    "pcie_throughput": (("pcie_rx_kbs", "pcie_tx_kbs"), lambda b, i: b.pcie_throughput(i)),
    "throttle_reasons": (("throttle",), lambda b, i: (throttle_names(b.throttle_reasons(i)),)),
}


class _GpuLost(Exception):
    pass


class _DriverGone(Exception):
    def __init__(self, err: NvmlError) -> None:
        super().__init__(err.detail)
        self.err = err


class NvmlSource:
    """GPUs through an `NvmlBackend` (the real one or `FakeNvml`)."""

    def __init__(
        self,
        backend: NvmlBackend | None,
        *,
        wsl2: bool = False,
        process_name: Callable[[int], str | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        init_error: NvmlError | None = None,
        shadow_check: Callable[[], str | None] = shadowing_pynvml,
    ) -> None:
        self.backend = backend
        self.shadow_check = shadow_check
        self.wsl2 = wsl2
        self.names = ProcessNames()
        self.process_name = process_name or self.names
        self.clock = clock
        self._init_error = init_error  # the backend could not even be built
        self._count = 0
        self._initialised = False
        self._gone: str | None = None
        self._lost: set[int] = set()
        self._unavailable: dict[tuple[int, str], ErrorKind] = {}  # N/A fields are not asked again
        self._slow: dict[int, tuple[dict[str, Any], dict[str, str]]] = {}  # values, N/A
        self._slow_at: dict[int, float] = {}
        self._logged_missing: set[str] = set()

    # ---- lifecycle
    def open(self) -> SourceInfo:
        info = SourceInfo(processes_available=not self.wsl2)
        shadow = self.shadow_check()
        if shadow:
            info.notes.append(t("monitor.note.shadowing", detail=shadow))
        if self.wsl2:
            info.notes.append(t("monitor.note.wsl2_processes"))
        if self._init_error is not None or self.backend is None:
            err = self._init_error or NvmlError(ErrorKind.LIBRARY_NOT_FOUND)
            self._gone = info.no_gpu_reason = _no_gpu_text(err.kind, err.detail)
            return info
        try:
            self.backend.init()
            self._initialised = True
            self._count = self.backend.device_count()
        except NvmlError as exc:
            self._gone = info.no_gpu_reason = _no_gpu_text(exc.kind, exc.detail)
            return info
        try:
            info.driver = self.backend.driver_version()
        except NvmlError:
            info.driver = None
        info.gpu_count = self._count
        if self._count == 0:
            self._gone = info.no_gpu_reason = t("monitor.no_gpu.none")
        return info

    def close(self) -> None:
        if self.backend is not None and self._initialised:
            self._initialised = False
            try:
                self.backend.shutdown()
            except NvmlError:
                pass  # shutting down a driver that went away is not news

    # ---- ticks
    def read(self) -> tuple[list[GpuSample], str | None]:
        if self._gone is not None:
            return [], self._gone
        gpus = []
        try:
            for i in range(self._count):
                gpus.append(self._read_gpu(i))
        except _DriverGone as gone:
            # It answered at start, so this is the driver going away (unloaded, reset, crashed).
            self._gone = t("monitor.no_gpu.driver_gone", detail=gone.err.detail)
            log.warning("NVML went away: %s", gone.err.detail)
            return [], self._gone
        if gpus:
            self.names.keep(p.pid for g in gpus for p in g.processes or [])
        return gpus, None

    def _read_gpu(self, i: int) -> GpuSample:
        sample = GpuSample(index=i)
        if i in self._lost:
            sample.lost = True
            sample.name = self._name(i)
            return sample
        try:
            now = self.clock()
            if i not in self._slow or now - self._slow_at.get(i, -math.inf) >= SLOW_REFRESH_SECONDS:
                values: dict[str, Any] = {}
                na: dict[str, str] = {}
                for method, (names, reader) in _SLOW.items():
                    self._read_fields(i, method, names, reader, values, na)
                self._slow[i], self._slow_at[i] = (values, na), now
            values, na = self._slow[i]
            for key, value in values.items():
                setattr(sample, key, value)
            sample.na.update(na)
            fast: dict[str, Any] = {}
            for method, (names, reader) in _FAST.items():
                self._read_fields(i, method, names, reader, fast, sample.na)
            for key, value in fast.items():
                setattr(sample, key, value)
            sample.processes = self._read_processes(i, sample.na)
        except _GpuLost:
            self._lost.add(i)
            log.warning("GPU %d is lost", i)
            return GpuSample(index=i, name=self._name(i), lost=True)
        return sample

    def _name(self, i: int) -> str | None:
        cached = self._slow.get(i)
        return cached[0].get("name") if cached else None

    def _call(self, i: int, method: str, fn: Callable[[], Any]) -> Any:
        """One NVML call: N/A errors become a remembered `NvmlError`; lost/gone escape."""
        known = self._unavailable.get((i, method))
        if known is not None:
            raise NvmlError(known)
        try:
            return fn()
        except NvmlError as exc:
            if exc.kind is ErrorKind.GPU_LOST:
                raise _GpuLost() from None
            if exc.kind in DRIVER_GONE:
                raise _DriverGone(exc) from None
            if exc.field_unavailable:
                self._unavailable[(i, method)] = exc.kind
                if exc.kind is ErrorKind.FUNCTION_NOT_FOUND and method not in self._logged_missing:
                    self._logged_missing.add(method)  # once per field, not once per tick
                    log.info("NVML has no %s here (driver or nvidia-ml-py too old): N/A", method)
            raise

    def _read_fields(
        self,
        i: int,
        method: str,
        names: tuple[str, ...],
        reader: FieldReader,
        out: dict[str, Any],
        na: dict[str, str],
    ) -> None:
        backend = self.backend
        assert backend is not None
        try:
            values = self._call(i, method, lambda: reader(backend, i))
        except NvmlError as exc:
            for name in names:
                na[name] = exc.kind.value
            return
        out.update(zip(names, values, strict=True))

    def _read_processes(self, i: int, na: dict[str, str]) -> list[ProcessSample] | None:
        backend = self.backend
        assert backend is not None
        try:
            procs = self._call(i, "processes", lambda: backend.processes(i))
        except NvmlError as exc:
            na["processes"] = exc.kind.value
            return None
        return [ProcessSample(pid, self.process_name(pid), used) for pid, used in procs]


# ---- the sampler -------------------------------------------------------------------


@dataclass
class FieldSummary:
    min: float
    mean: float
    max: float
    n: int


SUMMARY_FIELDS = ("util_gpu", "util_mem", "mem_used", "temperature", "power_w", "sm_clock")


class Sampler:
    """Takes samples, keeps 5 minutes of them, and can tick in its own thread."""

    def __init__(
        self,
        source: GpuSource,
        host: HostReader | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        history_seconds: float = HISTORY_SECONDS,
        max_rate_hz: float = 10.0,
    ) -> None:
        self.source = source
        self.host = host if host is not None else PsutilHost()
        self.clock = clock
        self.history_seconds = history_seconds
        # A bound on memory even if someone samples faster than planned.
        self.history: deque[Sample] = deque(maxlen=int(history_seconds * max_rate_hz) + 1)
        self.info = source.open()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._listeners: list[Callable[[Sample], None]] = []

    @property
    def simulated(self) -> bool:
        return self.info.simulated

    def sample(self) -> Sample:
        """One tick: read everything once, remember it, return it."""
        cpu0 = time.process_time()
        gpus, reason = self.source.read()
        host = self.host.read()
        now = self.clock()
        s = Sample(now, gpus, host, simulated=self.info.simulated, no_gpu_reason=reason)
        s.cost_s = time.process_time() - cpu0
        with self._lock:
            self.history.append(s)
            while self.history and now - self.history[0].t > self.history_seconds:
                self.history.popleft()
        if reason and not self.info.no_gpu_reason:
            self.info.no_gpu_reason = reason
        return s

    def latest(self) -> Sample | None:
        with self._lock:
            return self.history[-1] if self.history else None

    def window(self, since: float | None = None, until: float | None = None) -> list[Sample]:
        with self._lock:
            return [
                s for s in self.history if (since is None or s.t >= since) and (until is None or s.t <= until)
            ]

    def series(self, gpu: int, name: str, seconds: float | None = None) -> list[float]:
        """One field of one GPU over the history (N/A ticks left out), for sparklines."""
        latest = self.latest()
        since = latest.t - seconds if latest is not None and seconds is not None else None
        out = []
        for s in self.window(since):
            if gpu < len(s.gpus):
                value = getattr(s.gpus[gpu], name)
                if isinstance(value, int | float):
                    out.append(float(value))
        return out

    def summary(
        self, since: float | None = None, until: float | None = None
    ) -> dict[int, dict[str, FieldSummary]]:
        """min/mean/max per GPU and field over a window (e.g. the benchmark's run)."""
        values: dict[int, dict[str, list[float]]] = {}
        for s in self.window(since, until):
            for g in s.gpus:
                per = values.setdefault(g.index, {})
                for name in SUMMARY_FIELDS:
                    v = getattr(g, name)
                    if isinstance(v, int | float):
                        per.setdefault(name, []).append(float(v))
        return {
            i: {
                name: FieldSummary(min(vs), statistics.fmean(vs), max(vs), len(vs))
                for name, vs in per.items()
                if vs
            }
            for i, per in values.items()
        }

    def summary_dict(self, since: float | None = None, until: float | None = None) -> dict[str, Any]:
        """`summary()` as plain JSON-ready dicts, keyed by GPU index as text."""
        return {
            str(i): {name: asdict(fs) for name, fs in fields.items()}
            for i, fields in self.summary(since, until).items()
        }

    # ---- its own thread
    def subscribe(self, listener: Callable[[Sample], None]) -> None:
        self._listeners.append(listener)

    def start(self, interval: float = 0.5) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(interval,), name="gpu-sampler", daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stop.is_set():
            try:
                s = self.sample()
                for listener in list(self._listeners):
                    listener(s)
            except Exception:  # a bug in a listener must not silently kill the monitor
                log.exception("sampler tick failed")
            # The next tick is scheduled after this one ended: a slow NVML call
            # delays the monitor, it never makes ticks pile up.
            self._stop.wait(interval)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        self.stop()
        self.source.close()


# ---- choosing a source -------------------------------------------------------------


def running_on_wsl2(release: str | None = None) -> bool:
    release = release if release is not None else platform.uname().release
    return "microsoft" in release.lower() and ("wsl2" in release.lower() or Path("/dev/dxg").exists())


def real_source(wsl2: bool | None = None) -> NvmlSource:
    """The machine's own NVML, or a source that explains why there is none."""
    from wizard.nvml import PynvmlBackend

    wsl = running_on_wsl2() if wsl2 is None else wsl2
    try:
        return NvmlSource(PynvmlBackend(), wsl2=wsl)
    except NvmlError as exc:  # nvidia-ml-py itself missing
        return NvmlSource(None, wsl2=wsl, init_error=exc)


def make_sampler(
    profile: MachineProfile | None = None, host: HostReader | None = None, signal: PhaseSignal | None = None
) -> Sampler:
    """A sampler for this profile: simulated for demo/saved profiles, real otherwise.

    `signal` drives a simulated source from the benchmark's events; without one
    the simulation plays a benchmark-like loop on its own.
    """
    if profile is not None and profile.simulated:
        from wizard.monitor_sim import PhaseSignal, SimulatedHost, SimulatedSource

        sig = signal if signal is not None else PhaseSignal(autoplay=True)
        source = SimulatedSource(profile, sig)
        return Sampler(source, host if host is not None else SimulatedHost(profile, sig))
    wsl = profile.platform == "wsl2" if profile is not None else None
    return Sampler(real_source(wsl), host)


def cost_per_sample(sampler: Sampler, samples: int = 200) -> float:
    """Mean CPU seconds per sample (process time), for the "< 2% of a core" budget."""
    started = time.process_time()
    for _ in range(samples):
        sampler.sample()
    return (time.process_time() - started) / samples
