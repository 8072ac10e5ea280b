"""Simulated monitor for demo (and saved) profiles.

A demo profile describes someone else's machine, so nothing here touches the
real one. `SimulatedSource` is a `FakeNvml` dressed as the profile's GPUs whose
readings follow the benchmark's phase (`PhaseSignal`): idle at rest, flat out
during the matmuls, the CPU busy while the CNN trains on the CPU. Everything
is deterministic (a tick counter, no random numbers, no clock), and every
sample and event is marked simulated so the UI can say so.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

from wizard.demo import gpu_only_simulated
from wizard.monitor.gpu_class import board, gpu_class, laptop_gpu
from wizard.monitor.model import GpuSample, HostSample, SourceInfo
from wizard.monitor.nvml_source import NvmlSource
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeGpu, FakeNvml
from wizard.profile import MachineProfile
from wizard.text import t

SIM_PID = 4242


@dataclass(frozen=True)
class Load:
    gpu: float  # utilization %, 0..100
    mem: float  # fraction of GPU memory in use
    power: float  # fraction of the power limit
    cpu: float  # mean host CPU %
    temp: float  # where the temperature settles


LOADS = {
    "idle": Load(2, 0.04, 0.10, 6, 40),
    "environment": Load(4, 0.08, 0.15, 30, 42),
    "sanity": Load(35, 0.10, 0.40, 15, 48),
    "matmul": Load(98, 0.55, 0.97, 12, 76),
    "train_cpu": Load(3, 0.12, 0.15, 96, 50),
    "train_gpu": Load(82, 0.35, 0.80, 35, 71),
    "xla_gpu": Load(90, 0.35, 0.88, 30, 73),
}

# When nothing drives the signal (the CLI monitor on a demo profile), loop
# through a benchmark-like timeline so the demo is alive: (phase, ticks).
AUTOPLAY = (("idle", 6), ("environment", 3), ("sanity", 2), ("matmul", 12), ("train", 12), ("xla", 8))


class PhaseSignal:
    """The benchmark's current phase and progress, set by whoever reads its events."""

    def __init__(self, autoplay: bool = False) -> None:
        self._lock = threading.Lock()
        self.phase = "idle"
        self.fraction = 0.0
        self.autoplay = autoplay
        self._tick = 0

    def set(self, phase: str | None, fraction: float = 0.0) -> None:
        with self._lock:
            self.autoplay = False
            self.phase = phase or "idle"
            self.fraction = fraction

    def feed(self, event: dict[str, Any]) -> None:
        """Follow a benchmark event (the same dicts tf_bench.py prints)."""
        kind = event.get("event")
        if kind == "phase_start":
            self.set(str(event.get("phase")), 0.0)
        elif kind == "progress" and event.get("total"):
            self.set(str(event.get("phase")), float(event.get("done", 0)) / float(event["total"]))
        elif kind in ("phase_end", "done", "error"):
            self.set("idle")

    def peek(self) -> tuple[str, float]:
        with self._lock:
            return self.phase, self.fraction

    def load(self) -> Load:
        with self._lock:
            if self.autoplay:
                self._autoplay_step()
            phase, fraction = self.phase, self.fraction
        if phase in ("train", "xla"):
            # The script trains on the CPU first, then on the GPU.
            if fraction < 0.5:
                return LOADS["train_cpu"]
            return LOADS["xla_gpu" if phase == "xla" else "train_gpu"]
        return LOADS.get(phase, LOADS["idle"])

    def _autoplay_step(self) -> None:
        period = sum(n for _, n in AUTOPLAY)
        pos = self._tick % period
        self._tick += 1
        for name, n in AUTOPLAY:
            if pos < n:
                self.phase, self.fraction = name, pos / n
                return
            pos -= n


