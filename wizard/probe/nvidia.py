"""NVIDIA driver and GPUs, in layers: NVML, then nvidia-smi, then /proc, then the PCI bus.

The first layer that answers fills `profile.driver` and `profile.gpus`; the PCI
bus is always counted, so a machine with a GPU but no driver is recognised.
`profile.probe_layers["nvidia"]` records which layer answered.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TypeVar

from wizard.nvml import ErrorKind, NvmlBackend, NvmlError, cuda_version_text
from wizard.probe.context import ProbeContext
from wizard.probe.os_platform import WSL_LIB
from wizard.profile import DriverInfo, GpuInfo, MachineProfile

NVIDIA_VENDOR = "0x10de"
SMI_FIELDS = "index,name,compute_cap,memory.total,uuid,pci.bus_id,driver_version"
_T = TypeVar("_T")


class _Timeout(Exception):
    pass


def _bounded(fn: Callable[[], _T], timeout: float) -> _T:
    """Run fn in a daemon thread; a hung driver call must not hang the wizard."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed back to the caller below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="nvml-probe")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _Timeout
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


# ---- layer 1: NVML ------------------------------------------------------------
def _from_nvml(ctx: ProbeContext, profile: MachineProfile) -> bool:
    try:
        nvml = _bounded(ctx.nvml_factory, ctx.nvml_timeout)
        _bounded(nvml.init, ctx.nvml_timeout)
    except _Timeout:
        ctx.note("probe.nvml_timeout", seconds=ctx.nvml_timeout)
        return False
    except NvmlError as exc:
        if exc.kind in (ErrorKind.LIBRARY_NOT_FOUND, ErrorKind.DRIVER_NOT_LOADED):
            if profile.platform == "wsl2" and ctx.system.exists(f"{WSL_LIB}/libnvidia-ml.so.1"):
                ctx.note("probe.nvml_wsl_lib_present", detail=exc.detail)
        else:
            ctx.note("probe.nvml_failed", detail=exc.detail)
        return False
    try:
        return _bounded(lambda: _read_nvml(ctx, nvml, profile), ctx.nvml_timeout)
    except _Timeout:
        ctx.note("probe.nvml_timeout", seconds=ctx.nvml_timeout)
        return bool(profile.driver)
    except NvmlError as exc:
        ctx.note("probe.nvml_failed", detail=exc.detail)
        return bool(profile.driver)
    finally:
        try:
            nvml.shutdown()
        except NvmlError:
            pass


def _read_nvml(ctx: ProbeContext, nvml: NvmlBackend, profile: MachineProfile) -> bool:
    driver = DriverInfo(source="nvml")
    driver.version = nvml.driver_version()
    try:
        driver.cuda = cuda_version_text(nvml.cuda_driver_version())
    except NvmlError as exc:
        ctx.note("probe.field_unavailable", field="CUDA driver version", detail=exc.detail)
    profile.driver = driver
    for i in range(nvml.device_count()):
        profile.gpus.append(_read_gpu(ctx, nvml, i))
    return True


def _read_gpu(ctx: ProbeContext, nvml: NvmlBackend, i: int) -> GpuInfo:
    """One GPU, field by field: a field NVML cannot give becomes a note, not a gap in the list."""
    gpu = GpuInfo(index=i)
    readers: list[tuple[str, Callable[[], None]]] = [
        ("name", lambda: setattr(gpu, "name", nvml.name(i))),
        ("compute capability", lambda: _set_cc(gpu, nvml.compute_capability(i))),
        ("memory", lambda: _set_memory(gpu, nvml.memory(i))),
        ("UUID", lambda: setattr(gpu, "uuid", nvml.uuid(i))),
        ("PCI bus id", lambda: setattr(gpu, "pci_bus_id", nvml.pci_bus_id(i))),
    ]
    for label, read in readers:
        try:
            read()
        except NvmlError as exc:
            if exc.kind is ErrorKind.GPU_LOST:
                ctx.note("probe.gpu_lost", index=i)
                break
            ctx.note("probe.field_unavailable", field=f"GPU {i} {label}", detail=exc.detail)
    return gpu


def _set_cc(gpu: GpuInfo, cc: tuple[int, int]) -> None:
    gpu.compute_capability = f"{cc[0]}.{cc[1]}"


def _set_memory(gpu: GpuInfo, mem: tuple[int, int]) -> None:
    gpu.memory_mib = mem[1] // (1024 * 1024)


# ---- layer 2: nvidia-smi --------------------------------------------------------
def _smi_command(ctx: ProbeContext) -> str:
    wsl_smi = f"{WSL_LIB}/nvidia-smi"
    return wsl_smi if ctx.system.exists(wsl_smi) else "nvidia-smi"


