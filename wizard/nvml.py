"""NVML behind a small interface, so the probe and the monitor can be fed a fake.

`NvmlBackend` is what the rest of the wizard calls. `PynvmlBackend` wraps
nvidia-ml-py (imported as `pynvml`) and turns its exceptions into `NvmlError`
with a plain `kind`; `wizard.nvml_fake.FakeNvml` implements the same methods
for tests and demo profiles. Every getter may raise `NvmlError`: callers decide
per field (the monitor shows N/A, the probe writes a note).
"""

from __future__ import annotations

from enum import Enum
from importlib import metadata
from typing import Any, Protocol


class ErrorKind(str, Enum):
    NOT_SUPPORTED = "not_supported"
    NO_PERMISSION = "no_permission"
    FUNCTION_NOT_FOUND = "function_not_found"
    GPU_LOST = "gpu_lost"
    LIBRARY_NOT_FOUND = "library_not_found"
    DRIVER_NOT_LOADED = "driver_not_loaded"
    UNINITIALIZED = "uninitialized"
    OTHER = "other"


# NVML's return codes (nvml.h); kept here so the fake and the real one agree.
_CODES = {
    1: ErrorKind.UNINITIALIZED,
    3: ErrorKind.NOT_SUPPORTED,
    4: ErrorKind.NO_PERMISSION,
    9: ErrorKind.DRIVER_NOT_LOADED,
    12: ErrorKind.LIBRARY_NOT_FOUND,
    13: ErrorKind.FUNCTION_NOT_FOUND,
    15: ErrorKind.GPU_LOST,
}


class NvmlError(Exception):
    def __init__(self, kind: ErrorKind, detail: str = "") -> None:
        super().__init__(detail or kind.value)
        self.kind = kind
        self.detail = detail or kind.value

    @property
    def field_unavailable(self) -> bool:
        """The field is N/A on this GPU; the GPU itself is fine."""
        return self.kind in (ErrorKind.NOT_SUPPORTED, ErrorKind.NO_PERMISSION, ErrorKind.FUNCTION_NOT_FOUND)


CLOCK_SM = "sm"
CLOCK_MEM = "mem"


class NvmlBackend(Protocol):
    def init(self) -> None: ...
    def shutdown(self) -> None: ...
    def driver_version(self) -> str: ...
    def cuda_driver_version(self) -> int: ...  # e.g. 12020 for CUDA 12.2
    def device_count(self) -> int: ...
    def name(self, i: int) -> str: ...
    def compute_capability(self, i: int) -> tuple[int, int]: ...
    def memory(self, i: int) -> tuple[int, int]: ...  # (used, total) bytes
    def uuid(self, i: int) -> str: ...
    def pci_bus_id(self, i: int) -> str: ...
    def utilization(self, i: int) -> tuple[int, int]: ...  # (gpu %, memory %)
    def temperature(self, i: int) -> int: ...  # degrees C
    def power_usage(self, i: int) -> int: ...  # milliwatts
    def power_limit(self, i: int) -> int: ...  # milliwatts
    def clock(self, i: int, which: str) -> int: ...  # MHz
    def max_clock(self, i: int, which: str) -> int: ...  # MHz
    def fan_speed(self, i: int) -> int: ...  # percent
    def performance_state(self, i: int) -> int: ...  # 0..15 (P0..P15)
    def pcie_throughput(self, i: int) -> tuple[int, int]: ...  # (rx, tx) KB/s
    def throttle_reasons(self, i: int) -> int: ...  # bitmask
    def processes(self, i: int) -> list[tuple[int, int | None]]: ...  # (pid, used bytes)


def cuda_version_text(value: int) -> str:
    """NVML's 12020 -> "12.2"."""
    return f"{value // 1000}.{(value % 1000) // 10}"


# Throttle-reason bits from nvml.h, named for people.
THROTTLE_REASONS = {
    0x1: "idle",
    0x2: "application clocks",
    0x4: "software power cap",
    0x8: "hardware slowdown",
    0x10: "sync boost",
    0x20: "software thermal",
    0x40: "hardware thermal",
    0x80: "power brake",
    0x100: "display clocks",
}


def throttle_names(mask: int) -> list[str]:
    return [name for bit, name in THROTTLE_REASONS.items() if mask & bit]


def shadowing_pynvml() -> str | None:
    """The deprecated `pynvml` distribution installs a module of the same name
    that can shadow nvidia-ml-py's; say so when it is present."""
    try:
        dist = metadata.distribution("pynvml")
    except metadata.PackageNotFoundError:
        return None
    from wizard.text import t

    return t("monitor.note.pynvml", version=dist.version)


