"""CUDA toolkits, cuDNN and libcuda on disk, and LD_LIBRARY_PATH."""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from wizard.probe.context import ProbeContext
from wizard.probe.os_platform import WSL_LIB
from wizard.profile import CudaToolkit, CudnnInfo, LibCuda, MachineProfile

LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
    WSL_LIB,
)
CUDNN_HEADER_DIRS = ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu")


def toolkit_version(ctx: ProbeContext, root: str) -> str | None:
    text = ctx.system.read_text(f"{root}/version.json")
    if text:
        try:
            data = json.loads(text)
            version = data.get("cuda", {}).get("version")
            if isinstance(version, str):
                return ".".join(version.split(".")[:2])
        except (json.JSONDecodeError, AttributeError):
            pass
    text = ctx.system.read_text(f"{root}/version.txt")
    if text:
        match = re.search(r"CUDA Version ([0-9]+\.[0-9]+)", text)
        if match:
            return match.group(1)
    match = re.search(r"cuda-([0-9]+\.[0-9]+)$", root)
    if match and ctx.system.exists(f"{root}/bin/nvcc"):
        return match.group(1)
    return None


def parse_cudnn_header(text: str) -> str | None:
    parts = {}
    for key in ("MAJOR", "MINOR", "PATCHLEVEL"):
        match = re.search(rf"#define\s+CUDNN_{key}\s+([0-9]+)", text)
        if not match:
            return None
        parts[key] = match.group(1)
    return f"{parts['MAJOR']}.{parts['MINOR']}.{parts['PATCHLEVEL']}"


def _toolkits(ctx: ProbeContext, profile: MachineProfile) -> None:
    default_target = None
    if ctx.system.exists("/usr/local/cuda"):
        default_target = ctx.system.realpath("/usr/local/cuda")
    seen: set[str] = set()
    for name in ctx.system.listdir("/usr/local"):
        # "cuda" itself is the symlink; its target is listed under its own name.
        if not name.startswith("cuda") or name == "cuda":
            continue
        root = f"/usr/local/{name}"
        real = ctx.system.realpath(root)
        if real in seen or not ctx.system.is_dir(root):
            continue
        version = toolkit_version(ctx, root)
        if version is None:
            continue
        seen.add(real)
        profile.cuda_toolkits.append(CudaToolkit(version=version, path=root, default=real == default_target))
    if default_target and not any(tk.default for tk in profile.cuda_toolkits):
        version = toolkit_version(ctx, "/usr/local/cuda")
        if version:
            profile.cuda_toolkits.append(CudaToolkit(version=version, path="/usr/local/cuda", default=True))


def _cudnn(ctx: ProbeContext, profile: MachineProfile, ldconfig: str) -> None:
    headers = [f"{d}/cudnn_version.h" for d in CUDNN_HEADER_DIRS]
    headers += [f"{tk.path}/include/cudnn_version.h" for tk in profile.cuda_toolkits]
    seen: set[str] = set()
    for header in headers:
        text = ctx.system.read_text(header)
        version = parse_cudnn_header(text) if text else None
        if version and version not in seen:
            seen.add(version)
            profile.cudnn.append(CudnnInfo(version=version, path=header))
    if profile.cudnn:
        return
    # No header (runtime-only packages): the library's soname still tells the major version.
    for line in ldconfig.splitlines():
        match = re.search(r"libcudnn\.so\.([0-9]+(?:\.[0-9]+)*)\s.*=>\s*(\S+)", line)
        if match and match.group(1) not in seen:
            seen.add(match.group(1))
            profile.cudnn.append(CudnnInfo(version=match.group(1), path=match.group(2)))


# `ldconfig -p`'s line for it: "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1".
_CACHE_HEAD = re.compile(r"^\s*[0-9]+ libs found in cache", re.MULTILINE)
_CACHED_LIBCUDA = re.compile(r"^\s*libcuda\.so\.1\s+\([^)]*\)\s*=>", re.MULTILINE)


def _libcuda(ctx: ProbeContext, profile: MachineProfile, ldconfig: str) -> None:
    paths: list[str] = []
    for line in ldconfig.splitlines():
        match = re.search(r"libcuda\.so(?:\.[0-9]+)*\s.*=>\s*(\S+)", line)
        if match:
            paths.append(match.group(1))
    for d in LIB_DIRS:
        paths.extend(ctx.system.glob(d, "libcuda.so*"))
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            continue
        seen.add(path)
        inside = PurePosixPath(path).parent == PurePosixPath(WSL_LIB)
        profile.libcuda.append(LibCuda(path=path, inside_wsl_lib=inside))
    if profile.platform == "wsl2":
        stray = [lib.path for lib in profile.libcuda if not lib.inside_wsl_lib]
        if stray:
            ctx.note("probe.linux_driver_in_wsl", path=stray[0])


def probe_cuda(ctx: ProbeContext, profile: MachineProfile) -> str:
    if profile.platform not in ("linux", "wsl2", "wsl1"):
        return "none"
    ld = ctx.system.environ.get("LD_LIBRARY_PATH", "")
    profile.ld_library_path = [p for p in ld.split(":") if p]
    _toolkits(ctx, profile)
    result = ctx.system.run(["ldconfig", "-p"], timeout=3.0)
    if result.missing:
        result = ctx.system.run(["/sbin/ldconfig", "-p"], timeout=3.0)
    # A pasted `ldconfig -p` shows no exit code (-1): its cache lines are the cache all the same.
    pasted = (
        result.returncode == -1 and not result.missing and not result.timed_out and not result.stderr.strip()
    )
    ldconfig = result.stdout if result.ok or pasted else ""
    # What the cache lacks is read only from the whole cache: a paste of `ldconfig -p | grep cudnn`
    # lacks libcuda by its filter. ldconfig -p prints its count line first (glibc elf/cache.c).
    read = result.ok or (pasted and _CACHE_HEAD.search(ldconfig) is not None)
    ctx.seen["ldconfig_read"] = read
    ctx.seen["ldconfig_exit"] = None if pasted else result.returncode
    # glibc's loader finds libcuda.so.1 (what CUDA programs open) through this cache.
    ctx.seen["ldconfig_libcuda"] = _CACHED_LIBCUDA.search(ldconfig) is not None
    _cudnn(ctx, profile, ldconfig)
    _libcuda(ctx, profile, ldconfig)
    return "files"
