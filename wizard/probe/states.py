"""Each layer of the GPU stack as a state with its evidence: the probe's last word on the driver.

The parts before this one read the machine (NVML, nvidia-smi, /proc, /sys, the library folders)
and left their raw answers in `ctx.seen`; this part judges them, layer by layer, into
`profile.states` (wizard.profile.LayerState). A failure is a value with the line that shows it
(both versions of a mismatch, the lost GPU's bus id, `CUDA Version: ERR!`), never a gap. A cause is
named only where the evidence decides it; otherwise the layer says only what failed.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TypeVar

from wizard.nvml import ErrorKind
from wizard.probe.api_mismatch import api_mismatch
from wizard.probe.build_logs import (
    DKMS_MODULE,
    DKMS_STATUS,
    build_version,
    failed_build_of_unread_kernel,
    failed_module_build,
)
from wizard.probe.container_marks import CONTAINER_CGROUP, host_only, in_container, nvml_opened_a_node
from wizard.probe.context import ProbeContext, command_evidence, file_evidence
from wizard.probe.cuda import LIB_DIRS
from wizard.probe.failure_words import (
    DEVICE_HANDLE,
    ERR_NAME,
    INIT_FAILED,
    MODULE_NOT_FOUND,
    NO_MODULE_LOADING,
    NO_PERMISSION,
    NOUVEAU_BOUND,
    UNREACHABLE,
    WINDOWS_SMI,
    bbswitch_off,
    failed_gpus,
    fallen_off_bus,
    first_line,
    join_nvrm,
    kernel_line_for,
    named_bus,
    saved_log_line,
    unreachable_gpu_reason,
)
from wizard.probe.hybrid_mode import integrated_mode
from wizard.probe.kernel_log import kernel_evidence, kernel_log_text
from wizard.probe.legacy_gpu import ignored_gpu
from wizard.probe.libcuda_cache import uncached_libcuda
from wizard.probe.open_module import OpenRefusal, open_module_refusal
from wizard.probe.os_platform import WSL_LIB
from wizard.probe.pci_gpus import LSPCI_ARGV
from wizard.probe.unsupported_gpu import RefusedGpu, newer_driver_needed, refused_gpu
from wizard.probe.wsl_files import (
    COMPUTE_LIBS,
    UTILITY_LIBS,
    first_in_lib_dirs,
    linux_driver_libraries,
    windows_folder_without_nvidia,
)
from wizard.profile import (
    ABSENT,
    BLOCKED,
    FAILING,
    MODULE_ONLY_SOURCES,
    UNREADABLE,
    WORKS,
    Evidence,
    LayerState,
    MachineProfile,
)
from wizard.sysio import CommandResult

# A kernel-log message read into a record that keeps its first line (RefusedGpu, OpenRefusal).
_Said = TypeVar("_Said", RefusedGpu, OpenRefusal)
_VERSION = re.compile(r"\.so\.([0-9]+\.[0-9]+(?:\.[0-9]+)?)$")
_MISMATCH_LIB = re.compile(r"NVML library version:\s*([0-9]+(?:\.[0-9]+)+)")
# The kernel refusing the module's signature. Not "module verification failed ... tainting kernel":
# that is the non-enforcing warning printed as the unsigned module loads.
# The kernel's own line (module_sig_check) names the reason: "unsigned module", "module with
# unavailable key" (a DKMS module signed with a MOK not enrolled), "module with unsupported crypto".
_DMESG_SIGNATURE = re.compile(
    r"Key was rejected by service|Lockdown:.*unsigned module|"
    r"Loading of (?:unsigned module|module with unavailable key|module with unsupported crypto) is rejected|"
    r"Required key not available",
    re.IGNORECASE,
)
# modprobe's own error for the nvidia modules, as the program that ran it logged it to the journal
# (gdm3, systemd-modules-load, a udev worker): "modprobe: ERROR: could not insert 'nvidia': Key was
# rejected by service". The kernel logs no line of its own for a rejected key.
_MODPROBE_REJECTED = re.compile(
    r"could not insert (?:module )?'?[^\s':]*nvidia[a-z_-]*(?:\.ko(?:\.[a-z]+)?)?'?: "
    r"(?:Key was rejected by service|Required key not available)",
    re.IGNORECASE,
)
# The module on disk was built for another kernel: the kernel's module loader (kernel/module/main.c
# "%s: version magic '%s' should be '%s'", kernel/module/version.c "%s: disagrees about version of
# symbol %s") or modprobe's strerror(ENOEXEC) as the program that ran it logged it ("modprobe: ERROR:
# could not insert 'nvidia': Exec format error", kmod tools/modprobe.c:637; insmod's own words,
# tools/insmod.c mod_strerror: "Invalid module format", "Module has wrong symbol version").
_BUILT_FOR_ANOTHER_KERNEL = re.compile(
    r"\bnvidia[a-z_-]*: (?:version magic '[^']*' should be|disagrees about version of symbol)|"
    r"could not insert (?:module )?'?[^\s':]*nvidia[a-z_-]*(?:\.ko(?:\.[a-z]+)?)?'?: "
    r"(?:Exec format error|Invalid module format|Module has wrong symbol version)",
)
# modprobe's EPERM from init_module, as the program that ran it logged it this boot: the module file
# is there (modprobe found it to insert) and the kernel did not load it: kernel lockdown refusing an
# unsigned module, module loading switched off, or modprobe run without root. Not loaded, whichever.
_INSERT_NOT_PERMITTED = re.compile(
    r"could not insert (?:module )?'?[^\s':]*nvidia[a-z_-]*(?:\.ko(?:\.[a-z]+)?)?'?: Operation not permitted",
    re.IGNORECASE,
)
# `dkms status` (dkms.in do_status): "nvidia/535.183.01: added", "nvidia/535.183.01, 6.8.0-45-generic,
# x86_64: installed" (and "built", "installed-weak from K"); dkms 2.x writes "nvidia, 470.57.02, ...".
_DKMS_LINE = re.compile(
    rf"^({DKMS_MODULE})[/,]\s*([0-9]+(?:\.[0-9]+)+)"
    r"(?:,\s*([^,\s]+),\s*([^:\s]+))?:\s*([a-z-]+)"
)
# This boot's journal, only the lines that name nvidia (journalctl's --grep is case-insensitive for a
# lower-case pattern), the last few hundred, without host names: bounded in time and size, and the
# dump keeps no more of the user's journal than that.
BOOT_JOURNAL = ["journalctl", "-b", "-q", "--no-pager", "-o", "cat", "-n", "400", "-g", "nvidia"]
# The GPU did not start. Not "NVRM: GPU ...: GPU has fallen off the bus": that GPU is lost
# (failure_words.fallen_off_bus), whether it ever started or not.
_DMESG_INIT = INIT_FAILED
# nvidia-smi where the loaded module could not start or open the GPU it was given.
_NOT_STARTED = re.compile(r"No devices were found|" + DEVICE_HANDLE + r"\s*\S+:\s*Not Found", re.IGNORECASE)
_NOT_PROBED = re.compile(r"NVIDIA probe routine was not called")
# The module's init giving up after it: no GPU left to drive, it does not load (-ENODEV).
_NONE_PROBED = re.compile(r"NVRM: No NVIDIA (?:graphics adapter|devices) probed")
# A GPU this driver does not drive (osapi.c print_unsupported and the open module's GSP message),
# continued on NVRM: lines (joined first).
_UNSUPPORTED = re.compile(
    r"NVRM: The NVIDIA v?GPU \S+ \(PCI ID: [0-9a-fA-F:]+\) installed in this (?:vGPU host )?system is "
    r"not supported by (?:the NVIDIA \S+ driver release|open nvidia\.ko(?: because it does not include the "
    r"required GPU System Processor \(GSP\))?)\."
)
# The module's init giving up (kernel-open/nvidia/nv.c nvidia_init_module: "No NVIDIA GPU found."
# with no GPU on the bus for it, "No NVIDIA devices probed." after its probe took none, "failed to
# initialize module."): it is not loaded unless a later "NVRM: loading" line (printed last, on
# success) shows a later load.
_INIT_GAVE_UP = re.compile(
    r"NVRM: (?:No NVIDIA GPU found|No NVIDIA (?:graphics adapter|devices) probed|failed to initialize module)"
)
_LOADING = re.compile(r"NVRM: loading NVIDIA UNIX")
# A shell that looked for nvidia-smi on its PATH: bash "nvidia-smi: command not found", zsh
# "command not found: nvidia-smi", sudo "sudo: nvidia-smi: command not found".
_NOT_ON_PATH = re.compile(r"nvidia-smi: command not found|command not found: nvidia-smi")
_DRIVER_NOT_LOADED = re.compile(
    r"NVML: Driver Not Loaded|NVMLError_DriverNotLoaded|nvml error: driver not loaded", re.IGNORECASE
)
_BLOCKED_WORDS = "GPU access blocked by the operating system"
# NVML_ERROR_OPERATING_SYSTEM as nvidia-ml-py words it itself (pynvml.py NVMLError._errcode_to_string),
# in NVML's detail and in a Python program's traceback.
_BLOCKED_PYNVML = "The operating system has blocked the request"


def _state(
    layer: str,
    state: str,
    reason: str = "",
    evidence: list[Evidence] | None = None,
    *,
    blocks: bool = True,
    index: int | None = None,
    **facts: str,
) -> LayerState:
    return LayerState(
        layer=layer,
        state=state,
        reason=reason,
        facts={k: str(v) for k, v in facts.items() if v not in (None, "")},
        evidence=list(evidence or []),
        index=index,
        blocks=blocks,
    )


def _seen_command(ctx: ProbeContext, key: str) -> tuple[list[str], CommandResult] | None:
    found = ctx.seen.get(key)
    return found if isinstance(found, tuple) else None


def _smi_failure_lines(ctx: ProbeContext) -> list[Evidence]:
    out = []
    for key in ("smi_query", "smi"):
        found = _seen_command(ctx, key)
        if found and not found[1].ok and not found[1].missing:
            out.append(command_evidence(found[0], found[1]))
    return out


def _smi_text(ctx: ProbeContext) -> str:
    parts = []
    for key in ("smi_query", "smi"):
        found = _seen_command(ctx, key)
        if found:
            parts.append(found[1].stdout + "\n" + found[1].stderr)
    return "\n".join(parts)


def _line_with(text: str, pattern: re.Pattern[str] | str) -> str:
    for line in text.splitlines():
        hit = pattern.search(line) if isinstance(pattern, re.Pattern) else pattern in line
        if hit:
            return line.strip()
    return ""


def _seen_evidence(ctx: ProbeContext, key: str) -> list[Evidence]:
    found = _seen_command(ctx, key)
    return [command_evidence(found[0], found[1])] if found else []


def _log_ev(ctx: ProbeContext, line: str) -> list[Evidence]:
    """This boot's kernel line as evidence (dmesg, the journal, or a saved log's last boot)."""
    return kernel_evidence(ctx, line)


def _boot_journal(ctx: ProbeContext) -> tuple[list[str], CommandResult] | None:
    """This boot's journal lines naming nvidia, read once and only where the module did not load."""
    if "boot_journal" not in ctx.seen:
        ctx.seen["boot_journal"] = (BOOT_JOURNAL, ctx.system.run(BOOT_JOURNAL, timeout=5.0))
    return _seen_command(ctx, "boot_journal")


