"""GPUs through an `NvmlBackend` (the real nvidia-ml-py or `FakeNvml`).

Every NVML call may fail; a field that fails is N/A (None) with the reason in
`GpuSample.na`, a lost GPU is `GpuSample.lost`, a driver that goes away
empties the GPU list and sets `SourceInfo.no_gpu_reason`. Nothing here raises
an `NvmlError` to the caller.

Every NVML call has a time limit (`call_timeout`, CALL_TIMEOUT_S): the calls run
on a worker thread (one hand-off per GPU per tick, so it costs next to nothing)
and a call that hangs (a wedged driver, a GPU falling off the bus) is given up
after the limit: its fields are N/A ("timeout") for that tick, the worker is
left to it and a fresh one takes the next calls. While a hung call has not
returned it is not asked again, and one tick gives up at most
MAX_TIMEOUTS_PER_TICK calls before marking the rest N/A at once, so a hang
costs a tick at most about two limits however many GPUs and fields wait behind it.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
CALL_TIMEOUT_S = 0.5  # a healthy NVML call takes well under 10 ms
OPEN_TIMEOUT_S = 5.0  # nvmlInit loads the driver's library: the probe's limit
MAX_TIMEOUTS_PER_TICK = 2
TIMEOUT = "timeout"  # the N/A reason of a field whose call was given up
DRIVER_GONE = (ErrorKind.DRIVER_NOT_LOADED, ErrorKind.LIBRARY_NOT_FOUND, ErrorKind.UNINITIALIZED)
STOP_KINDS = (ErrorKind.GPU_LOST, *DRIVER_GONE)


class ProcessNames:
    """pid -> process name via psutil, cached; pids that left are forgotten."""

    def __init__(self) -> None:
        self._cache: dict[int, str | None] = {}

    def __call__(self, pid: int) -> str | None:
        if pid not in self._cache:
            self._cache[pid] = _process_name(pid)
        return self._cache[pid]

    def keep(self, pids: Iterable[int]) -> None:
        alive = set(pids)
        for pid in [p for p in self._cache if p not in alive]:
            del self._cache[pid]


def _process_name(pid: int) -> str | None:
    try:
        import psutil
    except ImportError:  # the probe zip on a lab host (`fleet watch`): the kernel's own name
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
                return f.read().strip() or None
        except OSError:
            return None
    try:
        return str(psutil.Process(pid).name())
    except (psutil.Error, OSError):
        return None


def _no_gpu_text(kind: ErrorKind, detail: str = "") -> str:
    key = {
        ErrorKind.LIBRARY_NOT_FOUND: "monitor.no_gpu.library",
        ErrorKind.DRIVER_NOT_LOADED: "monitor.no_gpu.driver",
        ErrorKind.UNINITIALIZED: "monitor.no_gpu.driver_gone",
    }.get(kind, "monitor.no_gpu.error")
    return t(key, detail=kind_detail(kind, detail))


def kind_detail(kind: ErrorKind, detail: str = "") -> str:
    """The error's own detail, or its kind in words where it has none (never the bare code)."""
    if detail and detail != kind.value:
        return detail
    return t(f"monitor.nvml_kind.{kind.value}")


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


class CallTimedOut(Exception):
    """A backend call took longer than its limit (or the tick's budget of timeouts was spent)."""


_NOT_RUN = object()


@dataclass
class _Batch:
    calls: list[tuple[str, Callable[[], Any]]]
    results: list[Any]
    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    index: int = -1  # the call running now
    started: float = 0.0
    abandoned: bool = False


class _Worker(threading.Thread):
    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(name="nvml-calls", daemon=True)
        self.jobs: queue.SimpleQueue[_Batch | None] = queue.SimpleQueue()
        self.clock = clock
        self.hung_key: str | None = None

    def run(self) -> None:
        while True:
            batch = self.jobs.get()
            if batch is None:
                return
            for idx, (key, fn) in enumerate(batch.calls):
                with batch.lock:
                    if batch.abandoned:
                        break
                    batch.index, batch.started = idx, self.clock()
                    self.hung_key = key
                try:
                    result: Any = fn()
                except Exception as exc:  # handed back to the caller's thread, raised or shown there
                    result = exc
                with batch.lock:
                    self.hung_key = None
                    if batch.abandoned:
                        break
                    batch.results[idx] = result
                if isinstance(result, NvmlError) and result.kind in STOP_KINDS:
                    break  # the GPU or the driver is gone: the rest would only fail too
            batch.done.set()


