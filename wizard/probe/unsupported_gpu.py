"""The driver's own words that its release does not support a GPU at all, and whether they decide why.

The kernel module prints, as it probes a GPU its release has no support for (kernel-open/nvidia/nv.c,
nv_pci_probe's print_unsupported):

    NVRM: The NVIDIA GPU 0000:3c:00.0 (PCI ID: 10de:2d04)
    NVRM: installed in this system is not supported by the
    NVRM: NVIDIA 555.58.02 driver release.

(releases before the open modules: "... is not supported by the 304.116 NVIDIA Linux driver release").
The words leave the why open: a GPU newer than the release (an RTX 50 under a 550 driver), one older
than it serves that no legacy message names, a virtual GPU that needs NVIDIA's vGPU driver, a bus the
kernel misread. Where the PCI id names a GPU whose generation came after the release, it is decided:
no driver older than the CUDA that added the generation knows the GPU (architectures.toml
`ptxas_cuda` -> that CUDA's driver in cuda.toml: the floor Choose gives the same GPU, read here from
the same rows since the probe imports no Choose module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from packaging.version import InvalidVersion, Version

from wizard.probe.failure_words import join_nvrm
from wizard.probe.pci_cc import lookup
from wizard.tomlcompat import tomllib

# nv_pci_probe's refusals of a GPU begin alike (the release's, and the open module's for want of a GSP:
# wizard.probe.open_module): the GPU's bus and PCI device id, then what does not support it.
REFUSAL_HEAD = (
    r"The NVIDIA GPU (?P<bus>(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) "
    r"\(PCI ID: 10de:(?P<device>[0-9a-f]{4})\)\s+installed\s+in this system is not supported by "
)
# The message across its NVRM: continuation lines (joined first: failure_words.join_nvrm).
_REFUSED = re.compile(
    REFUSAL_HEAD + r"the\s+"
    r"(?:NVIDIA (?P<release>[0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?) driver release"
    r"|(?P<old>[0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)\s+NVIDIA Linux (?:graphics )?driver release)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RefusedGpu:
    line: str  # the message's first line, as the log holds it
    bus: str  # "0000:3c:00.0"
    device: str  # the PCI device id, "2d04"
    version: str  # the driver release that refuses it


@dataclass(frozen=True)
class DriverNeeded:
    gpu: str  # the table's name for the device id
    floor: str  # the lowest driver that knows the GPU's generation ("570.26")
    cuda: str  # the CUDA that added the generation ("12.8")


def refused_where(kernel_log: str, m: re.Match[str]) -> tuple[str, str, str]:
    """(the message's first line as the log holds it, the GPU's bus "0000:3c:00.0", its PCI device id)
    of a refusal matched (from REFUSAL_HEAD) in the joined log."""
    device = m.group("device").lower()
    head = f"(pci id: 10de:{device})"
    first = next((x.strip() for x in kernel_log.splitlines() if head in x.lower()), m.group(0)[:200])
    bus = m.group("bus").lower()
    return first, bus if bus.count(":") == 2 else f"0000:{bus}", device


def refused_gpu(kernel_log: str) -> RefusedGpu | None:
    """The first GPU the log says the installed release does not support, else None."""
    m = _REFUSED.search(join_nvrm(kernel_log))
    if m is None:
        return None
    return RefusedGpu(*refused_where(kernel_log, m), m.group("release") or m.group("old"))


@cache
def _floors() -> tuple[tuple[Version, Version, Version, Version], ...]:
    """(lowest cc, highest cc, the CUDA that added the architecture, that CUDA's Linux driver) per
    architecture row, from the shipped tables (the probe reads no Choose module: Choose's
    gpu_generation.generation_floor reads the same rows, and a test holds the two equal)."""
    from wizard.assets import asset_text

    arch = tomllib.loads(asset_text("knowledge/architectures.toml")).get("arch", [])
    toolkits = tomllib.loads(asset_text("knowledge/cuda.toml")).get("toolkit", [])
    driver = {
        Version(str(t["cuda"])): Version(str(t["linux"])) for t in toolkits if "cuda" in t and "linux" in t
    }
    out = []
    for row in arch:
        if "ptxas_cuda" not in row:
            continue
        first = Version(str(row["ptxas_cuda"]))
        linux = driver.get(Version(f"{first.major}.{first.minor}"))
        if linux is not None:
            out.append((Version(str(row["cc_min"])), Version(str(row["cc_max"])), first, linux))
    return tuple(out)


def generation_floor_linux(cc: Version) -> tuple[Version, Version] | None:
    """(the lowest Linux driver that knows this GPU's generation, the CUDA that added it); None where
    the tables do not say."""
    try:
        floors = _floors()
    except (OSError, ValueError, KeyError, InvalidVersion):  # a table that does not load: not decided
        return None
    return next(((linux, first) for low, high, first, linux in floors if low <= cc <= high), None)


def newer_driver_needed(refused: RefusedGpu) -> DriverNeeded | None:
    """The driver the GPU's generation needs, where the refusing release is older than it; None where
    the device id is not in the table, its generation has no floor, or the release is not older."""
    known = lookup(refused.device)
    if known is None:
        return None
    try:
        cc, release = Version(known[1]), Version(refused.version)
    except InvalidVersion:
        return None
    floor = generation_floor_linux(cc)
    if floor is None or release >= floor[0]:
        return None
    return DriverNeeded(known[0], str(floor[0]), str(floor[1]))