def _key_rejected(ctx: ProbeContext) -> Evidence | None:
    """The line that decides Secure Boot (module signature enforcement) refused the module: the
    kernel's own words in its log, else modprobe's error for the nvidia module in the boot journal."""
    return _kernel_or_journal(ctx, _DMESG_SIGNATURE, _MODPROBE_REJECTED)


def _kernel_or_journal(
    ctx: ProbeContext, kernel_words: re.Pattern[str], journal_words: re.Pattern[str]
) -> Evidence | None:
    """The kernel log's line with `kernel_words`, else this boot's journal's with `journal_words`."""
    said = _log_ev(ctx, _line_with(_kernel_log(ctx), kernel_words))
    if said:
        return said[0]
    journal = _boot_journal(ctx)
    if journal is None or journal[1].missing or journal[1].timed_out:
        return None
    line = _line_with(journal[1].stdout, journal_words)
    return command_evidence(journal[0], journal[1], line) if line else None


def _kernel_log(ctx: ProbeContext) -> str:
    return kernel_log_text(ctx)


def _smi_not_loaded(ctx: ProbeContext) -> str:
    """NVML_ERROR_DRIVER_NOT_LOADED in the words of the tool that met it: nvidia-smi's "couldn't
    communicate with the NVIDIA driver" (any apostrophe, any line break), NVML's own string
    ("Failed to initialize NVML: Driver Not Loaded"), nvidia-ml-py's NVMLError_DriverNotLoaded,
    nvidia-container-cli's "nvml error: driver not loaded"."""
    text = _smi_text(ctx)
    found = _seen_command(ctx, "container_cli")
    if found and not found[1].missing:
        text += "\n" + found[1].stdout + "\n" + found[1].stderr
    hit = re.search(r"couldn.t communicate with the NVIDIA driver", re.sub(r"\s+", " ", text), re.IGNORECASE)
    if hit:
        return _line_with(text, re.compile(r"couldn.t communicate", re.IGNORECASE))
    return _line_with(text, _DRIVER_NOT_LOADED)


def _library_versions(ctx: ProbeContext, name: str) -> dict[str, str]:
    """path -> version of each versioned copy of a driver library (libnvidia-ml.so.550.120)."""
    found: dict[str, str] = {}
    for d in LIB_DIRS:
        for path in ctx.system.glob(d, f"{name}.so.*"):
            m = _VERSION.search(path)
            if m and "/stubs/" not in path:
                found[path] = m.group(1)
    return found


# ---- the layers -------------------------------------------------------------------------
_in_container = in_container
_host_only = host_only


_DEVICES_LIST = "/sys/fs/cgroup/devices/devices.list"


def _cgroup_denies_nvidia(ctx: ProbeContext) -> str:
    """The cgroup v1 device list, where it allows no read-write open of the NVIDIA character devices
    (major 195); "" where it allows them or cannot be read (cgroup v2 keeps the rule in BPF)."""
    text = ctx.system.read_text(_DEVICES_LIST)
    if not text or not text.strip():
        return ""
    for line in text.splitlines():
        parts = line.split()
        if parts == ["a"] or (parts[:1] == ["a"] and len(parts) > 1 and "rw" in parts[-1]):
            return ""
        if len(parts) == 3 and parts[0] == "c" and "r" in parts[2] and "w" in parts[2]:
            major = parts[1].split(":")[0]
            if major in ("*", "195"):
                return ""
    return " ".join(text.split())[:1000]


