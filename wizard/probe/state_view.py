"""The one view of a machine state (wizard.profile.LayerState): a short first line, the step that
fixes it, and its evidence kept apart, for Detect, Choose, Plan, Run and the doctor alike.

Each failure reason has its words in assets/text/<lang>/states.toml: `<reason>.title` (one line),
`<reason>.fix` (the step: restart, enroll the key, remove the library, pass --gpus all ...) and, where
the step is a command a person copies, `<reason>.manual`. None of them says "install the driver"
over an installed one.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import NamedTuple

from wizard.profile import FAILING, LayerState, MachineProfile
from wizard.safe.display import safe
from wizard.text import has, language, t

# Where a reason's step is carried out, and whether a restart finishes it.
_WHERE = {
    "container-no-gpu": "host",
    "container-no-libs": "host",
    "wsl-no-gpu-device": "windows-host",
    "basic-render-only": "windows-host",
    "wsl-gpu-blocked": "windows-host",
    "cuda-err": "user",
    "not-loaded": "user",
    "not-loaded-secure-boot": "user",
    "not-loaded-nouveau": "user",
    "version-mismatch": "user",
    "gpu-lost": "user",
    "gpu-init-failed": "user",
    "gpu-unreachable": "user",
    "driver-drops-gpu": "user",
    "driver-too-old-for-gpu": "user",
    "open-module-no-gsp": "user",
}
# Causes whose fix acts on the machine's driver or GPU: inside a container, that is its host.
_ON_THE_HOST = frozenset(
    {
        "cuda-err",
        "not-loaded",
        "not-loaded-secure-boot",
        "not-loaded-nouveau",
        "secure-boot",
        "module-not-built",
        "gpu-switched-off",
        "gpu-lost",
        "gpu-init-failed",
        "gpu-unreachable",
        "driver-drops-gpu",
        "driver-too-old-for-gpu",
        "open-module-no-gsp",
    }
)
_RESTART = {
    "secure-boot": "reboot",
    "not-loaded": "reboot",
    "not-loaded-secure-boot": "reboot",
    "not-loaded-nouveau": "reboot",
    "module-not-built": "reboot",
    "version-mismatch": "reboot",
    "gpu-switched-off": "reboot",
    "gpu-lost": "reboot",
    "gpu-init-failed": "reboot",
    "gpu-unreachable": "reboot",
    "driver-drops-gpu": "reboot",
    "driver-too-old-for-gpu": "reboot",
    "open-module-no-gsp": "reboot",
    "wsl-no-gpu-device": "wsl-shutdown",
    "basic-render-only": "wsl-shutdown",
    "wsl-gpu-blocked": "wsl-shutdown",
}
# The plan's own step that removes Linux driver files inside WSL fixes these (plan.wsl): worded
# here like every state, that step is theirs, not the driver step.
REMOVED_BY_PLAN = ("wsl-linux-driver", "wsl-shadowing-lib")
# The Windows driver's install is basic-render-only's fix: the usual step (its download, its
# check), worded here.
WINDOWS_DRIVER_FIXES = ("basic-render-only",)


@dataclass(frozen=True)
class StateWords:
    reason: str
    title: str  # the short first line
    fix: str  # the step that fixes it, one sentence
    manual: str  # the exact commands a person copies ("" where the step is a restart or none)
    where: str  # "user" | "root" | "windows-host" | "host" (a container's host)
    restart: str | None  # "reboot" | "wsl-shutdown" | None
    evidence: tuple[str, ...]  # one line each: "nvidia-smi (exit 18): Failed to initialize NVML: ..."
    # The manual part's commands, each whole as a person types it (`c` copies them): only where the
    # manual names a command with nothing to fill in (not "docker run --gpus all IMAGE").
    copy: tuple[str, ...] = ()


def _facts(state: LayerState, profile: MachineProfile | None) -> dict[str, str]:
    facts = {k: safe(v, 400) for k, v in state.facts.items()}
    facts.setdefault("version", _UNREAD)
    facts.setdefault("module", "?")
    facts.setdefault("library", "?")
    facts["gpu"] = _gpu_label(state)
    facts.setdefault("bus", "?")
    facts.setdefault("path", "?")
    facts.setdefault("shown", "?")
    kernel = profile.os.kernel if profile is not None else "unknown"
    # The kernel the state names (a failed build's, where the running one was not read), else this one.
    kernel = state.facts.get("kernel") or kernel
    facts.setdefault("kernel", safe(kernel, 120))
    facts["headers"] = shlex.join(["sudo", "apt", "install", f"linux-headers-{kernel}"])
    facts["branch"] = facts["version"].split(".")[0]
    return facts


def _gpu_label(state: LayerState) -> str:
    """The GPU a state is about, as a person knows it: its bus id (and name) where the probe read
    them, else its index, else its name, else "the NVIDIA GPU" (never "GPU ?"). From the state
    alone, so every view words it alike."""
    bus, name = state.facts.get("bus", ""), state.facts.get("name", "")
    name = safe(name, 80) if name not in ("", "unknown", "ERR!") else ""
    if bus:
        key = "bus_name" if name else "bus"
        return t(f"states.gpu-label.{key}", bus=safe(bus, 40), name=name)
    if state.index is not None:
        key = "index_name" if name else "index"
        return t(f"states.gpu-label.{key}", index=state.index, name=name)
    return t("states.gpu-label.name", name=name) if name else t("states.gpu-label.unnamed")


# A version the evidence does not show (a pasted nvidia-smi, no modinfo): left out of the words,
# with the space before it ("NVIDIA driver is installed ..."; in Chinese, the space after it too).
_UNREAD = "\x00"


def _without_unread(text: str) -> str:
    gap = "" if language() == "zh" else " "
    return text.replace(f" {_UNREAD} ", gap).replace(f" {_UNREAD}", "").replace(_UNREAD, "")


# The probe's own words for what it saw at a path (wizard.probe.states: file_evidence(path, "present")):
# kept so in the profile, worded in the reader's language where shown. A line read from the machine
# (a command's output, a file's text) is shown as it is.
PROBE_WORDS = {
    "present": "present",
    "missing": "missing",
    "unreadable": "unreadable",
    "nvidia not loaded": "nvidia_not_loaded",
    "nouveau loaded": "nouveau_loaded",
    "no nvidia module": "no_nvidia_module",
    "no libnvidia-ml.so.VERSION": "no_libnvidia_ml",
    "no NVIDIA display controller": "no_display_controller",
    "present, not in the linker cache": "not_in_linker_cache",
    "present (outside /usr/lib/wsl/lib)": "outside_wsl_lib",
}


def evidence_lines(state: LayerState) -> tuple[str, ...]:
    out = []
    for ev in state.evidence:
        where = safe(ev.source, 200)
        if ev.exit is not None:
            where = t("states.evidence_exit", source=where, exit=ev.exit)
        key = PROBE_WORDS.get(ev.line) if ev.exit is None else None
        line = t(f"states.seen.{key}") if key else safe(ev.line, 600)
        out.append(t("states.evidence_line", source=where, line=line))
    return tuple(out)


def unsure_key(state: LayerState) -> str:
    """The words of a failure with no cause named, where what failed has words of its own: the driver
    gives no GPU ("gpu-no-usable"), WSL's nvidia-smi did not reach the Windows driver
    ("wsl-driver-unreached"), a kernel that loads no module ("no-module-loading"), a module build that
    failed for a kernel not shown to be the running one ("module-build-failed"), NVML's "Unknown
    Error" as it starts with no kernel words ("nvml-unknown", inside a container its own words),
    nvidia-smi's "CUDA Version: N/A"
    ("cuda-na"); else ""."""
    if state.reason or not state.failed:
        return ""
    if state.layer == "module" and (state.facts.get("build_failed_for") or state.facts.get("build_failed")):
        return "module-build-failed"
    if state.facts.get("refused") == "release":
        return "driver-refuses-gpu"
    if state.layer == "gpu" and state.facts.get("nvml") == "unknown":
        return "nvml-unknown-container" if state.facts.get("inside") == "container" else "nvml-unknown"
    if state.layer == "cuda" and state.facts.get("shown", "").upper() == "N/A":
        return "cuda-na"
    if state.gives_no_gpu:
        return "gpu-no-usable"
    if state.state != FAILING:
        return ""
    if state.layer == "wsl" and state.facts.get("unreached") == "windows-driver":
        return "wsl-driver-unreached"
    if state.layer == "module" and state.facts.get("loads") == "none":
        return "no-module-loading"
    return ""


def words(state: LayerState, profile: MachineProfile | None = None) -> StateWords:
    """A failed state in words; a reason without words of its own is named by its layer."""
    reason = state.reason
    facts = _facts(state, profile)
    unread = reason == "version-mismatch" and not state.facts.get("module")
    if unread:  # NVML's words decide it; the module's version was not read
        shown = state.facts.get("library", "")
        facts["library"] = f", NVML {safe(shown, 40)}" if shown else ""
        title = t(f"states.{reason}.title_unread", **facts)
        fix = t(f"states.{reason}.fix_unread", **facts)
        manual = ""
    elif unsure_key(state):
        # A failure whose cause nothing read decides (wizard.probe.states): what failed, in words of
        # its own, and the reads that would tell, with no cause named.
        key = unsure_key(state)
        # a failed build whose log kept no kernel's name: its own words, no kernel in them
        variant = "_kernel_unread" if state.facts.get("build_failed") == "kernel-unread" else ""
        title = t(f"states.{key}.title{variant}", **facts)
        fix = t(f"states.{key}.fix{variant}", **facts)
        manual = ""
    elif reason == "wsl-no-gpu-device" and state.facts.get("wsl") == "1":
        # WSL1 never gets a GPU device: converting the distribution is the step, not an update.
        title = t(f"states.{reason}.title_wsl1", **facts)
        fix = t(f"states.{reason}.fix_wsl1", **facts)
        manual = ""
    elif reason == "gpu-unreachable" and profile is not None and profile.platform == "windows":
        # No dmesg on Windows: Device Manager shows the GPU's status (a GPU-PV guest's, too).
        title = t(f"states.{reason}.title", **facts)
        fix = t("states.gpu-unreachable-windows.fix", **facts)
        manual = ""
    elif reason and has(f"states.{reason}.title"):
        title = t(f"states.{reason}.title", **facts)
        fix = t(f"states.{reason}.fix", **facts)
        # the switch the machine itself showed (system76-power, EnvyControl), else the usual ones
        switch = _SWITCH_TOOLS.get(state.facts.get("tool", ""))
        key = f"states.{reason}.manual{switch.text_suffix if switch else ''}"
        manual = t(key, **facts) if has(f"states.{reason}.manual") else ""
    else:
        title = t(
            "states.layer_failed",
            layer=t(f"states.layer.{state.layer}"),
            state=t(f"states.state.{state.state}"),
        )
        fix = t("states.no_fix")
        manual = ""
    title, fix, manual = _without_unread(title), _without_unread(fix), _without_unread(manual)
    if reason in _ON_THE_HOST and profile is not None and any(s.layer == "container" for s in profile.states):
        # The driver, its module and the GPU are the host's: a restart or dmesg in here does nothing.
        fix = t("states.on_the_host", fix=fix[:1].lower() + fix[1:])
    if title.startswith(facts["gpu"]):  # "the NVIDIA GPU fell off the bus" begins a line
        title = title[:1].upper() + title[1:]
    where = _WHERE.get(reason, "root")
    if reason == "wsl-path":
        where = "user"
    copy = manual_commands(reason, profile, state.facts.get("tool", "")) if manual else ()
    return StateWords(reason, title, fix, manual, where, _RESTART.get(reason), evidence_lines(state), copy)


# Where the key Secure Boot's DKMS or shim signs the module with is: Debian's DKMS keeps its own key;
# Ubuntu's shim-signed (and its derivatives) the MOK the installer made.
MOK_DEBIAN = "/var/lib/dkms/mok.pub"
MOK_UBUNTU = "/var/lib/shim-signed/mok/MOK.der"
# The manual part's command where it is one whole command (the states' `manual` words say the same).
_MANUAL_COMMANDS: dict[str, tuple[str, ...]] = {
    "no-libcuda": ("sudo ldconfig",),
    "wsl-no-gpu-device": ("wsl --update", "wsl --shutdown"),
    "gpu-switched-off": ("sudo prime-select nvidia",),
}


class _SwitchTool(NamedTuple):
    """A hybrid laptop's graphics switch the machine showed (wizard.probe.hybrid_mode)."""

    text_suffix: str  # its manual's text key: states.gpu-switched-off.manual<suffix>
    command: str  # its own command that switches the NVIDIA GPU on (the manual's first words)


