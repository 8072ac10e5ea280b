"""Checks on the numbers a message prints, for the rows whose cause is in the arithmetic.

    FIGURES["torch-memory-held-elsewhere"](match) -> bool
    FIGURES["cuda-build-above-driver"](match) -> bool
    FIGURES["torch-request-above-free"](match) -> bool
    FIGURES["torch-request-above-total"](match) -> bool

A row of assets/doctor/patterns.toml with `figures = "<name>"` claims a line only where its regex
matches and this check, given the match's named groups, says yes. PyTorch's out-of-memory message
prints the GPU's total memory, what is free, and what PyTorch itself holds: where most of the GPU
is neither free nor PyTorch's, another process (or a non-PyTorch library in this one) holds it,
and a smaller batch will not help. Where PyTorch holds it all, the work's own tensors did not fit.
A build's CUDA ("torch 1.8.1+cu111") printed beside the driver's version ("Driver version: 440.82")
says the driver is too old where the version is below that CUDA major's floor (wizard.choose.driver_floors).
A cuDNN loaded beside the one a program was built with ("compiled with CUDNN 8.2, but CUDNN version in
your machine is 8.1") is incompatible where PyTorch's own check would refuse it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from wizard.choose.driver_floors import below_linux_floor

# PyTorch's format_size prints binary units; "0 bytes" where nothing is free.
UNITS = {"b": 1, "bytes": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}
UNITS.update({"kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4})
# Held outside PyTorch, at least: this share of the GPU and this much. A CUDA context, cuDNN's
# handles and a Windows desktop on a 4 GiB laptop GPU take up to about 2 GiB there (two 4 GiB
# texts in the corpus show 2.2-2.3 GiB outside PyTorch with no second job); a second job holds more.
ELSEWHERE_SHARE = 0.5
ELSEWHERE_MIN = 3 * 1024**3

_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)")


def size_bytes(text: str | None) -> float | None:
    """'3.67 GiB' -> bytes; None for a size it cannot read ('0 bytes' is 0)."""
    if not text:
        return None
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        return None
    unit = UNITS.get(m.group(2).lower())
    return None if unit is None else float(m.group(1)) * unit


@dataclass(frozen=True)
class GpuMemory:
    total: float
    free: float
    own: float  # what the message says this program holds

    @property
    def elsewhere(self) -> float:
        return max(0.0, self.total - self.free - self.own)


def torch_memory(groups: dict[str, str | None]) -> GpuMemory | None:
    """The figures of PyTorch's message, old ("T total capacity; A already allocated; F free;
    R reserved in total by PyTorch") or new ("a total capacity of T of which F is free ...
    Including non-PyTorch memory, this process has P memory in use"); what PyTorch holds is the
    reserved (or this process's) figure, the allocated one where the message was cut before it."""
    total, free = size_bytes(groups.get("total")), size_bytes(groups.get("free"))
    figures = (size_bytes(groups.get(k)) for k in ("process", "reserved", "allocated"))
    own = next((v for v in figures if v is not None), None)
    if total is None or free is None or own is None or total <= 0:
        return None
    # The new message's own count of PyTorch's pool ("Of the allocated memory A is allocated by
    # PyTorch, and U is reserved ... but unallocated"): this process holds at least A + U, even where
    # its NVML count is 0 bytes (a container's pid that NVML does not see).
    pool = [size_bytes(groups.get(k)) for k in ("torch_allocated", "torch_unallocated")]
    if pool[0] is not None:
        own = max(own, pool[0] + (pool[1] or 0.0))
    return GpuMemory(total, free, own)


def torch_memory_held_elsewhere(match: re.Match[str]) -> bool:
    memory = torch_memory(match.groupdict())
    if memory is None:
        return False
    return memory.elsewhere >= max(ELSEWHERE_MIN, ELSEWHERE_SHARE * memory.total)


# What PyTorch asked for against what it printed free: free at least twice the request and this
# much more, the request would have fitted as the message tells it.
FITS_MARGIN = 256 * 1024**2


def torch_request_above_free(match: re.Match[str]) -> bool:
    """PyTorch's "Tried to allocate R (...; F free; ...)": the work's tensors did not fit, unless its
    own figures show F well above R (a request that fitted is no tensor too big). True where the
    figures are not in the line (the message alone)."""
    groups = match.groupdict()
    request, free = size_bytes(groups.get("request")), size_bytes(groups.get("free"))
    if request is None or free is None:
        return True
    return not (free >= 2 * request and free - request >= FITS_MARGIN)


def torch_request_above_total(match: re.Match[str]) -> bool:
    """PyTorch's "Tried to allocate R (GPU 0; T total capacity ...)": one request larger than the
    whole GPU, which no other program's memory explains."""
    request, total = size_bytes(match.group("request")), size_bytes(match.group("total"))
    return request is not None and total is not None and request > total


def cuda_build_above_driver(match: re.Match[str]) -> bool:
    """`cuda` as a wheel's local version writes it ("111" = 11.1, "121" = 12.1), `driver` dotted."""
    cuda, driver = match.group("cuda"), match.group("driver")
    return bool(cuda and driver) and below_linux_floor(driver, int(cuda[:-1]))


def _major_minor(text: str | None) -> tuple[int, int] | None:
    parts = (text or "").strip(".").split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


def cudnn_runtime_incompatible(match: re.Match[str]) -> bool:
    """`built` (the cuDNN a program was compiled with) and `machine` (the one loaded), "major.minor":
    incompatible by PyTorch's own check (torch/backends/cudnn/__init__.py, _init): another major always;
    before cuDNN 7 another minor; from 7 on a minor older than the build's (minors are backward
    compatible only: a newer cuDNN serves an older build, not the reverse)."""
    built, machine = _major_minor(match.group("built")), _major_minor(match.group("machine"))
    if built is None or machine is None:
        return False
    if built[0] != machine[0]:
        return True
    return machine[1] != built[1] if built[0] < 7 else machine[1] < built[1]


FIGURES: dict[str, Callable[[re.Match[str]], bool]] = {
    "torch-memory-held-elsewhere": torch_memory_held_elsewhere,
    "torch-request-above-free": torch_request_above_free,
    "torch-request-above-total": torch_request_above_total,
    "cuda-build-above-driver": cuda_build_above_driver,
    "cudnn-runtime-incompatible": cudnn_runtime_incompatible,
}


@dataclass(frozen=True)
class FiguredRegex:
    """A compiled regex whose match counts only where its figures check says yes: it stands in for
    the re.Pattern in the matcher, so the hot path is the same for every row."""

    regex: re.Pattern[str]
    check: Callable[[re.Match[str]], bool]

    @property
    def pattern(self) -> str:
        return self.regex.pattern

    def search(self, line: str) -> re.Match[str] | None:
        m = self.regex.search(line)
        return m if m is not None and self.check(m) else None
