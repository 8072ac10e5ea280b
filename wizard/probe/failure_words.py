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

# nvidia-smi's words for a GPU whose NVML handle it could not get: "Unable to determine the device
# handle for GPU X: <NVML's error>" (Linux builds), "Unable to detect ..." (a Windows build's nvidia-smi.exe
# in a GPU-PV guest, Easy-GPU-PV#276): the same message, the same NVML error strings after it.
DEVICE_HANDLE = r"Unable to (?:determine|detect) the device handle for GPU"
# NVML_ERROR_NO_PERMISSION for NVML as a whole or for a GPU ("Failed to initialize NVML: Insufficient
# Permissions", "Unable to determine the device handle for GPU X: Insufficient Permissions",
# nvidia-container-cli's "nvml error: insufficient permissions"). Not one value nvidia-smi could not read
# for this user while the driver answered: `-q`'s field "[Insufficient Permissions]", a process table
# row's name "Insufficient Permissions" (another user's process, as Windows' nvidia-smi prints it).
NO_PERMISSION = re.compile(r"^(?!\s*\|).*?(?<!\[)Insufficient Permissions(?!\])", re.IGNORECASE)
# modprobe (which nvidia-smi runs through nvidia-modprobe) finds no nvidia.ko under
# /lib/modules/$(uname -r): the module is not built or installed for the running kernel.
MODULE_NOT_FOUND = re.compile(r"modprobe: FATAL: Module nvidia not found", re.IGNORECASE)
# The Windows driver's nvidia-smi (WSL2's /usr/lib/wsl/lib/nvidia-smi, a GPU-PV guest's copy) follows a
# failed NVML start with "Failed to properly shut down NVML: <the same error>" (microsoft/WSL#9134,
# #9166, #11755); the Linux driver's prints its failure alone (none of the 49 native failures in
# tests/fixtures/machine_dumps shows it). Its "Driver Not Loaded" is the Windows driver not reached
# through /dev/dxg: no Linux kernel module is involved.
WINDOWS_SMI = re.compile(r"^\s*Failed to properly shut down NVML: \S", re.MULTILINE)
# kmod's modprobe where init_module answered ENOSYS (tools/modprobe.c insmod_insert: "could not insert
# '%s': %s" with strerror(-err), "Function not implemented"): a kernel that loads no module at all
# (kernel/sys_ni.c's stub without CONFIG_MODULES; WSL1, which implements no module loading). No
# restart or rebuild loads the NVIDIA module there.
NO_MODULE_LOADING = re.compile(r"could not insert '?[^\s':]*nvidia[^\s':]*'?: Function not implemented")
# nouveau bound to a GPU in this boot's kernel log ("nouveau 0000:01:00.0: DRM: VRAM: 2048 MiB",
# "[drm] Initialized nouveau 1.3.1"): it holds the GPU the nvidia module would drive.
NOUVEAU_BOUND = re.compile(
    r"nouveau [0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9]: (?:DRM|fb|bios|NVIDIA)|"
    r"\[drm\] Initialized nouveau"
)
_BUS = re.compile(r"([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9])\b")
# RmInitAdapter's own failure line, and the lines after which it always gives up (osinit.c: a GSP or
# DCE firmware RM that does not boot goes to its "RmInitAdapter failed!"; kernel_gsp.c's last boot
# attempt comes before that), which a log cut short may show alone. Before any of that, the module's
# probe gives a GPU up where the firmware (or a VM) assigned it no usable memory window (nv-pci.c:
# "This PCI I/O region assigned to your NVIDIA device is invalid: BAR1 is 0M @ 0x0 (PCI:...)").
INIT_FAILED = re.compile(
    r"RmInitAdapter failed|rm_init_adapter failed|Cannot initialize (?:GSP|DCE) firmware RM|"
    r"Max GSP-RM boot attempts exceeded|PCI I/O region assigned to your NVIDIA device is invalid|"
    # nv-pci.c's probe that could not claim the device's register window ("failed for 0M @ 0x0": the
    # firmware assigned it none, as the I/O region line above; the driver's own hint names rivatv)
    r"NVRM: request_mem_region failed",
    re.IGNORECASE,
)
_FALLEN = re.compile(r"fallen off the bus", re.IGNORECASE)
ERR_NAME = "ERR!"


def first_line(text: str, pattern: re.Pattern[str]) -> str:
    return next((line.strip() for line in text.splitlines() if pattern.search(line)), "")


# An Xid names the device without its function ("NVRM: Xid (PCI:0000:0a:00): 79, ...").
_XID_DEVICE = re.compile(r"\(PCI:(?:[0-9A-Fa-f]{4,8}:)?([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[ )]")


def _same_gpu(bus: str, line: str) -> bool:
    """A kernel line about this GPU, or one that names no GPU (old drivers print none)."""
    found = _BUS.findall(line)
    devices = _XID_DEVICE.findall(line)
    if not bus or not (found or devices):
        return True
    return any(b.lower() == bus[-7:].lower() for b in found) or any(
        d.lower() == bus[-7:-2].lower() for d in devices
    )


