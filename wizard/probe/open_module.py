"""The open kernel module's own words that it cannot drive a GPU without a GSP.

The open module (kernel-open/nvidia/nv.c, nv_pci_probe) prints, as it probes a GPU older than Turing:

    NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1bb3)
    NVRM: installed in this system is not supported by open
    NVRM: nvidia.ko because it does not include the required GPU
    NVRM: System Processor (GSP).

The open modules drive only GPUs with a GSP (Turing and newer); a Maxwell, Pascal or Volta GPU needs
the proprietary module of a branch that still serves it. The words decide it: the driver is installed
and its module loads, so neither a restart nor a reinstall of the same flavour changes anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.probe.failure_words import join_nvrm
from wizard.probe.pci_cc import lookup
from wizard.probe.unsupported_gpu import REFUSAL_HEAD, refused_where

# The message across its NVRM: continuation lines (joined first: failure_words.join_nvrm).
_NO_GSP = re.compile(
    REFUSAL_HEAD + r"open\s+nvidia\.ko because it does not include the required GPU\s+"
    r"System Processor \(GSP\)",
    re.IGNORECASE,
)
# The open module's own load line: "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.172.08".
_OPEN_LOADING = re.compile(
    r"NVRM: loading NVIDIA UNIX Open Kernel Module for \S+\s+"
    r"(?P<version>[0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)\b"
)


@dataclass(frozen=True)
class OpenRefusal:
    line: str  # the message's first line, as the log holds it
    bus: str  # "0000:03:00.0"
    device: str  # the PCI device id, "1bb3"
    gpu: str  # the GPU table's name for it, "" where the table lacks it
    version: str  # the open module's version where its load line shows it, else ""


def open_module_refusal(kernel_log: str) -> OpenRefusal | None:
    """The first GPU the open module says it cannot drive for want of a GSP, else None."""
    m = _NO_GSP.search(join_nvrm(kernel_log))
    if m is None:
        return None
    first, bus, device = refused_where(kernel_log, m)
    known = lookup(device)
    loading = _OPEN_LOADING.search(kernel_log)
    return OpenRefusal(
        first, bus, device, known[0] if known else "", loading.group("version") if loading else ""
    )
