"""A fake NVML for tests and demo profiles: same methods as `NvmlBackend`.

Each GPU is a `FakeGpu`; `errors` maps a method name to the `ErrorKind` it
raises for that GPU, `delays` to the seconds it takes to answer (a hung
driver call), `lost_after` makes the GPU vanish after N calls, and
`init_error` simulates a missing library or driver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from wizard.nvml import CLOCK_SM, ErrorKind, NvmlError


@dataclass
class FakeGpu:
    name: str = "NVIDIA GeForce RTX 3060"
    cc: tuple[int, int] = (8, 6)
    memory_total: int = 12 * 1024**3
    memory_used: int = 512 * 1024**2
    uuid: str = "GPU-00000000-0000-0000-0000-000000000000"
    pci_bus_id: str = "00000000:01:00.0"
    util: tuple[int, int] = (3, 1)
    temperature: int = 41
    power_mw: int = 18_000
    power_limit_mw: int = 170_000
    clocks: dict[str, int] = field(default_factory=lambda: {"sm": 210, "mem": 405})
    max_clocks: dict[str, int] = field(default_factory=lambda: {"sm": 1875, "mem": 7501})
    fan: int = 30
    pstate: int = 8
    pcie: tuple[int, int] = (120, 80)
    throttle: int = 0x1
    procs: list[tuple[int, int | None]] = field(default_factory=list)
    errors: dict[str, ErrorKind] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)  # method -> seconds before it answers
    lost_after: int | None = None  # calls before NVML_ERROR_GPU_IS_LOST


class FakeNvml:
    def __init__(
        self,
        gpus: list[FakeGpu] | None = None,
        driver: str = "550.54.14",
        cuda: int = 12040,
        init_error: ErrorKind | None = None,
    ) -> None:
        self.gpus = gpus if gpus is not None else [FakeGpu()]
        self.driver = driver
        self.cuda = cuda
        self.init_error = init_error
        self.calls = 0
        self._per_gpu_calls: dict[int, int] = {}
        self.initialised = False

    # ---- helpers ---------------------------------------------------------
    def _gpu(self, i: int, method: str) -> FakeGpu:
        if not self.initialised:
            raise NvmlError(ErrorKind.UNINITIALIZED)
        self.calls += 1
        if i >= len(self.gpus):
            raise NvmlError(ErrorKind.OTHER, "Invalid Argument")
        gpu = self.gpus[i]
        n = self._per_gpu_calls.get(i, 0) + 1
        self._per_gpu_calls[i] = n
        if gpu.lost_after is not None and n > gpu.lost_after:
            raise NvmlError(ErrorKind.GPU_LOST, "GPU is lost")
        if method in gpu.delays:
            time.sleep(gpu.delays[method])
        if method in gpu.errors:
            raise NvmlError(gpu.errors[method])
        return gpu

    # ---- NvmlBackend -------------------------------------------------------
    def init(self) -> None:
        if self.init_error is not None:
            raise NvmlError(self.init_error)
        self.initialised = True

    def shutdown(self) -> None:
        self.initialised = False

    def driver_version(self) -> str:
        if not self.initialised:
            raise NvmlError(ErrorKind.UNINITIALIZED)
        return self.driver

    def cuda_driver_version(self) -> int:
        if not self.initialised:
            raise NvmlError(ErrorKind.UNINITIALIZED)
        return self.cuda

    def device_count(self) -> int:
        if not self.initialised:
            raise NvmlError(ErrorKind.UNINITIALIZED)
        return len(self.gpus)

    def name(self, i: int) -> str:
        return self._gpu(i, "name").name

    def compute_capability(self, i: int) -> tuple[int, int]:
        return self._gpu(i, "compute_capability").cc

    def memory(self, i: int) -> tuple[int, int]:
        g = self._gpu(i, "memory")
        return g.memory_used, g.memory_total

    def uuid(self, i: int) -> str:
        return self._gpu(i, "uuid").uuid

    def pci_bus_id(self, i: int) -> str:
        return self._gpu(i, "pci_bus_id").pci_bus_id

    def utilization(self, i: int) -> tuple[int, int]:
        return self._gpu(i, "utilization").util

    def temperature(self, i: int) -> int:
        return self._gpu(i, "temperature").temperature

    def power_usage(self, i: int) -> int:
        return self._gpu(i, "power_usage").power_mw

    def power_limit(self, i: int) -> int:
        return self._gpu(i, "power_limit").power_limit_mw

    def clock(self, i: int, which: str) -> int:
        return self._gpu(i, "clock").clocks.get(which, 0)

    def max_clock(self, i: int, which: str) -> int:
        return self._gpu(i, "max_clock").max_clocks.get(which, 0)

    def fan_speed(self, i: int) -> int:
        return self._gpu(i, "fan_speed").fan

    def performance_state(self, i: int) -> int:
        return self._gpu(i, "performance_state").pstate

    def pcie_throughput(self, i: int) -> tuple[int, int]:
        return self._gpu(i, "pcie_throughput").pcie

    def throttle_reasons(self, i: int) -> int:
        return self._gpu(i, "throttle_reasons").throttle

    def processes(self, i: int) -> list[tuple[int, int | None]]:
        return list(self._gpu(i, "processes").procs)


__all__ = ["CLOCK_SM", "FakeGpu", "FakeNvml"]