def parse_smi_csv(text: str) -> list[GpuInfo]:
    """Rows of SMI_FIELDS; odd rows (warnings, [N/A], short lines) are skipped or kept partial."""
    gpus: list[GpuInfo] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) < 2 or not cells[0].isdigit():
            continue
        gpu = GpuInfo(index=int(cells[0]), name=cells[1] or "unknown")
        if len(cells) > 2 and re.fullmatch(r"[0-9]+\.[0-9]+", cells[2]):
            gpu.compute_capability = cells[2]
        if len(cells) > 3 and cells[3].isdigit():
            gpu.memory_mib = int(cells[3])
        if len(cells) > 4 and cells[4].startswith("GPU-"):
            gpu.uuid = cells[4]
        if len(cells) > 5 and cells[5] and "N/A" not in cells[5]:
            gpu.pci_bus_id = cells[5]
        gpus.append(gpu)
    return gpus


def _from_smi(ctx: ProbeContext, profile: MachineProfile) -> bool:
    smi = _smi_command(ctx)
    result = ctx.system.run([smi, f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits"], timeout=5.0)
    if result.missing:
        return False
    if result.timed_out:
        ctx.note("probe.smi_timeout")
        return False
    if not result.ok:
        # Old drivers do not know compute_cap; ask again without it.
        fields = SMI_FIELDS.replace("compute_cap,", "")
        result = ctx.system.run([smi, f"--query-gpu={fields}", "--format=csv,noheader,nounits"], timeout=5.0)
        if not result.ok:
            first = (result.stdout or result.stderr).strip().splitlines()[:1]
            ctx.note("probe.smi_failed", detail=first[0] if first else f"exit {result.returncode}")
            return False
        rows = [line.split(",") for line in result.stdout.splitlines()]
        text = "\n".join(",".join([*r[:2], "", *r[2:]]) for r in rows)
    else:
        text = result.stdout
    gpus = parse_smi_csv(text)
    driver_version = ""
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 7 and re.fullmatch(r"[0-9]+(\.[0-9]+)+", cells[6]):
            driver_version = cells[6]
            break
    if not gpus and not driver_version:
        return False
    profile.driver = DriverInfo(version=driver_version or "unknown", source="nvidia-smi")
    header = ctx.system.run([smi], timeout=5.0)
    match = re.search(r"CUDA Version:\s*([0-9]+\.[0-9]+)", header.stdout) if header.ok else None
    if match:
        profile.driver.cuda = match.group(1)
    profile.gpus = gpus
    return True


# ---- layer 3: /proc/driver/nvidia/version ----------------------------------------
def parse_proc_version(text: str) -> str | None:
    match = re.search(r"Kernel Module(?: for \S+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?)", text)
    return match.group(1) if match else None


def _from_proc(ctx: ProbeContext, profile: MachineProfile) -> bool:
    text = ctx.system.read_text("/proc/driver/nvidia/version")
    version = parse_proc_version(text) if text else None
    if not version:
        return False
    profile.driver = DriverInfo(version=version, source="proc")
    ctx.note("probe.proc_only")
    return True


# ---- layer 4: the PCI bus -----------------------------------------------------
def count_pci_gpus(ctx: ProbeContext) -> int:
    count = 0
    for dev in ctx.system.listdir("/sys/bus/pci/devices"):
        base = f"/sys/bus/pci/devices/{dev}"
        vendor = (ctx.system.read_text(f"{base}/vendor") or "").strip().lower()
        klass = (ctx.system.read_text(f"{base}/class") or "").strip().lower()
        # 0x03xxxx: display controllers (VGA 0x0300, 3D 0x0302); skip NVIDIA audio/USB functions.
        if vendor == NVIDIA_VENDOR and klass.startswith("0x03"):
            count += 1
    return count


def probe_nvidia(ctx: ProbeContext, profile: MachineProfile) -> str:
    if profile.platform == "macos":
        profile.nvidia_pci_devices = 0
        return "none"
    if profile.platform in ("linux", "unknown"):
        profile.nvidia_pci_devices = count_pci_gpus(ctx)
    layer = "none"
    for name, fn in (("nvml", _from_nvml), ("nvidia-smi", _from_smi), ("proc", _from_proc)):
        if fn(ctx, profile):
            layer = name
            break
    if layer == "none" and profile.nvidia_pci_devices:
        layer = "pci"
    if profile.driver is None:
        if profile.nvidia_pci_devices:
            ctx.note("probe.gpu_without_driver", count=profile.nvidia_pci_devices)
        elif profile.platform == "wsl2":
            ctx.note("probe.no_driver_wsl2")
        else:
            ctx.note("probe.no_driver")
    elif not profile.gpus and layer in ("nvml", "nvidia-smi"):
        ctx.note("probe.driver_no_gpus")
    return layer