UNREACHABLE = "gpu-unreachable"  # what a GPU's failure line names where nothing decides more


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
    return UNREACHABLE


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
# Under MIG the Xid names the GPU instance too (kernel_rc.c XID_PRINT_WITH_ATTR: "PCI:%04x:%02x:%02x
# GPU-I:%02u GPU-CI:%02u").
_XID_79 = re.compile(rf"NVRM: Xid \(PCI:({_PCI_BUS})(\.[0-9])?(?: GPU-I:[0-9]+)?(?: GPU-CI:[0-9]+)?\): 79\b")


# NV_DEV_PRINTF's prefix (kernel-open/common/inc/os-interface.h:270): "NVRM: GPU 0000:0a:00.0: ".
_DEV_PREFIX = re.compile(rf"NVRM: GPU ({_PCI_BUS}\.[0-9]):")


def named_bus(line: str) -> str:
    """The bus id NVRM's per-GPU prefix names in a kernel line ("" where it names none)."""
    m = _DEV_PREFIX.search(line)
    return m.group(1) if m else ""


def join_nvrm(kernel_log: str) -> str:
    """The log with NVRM's continuation lines joined to the message they continue ("NVRM: The NVIDIA
    ... is\n NVRM:  supported through ..."), so a message spread over lines reads as one. Talos's
    `talosctl dmesg` prints such a message on one line, its line breaks written as "\\x0a"."""
    return re.sub(r"\s*(?:\n[^\n]*?|\\x0a)NVRM:\s*", " ", kernel_log)


def fallen_off_bus(kernel_log: str) -> tuple[str, str] | None:
    """(the kernel's line, the GPU's bus id) where the log says a GPU fell off the bus, else None."""
    joined = join_nvrm(kernel_log)
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


def failed_gpus(kernel_log: str) -> dict[str, tuple[str, str]]:
    """bus id (its last 7 characters, lower case) -> (reason, the kernel's line) for each GPU the log
    names as fallen off the bus (gpu-lost, which wins) or not started (gpu-init-failed)."""
    found: dict[str, tuple[str, str]] = {}
    joined = join_nvrm(kernel_log)
    for old in _FALLEN_OLD.finditer(joined):
        found.setdefault(old.group(1)[-7:].lower(), ("gpu-lost", old.group(0)))
    for line in kernel_log.splitlines():
        for pattern in (_FALLEN_NEW, _FALLEN_AT):
            if said := pattern.search(line):
                found.setdefault(said.group(1)[-7:].lower(), ("gpu-lost", line.strip()))
        if xid := _XID_79.search(line):
            found.setdefault((xid.group(1) + (xid.group(2) or ".0"))[-7:].lower(), ("gpu-lost", line.strip()))
    for line in kernel_log.splitlines():
        if INIT_FAILED.search(line) and (bus := named_bus(line)):
            found.setdefault(bus[-7:].lower(), ("gpu-init-failed", line.strip()))
    return found


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


# bbswitch's own kernel lines (Bumblebee-Project/bbswitch bbswitch.c): at load "Succesfully loaded.
# Discrete card %s is %s" (:479), at unload "Unloaded. Discrete card %s is %s" (:499); switching off
# "disabling discrete graphics" (:253), refused by "Optimus ACPI call failed, the device is not
# disabled" (:256) or "device %s is in use by driver '%s', refusing OFF" (:248); switching on
# "enabling discrete graphics" (:287), which says nothing of whether it came on.
_BB_STATE = re.compile(r"bbswitch: (?:Succesfully loaded|Unloaded)\. Discrete card (\S+) is (on|off)")
_BB_OFF = re.compile(r"bbswitch: disabling discrete graphics")
_BB_NOT_OFF = re.compile(r"bbswitch: (?:Optimus ACPI call failed, the device is not disabled|.*refusing OFF)")
_BB_ON = re.compile(r"bbswitch: enabling discrete graphics")
_BB_FOUND = re.compile(r"bbswitch: Found discrete VGA device (\S+?):")
# The PCI core's own words where a device would not leave D3 for D0 (drivers/pci/pci.c,
# pci_raw_set_power_state: "Refused to change power state, currently in D3", newer kernels "Refused
# to change power state from D3hot to D0"): after bbswitch's "enabling", the card stayed off.
_PCI_STAYED_D3 = re.compile(
    r"\bpci ((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): Refused to change power state"
    r"(?:, currently in D3|\s+from D3\w*\s+to D0)",
    re.I,
)


def bbswitch_off(kernel_log: str) -> tuple[str, str] | None:
    """(bbswitch's line, the card's bus id or "") where its last word this boot leaves the discrete
    card off, or an "enabling" the PCI core says left it in D3 (the kernel's line then); None where
    it leaves it on, says nothing, or an "enabling" has no outcome in the log."""
    state: tuple[str, str] | None = None
    bus = ""
    enabling = False  # bbswitch said "enabling" and nothing since says how it ended
    for line in kernel_log.splitlines():
        if found := _BB_FOUND.search(line):
            bus = found.group(1)
        if said := _BB_STATE.search(line):
            bus = said.group(1)
            state = (line.strip(), bus) if said.group(2) == "off" else None
            enabling = False
        elif _BB_OFF.search(line):
            state, enabling = (line.strip(), bus), False
        elif _BB_NOT_OFF.search(line):
            state, enabling = None, False
        elif _BB_ON.search(line):
            state, enabling = None, True
        elif enabling and (stayed := _PCI_STAYED_D3.search(line)):
            state, enabling = (line.strip(), stayed.group(1)), False
    return state
