"""nvidia-smi's other output formats: the GPU list (`-L`), the XML report (`-q -x`) and the
version block (`--version`).

The probe asks nvidia-smi's query and its table first; these are read only where neither answered
(a dump made from a pasted output shows only what the person ran). Each parser reads what the text
states and nothing more: `-L` prints no driver version, so none is read from it.
"""

from __future__ import annotations

import html
import re

from wizard.profile import GpuInfo

# "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-e1924eea-...)"; MIG instances below a GPU are indented
# ("  MIG 1g.20gb Device 0: (UUID: MIG-...)") and are parts of that GPU, not GPUs of their own.
_LIST_ROW = re.compile(r"^GPU ([0-9]+): (.+?)(?: \(UUID: (GPU-[0-9A-Za-z-]+)\))?\s*$")


# Several rows pasted onto one line (a form's one-line field): each whole "GPU N: NAME (UUID: GPU-...)".
_JOINED_ROW = re.compile(r"(?:^|,\s*|\s)GPU ([0-9]+): (.+?) \(UUID: (GPU-[0-9A-Za-z-]+)\)")


def parse_smi_list(text: str) -> list[GpuInfo]:
    """`nvidia-smi -L`: one GPU per unindented "GPU N: NAME (UUID: ...)" line."""
    gpus: list[GpuInfo] = []
    for line in text.splitlines():
        joined = list(_JOINED_ROW.finditer(line)) if line.startswith("GPU ") else []
        if len(joined) > 1:
            gpus += [GpuInfo(index=int(m.group(1)), name=m.group(2).strip(), uuid=m.group(3)) for m in joined]
            continue
        m = _LIST_ROW.match(line)
        if m:
            gpus.append(GpuInfo(index=int(m.group(1)), name=m.group(2).strip(), uuid=m.group(3)))
    return gpus


_XML_DRIVER = re.compile(r"<driver_version>\s*([0-9]+(?:\.[0-9]+)+)\s*</driver_version>")
_XML_CUDA = re.compile(r"<cuda_version>\s*([^<]*?)\s*</cuda_version>")
_XML_GPU = re.compile(r"<gpu id=\"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9])\">")
_XML_NAME = re.compile(r"<product_name>\s*([^<]+?)\s*</product_name>")
_XML_UUID = re.compile(r"<uuid>\s*(GPU-[^<\s]+)\s*</uuid>")
_XML_ATTACHED = re.compile(r"<attached_gpus>\s*([0-9]{1,3})\s*</attached_gpus>")
_XML_FB_TOTAL = re.compile(r"<fb_memory_usage>\s*<total>\s*([0-9]+) MiB\s*</total>")


def parse_smi_xml(text: str) -> tuple[str, str, list[GpuInfo]]:
    """`nvidia-smi -q -x`: driver version, CUDA version ("" where absent: drivers before R410 print
    none; "N/A"/"ERR!" kept as printed) and each GPU by its bus id. Read by pattern, not parsed as
    XML: a pasted report is often cut off, and its text is data."""
    driver = _XML_DRIVER.search(text)
    cuda = _XML_CUDA.search(text)
    starts = list(_XML_GPU.finditer(text))
    gpus: list[GpuInfo] = []
    for n, m in enumerate(starts):
        block = text[m.end() : starts[n + 1].start() if n + 1 < len(starts) else len(text)]
        gpu = GpuInfo(index=n, pci_bus_id=m.group(1))
        if name := _XML_NAME.search(block):
            gpu.name = html.unescape(name.group(1))
        if uuid := _XML_UUID.search(block):
            gpu.uuid = uuid.group(1)
        if total := _XML_FB_TOTAL.search(block):
            gpu.memory_mib = int(total.group(1))
        gpus.append(gpu)
    # <attached_gpus> counts them all, also where the paste was cut after the first <gpu> block.
    if (attached := _XML_ATTACHED.search(text)) and (driver or gpus):
        gpus += [GpuInfo(index=i) for i in range(len(gpus), int(attached.group(1)))]
    return (driver.group(1) if driver else ""), (cuda.group(1) if cuda else ""), gpus


# `nvidia-smi --version` (R525 on): "DRIVER version      : 595.71.05" and "CUDA Version        : 13.2"
# ("KMD" and "CUDA UMD" where R610 renamed them in its banner). It prints no GPU.
_VERSION_DRIVER = re.compile(r"^\s*(?:DRIVER|KMD) version\s*:\s*([0-9]+(?:\.[0-9]+)+)\s*$", re.M | re.I)
_VERSION_CUDA = re.compile(r"^\s*CUDA (?:UMD )?Version\s*:\s*(\S+)\s*$", re.M | re.I)


def parse_smi_version(text: str) -> tuple[str, str]:
    """`nvidia-smi --version`: the driver's version and its CUDA ("" where a line is absent;
    "N/A"/"ERR!" kept as printed, as the XML report's are)."""
    driver = _VERSION_DRIVER.search(text)
    cuda = _VERSION_CUDA.search(text)
    return (driver.group(1) if driver else ""), (cuda.group(1) if cuda else "")
