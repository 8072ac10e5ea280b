"""`nvidia-container-cli info`: the NVIDIA container toolkit's own read of the driver (read-only).

It asks NVML itself and prints "NVRM version:" (the kernel module), "CUDA version:" (the driver's
CUDA) and, per GPU, Model, GPU UUID, Bus Location and Architecture (the compute capability). The
probe runs it, bounded, only where NVML and nvidia-smi gave no driver: a host with the container
toolkit but no nvidia-smi on PATH, or a dump made from its pasted output. Each field is read as
printed and nothing is derived from another.
"""

from __future__ import annotations

import re

from wizard.profile import DriverInfo, GpuInfo

CONTAINER_CLI_INFO = ["nvidia-container-cli", "info"]
_NVRM = re.compile(r"^NVRM version:\s*([0-9]+(?:\.[0-9]+)+)\s*$", re.MULTILINE)
_CUDA = re.compile(r"^CUDA version:\s*([0-9]+\.[0-9]+)\s*$", re.MULTILINE)
_FIELD = re.compile(r"^(Device Index|Model|GPU UUID|Bus Location|Architecture):\s*(.*?)\s*$")
_BUS = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9]")


def parse_container_cli_info(text: str) -> tuple[DriverInfo, list[GpuInfo]] | None:
    """The driver (its version, its CUDA where printed) and each device block; None without an
    "NVRM version:" line (the command failed, or this is not its output)."""
    nvrm = _NVRM.search(text)
    if not nvrm:
        return None
    driver = DriverInfo(version=nvrm.group(1), source="nvidia-container-cli")
    if cuda := _CUDA.search(text):
        driver.cuda = cuda.group(1)
    gpus: list[GpuInfo] = []
    for line in text.splitlines():
        m = _FIELD.match(line.strip())
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key == "Device Index":
            gpus.append(GpuInfo(index=int(value) if value.isdigit() else len(gpus)))
        elif not gpus or not value:
            continue
        elif key == "Model":
            gpus[-1].name = value
        elif key == "GPU UUID" and value.startswith("GPU-"):
            gpus[-1].uuid = value
        elif key == "Bus Location" and _BUS.fullmatch(value):
            gpus[-1].pci_bus_id = value
        elif key == "Architecture" and re.fullmatch(r"[0-9]+\.[0-9]+", value):
            gpus[-1].compute_capability = value
    return driver, gpus
