"""RAM, CPUs and free disk in the home directory (psutil; the standard library where psutil is
not installed, as on a lab host the fleet's probe zip runs on)."""

from __future__ import annotations

import os

from wizard.probe.context import ProbeContext
from wizard.profile import MachineProfile

MIB = 1024 * 1024


def probe_resources(ctx: ProbeContext, profile: MachineProfile) -> str:
    res = profile.resources
    if ctx.resources_reader is not None:  # a replayed dump: the machine's own readings
        found = ctx.resources_reader()
        res.ram_mib, res.cpu_count, res.home_free_mib = (
            _int(found.get("ram_mib")),
            _int(found.get("cpu_count")),
            _int(found.get("home_free_mib")),
        )
        layer = found.get("layer")
        return layer if isinstance(layer, str) else "dump"
    try:
        import psutil
    except ImportError:
        return _without_psutil(ctx, profile)
    res.ram_mib = psutil.virtual_memory().total // MIB
    res.cpu_count = psutil.cpu_count(logical=True)
    try:
        res.home_free_mib = psutil.disk_usage(str(ctx.system.home)).free // MIB
    except OSError:
        res.home_free_mib = None
    return "psutil"


def _without_psutil(ctx: ProbeContext, profile: MachineProfile) -> str:
    res = profile.resources
    try:
        res.ram_mib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // MIB
    except (ValueError, OSError, AttributeError):
        res.ram_mib = None
    res.cpu_count = os.cpu_count()
    try:
        st = os.statvfs(str(ctx.system.home))
        res.home_free_mib = st.f_bavail * st.f_frsize // MIB
    except (OSError, AttributeError):
        res.home_free_mib = None
    return "os"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
