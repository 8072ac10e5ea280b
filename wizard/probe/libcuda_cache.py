"""Whether a CUDA program here can open libcuda.so.1, as the linker cache decides it.

CUDA programs (TensorFlow, nvidia-smi's CUDA line) open the driver's library by its soname,
libcuda.so.1; glibc's loader looks in LD_LIBRARY_PATH's folders, then in the linker cache. A whole
`ldconfig -p` (its "N libs found in cache" line first: not a filtered paste) with no libcuda.so.1
entry, and no LD_LIBRARY_PATH folder holding it, decides that no CUDA program finds it. That holds
whatever nvidia-smi prints on its CUDA line: "CUDA Version: N/A" or "ERR!" says only that CUDA did
not answer nvidia-smi, and the cache says why; where both are seen, both are named (the cache's
first, its fix is the one to try first).
"""

from __future__ import annotations

from wizard.probe.context import ProbeContext, file_evidence
from wizard.profile import Evidence, MachineProfile


def uncached_libcuda(ctx: ProbeContext, p: MachineProfile) -> list[Evidence]:
    """The evidence that no CUDA program here finds libcuda.so.1 (the probe's no-libcuda), or []
    where nothing decides it."""
    if p.platform not in ("linux", "wsl2") or not ctx.seen.get("ldconfig_read"):
        return []
    if ctx.seen.get("ldconfig_libcuda"):
        return []
    if any(ctx.system.exists(f"{d.rstrip('/')}/libcuda.so.1") for d in p.ld_library_path):
        return []
    # A libcuda file elsewhere is kept as evidence (`sudo ldconfig` makes its libcuda.so.1 link and
    # caches it).
    ev = [Evidence("ldconfig -p", ctx.seen.get("ldconfig_exit"), "no libcuda.so.1")]
    ev += [file_evidence(lib.path, "present, not in the linker cache") for lib in p.libcuda[:3]]
    return ev