def _container(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    marker = next((f for f in ("/.dockerenv", "/run/.containerenv") if ctx.system.exists(f)), "")
    cgroup = ctx.system.read_text("/proc/1/cgroup") or ""
    line = _line_with(cgroup, CONTAINER_CGROUP)
    if not marker and not line:
        return []
    ev = [file_evidence(marker, "present")] if marker else [file_evidence("/proc/1/cgroup", line)]
    # In WSL2 the runtime passes the GPU as /dev/dxg (there is no /dev/nvidiactl).
    device_path = next((d for d in _gpu_device_nodes(p) if ctx.system.exists(d)), "")
    left_out = _compute_libs_left_out(ctx, p, device_path)
    if left_out:
        return [_state("container", BLOCKED, "container-no-libs", [*ev, *left_out])]
    if p.driver is not None:
        return [_state("container", WORKS, "", ev)]
    # The driver's nodes as the paths show them, else NVML's words that it opened one (a GPU it
    # listed, a device handle it failed to get, an open refused): the GPU is passed in either way.
    opened = "" if device_path else nvml_opened_a_node(ctx)
    if not device_path and not opened and p.gpus:
        opened = f"{p.gpus[0].index}, {p.gpus[0].name}"
    node = (
        file_evidence(device_path, "present")
        if device_path
        else Evidence("nvidia-smi", _smi_exit(ctx), opened)
    )
    device = bool(device_path or opened)
    nvml = ctx.seen.get("nvml", {})
    mismatch = _line_with(_smi_text(ctx) + "\n" + str(nvml.get("detail", "")), "mismatch")
    if not device and mismatch:
        # NVML read the host module's version to find the mismatch: the GPU is passed in; the
        # libraries layer names what is wrong.
        return [_state("container", WORKS, "", [*ev, Evidence("nvidia-smi / nvmlInit", None, mismatch)])]
    if not device:
        ev.append(file_evidence("/dev/nvidiactl", "missing"))
        # Whether the host has a GPU cannot be seen from inside; an image made for one says it wants
        # it (nvidia/cuda images set these): then the GPU set with --gpus all, else a warning only.
        env = ctx.system.environ
        meant = [
            f"{k}={env[k]}"
            for k in ("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "CUDA_VERSION")
            if env.get(k)
        ]
        if meant:
            ev.append(Evidence("environment", None, " ".join(meant)[:1000]))
        return [_state("container", BLOCKED, "container-no-gpu", ev, blocks=bool(meant))]
    denied = _cgroup_denies_nvidia(ctx) if device_path else ""
    if denied:
        # The device nodes are here but the container's device cgroup (v1) lets no one open them
        # (a runtime reload that dropped the rules): NVML says only "Unknown Error".
        ev += [node, file_evidence(_DEVICES_LIST, denied)]
        ev += _smi_failure_lines(ctx)
        return [_state("container", BLOCKED, "no-permission", ev)]
    refused = first_line(_smi_text(ctx), NO_PERMISSION)
    if refused:  # NVML_ERROR_NO_PERMISSION: the nodes are here, this user may not open them
        ev += [node] if device_path else []
        ev.append(Evidence("nvidia-smi", _smi_exit(ctx), refused))
        return [_state("container", BLOCKED, "no-permission", ev)]
    # nvidia-smi's "Failed to initialize NVML: ..." or a device handle it failed to get shows the
    # library loaded, whatever NVML said here.
    smi_loaded_nvml = "failed to initialize nvml" in _smi_text(ctx).lower() or bool(nvml_opened_a_node(ctx))
    if nvml.get("kind") == ErrorKind.LIBRARY_NOT_FOUND.value and not smi_loaded_nvml:
        ev += [node, Evidence("nvmlInit", None, nvml.get("detail", ""))]
        return [_state("container", BLOCKED, "container-no-libs", ev)]
    return [_state("container", WORKS, "", ev if device_path else [*ev, node])]


def _gpu_device_nodes(p: MachineProfile) -> tuple[str, ...]:
    return (
        ("/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg")
        if p.platform == "wsl2"
        else ("/dev/nvidiactl", "/dev/nvidia0")
    )


def _compute_libs_left_out(ctx: ProbeContext, p: MachineProfile, device: str) -> list[Evidence]:
    """A container given the GPU and the runtime's utility libraries (libnvidia-ml.so.1) but no
    libcuda: its capabilities left "compute" out (wsl_files). The evidence, or [] where not shown."""
    if not device:
        return []
    utility = first_in_lib_dirs(ctx.system, UTILITY_LIBS)
    if not utility or first_in_lib_dirs(ctx.system, COMPUTE_LIBS) or p.libcuda:
        return []
    return [
        file_evidence(device, "present"),
        file_evidence(utility, "present"),
        file_evidence("libcuda.so.1", "missing"),
    ]


def _wsl(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    if p.platform == "linux" and (ctx.system.exists("/dev/dxg") or _windows_smi(ctx)):
        # A Hyper-V guest with GPU paravirtualisation (dxgkrnl), or the Windows driver's own nvidia-smi
        # where the platform was not read (a pasted output): Windows' answer decides, as in WSL.
        return _gpu_blocked(ctx) or _windows_driver_unreached(ctx, p)
    if p.platform != "wsl2":
        return []
    out: list[LayerState] = []
    if not ctx.system.exists("/dev/dxg"):
        out.append(_state("wsl", FAILING, "wsl-no-gpu-device", [file_evidence("/dev/dxg", "missing")]))
        return out + _wsl_shadow(ctx)
    libs = ctx.system.listdir(WSL_LIB)
    blocked = _gpu_blocked(ctx)
    # Only Windows' own folder, there and holding files, shows what Windows maps in; a container's
    # folders are its runtime's (the container layer says what it left out).
    decides = bool(windows_folder_without_nvidia(ctx.system)) and not _in_container(ctx)
    if "libcuda.so.1" not in libs and "libcuda.so" not in libs and not blocked and decides:
        # No Windows driver library mapped in. Not where something contradicts it: nvidia-smi's
        # "Failed to initialize NVML: ..." shows an NVML library loaded and answered (Windows' own
        # "GPU access blocked" is its own cause, said above), and an lspci that answered must show
        # the Basic Render device the state is named for.
        lspci = ["lspci"]
        result = ctx.system.run(lspci, timeout=3.0)
        line = _line_with(result.stdout, "Basic Render")
        nvml_answered = "failed to initialize nvml" in _smi_text(ctx).lower() and not _line_with(
            _smi_text(ctx), re.compile(r"NVML Shared Library Not Found", re.IGNORECASE)
        )
        lspci_denies = not result.missing and not result.timed_out and result.stdout.strip() and not line
        # sudo's "command not found" comes from a pasted run under sudo, whose PATH may lack the
        # folder (wsl-path): there the folder's listing alone does not decide, lspci's line must.
        under_sudo = bool(re.search(r"^sudo: \S*nvidia-smi: command not found", _smi_text(ctx), re.MULTILINE))
        if not nvml_answered and not lspci_denies and p.driver is None and (line or not under_sudo):
            ev = [file_evidence(WSL_LIB, " ".join(libs[:12]) or "empty")]
            if line:
                ev.append(command_evidence(lspci, result, line))
            out.append(_state("wsl", FAILING, "basic-render-only", ev))
            return out
    out += blocked
    out += _wsl_shadow(ctx)
    if not any(s.reason for s in out):
        out += _windows_driver_unreached(ctx, p)
    path_dirs = [d for d in ctx.system.environ.get("PATH", "").split(":") if d]
    if path_dirs and WSL_LIB not in path_dirs and "nvidia-smi" in libs:
        ev = [Evidence("PATH", None, ":".join(path_dirs)[:1000])]
        out.append(_state("wsl", FAILING, "wsl-path", ev, blocks=False))
    elif not path_dirs and "nvidia-smi" in libs:
        # PATH not recorded (a pasted output): the shell's own "command not found" for the
        # nvidia-smi that is in /usr/lib/wsl/lib says its PATH lacks that folder (sudo, SSH).
        said = _line_with(_smi_text(ctx), _NOT_ON_PATH)
        if said:
            ev = [file_evidence(f"{WSL_LIB}/nvidia-smi", "present"), Evidence("nvidia-smi", None, said)]
            out.append(_state("wsl", FAILING, "wsl-path", ev, blocks=False))
    return out


def _windows_smi(ctx: ProbeContext) -> str:
    """The Windows driver's nvidia-smi's own line (failure_words.WINDOWS_SMI), else ""."""
    return first_line(_smi_text(ctx), WINDOWS_SMI)


def _windows_driver_unreached(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    """WSL2's NVML_ERROR_DRIVER_NOT_LOADED ("couldn't communicate with the NVIDIA driver", "Driver Not
    Loaded"): the Windows driver was not reached through /dev/dxg. There is no Linux module to load or
    restart, and the words say no why (an elevated terminal, the way the distribution was started, a
    Windows driver update not finished are all seen): a failure with no cause named, and the reads
    that tell."""
    said = _smi_not_loaded(ctx) if p.driver is None else ""
    if not said:
        return []
    ev = [Evidence("nvidia-smi", _smi_exit(ctx), said)]
    windows = _windows_smi(ctx)
    if windows and windows != said:
        ev.append(Evidence("nvidia-smi", _smi_exit(ctx), windows))
    return [_state("wsl", FAILING, "", ev, blocks=False, unreached="windows-driver")]


def _wsl_shadow(ctx: ProbeContext) -> list[LayerState]:
    # In a container the runtime mounts the Windows driver's libnvidia-ml.so.1 and libcuda.so.1 into
    # the usual folders: only a Linux driver's versioned files are not its.
    shadow = {} if _in_container(ctx) else _shadowing(ctx)
    # The Linux driver's own versioned libraries (wsl_files): that driver, installed inside WSL.
    versioned = linux_driver_libraries(ctx.system)
    shadow.update(
        {path: f"{version} (a Linux driver's, outside {WSL_LIB})" for path, version in versioned.items()}
    )
    if not shadow:
        return []
    paths = sorted(shadow)
    smi = _linux_smi(ctx)
    # A versioned libcuda, or the Linux driver's own nvidia-smi beside the library: a Linux driver.
    driver = (
        bool(smi) or bool(versioned) or any("libcuda.so." in path and _VERSION.search(path) for path in paths)
    )
    reason = "wsl-linux-driver" if driver else "wsl-shadowing-lib"
    ev = [file_evidence(path, shadow[path]) for path in paths[:8]]
    if smi:
        ev.append(file_evidence(smi, "present (outside " + WSL_LIB + ")"))
    return [_state("wsl", FAILING, reason, ev, path=paths[0], paths="\n".join(paths))]


def _linux_smi(ctx: ProbeContext) -> str:
    """WSL2: an nvidia-smi that is not the Windows driver's (/usr/lib/wsl/lib) nor a link to it:
    the Linux driver's utilities (nvidia-utils-NNN) installed inside WSL."""
    for path in ("/usr/bin/nvidia-smi", "/usr/local/bin/nvidia-smi", "/bin/nvidia-smi"):
        if ctx.system.exists(path) and not ctx.system.realpath(path).startswith(WSL_LIB + "/"):
            return path
    return ""


def _gpu_blocked(ctx: ProbeContext) -> list[LayerState]:
    nvml = ctx.seen.get("nvml", {})
    text = _smi_text(ctx) + "\n" + str(nvml.get("detail", ""))
    words = re.compile(f"{re.escape(_BLOCKED_WORDS)}|{re.escape(_BLOCKED_PYNVML)}", re.IGNORECASE)
    line = _line_with(text, words)
    if not line:
        return []
    return [_state("wsl", BLOCKED, "wsl-gpu-blocked", [Evidence("nvidia-smi / nvmlInit", None, line)])]


def _shadowing(ctx: ProbeContext) -> dict[str, str]:
    """WSL2: Linux copies of the driver's libraries outside /usr/lib/wsl/lib (a Linux driver, a
    CUDA meta-package's libnvidia-ml) that a program loads instead of the Windows driver's."""
    found: dict[str, str] = {}
    for name in ("libcuda", "libnvidia-ml"):
        for d in LIB_DIRS:
            if d == WSL_LIB:
                continue
            for path in ctx.system.glob(d, f"{name}.so*"):
                if "/stubs/" in path or PurePosixPath(path).parent == PurePosixPath(WSL_LIB):
                    continue
                found[path] = "present (outside " + WSL_LIB + ")"
    return found


def _pci(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    if p.platform not in ("linux", "unknown"):
        return []
    ev: list[Evidence] = []
    switched = ctx.system.read_text("/proc/acpi/bbswitch")
    # bbswitch prints "<bus id> ON|OFF": the last word is the card's state.
    if switched and switched.split()[-1:] == ["OFF"]:
        line = switched.strip().splitlines()[0]
        ctx.seen["gpu_switched_off"] = True
        return [_state("pci", BLOCKED, "gpu-switched-off", [file_evidence("/proc/acpi/bbswitch", line)])]
    # /proc/acpi/bbswitch unread (a pasted log): bbswitch's own last word this boot, where no driver
    # answers (a card that is off answers nothing).
    off = None
    if switched is None and p.driver is None and not _host_only(ctx):
        off = bbswitch_off(_kernel_log(ctx))
    if off and (said := _log_ev(ctx, off[0])):
        ctx.seen["gpu_switched_off"] = True
        return [_state("pci", BLOCKED, "gpu-switched-off", said, bus=off[1])]
    # A hybrid laptop's switch set to the integrated GPU alone, where no driver answers (a driver that
    # answers shows the GPU on, whatever the switch's word for the next boot).
    mode = integrated_mode(ctx) if p.driver is None and not _host_only(ctx) else None
    if mode:
        ctx.seen["gpu_switched_off"] = True
        return [_state("pci", BLOCKED, "gpu-switched-off", [mode[0]], tool=mode[1])]
    if not ctx.system.is_dir("/sys/bus/pci/devices"):
        argv = ["lspci"]
        result = ctx.system.run(argv, timeout=3.0)
        nvidia = [
            line
            for line in result.stdout.splitlines()
            if "NVIDIA" in line and re.search(r"VGA|3D|Display", line)
        ]
        if nvidia and not result.missing and not result.timed_out:  # device lines: lspci read them
            p.nvidia_pci_devices = len(nvidia)
            return [
                _state("pci", WORKS, "", [command_evidence(argv, result, nvidia[0])], count=str(len(nvidia)))
            ]
        if result.missing and p.pci_gpus:
            # `lspci -nn` answered where plain lspci was not run (a pasted `lspci -nnk`): its NVIDIA
            # display controllers (wizard.probe.pci_gpus) are the bus's.
            found = ctx.system.run(LSPCI_ARGV, timeout=3.0)
            line = _line_with(found.stdout, re.compile(r"\[10de:", re.IGNORECASE))
            ev = [command_evidence(LSPCI_ARGV, found, line)]
            return [_state("pci", WORKS, "", ev, count=str(len(p.pci_gpus)))]
        ev.append(file_evidence("/sys/bus/pci/devices", "missing"))
        if not result.missing:
            ev.append(command_evidence(argv, result))
        return [_state("pci", UNREADABLE, "", ev, blocks=False)]
    count = p.nvidia_pci_devices or 0
    if count:
        return [
            _state(
                "pci",
                WORKS,
                "",
                [file_evidence("/sys/bus/pci/devices", f"{count} NVIDIA display")],
                count=str(count),
            )
        ]
    return [
        _state("pci", ABSENT, "", [file_evidence("/sys/bus/pci/devices", "no NVIDIA display controller")])
    ]


def _module(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    if p.platform != "linux":
        return []
    km = p.kernel
    if km.nvidia_loaded:
        ev = [file_evidence("/sys/module/nvidia/version", km.loaded_version or "loaded")]
        return [_state("module", WORKS, "", ev, version=km.loaded_version or "")]
    if km.nvidia_loaded is None and _windows_smi(ctx):
        # The nvidia-smi that ran is the Windows driver's (WSL2, a GPU-PV guest): its failure is said
        # by the wsl layer; no Linux module is involved.
        return []
    ignored = ignored_gpu(_kernel_log(ctx)) if not km.nvidia_loaded and p.driver is None else None
    if ignored is not None and (log := _log_ev(ctx, ignored.line)):
        # The installed driver says it does not serve this GPU and names the legacy branch that does
        # (wizard.probe.legacy_gpu): not a module a restart loads, nor one to rebuild.
        ev = [*_smi_failure_lines(ctx), *log]
        return [
            _state(
                "module",
                BLOCKED,
                "driver-drops-gpu",
                ev,
                version=ignored.version,
                legacy=ignored.branch,
                name=ignored.gpu,
            )
        ]
    refusal = _refusal_ev(ctx, _kernel_log(ctx)) if not km.nvidia_loaded and p.driver is None else None
    if refusal:
        # The installed release says it does not support the GPU at all (wizard.probe.unsupported_gpu).
        return [_refused_state("module", refusal[0], [*_smi_failure_lines(ctx), *refusal[1]])]
    no_gsp = _open_refusal_ev(ctx, _kernel_log(ctx)) if not km.nvidia_loaded and p.driver is None else None
    if no_gsp:
        # The open module cannot drive this GPU (no GSP: older than Turing), so it gave up at load
        # (wizard.probe.open_module): the proprietary module of a branch that serves it. Said once:
        # the GPU layer does not say it again.
        ctx.seen["no_gsp_said"] = True
        return [_no_gsp_state("module", no_gsp[0], [*_smi_failure_lines(ctx), *no_gsp[1]])]
    no_loading = "" if km.nvidia_loaded else _no_module_loading(ctx, p)
    if no_loading:
        # modprobe's ENOSYS: this kernel loads no module (WSL1, a kernel without module support); not
        # a module a restart loads or a rebuild makes.
        ev = [*_smi_failure_lines(ctx), Evidence("modprobe", None, no_loading)]
        return [_state("module", FAILING, "", ev, version=km.module_version or "", loads="none")]
    # /proc/modules unread (a pasted output): nvidia-smi's NVML_ERROR_DRIVER_NOT_LOADED words decide
    # it on a machine of its own; in a container they mean only that no device was passed.
    said = "" if km.nvidia_loaded is not None or _in_container(ctx) else _smi_not_loaded(ctx)
    # NVRM's own lines in this boot's log: the module is loaded, so the words mean something else,
    # unless it says another driver took the GPU before it ("probe routine was not called").
    held = _held_by_another_driver(_kernel_log(ctx)) if said else ""
    if said and not held and "NVRM:" in _kernel_log(ctx) and not _gave_up_at_load(_kernel_log(ctx)):
        said = ""
    # A driver that answered has its module loaded: another driver's hold on a GPU is no cause then.
    nouveau = (
        _nouveau_in_use(ctx)
        if km.nvidia_loaded is None and p.driver is None and not _host_only(ctx)
        else None
    )
    if nouveau:
        # lspci: nouveau drives the NVIDIA device and the nvidia module is there for it.
        ev = [*_smi_failure_lines(ctx), command_evidence(*nouveau)]
        return [_state("module", FAILING, "not-loaded-nouveau", ev, version=km.module_version or "")]
    refused = (
        _refused_at_load(_kernel_log(ctx)) if km.nvidia_loaded is None and not said and not p.driver else ""
    )
    if refused and not _in_container(ctx) and (log := _log_ev(ctx, refused)):
        # /proc/modules unread: the module's own lines say it tried this boot, found its GPU held by
        # another driver and gave up (nothing loaded it since).
        ev = [*_smi_failure_lines(ctx), *log]
        return [_state("module", FAILING, "not-loaded-nouveau", ev, version=km.module_version or "")]
    built_failed = None
    # Not where a driver answered (its module is loaded: an old failed build's log says nothing then),
    # nor on a machine whose PCI bus shows no NVIDIA GPU (a build left over there blocks nothing).
    gpu_possible = bool(p.nvidia_pci_devices) or not ctx.system.is_dir("/sys/bus/pci/devices")
    unbuilt_possible = not said and not km.nvidia_loaded and km.module_for_kernel is not True
    if unbuilt_possible and p.driver is None and gpu_possible:
        built_failed = failed_module_build(ctx, p.os.kernel)
    if built_failed:
        # akmods, DKMS or the installer failed to build the module for the running kernel, and no
        # module for it is found (wizard.probe.build_logs): the driver is there, its module is not.
        ev = [*_smi_failure_lines(ctx), built_failed]
        ev += _seen_evidence(ctx, "modinfo") if km.module_for_kernel is False else []
        version = build_version(built_failed) or km.module_version or ""
        return [_state("module", FAILING, "module-not-built", ev, version=version, kernel=p.os.kernel)]
    unread_kernel = p.os.kernel in ("", "unknown")
    only = None
    if unbuilt_possible and p.driver is None and gpu_possible and unread_kernel and not km.nvidia_loaded:
        only = failed_build_of_unread_kernel(ctx)
    if only and not said:
        # The running kernel not read (a pasted output), and every failed build record names one
        # kernel and driver: that driver is installed and has no module for that kernel. Whether
        # that kernel is the one running (or the one the next boot starts) is not shown: no cause
        # named, the module's state unread, its version and the failed build kept.
        ev = [*_smi_failure_lines(ctx), only[0]]
        # A log that keeps no kernel's name ("" for it) still shows the build failed.
        unread = _state("module", UNREADABLE, "", ev, blocks=False, version=only[2])
        if only[1]:
            unread.facts["build_failed_for"] = only[1]
        else:
            unread.facts["build_failed"] = "kernel-unread"
        return [unread]
    # Read further (the journal, dkms) only where a GPU or the driver's words are seen (not on every
    # machine), and only where no driver answered: a driver read at all (NVML, nvidia-smi, /proc, its
    # loading line) shows its module loaded this boot, whatever an earlier attempt logged.
    nvidia_here = bool(said or p.nvidia_pci_devices) and p.driver is None
    # The kernel's own refusal of the nvidia module this boot shows the driver installed, whatever
    # else was read (a paste of modprobe and dmesg alone), where the PCI bus does not show no GPU.
    other_kernel = (
        _built_for_another_kernel(ctx)
        if not km.nvidia_loaded and p.driver is None and (nvidia_here or gpu_possible)
        else None
    )
    if other_kernel:
        ev = [*_smi_failure_lines(ctx), other_kernel, *_seen_evidence(ctx, "modinfo")]
        return [
            _state(
                "module", FAILING, "module-not-built", ev, version=km.module_version or "", kernel=p.os.kernel
            )
        ]
    # Not in a container: modprobe there has no right to load modules, whatever the host runs.
    refused_insert = (
        _kernel_or_journal(ctx, _INSERT_NOT_PERMITTED, _INSERT_NOT_PERMITTED)
        if not km.nvidia_loaded
        and p.driver is None
        and (nvidia_here or gpu_possible)
        and not _in_container(ctx)
        else None
    )
    if refused_insert:
        ev = [*_smi_failure_lines(ctx), refused_insert, *_seen_evidence(ctx, "modinfo")]
        return [_state("module", FAILING, "not-loaded", ev, version=km.module_version or "")]
    dkms = None
    if km.module_for_kernel is False and not km.nvidia_loaded and nvidia_here:
        dkms = _dkms_not_built(ctx, p.os.kernel)
    if dkms:
        # DKMS holds the driver's module source and built it for no running kernel; modinfo finds none.
        ev = [*_smi_failure_lines(ctx), dkms[0], *_seen_evidence(ctx, "modinfo")]
        return [_state("module", FAILING, "module-not-built", ev, version=dkms[1], kernel=p.os.kernel)]
    if km.nvidia_loaded is None and not said:
        # Whether it is loaded is not read; the module installed for the running kernel is, where
        # modinfo answered (its version field): the driver installed, not shown working.
        ev = [file_evidence("/proc/modules", "unreadable")]
        ev += _seen_evidence(ctx, "modinfo") if km.module_for_kernel else []
        return [_state("module", UNREADABLE, "", ev, blocks=False, version=km.module_version or "")]
    if not said and not p.nvidia_pci_devices and p.driver is None:
        return [
            _state("module", ABSENT, "", [file_evidence("/proc/modules", "no nvidia module")], blocks=False)
        ]
    ev = [] if said else [file_evidence("/proc/modules", "nvidia not loaded")]
    ev += _smi_failure_lines(ctx)
    cli = _seen_command(ctx, "container_cli")
    if said and cli and not any(said in e.line for e in ev):
        # the words are nvidia-container-cli's ("nvml error: driver not loaded"): its line is the evidence
        ev.append(command_evidence(cli[0], cli[1], said))
    libs = _library_versions(ctx, "libcuda") or _library_versions(ctx, "libnvidia-ml")
    lib_version = next(iter(sorted(set(libs.values()))), "")
    # modinfo not read (a paste), or not finding "nvidia" where DKMS installed the module under its
    # own name for the running kernel (Debian's nvidia-current.ko, which modprobe.d's "install
    # nvidia modprobe -i nvidia-current" loads and modinfo does not follow): dkms shows it there.
    here = None
    if km.module_for_kernel is not True and nvidia_here:
        here = _dkms_module_here(ctx, p.os.kernel, installed=km.module_for_kernel is False)
    if here:
        km.module_for_kernel, km.module_version = True, km.module_version or here[1]
    modinfo_ev = [here[0]] if here else _seen_evidence(ctx, "modinfo")
    rejected = _key_rejected(ctx)
    if rejected:
        ev.append(rejected)
    if rejected and km.module_for_kernel is not False:
        # The key's rejection decides it, and shows the module is there (modprobe found a file to
        # insert) where modinfo was not read.
        ev += modinfo_ev if km.module_for_kernel else []
        ev += _secure_boot_evidence(ctx)
        return [_state("module", BLOCKED, "secure-boot", ev, version=km.module_version or "")]
    if km.module_for_kernel:
        ev += modinfo_ev
        if km.secure_boot:  # likely, not decided: a restart first, then the key
            ev += _secure_boot_evidence(ctx)
            return [_state("module", FAILING, "not-loaded-secure-boot", ev, version=km.module_version or "")]
        reason = "not-loaded-nouveau" if km.nouveau_loaded else "not-loaded"
        return [_state("module", FAILING, reason, ev, version=km.module_version or "")]
    if lib_version:
        # The driver's libraries are here, its module is not built for this kernel (a kernel update
        # DKMS did not follow): rebuild it, do not install another driver.
        ev.append(file_evidence(next(iter(sorted(libs))), lib_version))
        ev += _seen_evidence(ctx, "modinfo")
        return [_state("module", FAILING, "module-not-built", ev, version=lib_version, kernel=p.os.kernel)]
    not_found = first_line(_smi_text(ctx), MODULE_NOT_FOUND) or _journal_not_found(ctx)
    failed_build = failed_module_build(ctx, p.os.kernel) if not km.module_for_kernel else None
    if said and (not_found or failed_build or km.module_for_kernel is False):
        # nvidia-smi is installed; modprobe/modinfo find no nvidia module for the running kernel,
        # or akmods failed to build it for this kernel.
        ev += _seen_evidence(ctx, "modinfo") if km.module_for_kernel is False else []
        ev += [failed_build] if failed_build else []
        return [_state("module", FAILING, "module-not-built", ev, kernel=p.os.kernel)]
    if held and (log := _log_ev(ctx, held)):
        # NVIDIA's message names nouveau first of the drivers that can hold the GPU before it.
        ev += log
        return [_state("module", FAILING, "not-loaded-nouveau", ev, version=km.module_version or "")]
    bound = _line_with(_kernel_log(ctx), NOUVEAU_BOUND) if said else ""
    if bound and (log := _log_ev(ctx, bound)):  # the driver is installed (nvidia-smi's words), nouveau
        # has the GPU
        ev += log
        return [_state("module", FAILING, "not-loaded-nouveau", ev, version=km.module_version or "")]
    if said:
        # No cause decided; the module's own last words at load this boot (no GPU found, a GPU this
        # driver does not support) go with it for the person who reads on.
        klog = _kernel_log(ctx)
        unsupported = _UNSUPPORTED.search(join_nvrm(klog))
        ev += _log_ev(ctx, unsupported.group(0)) if unsupported else []
        ev += _log_ev(ctx, _gave_up_at_load(klog))
        # A GPU switched off (the PCI layer's cause) leaves its module nothing to load onto: no
        # cause of the module's own, and no second fix.
        reason = "" if ctx.seen.get("gpu_switched_off") else "not-loaded"
        return [_state("module", FAILING, reason, ev)]
    if km.nouveau_loaded:
        ev.append(file_evidence("/proc/modules", "nouveau loaded"))
    return [_state("module", ABSENT, "", ev)]


def _no_module_loading(ctx: ProbeContext, p: MachineProfile) -> str:
    """modprobe's "could not insert 'nvidia...': Function not implemented" (failure_words.NO_MODULE_LOADING)
    as nvidia-smi (through nvidia-modprobe) or this boot's journal shows it, else ""."""
    said = first_line(_smi_text(ctx), NO_MODULE_LOADING)
    if said or not (_smi_text(ctx).strip() or p.nvidia_pci_devices):
        return said  # the journal only where nvidia-smi said something or the bus shows a GPU
    journal = _boot_journal(ctx)
    if journal is None or journal[1].missing or journal[1].timed_out:
        return ""
    return _line_with(journal[1].stdout, NO_MODULE_LOADING)


def _built_for_another_kernel(ctx: ProbeContext) -> Evidence | None:
    """The kernel's (or modprobe's, in this boot's journal) words that the nvidia module on disk
    does not match the running kernel."""
    return _kernel_or_journal(ctx, _BUILT_FOR_ANOTHER_KERNEL, _BUILT_FOR_ANOTHER_KERNEL)


# systemd-modules-load's words where modprobe finds no such module ("Failed to find module 'nvidia'"),
# beside modprobe's own, as the boot journal keeps them.
_JOURNAL_NOT_FOUND = re.compile(r"Failed to find module '?nvidia'?(?![a-z_-])|" + MODULE_NOT_FOUND.pattern)


def _journal_not_found(ctx: ProbeContext) -> str:
    journal = _boot_journal(ctx)
    if journal is None or journal[1].missing or journal[1].timed_out:
        return ""
    return _line_with(journal[1].stdout, _JOURNAL_NOT_FOUND)


def _dkms_rows(ctx: ProbeContext) -> tuple[list[tuple[re.Match[str], str]], Evidence | None]:
    """`dkms status`'s rows for an NVIDIA driver's module (read once), and the command as evidence."""
    if "dkms" not in ctx.seen:
        ctx.seen["dkms"] = (DKMS_STATUS, ctx.system.run(DKMS_STATUS, timeout=10.0))
    found = _seen_command(ctx, "dkms")
    if found is None or found[1].missing or found[1].timed_out:
        return [], None
    rows = [(m, x.strip()) for x in found[1].stdout.splitlines() if (m := _DKMS_LINE.match(x.strip()))]
    return rows, command_evidence(found[0], found[1])


def _dkms_not_built(ctx: ProbeContext, kernel: str) -> tuple[Evidence, str] | None:
    """(dkms status's line, the driver's version) where DKMS holds an NVIDIA driver's module and has
    it built or installed for no running kernel; None where it has, or shows none, or the kernel is
    not known."""
    if not kernel or kernel == "unknown":
        return None
    rows, ev = _dkms_rows(ctx)
    if not rows or ev is None or _dkms_built_for(rows, kernel):
        return None
    newest = max(rows, key=lambda r: [int(x) for x in r[0].group(2).split(".")])
    return Evidence(ev.source, ev.exit, newest[1]), newest[0].group(2)


def _dkms_built_for(rows: list[tuple[re.Match[str], str]], kernel: str) -> tuple[re.Match[str], str] | None:
    return next(
        (r for r in rows if r[0].group(3) == kernel and r[0].group(5).startswith(("built", "installed"))),
        None,
    )


def _dkms_module_here(
    ctx: ProbeContext, kernel: str, *, installed: bool = False
) -> tuple[Evidence, str] | None:
    """(dkms status's line, the module's version) where DKMS has the driver's module built or
    installed for the running kernel: a module for it is there, as modinfo would say. `installed`:
    only where DKMS installed it under /lib/modules (a module only built there modprobe cannot find)."""
    if not kernel or kernel == "unknown":
        return None
    rows, ev = _dkms_rows(ctx)
    row = _dkms_built_for(rows, kernel) if ev is not None else None
    if row and installed and not row[0].group(5).startswith("installed"):
        row = None
    return (Evidence(ev.source, ev.exit, row[1]), row[0].group(2)) if row and ev else None


def _held_by_another_driver(log: str) -> str:
    """NVRM's "The NVIDIA probe routine was not called for N device(s)": another driver owns the GPU
    (the message names nouveau first). Not where vfio-pci is in the log: a passthrough host hands
    GPUs to vfio-pci on purpose."""
    return "" if re.search(r"vfio[-_]pci", log) else _line_with(log, _NOT_PROBED)


def _gave_up_at_load(log: str) -> str:
    """The module's last init this boot gave up (no later NVRM loading line): its line, else ""."""
    lines = [x for x in log.splitlines() if _INIT_GAVE_UP.search(x) or _LOADING.search(x)]
    return lines[-1].strip() if lines and _INIT_GAVE_UP.search(lines[-1]) else ""


def _refused_at_load(log: str) -> str:
    """The held line where the module then gave up ("No NVIDIA graphics adapter probed!") and no
    later NVRM loading line shows it loaded after all."""
    held = _held_by_another_driver(log)
    if not held:
        return ""
    after = log[log.index(held) :]
    return held if _NONE_PROBED.search(after) and not _LOADING.search(after) else ""


def _secure_boot_evidence(ctx: ProbeContext) -> list[Evidence]:
    """mokutil's answer where it gave one, else the firmware's SecureBoot variable the kernel read."""
    found = _seen_command(ctx, "mokutil")
    if found and not found[1].missing and (found[1].stdout + found[1].stderr).strip():
        return [command_evidence(found[0], found[1])]
    efivar = ctx.seen.get("efi_secure_boot")
    return [file_evidence(efivar[0], efivar[1])] if isinstance(efivar, tuple) else []


LSPCI_DRIVERS = ["lspci", "-k"]


def _nouveau_in_use(ctx: ProbeContext) -> tuple[list[str], CommandResult, str] | None:
    """Where /sys/bus/pci is not there to read (a pasted output, some containers): `lspci -k`'s
    block for an NVIDIA display device whose "Kernel driver in use" is nouveau while its "Kernel
    modules" list nvidia (the installed driver's module, which nouveau keeps off the GPU)."""
    if ctx.system.is_dir("/sys/bus/pci/devices"):
        return None
    result = ctx.system.run(LSPCI_DRIVERS, timeout=3.0)
    if result.missing or result.timed_out:
        return None
    device, in_use = "", ""
    found: tuple[list[str], CommandResult, str] | None = None
    for line in result.stdout.splitlines():
        if line and not line[0].isspace():
            device = line if "NVIDIA" in line and re.search(r"VGA|3D|Display", line) else ""
            in_use = ""
        elif device and line.strip().startswith("Kernel driver in use:"):
            in_use = line.split(":", 1)[1].strip()
            if in_use == "nvidia":
                return None  # another GPU bound to nvidia: its module is loaded
        elif device and in_use == "nouveau" and line.strip().startswith("Kernel modules:"):
            modules = [m.strip() for m in line.split(":", 1)[1].split(",")]
            if "nvidia" in modules and found is None:
                found = (
                    LSPCI_DRIVERS,
                    result,
                    f"{device.strip()} / Kernel driver in use: nouveau / {line.strip()}",
                )
    return found


def _libraries(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    if p.platform != "linux":
        return []
    libs = _library_versions(ctx, "libnvidia-ml") or _library_versions(ctx, "libcuda")
    versions = sorted(set(libs.values()))
    nvml = ctx.seen.get("nvml", {})
    # nvidia-container-cli starts NVML as nvidia-smi does ("nvml error: driver/library version
    # mismatch"): where it was asked (no nvidia-smi answered), its words are NVML's.
    cli = _seen_command(ctx, "container_cli")
    cli_text = cli[1].stdout + "\n" + cli[1].stderr if cli and not cli[1].missing else ""
    text = _smi_text(ctx) + "\n" + str(nvml.get("detail", "")) + "\n" + cli_text
    said = _line_with(text, "mismatch")
    said_lib = _MISMATCH_LIB.search(text)
    module = p.kernel.loaded_version or ""
    # The module's own words for the same refusal (wizard.probe.api_mismatch), not where the module
    # is seen unloaded, nor in a container given no GPU (the log is the host's).
    log_is_ours = p.kernel.nvidia_loaded is not False and not _host_only(ctx)
    if said and not (module and library_known(versions, said_lib) == module):
        # NVML's own words decide it ("Driver/library version mismatch"); both versions where read.
        library = said_lib.group(1) if said_lib else (versions[-1] if versions else "")
        from_cli = cli is not None and said in cli_text and said not in _smi_text(ctx)
        ev = [
            command_evidence(cli[0], cli[1], said)
            if cli and from_cli
            else Evidence("nvidia-smi / nvmlInit", None, said)
        ]
        if said_lib:
            ev.append(Evidence("nvidia-smi", None, said_lib.group(0)))
        ev += [file_evidence(path, version) for path, version in sorted(libs.items())[:4]]
        if module:
            ev.append(file_evidence("/sys/module/nvidia/version", module))
        # The module's own message, where the log holds it, gives the versions NVML's words leave out.
        logged = api_mismatch(ctx) if log_is_ours and not (module and said_lib) else None
        if logged is not None and logged.argv and said in logged.line:
            ev = [e for e in ev if e.line != said]  # the same line, said once with its source
        if logged is not None:
            ev.append(Evidence(logged.source, None, logged.line))
            module, library = module or logged.module, (said_lib.group(1) if said_lib else logged.library)
        return [_state("libraries", FAILING, "version-mismatch", ev, module=module, library=library)]
    # Where nvidia-smi or NVML answered with a driver there is no mismatch to find in a log.
    unanswered = p.driver is None or p.driver.source in MODULE_ONLY_SOURCES
    logged = api_mismatch(ctx) if not said and unanswered and log_is_ours else None
    if logged is not None and module and logged.module != module:
        logged = None  # a module loaded since: the line is about another one
    if logged is not None:
        # The loaded module's own words: a client of another version opened it (both versions).
        ev = [Evidence(logged.source, None, logged.line)]
        ev += [file_evidence(path, version) for path, version in sorted(libs.items())[:4]]
        module = module or logged.module
        return [_state("libraries", FAILING, "version-mismatch", ev, module=module, library=logged.library)]
    if not versions and not said_lib:
        return [
            _state(
                "libraries",
                ABSENT,
                "",
                [file_evidence("/usr/lib", "no libnvidia-ml.so.VERSION")],
                blocks=False,
            )
        ]
    library = said_lib.group(1) if said_lib else versions[-1]
    ev = [file_evidence(path, version) for path, version in sorted(libs.items())[:4]]
    # By the files alone: the loaded module's version is none of the libraries' (a leftover older
    # copy beside the right one is not a mismatch).
    if module and versions and module not in versions:
        ev.append(file_evidence("/sys/module/nvidia/version", module))
        return [_state("libraries", FAILING, "version-mismatch", ev, module=module, library=library)]
    library = module if module in versions else library
    return [_state("libraries", WORKS, "", ev, version=library)]


def library_known(versions: list[str], said: re.Match[str] | None) -> str:
    return said.group(1) if said else (versions[-1] if versions else "")


# nvidia-container-cli's words where the driver did not answer its start in time
# (libnvidia-container: "driver error: timed out", and "driver rpc error: timed out" where it asks
# the driver through its RPC service): the driver's management side hung, as an NVML call of our own
# that times out does (a GPU not kept initialised: persistence mode off on a large or cloud machine).
_CLI_TIMED_OUT = re.compile(r"initialization error: driver (?:rpc )?error: timed out", re.IGNORECASE)


def _cli_timed_out(ctx: ProbeContext) -> Evidence | None:
    found = _seen_command(ctx, "container_cli")
    if found is None or found[1].missing:
        return None
    line = first_line(found[1].stdout + "\n" + found[1].stderr, _CLI_TIMED_OUT)
    return command_evidence(found[0], found[1], line) if line else None


def _nvml(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    nvml = ctx.seen.get("nvml")
    if not isinstance(nvml, dict):
        return []
    kind, detail = str(nvml.get("kind")), str(nvml.get("detail", ""))
    ev = [Evidence("nvmlInit", None, detail or "ok")]
    if kind == "works":
        return [_state("nvml", WORKS, "", ev)]
    if kind == "timeout":
        return [_state("nvml", UNREADABLE, "nvml-timeout", ev, blocks=False)]
    timed_out = _cli_timed_out(ctx)
    if timed_out is not None:
        return [_state("nvml", UNREADABLE, "nvml-timeout", [*ev, timed_out], blocks=False)]
    refused = first_line(_smi_text(ctx), NO_PERMISSION) if kind != "works" else ""
    if refused and not _in_container(
        ctx
    ):  # nvidia-smi's NVML_ERROR_NO_PERMISSION (the container layer says it there)
        return [
            _state("nvml", BLOCKED, "no-permission", [*ev, Evidence("nvidia-smi", _smi_exit(ctx), refused)])
        ]
    if kind == ErrorKind.LIBRARY_NOT_FOUND.value:
        return [_state("nvml", ABSENT, "", ev, blocks=False)]
    if kind == ErrorKind.NO_PERMISSION.value:
        return [_state("nvml", BLOCKED, "no-permission", ev)]
    # A mismatch, not loaded, another error: the module and libraries layers say why (both versions);
    # this one says only that it failed, with NVML's own words.
    return [_state("nvml", FAILING, "", ev, blocks=False)]


def _cuda(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    if p.driver is None:
        return []
    # No libcuda.so.1 for CUDA programs (wizard.probe.libcuda_cache): named beside nvidia-smi's
    # N/A or ERR!, first (the cause, whose fix comes first), as where nvidia-smi shows a version.
    unfound = uncached_libcuda(ctx, p)
    uncached = [_state("cuda", FAILING, "no-libcuda", unfound)] if unfound else []
    shown = ctx.seen.get("smi_cuda")
    if isinstance(shown, dict):
        ev = [Evidence("nvidia-smi", _smi_exit(ctx), str(shown.get("line", "")))]
        value = str(shown.get("value", ""))
        if value.upper() == "N/A":
            # N/A: nvidia-smi could not load libcuda to ask (missing, broken, or a vGPU host's driver,
            # which serves none): the CUDA layer fails with no cause named (state_view.unsure_key);
            # ERR!: it loaded it and CUDA failed, cuda-err.
            return [*uncached, _state("cuda", FAILING, "", ev, shown=value)]
        return [*uncached, _state("cuda", FAILING, "cuda-err", ev, shown=value)]
    if uncached:
        return uncached
    if p.driver.cuda not in ("", "unknown"):
        source = "nvmlSystemGetCudaDriverVersion" if p.driver.source == "nvml" else "nvidia-smi"
        return [_state("cuda", WORKS, "", [Evidence(source, None, p.driver.cuda)], version=p.driver.cuda)]
    return []


def _smi_exit(ctx: ProbeContext) -> int | None:
    found = _seen_command(ctx, "smi")
    return found[1].returncode if found else None


def _gpus(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    out: list[LayerState] = []
    lost = list(ctx.seen.get("gpu_lost_rows", [])) + list(ctx.seen.get("gpu_lost", []))
    lost_indexes = {int(x["index"]) for x in lost if isinstance(x.get("index"), int)}
    err_readings: dict[int, str] = ctx.seen.get("gpu_err_rows", {})
    for gpu in p.gpus:
        if gpu.index in lost_indexes:
            continue
        # nvidia-smi's table: every query of this GPU failed, or its name read and its temperature and
        # performance state ERR!
        err = (
            f"{gpu.index}, {ERR_NAME} {gpu.pci_bus_id or ''}"
            if gpu.name == ERR_NAME
            else err_readings.get(gpu.index)
        )
        if err:
            ev = [Evidence("nvidia-smi", _smi_exit(ctx), err)]
            lost.append({"index": gpu.index, "bus": gpu.pci_bus_id or "", "err": True, "ev": ev})
            continue
        ev = [Evidence(p.driver.source if p.driver else "", None, f"{gpu.index}, {gpu.name}")]
        out.append(_state("gpu", WORKS, "", ev, index=gpu.index, name=gpu.name))
    working = bool(out)
    log = _kernel_log(ctx) if lost else ""
    for x in lost:
        ev = x.get("ev") or [
            Evidence("nvidia-smi" if "index" not in x else "nvml", None, str(x.get("line", "")))
        ]
        idx = x.get("index") if isinstance(x.get("index"), int) else None
        bus = str(x.get("bus", ""))
        reason = "gpu-lost"
        if "index" not in x or x.get("err"):  # nvidia-smi's words, not NVML_ERROR_GPU_IS_LOST
            reason = unreachable_gpu_reason(str(x.get("line", "")), bus, log)
            said = kernel_line_for(reason, bus, log)
            ev = [*ev, *_log_ev(ctx, said)]
        out.append(_state("gpu", FAILING, reason, ev, blocks=not working, index=idx, bus=bus))
    if working:
        out += _failed_beside_working(ctx, p, lost)
    # NVRM's lines come from the loaded nvidia module: where /proc/modules is unread they show it.
    # A driver read only from the module (/proc, the kernel log) read no GPU either.
    module_only = p.driver is None or (p.driver.source in MODULE_ONLY_SOURCES and not p.gpus)
    if module_only and p.platform == "linux" and p.kernel.nvidia_loaded is not False and not _host_only(ctx):
        text = _smi_text(ctx)
        # NVML started (the module is loaded) and offers no GPU while the bus shows one: the driver
        # did not take it up. Inside a container it means only that no GPU was passed.
        # (/proc/modules there is the host's: its module is loaded whether a GPU was passed or not.)
        # Nor where the bus shows the GPU held by another driver: vfio-pci took it for a VM (libvirt
        # unbinds it from nvidia as the VM starts, the module stays loaded), or nouveau has it.
        off_container = not _in_container(ctx)
        # Which driver holds the GPU must be known: read (sysfs, `lspci -k`), or shown by NVML naming the
        # GPU it could not open ("Unable to determine the device handle for gpu BUS": only a GPU the
        # nvidia module probed is listed). Unknown, a GPU given to a VM (vfio-pci) or to no driver at all
        # is as likely as one that failed to start.
        known = _bus_binding_read(ctx) or bool(re.search(DEVICE_HANDLE, text, re.IGNORECASE))
        decides = off_container and known and not _bus_gpu_bound_elsewhere(ctx)
        on_bus = bool(p.nvidia_pci_devices) and decides
        line = _line_with(text, _NOT_STARTED) if (p.kernel.nvidia_loaded and decides) or on_bus else ""
        log = _kernel_log(ctx)
        fallen = fallen_off_bus(log)
        if fallen and not lost and _log_ev(ctx, fallen[0]):
            ev = [*_smi_failure_lines(ctx), *_log_ev(ctx, fallen[0])]
            out.append(_state("gpu", FAILING, "gpu-lost", ev, bus=fallen[1]))
            return out
        init = _line_with(log, _DMESG_INIT)
        logged = ""
        no_devices = _line_with(text, "No devices were found")
        said_gsp = bool(ctx.seen.get("no_gsp_said"))
        no_gsp = _open_refusal_ev(ctx, log) if off_container and (line or init or no_devices) else None
        if said_gsp or no_gsp:
            # The open module refused the GPU for want of a GSP (wizard.probe.open_module): its
            # RmInitAdapter failure and nvidia-smi's "No devices" follow from that.
            if no_gsp and not said_gsp:
                out.append(_no_gsp_state("gpu", no_gsp[0], [*_smi_failure_lines(ctx), *no_gsp[1]]))
            return out
        if no_devices and not init and not _in_container(ctx):
            # The system log (older boots too) beside nvidia-smi's "No devices were found" today.
            logged, init = saved_log_line(ctx.system, INIT_FAILED)
        if line or init:
            ev = _smi_failure_lines(ctx)
            if init and logged:
                ev.append(file_evidence(logged, init))
            elif init:
                ev += _log_ev(ctx, init)
            out.append(_state("gpu", FAILING, "gpu-init-failed", ev, bus=named_bus(init)))
        elif no_devices and off_container and (refusal := _refusal_ev(ctx, log)):
            # The loaded release says it does not support that GPU (wizard.probe.unsupported_gpu).
            out.append(_refused_state("gpu", refusal[0], [*_smi_failure_lines(ctx), *refusal[1]]))
        elif no_devices and off_container:
            # nvidia-smi's exit 6 (nvidia-smi(1): "a query to find an object was unsuccessful"), not
            # 9 (driver not loaded): NVML started on the loaded module and was given no GPU it can
            # use. Whether that GPU failed to start, went to vfio-pci for a VM or was unbound is
            # not shown: the GPU layer fails with no cause named.
            ev = _smi_failure_lines(ctx)
            if held := _bus_gpu_bound_elsewhere(ctx):
                source = _SYSFS_PCI if ctx.system.is_dir(_SYSFS_PCI) else " ".join(LSPCI_DRIVERS)
                ev.append(Evidence(source, None, held))
            out.append(_state("gpu", FAILING, "", ev))
    return out


def _refusal_ev(ctx: ProbeContext, log: str) -> tuple[RefusedGpu, list[Evidence]] | None:
    """The release's refusal of a GPU in this boot's log, with its line as evidence; None where none."""
    return _with_ev(ctx, refused_gpu(log))


def _open_refusal_ev(ctx: ProbeContext, log: str) -> tuple[OpenRefusal, list[Evidence]] | None:
    """The open module's refusal of a GPU without a GSP in this boot's log, with its line as evidence."""
    return _with_ev(ctx, open_module_refusal(log))


def _with_ev(ctx: ProbeContext, found: _Said | None) -> tuple[_Said, list[Evidence]] | None:
    """A message read from the kernel log, with its line as this boot's evidence; None where none."""
    ev = _log_ev(ctx, found.line) if found is not None else []
    return (found, ev) if found is not None and ev else None


def _no_gsp_state(layer: str, refused: OpenRefusal, ev: list[Evidence]) -> LayerState:
    return _state(
        layer,
        BLOCKED,
        "open-module-no-gsp",
        ev,
        name=refused.gpu,
        version=refused.version,
        bus=refused.bus,
        device=f"10de:{refused.device}",
    )


def _refused_state(layer: str, refused: RefusedGpu, ev: list[Evidence]) -> LayerState:
    """The installed release refuses the GPU: too old for it where its generation came after the
    release (the driver step installs the floor Choose names: a side state, not a block over it),
    else the driver's words with no cause named (state_view.unsure_key)."""
    need = newer_driver_needed(refused)
    device = f"10de:{refused.device}"
    if need is not None:
        return _state(
            layer,
            FAILING,
            "driver-too-old-for-gpu",
            ev,
            blocks=False,
            name=need.gpu,
            floor=need.floor,
            cuda=need.cuda,
            version=refused.version,
            bus=refused.bus,
            device=device,
        )
    # The driver's words with no cause named (state_view.unsure_key reads `refused`).
    return _state(
        layer,
        FAILING,
        "",
        ev,
        blocks=False,
        refused="release",
        version=refused.version,
        bus=refused.bus,
        device=device,
    )


_SYSFS_PCI = "/sys/bus/pci/devices"


def _bus_binding_read(ctx: ProbeContext) -> bool:
    """The bus's drivers were read: sysfs's device folders, or `lspci -k`'s answer."""
    return ctx.system.is_dir(_SYSFS_PCI) or _lspci_k(ctx) is not None


def _lspci_k(ctx: ProbeContext) -> CommandResult | None:
    """`lspci -k`'s answer, run once per probe; None where it did not answer."""
    if "lspci_k" not in ctx.seen:
        ctx.seen["lspci_k"] = ctx.system.run(LSPCI_DRIVERS, timeout=3.0)
    result = ctx.seen["lspci_k"]
    if not isinstance(result, CommandResult) or result.missing or result.timed_out:
        return None
    return result


def _bus_gpu_bound_elsewhere(ctx: ProbeContext) -> str:
    """An NVIDIA display GPU the bus shows bound to a driver other than nvidia ("BUS: DRIVER"), from
    sysfs's driver link, else `lspci -k`'s "Kernel driver in use" (a pasted output); "" where none."""
    if ctx.system.is_dir(_SYSFS_PCI):
        for dev in sorted(ctx.system.listdir(_SYSFS_PCI)):
            base = f"{_SYSFS_PCI}/{dev}"
            vendor = (ctx.system.read_text(f"{base}/vendor") or "").strip().lower()
            klass = (ctx.system.read_text(f"{base}/class") or "").strip().lower()
            if vendor != "0x10de" or not klass.startswith("0x03"):
                continue
            # the driver link's target names the driver; with none bound the path resolves to the
            # device's own folder's "driver" (/sys/bus/pci/devices/X is itself a link)
            driver = PurePosixPath(ctx.system.realpath(f"{base}/driver")).name
            if driver != "driver" and not driver.startswith("nvidia"):
                return f"{dev}: {driver}"
        return ""
    result = _lspci_k(ctx)
    if result is None:
        return ""
    device = ""
    for line in result.stdout.splitlines():
        if line and not line[0].isspace():
            device = line.split()[0] if "NVIDIA" in line and re.search(r"VGA|3D|Display", line) else ""
        elif device and line.strip().startswith("Kernel driver in use:"):
            driver = line.split(":", 1)[1].strip()
            if driver and not driver.startswith("nvidia"):
                return f"{device}: {driver}"
    return ""


def _failed_beside_working(ctx: ProbeContext, p: MachineProfile, lost: list[dict]) -> list[LayerState]:
    """A GPU the kernel names as fallen off the bus or not started this boot, on a machine whose
    other GPUs work, that the driver's tools do not list (nvidia-smi shows only the GPUs it opened):
    a warning beside them. Only where every working GPU's bus id is known, and not in a container
    (its kernel log is the host's, whose other GPUs are not passed to it)."""
    if p.platform != "linux" or _in_container(ctx):
        return []
    known = {(g.pci_bus_id or "")[-7:].lower() for g in p.gpus}
    known |= {str(x.get("bus", ""))[-7:].lower() for x in lost}
    if not p.gpus or any(not (g.pci_bus_id or "") for g in p.gpus):
        return []
    out = []
    for short, (reason, line) in failed_gpus(_kernel_log(ctx)).items():
        if short in known:
            continue
        bus = named_bus(line) or next((g.bus_id for g in p.pci_gpus if g.bus_id[-7:].lower() == short), short)
        out.append(_state("gpu", FAILING, reason, _log_ev(ctx, line), blocks=False, bus=bus))
    return out


LAYER_PROBES = (_container, _wsl, _pci, _module, _libraries, _nvml, _cuda, _gpus)
# NVML_ERROR_UNKNOWN or NVML_ERROR_GPU_IS_LOST as NVML starts (nvmlErrorString's words).
_NVML_UNKNOWN = re.compile(r"Failed to initialize NVML: (?:Unknown Error|GPU is lost)", re.IGNORECASE)


def _unreachable_at_init(ctx: ProbeContext, p: MachineProfile, states: list[LayerState]) -> list[LayerState]:
    """NVML_ERROR_UNKNOWN as NVML starts where no layer named a cause: the GPU layer fails; the
    kernel's words name lost or not started, else no cause is named. Inside a container the same
    words come from device rules that refuse the nodes (a container started without the GPU asked
    for, or one whose rules a runtime reload dropped) or from the host's driver: which, the words
    do not say (the container layer names the causes it can see: no node, a v1 list that denies)."""
    if p.platform != "linux" or p.driver is not None or p.gpus:
        return []
    if any(s.reason for s in states if s.state != WORKS):
        return []
    line = _line_with(_smi_text(ctx), _NVML_UNKNOWN)
    if not line:
        return []
    ev = [Evidence("nvidia-smi", _smi_exit(ctx), line)]
    # The same reading as one GPU's failure line: the kernel's words decide lost or not started
    # (those the layers above name first), else it stays unreachable.
    log = _kernel_log(ctx)
    reason = unreachable_gpu_reason(line, "", log)
    if reason == UNREACHABLE:
        # NVML_ERROR_UNKNOWN as NVML starts says no more than "an internal driver error": a GPU the
        # driver cannot reach, a replaced libnvidia-ml (a shim), device rules a pod lost all say it.
        # Without the kernel's words it is a failure with no cause named (state_view.unsure_key).
        # Inside a container its own undecided words (state_view.unsure_key; an empty fact is dropped).
        inside = "container" if _in_container(ctx) else ""
        return [_state("gpu", FAILING, "", ev, nvml="unknown", inside=inside)]
    said = kernel_line_for(reason, "", log)
    fallen = fallen_off_bus(log) if reason == "gpu-lost" else None
    bus = fallen[1] if fallen else named_bus(said)
    return [_state("gpu", FAILING, reason, [*ev, *_log_ev(ctx, said)], bus=bus)]


def _name_failed_gpus(p: MachineProfile, states: list[LayerState]) -> None:
    """A failed GPU whose evidence names no bus: the bus id and name the probe read for that index,
    or those of the one NVIDIA GPU on the PCI bus (it is that one), so it is never "GPU ?"."""
    for s in states:
        if s.layer != "gpu" or s.state == WORKS:
            continue
        gpu = next((g for g in p.gpus if s.index is not None and g.index == s.index), None)
        pci = p.pci_gpus[0] if len(p.pci_gpus) == 1 and len(p.gpus) <= 1 else None
        bus = (gpu.pci_bus_id if gpu else None) or (pci.bus_id if pci else "")
        name = gpu.name if gpu else (pci.name if pci else "")
        if not s.facts.get("bus") and bus and bus != "unknown":
            s.facts["bus"] = bus
        if not s.facts.get("name") and name and name not in ("unknown", ERR_NAME):
            s.facts["name"] = name


def _wsl1_linux_driver(ctx: ProbeContext, p: MachineProfile) -> list[LayerState]:
    """WSL1 has no GPU device at all (no /dev/dxg, no kernel modules): a Linux driver's nvidia-smi
    installed inside it fails, whatever it says. Named only where that nvidia-smi ran and failed."""
    lines = [x.strip() for x in _smi_text(ctx).splitlines() if x.strip()]
    if p.driver is not None or not lines or _seen_command(ctx, "smi") is None:
        return []
    said = next((x for x in lines if "nvidia-smi has failed" in x.lower()), lines[-1])
    ev = [file_evidence("/dev/dxg", "missing"), Evidence("nvidia-smi", _smi_exit(ctx), said[:600])]
    # Not blocking: WSL1 itself already stops every GPU set with its own step (choose.resolver); the
    # state adds the evidence and the Linux driver inside, and changes no choice.
    return [_state("wsl", FAILING, "wsl-no-gpu-device", ev, blocks=False, wsl="1")]


def probe_states(ctx: ProbeContext, profile: MachineProfile) -> str:
    if profile.platform == "wsl1":
        profile.states = _wsl1_linux_driver(ctx, profile)
        return "evidence" if profile.states else "none"
    if profile.platform == "windows":
        # Windows' own nvidia-smi ("Unable to detect the device handle for GPU X: Unknown Error" in a
        # GPU-PV guest): only a GPU it names as failing is a state here; no Linux layer applies.
        gpus = [s for s in _gpus(ctx, profile) if s.failed]
        profile.states = gpus
        return "evidence" if gpus else "none"
    if profile.platform == "macos":
        return "none"
    states: list[LayerState] = []
    for layer in LAYER_PROBES:
        states += layer(ctx, profile)
    states += _unreachable_at_init(ctx, profile, states)
    _name_failed_gpus(profile, states)
    profile.states = states
    return "evidence"
