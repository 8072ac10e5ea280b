"""The host's CPU and RAM for the monitor: psutil for real, fixed numbers for tests; /proc where
psutil is not installed (a lab host running the wizard from its probe zip, `fleet watch`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.monitor.model import HostSample

if TYPE_CHECKING:
    pass


class PsutilHost:
    def __init__(self) -> None:
        import psutil

        psutil.cpu_percent(percpu=True)  # the first call only starts the measurement

    def read(self) -> HostSample:
        import psutil

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


class ProcHost:
    """CPU and RAM from /proc/stat and /proc/meminfo (Linux), for a Python without psutil."""

    def __init__(self) -> None:
        self._last = self._times()

    @staticmethod
    def _times() -> list[tuple[int, int]]:
        """(busy, total) jiffies per core."""
        out = []
        try:
            with open("/proc/stat", encoding="ascii", errors="replace") as f:
                for line in f:
                    name, *fields = line.split()
                    if name.startswith("cpu") and name != "cpu" and len(fields) >= 4:
                        ticks = [int(x) for x in fields[:8] if x.isdigit()]
                        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
                        out.append((sum(ticks) - idle, sum(ticks)))
        except OSError:
            pass
        return out

    def read(self) -> HostSample:
        now = self._times()
        cpu = [
            100.0 * (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
            for (b0, t0), (b1, t1) in zip(self._last, now, strict=False)
        ]
        self._last = now
        mem: dict[str, int] = {}
        try:
            with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
                for line in f:
                    key, _, rest = line.partition(":")
                    parts = rest.split()
                    if parts and parts[0].isdigit():
                        mem[key] = int(parts[0]) * 1024
        except OSError:
            pass
        total = mem.get("MemTotal", 0)
        return HostSample(cpu, max(0, total - mem.get("MemAvailable", total)), total)


def default_host() -> PsutilHost | ProcHost:
    """psutil where it is installed (the wizard's own venv), else /proc."""
    try:
        return PsutilHost()
    except ImportError:
        return ProcHost()
