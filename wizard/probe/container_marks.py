"""Whether the probe runs inside a container, and whether that container was given an NVIDIA device:
one answer for every layer that reads the kernel log or the PCI bus (in a container those are the
host's)."""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext

CONTAINER_MARKERS = ("/.dockerenv", "/run/.containerenv")
CONTAINER_CGROUP = re.compile(r"docker|kubepods|containerd|libpod")


def in_container(ctx: ProbeContext) -> bool:
    """Docker's or podman's marker file, or PID 1 in a container runtime's cgroup."""
    if any(ctx.system.exists(f) for f in CONTAINER_MARKERS):
        return True
    cgroup = ctx.system.read_text("/proc/1/cgroup") or ""
    return any(CONTAINER_CGROUP.search(line) for line in cgroup.splitlines())


def host_only(ctx: ProbeContext) -> bool:
    """A container given no NVIDIA device: the kernel log and the PCI bus it reads are the host's,
    and none of the host's GPUs is its own, so nothing there is this container's failure (the
    container layer says what is: no GPU passed)."""
    passed = ctx.system.exists("/dev/nvidiactl") or ctx.system.exists("/dev/nvidia0")
    return in_container(ctx) and not passed
