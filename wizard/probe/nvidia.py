"""NVIDIA driver and GPUs, in layers: NVML, then nvidia-smi, then /proc, then the PCI bus.

The first layer that answers fills `profile.driver` and `profile.gpus`; the PCI
bus is always counted, so a machine with a GPU but no driver is recognised.
`profile.probe_layers["nvidia"]` records which layer answered.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from wizard.nvml import ErrorKind, NvmlBackend, NvmlError, cuda_version_text
from wizard.probe.api_mismatch import api_mismatch
from wizard.probe.container_cli import CONTAINER_CLI_INFO, parse_container_cli_info
from wizard.probe.container_marks import CONTAINER_MARKERS
from wizard.probe.context import ProbeContext
from wizard.probe.failure_words import DEVICE_HANDLE
from wizard.probe.kernel_log import kernel_log_text, loaded_module_line
from wizard.probe.os_platform import WSL_LIB
from wizard.probe.pci_cc import fill_cc
from wizard.probe.pci_gpus import read_pci_gpus
from wizard.probe.smi_formats import parse_smi_list, parse_smi_version, parse_smi_xml
from wizard.profile import DriverInfo, GpuInfo, MachineProfile
from wizard.sysio import CommandResult

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
        ctx.seen["nvml"] = {"kind": "timeout", "detail": f"no answer in {ctx.nvml_timeout} s"}
        return False
    except NvmlError as exc:
        ctx.seen["nvml"] = {"kind": exc.kind.value, "detail": exc.detail}
        if exc.kind in (ErrorKind.LIBRARY_NOT_FOUND, ErrorKind.DRIVER_NOT_LOADED):
            if profile.platform == "wsl2" and ctx.system.exists(f"{WSL_LIB}/libnvidia-ml.so.1"):
                ctx.note("probe.nvml_wsl_lib_present", detail=exc.detail)
        else:
            ctx.note("probe.nvml_failed", detail=exc.detail)
        return False
    ctx.seen["nvml"] = {"kind": "works", "detail": ""}
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
                ctx.seen.setdefault("gpu_lost", []).append(
                    {"index": i, "bus": gpu.pci_bus_id or "", "line": exc.detail}
                )
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


# A GPU the driver holds that no longer answers ("GPU is lost", "Unknown Error"); "Not Found" is a
# GPU the loaded driver could not open at all (states: gpu-init-failed), not one lost.
LOST_ROW = re.compile(DEVICE_HANDLE + r"\s*([0-9A-Fa-f:.]+):\s*(?!Not Found)(.+)")
# R610 renamed the header's fields: "KMD Version" and "CUDA UMD Version" (NVIDIA's nvidia-smi docs).
HEADER_DRIVER = re.compile(r"(?:Driver|KMD) Version:\s*([0-9]+(?:\.[0-9]+)+)")
# A Jetson's integrated GPU (Tegra: "Orin (nvgpu)", L4T r36+) is on no PCI bus: nvidia-smi prints
# "N/A" in its Bus-Id cell, and the row is still one GPU.
TABLE_ROW = re.compile(  # a pasted table may be indented as a whole, its spacing or outer "|" lost
    r"^\s*\|?\s*([0-9]+)\s+([^|]+?)\s+(?:On|Off|WDDM|TCC|N/A)\s*\|\s*"
    r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9]|N/A(?=\s|\|))"
)
SMI_BANNER = re.compile(r"NVIDIA-SMI\s+[0-9]+(?:\.[0-9]+)+")
HEADER_CUDA = re.compile(r"CUDA (?:UMD )?Version\s*:\s*(\S+)")


def smi_lines(*results: CommandResult) -> list[str]:
    return [
        line.rstrip() for r in results for line in (r.stdout + "\n" + r.stderr).splitlines() if line.strip()
    ]


def _table_rows(text: str) -> Iterator[tuple[re.Match[str], str, str]]:
    """Each GPU's first row in nvidia-smi's plain table: its match, the row, and the readings row below."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if m := TABLE_ROW.match(line):
            yield m, line, lines[n + 1] if n + 1 < len(lines) else ""


