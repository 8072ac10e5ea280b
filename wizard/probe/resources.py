"""RAM, CPUs and free disk in the home directory (psutil)."""

from __future__ import annotations

import psutil

from wizard.probe.context import ProbeContext
from wizard.profile import MachineProfile

MIB = 1024 * 1024


def probe_resources(ctx: ProbeContext, profile: MachineProfile) -> str:
    res = profile.resources
    res.ram_mib = psutil.virtual_memory().total // MIB
    res.cpu_count = psutil.cpu_count(logical=True)
    try:
        res.home_free_mib = psutil.disk_usage(str(ctx.system.home)).free // MIB
    except OSError:
        res.home_free_mib = None
    return "psutil"
