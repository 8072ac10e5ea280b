"""What a driver tool's failure line proves, and no more (wizard.probe.states names the state).

NVML's error strings (nvmlErrorString) are fixed: "GPU is lost" is NVML_ERROR_GPU_IS_LOST (the GPU
fell off the bus or became inaccessible), "Insufficient Permissions" is NVML_ERROR_NO_PERMISSION,
"Unknown Error" is NVML_ERROR_UNKNOWN (an internal driver error). nvidia-smi prints "ERR!" in a field
whose query failed. So "Unable to determine the device handle for GPU X: Unknown Error" and a row of
ERR! prove only that the driver cannot reach that GPU: whether it fell off the bus or never started
is the kernel's log to say (NVRM: "fallen off the bus", "RmInitAdapter failed"), else it stays open.
"""

from __future__ import annotations

import re

from wizard.sysio import System

NO_PERMISSION = re.compile(r"Insufficient Permissions", re.IGNORECASE)
# modprobe (which nvidia-smi runs through nvidia-modprobe) finds no nvidia.ko under
# /lib/modules/$(uname -r): the module is not built or installed for the running kernel.
MODULE_NOT_FOUND = re.compile(r"modprobe: FATAL: Module nvidia not found", re.IGNORECASE)
# nouveau bound to a GPU in this boot's kernel log ("nouveau 0000:01:00.0: DRM: VRAM: 2048 MiB",
# "[drm] Initialized nouveau 1.3.1"): it holds the GPU the nvidia module would drive.
NOUVEAU_BOUND = re.compile(
    r"nouveau [0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9]: (?:DRM|fb|bios|NVIDIA)|"
    r"\[drm\] Initialized nouveau"
)
_BUS = re.compile(r"([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9])\b")
# RmInitAdapter's own failure line, and the lines after which it always gives up (osinit.c: a GSP or
# DCE firmware RM that does not boot goes to its "RmInitAdapter failed!"; kernel_gsp.c's last boot
# attempt comes before that), which a log cut short may show alone.
INIT_FAILED = re.compile(
    r"RmInitAdapter failed|rm_init_adapter failed|Cannot initialize (?:GSP|DCE) firmware RM|"
    r"Max GSP-RM boot attempts exceeded",
    re.IGNORECASE,
)
_FALLEN = re.compile(r"fallen off the bus", re.IGNORECASE)
ERR_NAME = "ERR!"


def first_line(text: str, pattern: re.Pattern[str]) -> str:
    return next((line.strip() for line in text.splitlines() if pattern.search(line)), "")


def _same_gpu(bus: str, line: str) -> bool:
    """A kernel line about this GPU, or one that names no GPU (old drivers print none)."""
    found = _BUS.findall(line)
    return not found or not bus or any(b.lower() == bus[-7:].lower() for b in found)


def unreachable_gpu_reason(line: str, bus: str, kernel_log: str) -> str:
    """The state one GPU's failure line names: gpu-lost where NVML says so or the kernel says it fell
    off the bus, gpu-init-failed where the kernel says it did not start, else gpu-unreachable."""
    if "gpu is lost" in line.lower():
        return "gpu-lost"
    if NO_PERMISSION.search(line):  # this GPU's node may not be opened (a container's device rules)
        return "no-permission"
    for log_line in kernel_log.splitlines():
        if _FALLEN.search(log_line) and _same_gpu(bus, log_line):
            return "gpu-lost"
    for log_line in kernel_log.splitlines():
        if INIT_FAILED.search(log_line) and _same_gpu(bus, log_line):
            return "gpu-init-failed"
    return "gpu-unreachable"


_PCI_BUS = r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}"
# The driver's words for a GPU gone from the bus, each with the GPU's bus id: as it probes the GPU,
# "The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen off the bus"
# (continued on NVRM: lines, joined first); while it runs, "NVRM: GPU 0000:06:00.0: GPU has fallen
# off the bus." and Xid 79 ("NVRM: Xid (PCI:0000:06:00): 79, ..."), which names the device without
# its function (a GPU is function 0).
_FALLEN_OLD = re.compile(rf"NVIDIA GPU ({_PCI_BUS}\.[0-9])[^\n]*?fallen off the bus")
_FALLEN_NEW = re.compile(rf"NVRM: GPU ({_PCI_BUS}\.[0-9]): GPU has fallen off the bus")
# Older drivers (the 3xx branches) while they run: "NVRM: GPU at 0000:01:00.0 has fallen off the bus."
_FALLEN_AT = re.compile(rf"NVRM: GPU at ({_PCI_BUS}\.[0-9]) has fallen off the bus")
_XID_79 = re.compile(rf"NVRM: Xid \(PCI:({_PCI_BUS})(\.[0-9])?\): 79\b")


def fallen_off_bus(kernel_log: str) -> tuple[str, str] | None:
    """(the kernel's line, the GPU's bus id) where the log says a GPU fell off the bus, else None."""
    joined = re.sub(r"\s*\n[^\n]*?NVRM:\s*", " ", kernel_log)
    if m := _FALLEN_OLD.search(joined):
        return m.group(0), m.group(1)
    lines = kernel_log.splitlines()
    if said := next((m for line in lines if (m := _FALLEN_NEW.search(line))), None):
        return said.string.strip(), said.group(1)
    if said := next((m for line in lines if (m := _FALLEN_AT.search(line))), None):
        return said.string.strip(), said.group(1)
    if xid := next((m for line in lines if (m := _XID_79.search(line))), None):
        return xid.string.strip(), xid.group(1) + (xid.group(2) or ".0")
    return None


def kernel_line_for(reason: str, bus: str, kernel_log: str) -> str:
    pattern = {"gpu-lost": _FALLEN, "gpu-init-failed": INIT_FAILED}.get(reason)
    if pattern is None:
        return ""
    return next((x.strip() for x in kernel_log.splitlines() if pattern.search(x) and _same_gpu(bus, x)), "")


SAVED_LOGS = ("/var/log/kern.log", "/var/log/syslog", "/var/log/messages")


def saved_log_line(system: System, pattern: re.Pattern[str]) -> tuple[str, str]:
    """(path, line): the first line a saved system log holds for the pattern, or ("", "")."""
    for path in SAVED_LOGS:
        line = first_line(system.read_text(path) or "", pattern)
        if line:
            return path, line
    return "", ""


AKMODS_CACHE = "/var/cache/akmods"


def akmods_failed_log(system: System, kernel: str) -> str:
    """Fedora's akmods keeps "<version>-for-<kernel>.failed.log" where it could not build a kmod for
    that kernel: for the running kernel, the NVIDIA module is not built (the path, or "")."""
    if not kernel or kernel == "unknown":
        return ""
    for name in ("nvidia", "nvidia-open"):
        for path in system.glob(f"{AKMODS_CACHE}/{name}", f"*-for-{kernel}.failed.log"):
            return path
    return ""
