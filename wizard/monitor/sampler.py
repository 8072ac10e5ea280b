"""The live monitor's sampler: NVML per GPU + psutil for the host.

    source = NvmlSource(PynvmlBackend())     # or FakeNvml(...), or monitor.sim.SimulatedSource
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
import platform
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wizard.monitor.host import default_host
from wizard.monitor.model import HISTORY_SECONDS, SUMMARY_FIELDS, FieldSummary, GpuSource, HostReader, Sample
from wizard.monitor.nvml_source import NvmlSource
from wizard.nvml import (
    NvmlError,
)
from wizard.profile import MachineProfile

if TYPE_CHECKING:
    from wizard.monitor.sim import PhaseSignal


log = logging.getLogger(__name__)


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
        self.host = host if host is not None else default_host()
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
        from wizard.monitor.sim import PhaseSignal, SimulatedHost, SimulatedSource

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