def parse_smi_table(text: str) -> list[GpuInfo]:
    """The GPUs of nvidia-smi's plain table (what a person pastes, and what old drivers print when
    the query fails): index, name (cut with "..." where the column is narrow), bus id, memory."""
    gpus: list[GpuInfo] = []
    for m, _, below in _table_rows(text):
        bus = m.group(3) if m.group(3) != "N/A" else None
        gpu = GpuInfo(index=int(m.group(1)), name=m.group(2).strip(), pci_bus_id=bus)
        mem = re.search(r"([0-9]+)Mi?B\s*/\s*([0-9]+)Mi?B", below)
        if mem:
            gpu.memory_mib = int(mem.group(2))
        gpus.append(gpu)
    return gpus


# The table's second row of a GPU whose temperature and performance state nvidia-smi could not read
# ("|ERR!  ERR! ERR!    ERR! / ERR! |"): NVML answered an error for its sensors, while the name may
# still show. A fan alone may read ERR! on a working card (a fan that reports no speed): not that.
ERR_READINGS = re.compile(r"^\s*\|?\s*(?:ERR!|N/A|[0-9]+%)\s+ERR!\s+ERR!\s")


def err_rows(text: str) -> dict[int, str]:
    """Each GPU of nvidia-smi's table whose readings row shows ERR! for temperature and performance:
    its index -> that GPU's first row and the readings row, as printed."""
    return {
        int(m.group(1)): f"{line.strip()} {below.strip()}"[:1000]
        for m, line, below in _table_rows(text)
        if ERR_READINGS.match(below)
    }


REPORT_DRIVER = re.compile(r"^\s*(?:Driver|KMD) Version\s*:\s*([0-9]+(?:\.[0-9]+)+)\s*$", re.MULTILINE)
REPORT_GPU = re.compile(r"^\s*GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9])\s*$")
# The report's own count: a paste cut after the first GPU's block still says how many are attached.
REPORT_ATTACHED = re.compile(r"^\s*Attached GPUs\s*:\s*([0-9]{1,3})\s*$", re.MULTILINE)


def attached_gpus(gpus: list[GpuInfo], attached: int) -> list[GpuInfo]:
    """The GPUs read, then one unnamed GPU for each the report counts but does not show."""
    return [*gpus, *(GpuInfo(index=i) for i in range(len(gpus), attached))]


def parse_smi_report(text: str) -> tuple[str, list[GpuInfo]]:
    """`nvidia-smi -q`: the driver version and each GPU's bus id and product name."""
    found = REPORT_DRIVER.search(text)
    gpus: list[GpuInfo] = []
    for line in text.splitlines():
        if m := REPORT_GPU.match(line):
            gpus.append(GpuInfo(index=len(gpus), pci_bus_id=m.group(1)))
        elif (
            gpus
            and (name := re.match(r"^\s+Product Name\s*:\s*(.+?)\s*$", line))
            and gpus[-1].name == "unknown"
        ):
            gpus[-1].name = name.group(1)
    attached = REPORT_ATTACHED.search(text)
    if attached and (found or gpus):
        gpus = attached_gpus(gpus, int(attached.group(1)))
    return (found.group(1) if found else ""), gpus


# Fields every nvidia-smi's --query-gpu knows (compute_cap came with R510, the uuid is not in every
# paste): asked last, where neither the query, the table nor the reports answered (a pasted
# `--query-gpu` of other fields holds these; on a live machine nvidia-smi is missing by then).
NAME_BUS_DRIVER = "name,pci.bus_id,driver_version"
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)+")


def parse_name_bus_driver(text: str) -> tuple[str, list[GpuInfo]]:
    """Rows of NAME_BUS_DRIVER (one per GPU, in index order: nvidia-smi's query without --id lists
    every GPU by index): the driver's version and each GPU's name and bus id."""
    driver = ""
    gpus: list[GpuInfo] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != 3 or not _VERSION.fullmatch(cells[2]) or not cells[0]:
            continue
        driver = driver or cells[2]
        bus = cells[1] if "N/A" not in cells[1] else None
        gpus.append(GpuInfo(index=len(gpus), name=cells[0], pci_bus_id=bus))
    return driver, gpus