_SWITCH_TOOLS = {
    "system76-power": _SwitchTool("_system76", "sudo system76-power graphics hybrid"),
    "envycontrol": _SwitchTool("_envycontrol", "sudo envycontrol --switch hybrid"),
}


def manual_commands(reason: str, profile: MachineProfile | None, tool: str = "") -> tuple[str, ...]:
    """The commands a state's manual part names, each whole (a Secure Boot key by the distribution's
    own path, the graphics switch the machine showed), for `c` to copy; () where the manual names
    none without a part to fill in."""
    if reason in ("secure-boot", "not-loaded-secure-boot"):
        debian = profile is not None and profile.os.id == "debian"
        return (f"sudo mokutil --import {MOK_DEBIAN if debian else MOK_UBUNTU}",)
    switch = _SWITCH_TOOLS.get(tool)
    if reason == "gpu-switched-off" and switch is not None:
        return (switch.command,)
    return _MANUAL_COMMANDS.get(reason, ())


def removed_by_plan_words(profile: MachineProfile) -> StateWords | None:
    """The words of the state the plan's remove-linux-driver step fixes (a Linux driver or library
    inside WSL); None where the profile holds no such state (a profile from before states)."""
    state = next((s for s in profile.failed_states if s.reason in REMOVED_BY_PLAN), None)
    return words(state, profile) if state is not None else None


