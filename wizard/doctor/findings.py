"""Problems in a profile that a person must know about, each with one line of why.

Facts only: version compatibility is the resolver's job (it knows the tables).
Used by `detect`, the app's detect screen, and later the doctor.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from wizard.choose.choice import Recommendation
from wizard.doctor.newest import newest_tf_problems, restart_loads
from wizard.profile import MODULE_ONLY_SOURCES, LayerState, MachineProfile
from wizard.profile_view import wsl1_command
from wizard.safe.display import safe
from wizard.text import t

LOW_DISK_MIB = 10 * 1024  # tensorflow[and-cuda] with its nvidia-* wheels takes about 6-7 GB


@dataclass(frozen=True)
class Finding:
    key: str  # stable id, e.g. "no-driver"; the doctor and tests match on it
    severity: str  # "error" | "warning" | "info"
    title: str
    why: str
    fix: str = ""  # the doctor's fix where the finding has its own (else: detect, then the plan)
    source: str = ""  # the public citation the fact comes from, where there is one
    # The installed NVIDIA driver a restart loads, where that one restart fixes this finding (the
    # recommended set's driver step is the restart: DriverNeed.restart_only); the doctor's fix is
    # then the restart (wizard.doctor.diagnose), not an install or "run detect".
    restart_loads: str | None = None
    # What decided it, one line each ("dmesg (exit 0): Loading of unsigned module is rejected"):
    # shown apart from the title and why (the CLI under them; a screen one key away).
    evidence: tuple[str, ...] = ()


def _f(key: str, severity: str, **fields: object) -> Finding:
    slug = key.replace("-", "_")
    return Finding(key, severity, t(f"findings.{slug}.title", **fields), t(f"findings.{slug}.why", **fields))


def _recommendation(p: MachineProfile) -> Recommendation | None:
    try:
        from wizard.choose.resolver import recommend

        return recommend(p)
    except Exception:  # a table that does not load, an odd profile: the findings of facts stand
        return None


# What a failed machine state explains better than these facts-only findings (their fix would be
# "install the driver" or a second wording of the same fault): left out where a state is there.
EXPLAINED_BY_STATE = {
    "module": (
        "gpu-without-driver",
        "no-nvidia-gpu",
        "secure-boot",
        "nouveau",
        "reboot-needed",
        "driver-module-only",
    ),
    "libraries": ("reboot-needed", "driver-no-gpus", "driver-module-only"),
    # WSL's nvidia-smi not reaching the Windows driver: the Windows GPU is there, unseen from Linux.
    "wsl": ("no-driver-wsl2", "linux-driver-in-wsl", "no-nvidia-gpu"),
    # Inside a container under WSL2 the runtime decides, not the Windows driver.
    "container": ("no-nvidia-gpu", "gpu-without-driver", "no-driver-wsl2", "driver-module-only"),
    # A GPU switched off, lost or not started is a GPU: never "No NVIDIA GPU found".
    "pci": ("gpu-without-driver", "no-nvidia-gpu"),
    "gpu": ("driver-no-gpus", "driver-module-only", "gpu-without-driver", "no-nvidia-gpu"),
}


def state_findings(p: MachineProfile) -> list[Finding]:
    """Each failed layer with a reason, in the one view's words (wizard.probe.state_view): the short
    title, its evidence as the why, the step that fixes it as the fix."""
    from wizard.probe.state_view import unsure_key, words

    out: list[Finding] = []
    for state in p.failed_states:
        if not state.reason and not unsure_key(state):
            continue
        w = words(state, p)
        # The first line is the title, the why its fix; the evidence rides apart (one key away).
        why = w.fix + (f" {w.manual}" if w.manual else "")
        fix = why
        key = f"state-{state.reason or unsure_key(state)}"
        if any(f.key == key for f in out):
            continue  # the same failure on a second layer or GPU: said once
        severity = "error" if state.blocks else "warning"
        out.append(Finding(key, severity, w.title, why, fix=fix, evidence=w.evidence))
    return out


# A GPU layer that fails with no cause decided: the driver is loaded and gives no GPU (not "no GPU").
NO_USABLE_GPU = "gpu-no-usable"


def _unsure(state: LayerState) -> str:
    """A failure with no cause named that has words of its own (state_view.unsure_key), else ""."""
    from wizard.probe.state_view import unsure_key

    return unsure_key(state)


def find_problems(p: MachineProfile) -> list[Finding]:
    out = _find_problems(p)
    states = state_findings(p)
    if not states:
        return out
    shown = {f.key.removeprefix("state-") for f in states}
    hidden = {
        key
        for s in p.failed_states
        if (s.reason or _unsure(s)) in shown
        for key in EXPLAINED_BY_STATE.get(s.layer, ())
    }
    return states + [f for f in out if f.key not in hidden]


def _find_problems(p: MachineProfile) -> list[Finding]:
    out: list[Finding] = []
    # The recommendation Choose shows, asked for once: whether a restart is all the driver needs
    # comes from it (the resolver's DriverNeed), never worked out again here.
    rec = _recommendation(p)
    restart = restart_loads(rec)
    if p.platform == "wsl1":
        out.append(_f("wsl1", "error", command=wsl1_command(p.os.wsl_distro)))
    elif p.platform == "windows":
        out.append(_f("native-windows", "warning"))
    elif p.platform == "macos":
        out.append(_f("macos", "warning"))

    if p.platform == "wsl2":
        stray = p.linux_driver_in_wsl  # the files the plan's step removes
        if stray:
            out.append(_f("linux-driver-in-wsl", "error", path=stray[0]))

    if p.driver is None and p.platform not in ("macos", "wsl1"):
        awaiting = p.driver_awaiting_reboot  # installed, on disk for this kernel, not loaded
        if p.nvidia_pci_devices and awaiting:
            words = _f("driver-not-loaded", "error", version=awaiting, kernel=p.os.kernel)
            # the doctor's same diagnosis, fixed by the restart where that is the plan's driver step
            out.append(replace(words, key="gpu-without-driver", restart_loads=restart))
        elif p.nvidia_pci_devices:
            out.append(_f("gpu-without-driver", "error", count=p.nvidia_pci_devices))
        elif not p.gpus:
            key = "no-driver-wsl2" if p.platform == "wsl2" else "no-nvidia-gpu"
            out.append(_f(key, "warning" if key == "no-nvidia-gpu" else "error"))
    elif p.driver is not None and not p.gpus and p.driver.source in MODULE_ONLY_SOURCES:
        # Only the kernel module answered (its /proc file, sysfs, its loading line): no GPU list was
        # read at all, which is not a driver that lists none; nvidia-smi's own words say why.
        out.append(_f("driver-module-only", "error", version=safe(p.driver.version, 40)))
    elif p.driver is not None and not p.gpus:
        out.append(_f("driver-no-gpus", "error"))

    # A driver version nobody can read (damaged, or markup): say so here too, as recommend does.
    unreadable = p.driver is not None and _driver_unreadable(p.driver.version)
    if unreadable and p.driver is not None:
        out.append(_f("driver-unreadable", "warning", value=safe(p.driver.version, 80)))

    km = p.kernel
    if p.platform == "linux":
        if km.nouveau_loaded and not km.nvidia_loaded:
            nouveau = _f("nouveau", "warning")
            if p.driver_awaiting_reboot:  # the installed driver's blacklist takes over at the restart
                nouveau = replace(nouveau, why=t("findings.nouveau.why_installed"), restart_loads=restart)
            out.append(nouveau)
        stale = p.driver and not unreadable and p.driver.version not in ("unknown", km.loaded_version)
        if km.loaded_version and p.driver and stale:
            out.append(_f("reboot-needed", "error", loaded=km.loaded_version, userspace=p.driver.version))
        if km.secure_boot and p.nvidia_pci_devices and not km.nvidia_loaded:
            out.append(_f("secure-boot", "warning"))

    for gpu in p.gpus:
        if gpu.compute_capability == "unknown":
            out.append(_f("unknown-cc", "info", index=gpu.index, name=gpu.name))

    cuda_paths = [d for d in p.ld_library_path if "cuda" in d.lower() or "cudnn" in d.lower()]
    if cuda_paths:
        out.append(_f("ld-library-path", "info", paths=":".join(cuda_paths)))

    # uv makes the plan's environment without ensurepip (wizard.plan.installer): no python3-venv needed.
    if p.python.venv_module is False and p.platform in ("linux", "wsl2") and not _plan_uses_uv(p):
        out.append(_f("no-venv", "warning", version=".".join(p.python.version.split(".")[:2])))
    if p.tensorflow and p.tensorflow.distribution == "tensorflow-cpu":
        out.append(_f("cpu-only-tf", "info", version=p.tensorflow.version))
    free = p.resources.home_free_mib
    if free is not None and free < LOW_DISK_MIB:
        out.append(_f("low-disk", "warning", free_gib=round(free / 1024, 1)))
    # The newest TensorFlow out of reach (an old driver, an old GPU) or a Python to add.
    for key, severity, fields in newest_tf_problems(p, rec):
        fix, source = str(fields.pop("doctor_fix", "")), str(fields.pop("doctor_source", ""))
        why_key = str(fields.pop("why_key", ""))
        # The plan's driver step is the restart where `restart` says so (the same DriverNeed).
        loads = restart if key == "driver-step" else None
        found = replace(_f(key, severity, **fields), fix=fix, source=source, restart_loads=loads)
        out.append(replace(found, why=t(why_key, **fields)) if why_key else found)
    return out


def _plan_uses_uv(profile: MachineProfile) -> bool:
    from wizard.plan.installer import choose_installer

    try:
        return choose_installer(profile).is_uv
    except Exception:  # an unreadable uv version: the plan's pip then needs the venv module
        return False


def _driver_unreadable(version: object) -> bool:
    from wizard.choose.resolver import normalize_driver

    return str(version) not in ("", "unknown", "None") and normalize_driver(version) is None
