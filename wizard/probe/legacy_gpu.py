"""The driver's own words that it does not serve a GPU: a newer branch that left it to a legacy one.

The kernel module prints, as it probes a GPU its branch no longer supports (kernel-open/nvidia/nv.c,
nv_pci_probe's legacy check):

    NVRM: The NVIDIA GeForce GTX 1050 GPU installed in this system is
    NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please
    NVRM:  visit http://www.nvidia.com/object/unix.html for more
    NVRM:  information.  The 595.58.03 NVIDIA driver will ignore
    NVRM:  this GPU.  Continuing probe...

So the installed driver is found and working as far as it goes, and this GPU needs the older branch
it names: installing that branch is the fix, a restart alone changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.probe.failure_words import join_nvrm

# The message across its NVRM: continuation lines, joined first (failure_words.join_nvrm; a pager may
# cut the first line's end). Joining takes every "NVRM:" prefix away, the first line's too where a
# line comes before it (dmesg's other lines): the message begins at its own words.
_IGNORED = re.compile(
    r"(?:NVRM: |\b)The NVIDIA (?P<gpu>[^\n]+?) GPU installed in this system\W*(?:is\s+)?"
    r"supported through the "
    r"NVIDIA (?P<branch>[0-9]{3})(?:\.xx)? Legacy drivers\..{0,200}?The (?P<version>[0-9]{3}\.[0-9]{2,3}"
    r"(?:\.[0-9]{2})?) NVIDIA driver will ignore this GPU",
    re.S,
)


@dataclass(frozen=True)
class IgnoredGpu:
    line: str  # the message's first line, as the log holds it
    gpu: str  # the GPU's name, as the driver printed it
    branch: str  # the legacy branch that serves it ("580")
    version: str  # the installed driver that ignores it


def ignored_gpu(kernel_log: str) -> IgnoredGpu | None:
    """The first GPU the installed driver says it ignores, with the legacy branch it names."""
    m = _IGNORED.search(join_nvrm(kernel_log))
    if m is None:
        return None
    first = next((x.strip() for x in kernel_log.splitlines() if "GPU installed in this system" in x), "")
    gpu = re.sub(r"^(?:NVIDIA\s+)+(?=NVIDIA\b)", "", m.group("gpu").strip())  # "NVIDIA NVIDIA GeForce"
    return IgnoredGpu(first or m.group(0)[:200], gpu, m.group("branch"), m.group("version"))