def side_words(profile: MachineProfile) -> list[StateWords]:
    """Failures that do not stop the GPU set (a lost GPU of several, PATH under sudo, NVML slow):
    said beside the set by Choose and the plan, as Detect and the doctor say them. The remove
    step's states are said as that step instead."""
    blocking = profile.blocking_state
    out: list[StateWords] = []
    for state in profile.failed_states:
        if state.reason and state is not blocking and state.reason not in REMOVED_BY_PLAN:
            said = words(state, profile)
            if said not in out:
                out.append(said)
    return out


def blocking_words(profile: MachineProfile) -> StateWords | None:
    state = profile.blocking_state
    return words(state, profile) if state is not None else None


def state_line(state: LayerState) -> str:
    """'works', 'failing: ...' for a row of Detect: the layer's state in one line."""
    head = t(f"states.state.{state.state}") if has(f"states.state.{state.state}") else state.state
    if state.failed and state.reason:
        return t("states.row_failed", state=head, title=words(state).title)
    detail = state.facts.get("version") or state.facts.get("name") or state.facts.get("count") or ""
    return t("states.row", state=head, detail=safe(detail, 120)) if detail else head


def state_label(state: LayerState) -> str:
    label = t(f"states.layer.{state.layer}") if has(f"states.layer.{state.layer}") else state.layer
    return f"{label} {state.index}" if state.index is not None else label