class PynvmlBackend:
    """The real NVML through nvidia-ml-py."""

    def __init__(self) -> None:
        try:
            import pynvml  # nvidia-ml-py
        except ImportError as exc:  # the wheel is a dependency, but be plain if it is gone
            raise NvmlError(ErrorKind.LIBRARY_NOT_FOUND, f"nvidia-ml-py is not installed ({exc})") from None
        self._n: Any = pynvml
        self._handles: dict[int, Any] = {}

    def _call(self, fn: str, *args: Any) -> Any:
        n = self._n
        try:
            return getattr(n, fn)(*args)
        except n.NVMLError as exc:
            code = getattr(exc, "value", None)
            kind = _CODES.get(code, ErrorKind.OTHER) if isinstance(code, int) else ErrorKind.OTHER
            raise NvmlError(kind, str(exc)) from None
        except AttributeError:
            raise NvmlError(ErrorKind.FUNCTION_NOT_FOUND, f"{fn} is not in this nvidia-ml-py") from None

    def _h(self, i: int) -> Any:
        if i not in self._handles:
            self._handles[i] = self._call("nvmlDeviceGetHandleByIndex", i)
        return self._handles[i]

    @staticmethod
    def _text(value: Any) -> str:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)

    def init(self) -> None:
        self._call("nvmlInit")

    def shutdown(self) -> None:
        self._handles.clear()
        self._call("nvmlShutdown")

    def driver_version(self) -> str:
        return self._text(self._call("nvmlSystemGetDriverVersion"))

    def cuda_driver_version(self) -> int:
        return int(self._call("nvmlSystemGetCudaDriverVersion"))

    def device_count(self) -> int:
        return int(self._call("nvmlDeviceGetCount"))

    def name(self, i: int) -> str:
        return self._text(self._call("nvmlDeviceGetName", self._h(i)))

    def compute_capability(self, i: int) -> tuple[int, int]:
        major, minor = self._call("nvmlDeviceGetCudaComputeCapability", self._h(i))
        return int(major), int(minor)

    def memory(self, i: int) -> tuple[int, int]:
        info = self._call("nvmlDeviceGetMemoryInfo", self._h(i))
        return int(info.used), int(info.total)

    def uuid(self, i: int) -> str:
        return self._text(self._call("nvmlDeviceGetUUID", self._h(i)))

    def pci_bus_id(self, i: int) -> str:
        return self._text(self._call("nvmlDeviceGetPciInfo", self._h(i)).busId)

    def utilization(self, i: int) -> tuple[int, int]:
        u = self._call("nvmlDeviceGetUtilizationRates", self._h(i))
        return int(u.gpu), int(u.memory)

    def temperature(self, i: int) -> int:
        return int(self._call("nvmlDeviceGetTemperature", self._h(i), 0))  # NVML_TEMPERATURE_GPU

    def power_usage(self, i: int) -> int:
        return int(self._call("nvmlDeviceGetPowerUsage", self._h(i)))

    def power_limit(self, i: int) -> int:
        return int(self._call("nvmlDeviceGetEnforcedPowerLimit", self._h(i)))

    def clock(self, i: int, which: str) -> int:
        return int(self._call("nvmlDeviceGetClockInfo", self._h(i), 1 if which == CLOCK_SM else 2))

    def max_clock(self, i: int, which: str) -> int:
        return int(self._call("nvmlDeviceGetMaxClockInfo", self._h(i), 1 if which == CLOCK_SM else 2))

    def fan_speed(self, i: int) -> int:
        return int(self._call("nvmlDeviceGetFanSpeed", self._h(i)))

    def performance_state(self, i: int) -> int:
        return int(self._call("nvmlDeviceGetPerformanceState", self._h(i)))

    def pcie_throughput(self, i: int) -> tuple[int, int]:
        h = self._h(i)
        rx = self._call("nvmlDeviceGetPcieThroughput", h, 1)  # NVML_PCIE_UTIL_RX_BYTES
        tx = self._call("nvmlDeviceGetPcieThroughput", h, 0)  # NVML_PCIE_UTIL_TX_BYTES
        return int(rx), int(tx)

    def throttle_reasons(self, i: int) -> int:
        # Renamed "clocks event reasons" in newer NVML; try the new name first.
        try:
            return int(self._call("nvmlDeviceGetCurrentClocksEventReasons", self._h(i)))
        except NvmlError as exc:
            if exc.kind is not ErrorKind.FUNCTION_NOT_FOUND:
                raise
        return int(self._call("nvmlDeviceGetCurrentClocksThrottleReasons", self._h(i)))

    def processes(self, i: int) -> list[tuple[int, int | None]]:
        procs = self._call("nvmlDeviceGetComputeRunningProcesses", self._h(i))
        out: list[tuple[int, int | None]] = []
        for p in procs:
            used = getattr(p, "usedGpuMemory", None)
            out.append((int(p.pid), int(used) if isinstance(used, int) else None))
        return out
