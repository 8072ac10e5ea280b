"""The host's CPU and RAM for the monitor: psutil for real, fixed numbers for tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

import psutil

from wizard.monitor.model import HostSample

if TYPE_CHECKING:
    pass


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