# Boost SM clock and memory clock (MHz, as NVML reports them) of a typical card of each compute
# capability (NVIDIA's spec sheets, rounded), so a demo's GTX 1080 and H100 do not both show one
# RTX card's clocks. (major, minor), then major alone, then a middle value.
CLOCKS: dict[tuple[int, int | None], tuple[int, int]] = {
    (3, None): (1006, 3004),  # Kepler, GDDR5
    (5, None): (1178, 3505),  # Maxwell
    (6, 0): (1329, 715),  # P100, HBM2
    (6, None): (1733, 5005),  # Pascal GeForce
    (7, 0): (1530, 877),  # V100, HBM2
    (7, 5): (1545, 7000),  # Turing
    (8, 0): (1410, 1593),  # A100, HBM2e
    (8, 6): (1710, 9501),  # Ampere GeForce
    (8, 9): (2520, 10501),  # Ada
    (9, 0): (1980, 2619),  # H100/H200, HBM3
    (10, None): (1965, 3996),  # B200, HBM3e
    (12, None): (2407, 14001),  # Blackwell GeForce, GDDR7
}
MIDDLE_CLOCKS = (1700, 7000)
IDLE_CLOCKS = {"sm": 210, "mem": 405}
# Boards without a fan of their own that NVML can read: passively cooled data-centre cards (these),
# and laptops' GPUs (gpu_class.laptop_gpu: the fans belong to the laptop). NVML says Not Supported,
# the monitor shows N/A.
PASSIVE = ("tesla", "a100", "a10", "a30", "a40", "l4", "l40", "h100", "h200", "b200")


def _clocks(major: int, minor: int, name: str = "") -> dict[str, int]:
    sm, mem = CLOCKS.get((major, minor)) or CLOCKS.get((major, None)) or MIDDLE_CLOCKS
    known = board(name)  # a demo board: its own boost clock, as the simulated benchmark uses
    return {"sm": known.boost_mhz if known else sm, "mem": mem}


def _busy_clocks(gpu: FakeGpu) -> dict[str, int]:
    """Under load: a known board at the clock the simulated benchmark reports (a laptop held under
    its boost clock), any other at its maximum."""
    known = board(gpu.name)
    return {**gpu.max_clocks, "sm": known.busy_clock_mhz} if known else dict(gpu.max_clocks)


def _passive(name: str) -> bool:
    words = name.lower().replace("-", " ").split()
    return any(word.startswith(p) for word in words for p in PASSIVE) or laptop_gpu(name)


def _fake_gpus(profile: MachineProfile) -> list[FakeGpu]:
    gpus = []
    for g in profile.gpus:
        try:
            major, minor = (int(x) for x in g.compute_capability.split(".")[:2])
        except ValueError:
            major, minor = 0, 0
        total = (g.memory_mib or 8192) * 1024**2
        # The GPU's own board power, so a GTX 1080 and an RTX 5090 do not both show 170 W.
        watts = gpu_class(g.name, g.compute_capability).watts
        gpus.append(
            FakeGpu(
                name=g.name,
                cc=(major, minor),
                memory_total=total,
                power_limit_mw=watts * 1000,
                uuid=g.uuid or f"GPU-simulated-{g.index}",
                pci_bus_id=g.pci_bus_id or f"00000000:0{g.index + 1}:00.0",
                clocks=dict(IDLE_CLOCKS),
                max_clocks=_clocks(major, minor, g.name),
                errors={"fan_speed": ErrorKind.NOT_SUPPORTED} if _passive(g.name) else {},
            )
        )
    return gpus


