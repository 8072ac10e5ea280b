"""GPUs through an `NvmlBackend` (the real nvidia-ml-py or `FakeNvml`).

Every NVML call may fail; a field that fails is N/A (None) with the reason in
`GpuSample.na`, a lost GPU is `GpuSample.lost`, a driver that goes away
empties the GPU list and sets `SourceInfo.no_gpu_reason`. Nothing here raises
an `NvmlError` to the caller.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import psutil

from wizard.monitor.model import GpuSample, ProcessSample, SourceInfo
from wizard.nvml import (
    CLOCK_MEM,
    CLOCK_SM,
    ErrorKind,
    NvmlBackend,
    NvmlError,
    shadowing_pynvml,
    throttle_names,
)
from wizard.text import t

if TYPE_CHECKING:
    pass


log = logging.getLogger(__name__)

SLOW_REFRESH_SECONDS = 60.0  # name, totals, limits and max clocks barely change
DRIVER_GONE = (ErrorKind.DRIVER_NOT_LOADED, ErrorKind.LIBRARY_NOT_FOUND, ErrorKind.UNINITIALIZED)


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