def _from_smi(ctx: ProbeContext, profile: MachineProfile) -> bool:
    smi = _smi_command(ctx)
    argv = [smi, f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits"]
    result = ctx.system.run(argv, timeout=5.0)
    if result.timed_out:
        ctx.seen["smi_query"] = (argv, result)
        ctx.note("probe.smi_timeout")
        return False
    if not result.missing:
        ctx.seen["smi_query"] = (argv, result)
    text = result.stdout
    # A lost GPU makes the exit non-zero while the other rows are whole: keep the rows.
    if not result.missing and not result.ok and not parse_smi_csv(text):
        # Old drivers do not know compute_cap; ask again without it.
        fields = SMI_FIELDS.replace("compute_cap,", "")
        argv2 = [smi, f"--query-gpu={fields}", "--format=csv,noheader,nounits"]
        again = ctx.system.run(argv2, timeout=5.0)
        if again.ok or parse_smi_csv(again.stdout):
            ctx.seen["smi_query"] = (argv2, again)
            result = again
            rows = [line.split(",") for line in again.stdout.splitlines()]
            text = "\n".join(",".join([*r[:2], "", *r[2:]]) for r in rows)
    header_argv = [smi]
    header = ctx.system.run(header_argv, timeout=5.0)
    if result.missing and header.missing:
        # Neither answered (a dump of a pasted `nvidia-smi -q`): the long report, else no nvidia-smi.
        header_argv = [smi, "-q"]
        header = ctx.system.run(header_argv, timeout=10.0)
        # then the XML report, the GPU list, the fields every query knows
        for other in (
            [smi, "-q", "-x"],
            [smi, "-L"],
            [smi, f"--query-gpu={NAME_BUS_DRIVER}", "--format=csv,noheader"],
            [smi, "--version"],
        ):
            if not header.missing:
                break
            header_argv, header = other, ctx.system.run(other, timeout=10.0)
        if header.missing:
            ctx.seen["smi_missing"] = argv
            return False
    ctx.seen["smi"] = (header_argv, header)
    lines = smi_lines(result, header)
    lost: dict[str, str] = {}
    for line in lines:  # the query and the table both print it: one row per bus id
        if (m := LOST_ROW.search(line)) and m.group(1) not in lost:
            lost[m.group(1)] = line.strip()
    ctx.seen["gpu_lost_rows"] = [{"bus": bus, "line": line} for bus, line in lost.items()]
    table = parse_smi_table(header.stdout)
    ctx.seen["gpu_err_rows"] = err_rows(header.stdout)
    gpus = parse_smi_csv(text) or table
    driver_version = ""
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 7 and re.fullmatch(r"[0-9]+(\.[0-9]+)+", cells[6]):
            driver_version = cells[6]
            break
    head_driver = next((m.group(1) for line in smi_lines(header) if (m := HEADER_DRIVER.search(line))), "")
    # nvidia-smi prints its banner ("NVIDIA-SMI X  Driver Version: X  CUDA Version: Y") only after
    # NVML started and read the driver: the banner alone shows a working driver, whatever followed
    # it (a paste cut after the header, a wrapper library's log lines between the table's).
    banner = head_driver and any(
        SMI_BANNER.search(line) and HEADER_DRIVER.search(line) for line in smi_lines(header)
    )
    report_driver, report_cuda = "", ""
    if header_argv == [smi, "-q", "-x"]:
        report_driver, report_cuda, gpus = parse_smi_xml(header.stdout)
        head_driver = report_driver
    elif header_argv == [smi, "-L"]:
        gpus = parse_smi_list(header.stdout)
    elif header_argv[1:2] == [f"--query-gpu={NAME_BUS_DRIVER}"]:
        driver_version, gpus = parse_name_bus_driver(header.stdout)
    elif header_argv == [smi, "-q"]:
        report_driver, report_gpus = parse_smi_report(header.stdout)
        head_driver, gpus = report_driver or head_driver, gpus or report_gpus
    elif header_argv == [smi, "--version"]:
        report_driver, report_cuda = parse_smi_version(header.stdout)
        head_driver = report_driver
    elif not gpus and not driver_version and not (head_driver and (header.ok or table or banner)):
        # The long report (nvidia-bug-report.sh collects it) where neither the query nor the table
        # gave a driver: its "Driver Version : X" lines are read, its errors change nothing.
        report = ctx.system.run([smi, "-q"], timeout=10.0)
        report_driver, report_gpus = parse_smi_report(report.stdout)
        if report_driver:
            ctx.seen["smi"] = ([smi, "-q"], report)
            header, head_driver, gpus = report, report_driver, report_gpus
    if (
        not gpus
        and not driver_version
        and not (head_driver and (header.ok or table or report_driver or banner))
    ):
        first = lines[:1]
        said = " ".join(lines).lower()
        # Known failures get a worded note (read in the user's language); the whole line stays in
        # the machine states' evidence.
        if "couldn't communicate with the nvidia driver" in said:
            ctx.note("probe.smi_no_driver")
        elif "driver/library version mismatch" in said:
            ctx.note("probe.smi_mismatch")
        else:
            ctx.note("probe.smi_failed", detail=first[0] if first else f"exit {result.returncode}")
            # NVML started and counted no GPU: the driver is loaded (the GPU layer's state says why).
            ctx.seen["smi_no_devices"] = "no devices were found" in said
            # NVML_ERROR_UNKNOWN as it starts: its library is installed and loaded, whatever stops it.
            ctx.seen["smi_nvml_unknown"] = "failed to initialize nvml: unknown error" in said
        return False
    if header_argv == [smi, "-L"] and not (driver_version or head_driver):
        # The GPU list names no driver: `--version` says it and its CUDA, where it answered.
        version = ctx.system.run([smi, "--version"], timeout=5.0)
        if not version.missing and not version.timed_out:
            head_driver, report_cuda = parse_smi_version(version.stdout)
    if not gpus and header_argv == [smi] and banner:
        # A table with its banner and no GPU row (cut where it was pasted): the GPU list says them.
        listed = ctx.system.run([smi, "-L"], timeout=5.0)
        gpus = parse_smi_list(listed.stdout) if not listed.missing and not listed.timed_out else []
    profile.driver = DriverInfo(version=driver_version or head_driver or "unknown", source="nvidia-smi")
    if re.fullmatch(r"[0-9]+\.[0-9]+", report_cuda):
        profile.driver.cuda = report_cuda
    for line in smi_lines(header):
        match = HEADER_CUDA.search(line)
        if not match:
            continue
        value = match.group(1)
        if re.fullmatch(r"[0-9]+\.[0-9]+", value):
            profile.driver.cuda = value
        else:  # "ERR!", "N/A": CUDA is broken behind a working nvidia-smi; kept, never derived
            ctx.seen["smi_cuda"] = {"value": value, "line": line.strip(" |")}
        break
    profile.gpus = gpus
    return True


# ---- layer 3: /proc/driver/nvidia/version ----------------------------------------
def parse_proc_version(text: str) -> str | None:
    match = re.search(r"Kernel Module(?: for \S+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?)", text)
    return match.group(1) if match else None


# The loaded module's version as sysfs prints it ("396.24", "570.133.07").
_SYSFS_VERSION = re.compile(r"[0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?")


def _from_proc(ctx: ProbeContext, profile: MachineProfile) -> bool:
    text = ctx.system.read_text("/proc/driver/nvidia/version")
    version = parse_proc_version(text) if text else None
    if version:
        profile.driver = DriverInfo(version=version, source="proc")
        ctx.note("probe.proc_only")
        return True
    # The module's own sysfs file, there while it is loaded (a /proc hidden or not mounted: a
    # sandbox, a container that masks /proc/driver): the same answer, the module's version.
    loaded = (ctx.system.read_text("/sys/module/nvidia/version") or "").strip()
    if profile.platform not in ("linux", "unknown") or not _SYSFS_VERSION.fullmatch(loaded):
        return False
    profile.driver = DriverInfo(version=loaded, source="sysfs")
    ctx.note("probe.sysfs_only", version=loaded)
    return True


def _from_kernel_log(ctx: ProbeContext, profile: MachineProfile) -> bool:
    """Nothing else answered (a pasted log, no nvidia-smi): NVRM's loading line in this boot's
    kernel log names the module's version, while /proc/modules does not say it is gone since."""
    if profile.platform != "linux":
        return False
    if not profile.nvidia_pci_devices and ctx.system.is_dir("/sys/bus/pci/devices"):
        return False
    modules = ctx.system.read_text("/proc/modules")
    if modules is not None and "nvidia" not in {
        line.split()[0] for line in modules.splitlines() if line.strip()
    }:
        return False
    found = loaded_module_line(kernel_log_text(ctx))
    if not found and (said := api_mismatch(ctx)):
        # The loaded module's own "API mismatch" message names its version (wizard.probe.api_mismatch).
        profile.driver = DriverInfo(version=said.module, source="kernel-log")
        ctx.note("probe.kernel_log_mismatch_only", version=said.module, source=said.source)
        return True
    if not found:
        return False
    profile.driver = DriverInfo(version=found[1], source="kernel-log")
    ctx.note("probe.kernel_log_only", version=found[1])
    return True


def _from_container_cli(ctx: ProbeContext, profile: MachineProfile) -> bool:
    """Neither NVML here nor nvidia-smi answered: the container toolkit's read-only `info`, where it
    is installed, reads NVML on its own (its driver, CUDA and GPUs)."""
    if profile.platform not in ("linux", "unknown"):
        return False
    result = ctx.system.run(CONTAINER_CLI_INFO, timeout=5.0)
    if result.missing or result.timed_out:
        return False
    found = parse_container_cli_info(result.stdout)
    ctx.seen["container_cli"] = (CONTAINER_CLI_INFO, result)  # its error words are evidence too
    if found is None:
        return False
    profile.driver, profile.gpus = found
    return True


# ---- layer 4: the PCI bus (wizard.probe.pci_gpus), read whether a layer above answers or not ---
def probe_nvidia(ctx: ProbeContext, profile: MachineProfile) -> str:
    if profile.platform == "macos":
        profile.nvidia_pci_devices = 0
        return "none"
    if profile.platform in ("linux", "unknown"):
        # Each GPU with its device id, so a driver that does not answer still leaves its name and CC.
        profile.pci_gpus = read_pci_gpus(ctx)
        profile.nvidia_pci_devices = len(profile.pci_gpus)
    layer = "none"
    for name, fn in (
        ("nvml", _from_nvml),
        ("nvidia-smi", _from_smi),
        ("nvidia-container-cli", _from_container_cli),
        ("proc", _from_proc),
        ("kernel-log", _from_kernel_log),
    ):
        if fn(ctx, profile):
            layer = name
            break
    if layer == "none" and profile.nvidia_pci_devices:
        layer = "pci"
    if profile.driver is not None and profile.driver.version == "unknown":
        # nvidia-smi answered without a version (its GPU list prints none): the loaded module's
        # version file names the driver.
        profile.driver.version = (
            parse_proc_version(ctx.system.read_text("/proc/driver/nvidia/version") or "") or "unknown"
        )
    fill_cc(ctx, profile)  # drivers before R510 do not report it: the PCI device id does
    if profile.driver is None:
        if profile.nvidia_pci_devices:
            ctx.note("probe.gpu_without_driver", count=profile.nvidia_pci_devices)
        elif ctx.seen.get("smi_no_devices"):
            ctx.note("probe.driver_no_gpus")  # loaded, not missing: never "no driver" here
        elif ctx.seen.get("smi_nvml_unknown"):
            ctx.note("probe.driver_nvml_unknown")  # installed, not missing: never "no driver" here
        elif profile.platform == "wsl2" and not any(ctx.system.exists(f) for f in CONTAINER_MARKERS):
            # Inside a container the runtime, not the Windows driver, decides (states: the container).
            ctx.note("probe.no_driver_wsl2")
        else:
            ctx.note("probe.no_driver")
    elif not profile.gpus and layer in ("nvml", "nvidia-smi", "nvidia-container-cli"):
        ctx.note("probe.driver_no_gpus")
    return layer
