"""Whether the probe runs inside a container, and whether that container was given an NVIDIA device:
one answer for every layer that reads the kernel log or the PCI bus (in a container those are the
host's)."""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext
from wizard.probe.failure_words import DEVICE_HANDLE, NO_PERMISSION

CONTAINER_MARKERS = ("/.dockerenv", "/run/.containerenv")
CONTAINER_CGROUP = re.compile(r"docker|kubepods|containerd|libpod")
# NVML's words that it opened the driver's device nodes, so the runtime passed them in whatever the
# paths the probe read say: "Unable to determine the device handle for GPU X: ..." comes after
# nvmlInit opened /dev/nvidiactl and counted X; "Insufficient Permissions" is NVML_ERROR_NO_PERMISSION,
# an open() of a node that is there refused (file mode, SELinux label). A node that is not there
# reads as the driver not loaded ("couldn't communicate with the NVIDIA driver"), so NVML's "Unknown
# Error" as it starts is an open of a node that is there failing (a device cgroup that lost its rule
# refuses it with EPERM: the container toolkit's troubleshooting of "Failed to initialize NVML:
# Unknown Error"), or the driver failing behind it.
_HANDLE = re.compile(DEVICE_HANDLE, re.IGNORECASE)
_INIT_UNKNOWN = re.compile(r"Failed to initialize NVML: Unknown Error", re.IGNORECASE)


def in_container(ctx: ProbeContext) -> bool:
    """Docker's or podman's marker file, or PID 1 in a container runtime's cgroup."""
    if any(ctx.system.exists(f) for f in CONTAINER_MARKERS):
        return True
    cgroup = ctx.system.read_text("/proc/1/cgroup") or ""
    return any(CONTAINER_CGROUP.search(line) for line in cgroup.splitlines())


def nvml_opened_a_node(ctx: ProbeContext) -> str:
    """nvidia-smi's line (its query or its report) that shows NVML opened a device node, else ""."""
    for key in ("smi_query", "smi"):
        found = ctx.seen.get(key)
        if not isinstance(found, tuple):
            continue
        for line in (found[1].stdout + "\n" + found[1].stderr).splitlines():
            if _HANDLE.search(line) or NO_PERMISSION.search(line) or _INIT_UNKNOWN.search(line):
                return line.strip()
    return ""


def host_only(ctx: ProbeContext) -> bool:
    """A container given no NVIDIA device: the kernel log and the PCI bus it reads are the host's,
    and none of the host's GPUs is its own, so nothing there is this container's failure (the
    container layer says what is: no GPU passed)."""
    passed = ctx.system.exists("/dev/nvidiactl") or ctx.system.exists("/dev/nvidia0")
    return in_container(ctx) and not passed and not nvml_opened_a_node(ctx)