class BoundedCalls:
    """Backend calls on a worker thread, each with a time limit. See the module docstring."""

    def __init__(self, limit: float = CALL_TIMEOUT_S, *, max_timeouts: int = MAX_TIMEOUTS_PER_TICK) -> None:
        self.limit = limit
        self.max_timeouts = max_timeouts
        self.clock = time.monotonic
        self._worker: _Worker | None = None
        self._hung: list[_Worker] = []  # workers still inside a call that was given up
        self._timeouts = 0

    def new_tick(self) -> None:
        self._timeouts = 0

    def _busy(self, key: str) -> bool:
        self._hung = [w for w in self._hung if w.is_alive()]
        return any(w.hung_key == key for w in self._hung)

    def run(self, calls: list[tuple[str, Callable[[], Any]]], limit: float | None = None) -> list[Any]:
        """One result per call, in order: its value, the exception it raised, or CallTimedOut.
        Calls after a lost GPU or a gone driver are not made (their result is CallTimedOut)."""
        limit = self.limit if limit is None else limit
        results: list[Any] = [_NOT_RUN] * len(calls)
        start = 0
        while start < len(calls):
            todo = []
            for key, fn in calls[start:]:
                if self._timeouts >= self.max_timeouts or self._busy(key):
                    break
                todo.append((key, fn))
            if not todo:
                results[start] = CallTimedOut()
                start += 1
                continue
            batch = _Batch(todo, [_NOT_RUN] * len(todo))
            worker = self._ready_worker()
            worker.jobs.put(batch)
            given_up = self._wait(batch, worker, limit)
            for offset, value in enumerate(batch.results):
                if value is not _NOT_RUN:
                    results[start + offset] = value
            if given_up is None:
                start += len(todo)
                continue
            results[start + given_up] = CallTimedOut()
            start += given_up + 1
        return [CallTimedOut() if r is _NOT_RUN else r for r in results]

    def _wait(self, batch: _Batch, worker: _Worker, limit: float) -> int | None:
        """None when the batch finished; else the index of the call that was given up."""
        wait = limit
        while not batch.done.wait(wait):
            with batch.lock:
                elapsed = self.clock() - batch.started if batch.index >= 0 else 0.0
                if batch.index >= 0 and elapsed >= limit:
                    batch.abandoned = True
                    index = batch.index
                else:
                    wait = max(limit - elapsed, 0.001)
                    continue
            self._timeouts += 1
            self._retire(worker)
            log.warning("an NVML call took longer than %.1f s; that field is N/A this tick", limit)
            return index
        return None

    def _ready_worker(self) -> _Worker:
        if self._worker is None:
            self._worker = _Worker(self.clock)
            self._worker.start()
        return self._worker

    def _retire(self, worker: _Worker) -> None:
        worker.jobs.put(None)  # it ends once the hung call returns
        self._hung.append(worker)
        if self._worker is worker:
            self._worker = None

    def close(self) -> None:
        if self._worker is not None:
            self._worker.jobs.put(None)
            self._worker = None


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
        call_timeout: float = CALL_TIMEOUT_S,
    ) -> None:
        self.backend = backend
        self.calls = BoundedCalls(call_timeout)
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
        backend = self.backend
        init, count, driver = self.calls.run(
            [("init", backend.init), ("count", backend.device_count), ("driver", backend.driver_version)],
            limit=max(OPEN_TIMEOUT_S, self.calls.limit),
        )
        self.calls.new_tick()
        for result in (init, count):
            if isinstance(result, CallTimedOut):
                result = NvmlError(ErrorKind.OTHER, t("monitor.no_gpu.timeout", seconds=OPEN_TIMEOUT_S))
            if isinstance(result, NvmlError):
                self._initialised = not isinstance(init, Exception)
                self._gone = info.no_gpu_reason = _no_gpu_text(result.kind, result.detail)
                return info
            if isinstance(result, Exception):
                raise result
        self._initialised = True
        self._count = count
        info.driver = driver if isinstance(driver, str) else None
        info.gpu_count = self._count
        if self._count == 0:
            self._gone = info.no_gpu_reason = t("monitor.no_gpu.none")
        return info

    def close(self) -> None:
        if self.backend is not None and self._initialised:
            self._initialised = False
            # A driver that went away may hang here too; the result is not news either way.
            self.calls.new_tick()
            self.calls.run([("shutdown", self.backend.shutdown)])
        self.calls.close()

    # ---- ticks
    def read(self) -> tuple[list[GpuSample], str | None]:
        if self._gone is not None:
            return [], self._gone
        self.calls.new_tick()
        gpus = []
        try:
            for i in range(self._count):
                gpus.append(self._read_gpu(i))
        except _DriverGone as gone:
            # It answered at start, so this is the driver going away (unloaded, reset, crashed).
            self._gone = t("monitor.no_gpu.driver_gone", detail=kind_detail(gone.err.kind, gone.err.detail))
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
        backend = self.backend
        assert backend is not None
        now = self.clock()
        slow_due = i not in self._slow or now - self._slow_at.get(i, -math.inf) >= SLOW_REFRESH_SECONDS
        wanted = [*(_SLOW.items() if slow_due else ()), *_FAST.items(), ("processes", _PROCESSES)]
        try:
            outcomes = self._outcomes(i, backend, wanted)
            if slow_due:
                values: dict[str, Any] = {}
                na: dict[str, str] = {}
                for method, (names, _) in _SLOW.items():
                    _fill(names, outcomes[method], values, na)
                # A slow field that timed out is asked again next tick, not in a minute.
                retry = any(isinstance(outcomes[m], CallTimedOut) for m in _SLOW)
                self._slow[i], self._slow_at[i] = (values, na), -math.inf if retry else now
            values, na = self._slow[i]
            for key, value in values.items():
                setattr(sample, key, value)
            sample.na.update(na)
            fast: dict[str, Any] = {}
            for method, (names, _) in _FAST.items():
                _fill(names, outcomes[method], fast, sample.na)
            for key, value in fast.items():
                setattr(sample, key, value)
            procs = outcomes["processes"]
            if not isinstance(procs, Exception):
                sample.processes = [
                    ProcessSample(pid, self.process_name(pid), used) for pid, used in procs[0]
                ]
            else:
                sample.na["processes"] = _reason(procs)
        except _GpuLost:
            self._lost.add(i)
            log.warning("GPU %d is lost", i)
            return GpuSample(index=i, name=self._name(i), lost=True)
        return sample

    def _name(self, i: int) -> str | None:
        cached = self._slow.get(i)
        return cached[0].get("name") if cached else None

    def _outcomes(
        self, i: int, backend: NvmlBackend, wanted: list[tuple[str, tuple[tuple[str, ...], FieldReader]]]
    ) -> dict[str, Any]:
        """method -> its values (a tuple), an NvmlError or CallTimedOut. Lost GPU / gone driver escape."""
        out: dict[str, Any] = {}
        calls: list[tuple[str, Callable[[], Any]]] = []
        for method, (_, reader) in wanted:
            known = self._unavailable.get((i, method))
            if known is not None:  # N/A fields are not asked again
                out[method] = NvmlError(known)
            else:
                calls.append((f"{i}:{method}", _bind(reader, backend, i)))
        results = self.calls.run(calls)
        for (key, _), result in zip(calls, results, strict=True):
            method = key.partition(":")[2]
            if isinstance(result, NvmlError):
                if result.kind is ErrorKind.GPU_LOST:
                    raise _GpuLost()
                if result.kind in DRIVER_GONE:
                    raise _DriverGone(result)
                if result.field_unavailable:
                    self._unavailable[(i, method)] = result.kind
                    if result.kind is ErrorKind.FUNCTION_NOT_FOUND and method not in self._logged_missing:
                        self._logged_missing.add(method)  # once per field, not once per tick
                        log.info("NVML has no %s here (driver or nvidia-ml-py too old): N/A", method)
            elif isinstance(result, Exception) and not isinstance(result, CallTimedOut):
                raise result  # a bug, not a driver answer: the sampler logs it
            out[method] = result
        return out


_PROCESSES: tuple[tuple[str, ...], FieldReader] = (("processes",), lambda b, i: (b.processes(i),))


def _bind(reader: FieldReader, backend: NvmlBackend, i: int) -> Callable[[], Any]:
    return lambda: reader(backend, i)


def _reason(result: Any) -> str:
    return TIMEOUT if isinstance(result, CallTimedOut) else result.kind.value


def _fill(names: tuple[str, ...], result: Any, out: dict[str, Any], na: dict[str, str]) -> None:
    if not isinstance(result, Exception):
        out.update(zip(names, result, strict=True))
    else:
        for name in names:
            na[name] = _reason(result)