class SimulatedSource:
    """GPUs of a profile, driven by a `PhaseSignal`; every sample says simulated."""

    def __init__(self, profile: MachineProfile, signal: PhaseSignal | None = None) -> None:
        self.profile = profile
        self.signal = signal if signal is not None else PhaseSignal()
        has_driver = profile.driver is not None or bool(profile.gpus)
        init_error = None if has_driver else ErrorKind.DRIVER_NOT_LOADED
        if has_driver and not profile.gpus and profile.has_nvidia_gpu:
            # A driver, an NVIDIA card, and no GPU read (a driver/library mismatch after an
            # update): NVML fails there too, never "no NVIDIA GPU was found by the driver".
            init_error = ErrorKind.OTHER
        self.fake = FakeNvml(
            _fake_gpus(profile),
            driver=profile.driver.version if profile.driver else "unknown",
            init_error=init_error,
        )
        self.inner = NvmlSource(
            self.fake,
            wsl2=profile.platform == "wsl2",
            process_name=lambda pid: t("monitor.sim.process"),
            clock=lambda: 0.0,  # slow fields never refresh: they do not change here
        )
        self._tick = 0
        self._temps = [float(LOADS["idle"].temp)] * len(self.fake.gpus)

    def open(self) -> SourceInfo:
        info = self.inner.open()
        info.simulated = True
        if self.profile.platform == "wsl1":
            # WSL1 cannot see a GPU at all: the laptop may well have one (WSL2 reaches it).
            info.no_gpu_reason = t("keys.monitor.wsl1")
        elif not self.profile.has_nvidia_gpu:
            # No NVIDIA hardware at all (a Mac, Intel graphics): no driver to blame.
            info.no_gpu_reason = t("monitor.no_gpu.no_nvidia")
        elif gpu_only_simulated(self.profile):
            # The demo's run installed the driver only in simulation: say so, not "reboot".
            info.no_gpu_reason = t("monitor.demo_driver.no_gpu")
        info.notes.insert(0, t("monitor.sim.label", name=sim_machine_name(self.profile)))
        return info

    def read(self) -> tuple[list[GpuSample], str | None]:
        load = self.signal.load()
        self._tick += 1
        for i, gpu in enumerate(self.fake.gpus):
            self._drive(i, gpu, load)
        gpus, reason = self.inner.read()
        if reason and self.profile.platform == "wsl1":
            reason = t("keys.monitor.wsl1")
        elif reason and not self.profile.has_nvidia_gpu:
            reason = t("monitor.no_gpu.no_nvidia")
        elif reason and gpu_only_simulated(self.profile):
            reason = t("monitor.demo_driver.no_gpu")
        return gpus, reason

    def close(self) -> None:
        self.inner.close()

    def _drive(self, i: int, gpu: FakeGpu, load: Load) -> None:
        wiggle = math.sin(self._tick * 0.9 + i)  # deterministic, looks like noise
        util = _clamp(load.gpu + 3 * wiggle if load.gpu > 10 else load.gpu)
        gpu.util = (int(util), int(_clamp(util * 0.6)))
        gpu.memory_used = int(gpu.memory_total * load.mem)
        limit = gpu.power_limit_mw
        gpu.power_mw = int(limit * min(1.0, load.power + 0.02 * wiggle))
        # Temperature follows the load with a lag, as silicon does.
        self._temps[i] += (load.temp - self._temps[i]) * 0.25
        gpu.temperature = int(self._temps[i])
        busy = load.gpu > 10
        gpu.clocks = _busy_clocks(gpu) if busy else dict(IDLE_CLOCKS)
        gpu.pstate = 0 if busy else 8
        gpu.fan = int(_clamp(30 + (self._temps[i] - 40) * 1.6))
        gpu.pcie = (int(2400 * load.mem), int(900 * load.mem))
        known = board(gpu.name)
        held = busy and known is not None and known.laptop  # a laptop at its power limit under load
        gpu.throttle = 0x4 if load.power > 0.95 or held else (0x1 if not busy else 0)
        gpu.procs = [(SIM_PID, gpu.memory_used - 300 * 1024**2)] if load.mem > 0.05 else []


class SimulatedHost:
    """The profile's CPU and RAM, following the same signal."""

    def __init__(self, profile: MachineProfile, signal: PhaseSignal) -> None:
        # What Detect calls unknown stays unknown (N/A): never a made-up 8 cores or 16 GiB.
        self.cores = profile.resources.cpu_count or 0
        self.ram_total = (profile.resources.ram_mib or 0) * 1024**2
        self.signal = signal
        self._tick = 0

    def read(self) -> HostSample:
        # peek(), not load(): the GPU source advances the autoplay clock.
        phase, fraction = self.signal.peek()
        cpu = (
            LOADS["train_cpu"].cpu
            if phase in ("train", "xla") and fraction < 0.5
            else LOADS.get(phase, LOADS["idle"]).cpu
        )
        self._tick += 1
        per = [_clamp(cpu + 6 * math.sin(self._tick * 0.7 + c)) for c in range(self.cores)]
        ram = int(self.ram_total * (0.35 + (0.1 if phase != "idle" else 0.0)))
        return HostSample(per, ram, self.ram_total)


def _clamp(v: float, lo: float = 0.0, hi: float = 100.0) -> float:
    return max(lo, min(hi, v))


def sim_machine_name(profile: MachineProfile) -> str:
    """The machine a simulated monitor imitates: the profile's label, else its OS and GPU (as the
    plan names it), never a machine called "demo"."""
    from wizard.plan.common import machine_label

    return machine_label(profile)
