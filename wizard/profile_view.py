"""A machine profile as (label, value) rows for people, part by part.

One wording for `tf-gpu-wizard detect` and the app's detect screen, which fills
the rows in as each probe part finishes.
"""

from __future__ import annotations

from wizard.profile import UNKNOWN, UNREADABLE, MachineProfile, PciGpu
from wizard.safe.display import safe
from wizard.text import t

SOURCE_KEYS = {
    "nvml": "nvml",
    "nvidia-smi": "nvidia_smi",
    "proc": "proc",
    "sysfs": "sysfs",
    "kernel-log": "kernel_log",
    "nvidia-container-cli": "container_cli",
}
STORY_SOURCES = {"windows-host": "story.profile.source_windows_host"}


def _yes_no(value: bool | None) -> str:
    if value is None:
        return t("profile.value.unknown")
    return t("profile.value.yes") if value else t("profile.value.no")


def _known(value: str | None) -> str:
    return value if value and value != UNKNOWN else t("profile.value.unknown")


def _mib(value: int | None) -> str:
    if value is None:
        return t("profile.value.unknown")
    return t("profile.value.mib", gib=value / 1024)


def _source(source: str) -> str:
    """Where the driver version was read, in words; "" when that is not known (say nothing)."""
    key = SOURCE_KEYS.get(source)
    if key:
        return t(f"profile.source.{key}")
    return t(STORY_SOURCES[source]) if source in STORY_SOURCES else ""


def _driver_text(p: MachineProfile) -> str:
    """The driver, the newest CUDA it supports and where that was read: only what is known."""
    assert p.driver is not None
    source = _source(str(p.driver.source))
    if not source and p.simulated:  # a saved profile that names no source: the figure is the file's
        source = t("keys.profile.source_file")
    cuda = str(p.driver.cuda)
    version = safe(p.driver.version, 80)
    if cuda in ("", UNKNOWN, "None"):
        key = "story.profile.driver_no_cuda" + ("" if source else "_no_source")
        return t(key, version=version, source=source)
    if not source:
        return t("story.profile.driver_no_source", version=version, cuda=safe(cuda, 20))
    return t("profile.value.driver", version=version, cuda=safe(cuda, 20), source=source)


def _env_kind(kind: str) -> str:
    # The probe's word ("system", "venv", "conda") is a code: worded per language, others kept.
    return t("profile.env." + kind) if kind in ("system", "venv", "conda") else _known(kind)


def _set_by(p: MachineProfile, *facts: str) -> str:
    """ " (set by TF_GPU_WIZARD_DRIVER_VERSION=570.133.07)" where a fact was overridden, else ""."""
    names = [p.overrides[f] for f in facts if f in p.overrides]
    return "".join(" (" + t("states.set_by", name=safe(n, 200)) + ")" for n in names)


def _pci_gpu_text(p: MachineProfile, gpu: PciGpu) -> str:
    """ "GeForce RTX 3060 · compute 8.6 · from the PCI bus (10de:2504); the driver is not answering" """
    device = safe(gpu.device_id, 20)
    known = gpu.name not in ("", UNKNOWN)
    name = safe(gpu.name, 80) if known else t("profile.pci.unknown_name", device=device)
    # Only NVML or nvidia-smi list GPUs: a version read from /proc or a log is not an answer.
    answered = p.driver is not None and p.driver.source in ("nvml", "nvidia-smi")
    if answered:
        where = "profile.pci.driver_lists_none"
    elif p.driver is not None:  # the module's version was read, but its tools list nothing
        where = "profile.pci.tools_silent"
    else:
        where = "profile.pci.no_driver"
    return t("profile.pci.gpu", name=name, cc=safe(gpu.compute_capability, 8), where=t(where, device=device))


def part_rows(part: str, p: MachineProfile) -> list[tuple[str, str]]:
    """What one probe part found, as (label, value) rows for people."""
    f = "profile.field."
    v = "profile.value."
    if part == "platform":
        os_name = p.os.name if p.os.name != UNKNOWN else f"{p.os.id} {p.os.version}"
        return [
            (t(f + "platform"), f"{p.platform} · {p.arch}"),
            (t(f + "os"), _known(os_name.strip())),
            (t(f + "kernel"), _known(p.os.kernel)),
        ]
    if part == "python":
        env = _env_kind(p.python.env) + (f" ({p.python.env_name})" if p.python.env_name else "")
        return [
            (
                t(f + "python"),
                t(v + "python", version=p.python.version, env=env, executable=p.python.executable),
            ),
            (
                t(f + "pip_venv"),
                t(v + "pip_venv", pip=_yes_no(p.python.pip), venv=_yes_no(p.python.venv_module)),
            ),
        ]
    if part == "nvidia":
        stopped = next((x for x in p.failed_states if x.layer == "module" and x.facts.get("version")), None)
        if p.driver is None and stopped is not None:  # installed, not working: never "no driver"
            from wizard.probe.state_view import words

            # Unread (modinfo's module, a failed build for a kernel not shown running): installed,
            # whether it works not known; failing: installed, not working.
            key = "states.driver_unread" if stopped.state == UNREADABLE else "states.driver_stopped"
            shown = t(
                key,
                version=safe(stopped.facts["version"], 40),
                title=words(stopped).title,
            )
            rows = [(t(f + "driver"), shown)]
        elif p.driver is None and any(
            x.layer == "gpu" and x.facts.get("nvml") == "unknown" for x in p.failed_states
        ):
            # NVML's library started and failed with "Unknown Error": installed, not shown working.
            rows = [(t(f + "driver"), t(v + "driver_nvml_unknown"))]
        elif p.driver is None and any(x.gives_no_gpu for x in p.failed_states):
            # The driver answered and gave no working GPU ("No devices were found"): loaded, not missing.
            rows = [(t(f + "driver"), t(v + "driver_no_gpu"))]
        elif p.driver is None:
            rows = [(t(f + "driver"), t(v + "no_driver"))]
        else:
            rows = [
                (
                    t(f + "driver"),
                    _driver_text(p) + _set_by(p, "driver.version", "driver.cuda"),
                )
            ]
        if not p.gpus and p.pci_gpus:
            # No driver named a GPU: the PCI bus did, by device id (a fact of its own, said so).
            rows += [(t(f + "gpu", index=i), _pci_gpu_text(p, g)) for i, g in enumerate(p.pci_gpus)]
        elif p.driver is None and not p.gpus and p.nvidia_pci_devices:
            rows.append((t(f + "gpu", index=0), t(v + "pci_only", count=p.nvidia_pci_devices)))
        for gpu in p.gpus:
            memory = _mib(gpu.memory_mib)
            rows.append(
                (
                    t(f + "gpu", index=gpu.index),
                    t(v + "gpu", name=gpu.name, cc=gpu.compute_capability, memory=memory)
                    + _set_by(p, "gpus"),
                )
            )
        return rows
    if part == "kernel":
        if p.platform != "linux":
            return []
        km = p.kernel
        rows = [
            (
                t(f + "modules"),
                t(v + "modules", nvidia=_yes_no(km.nvidia_loaded), nouveau=_yes_no(km.nouveau_loaded)),
            )
        ]
        if km.module_for_kernel is not None:  # asked only where the module is not loaded
            kernel = safe(_known(p.os.kernel), 80)
            shown = (
                t(v + "module_on_disk", version=safe(km.module_version or "?", 40), kernel=kernel)
                if km.module_for_kernel
                else t(v + "module_none", kernel=kernel)
            )
            rows.append((t(f + "module_on_disk"), shown))
        if km.secure_boot is not None:
            rows.append((t(f + "secure_boot"), _yes_no(km.secure_boot)))
        return rows
    if part == "cuda":
        toolkits = ", ".join(
            f"{tk.version}{' *' if tk.default else ''} ({tk.path})" for tk in p.cuda_toolkits
        )
        cudnn = ", ".join(f"{c.version} ({c.path})" for c in p.cudnn)
        rows = [
            (t(f + "toolkits"), toolkits or t(v + "none")),
            (t(f + "cudnn"), cudnn or t(v + "none")),
        ]
        if p.libcuda:
            rows.append((t(f + "libcuda"), ", ".join(lib.path for lib in p.libcuda)))
        return rows
    if part == "tensorflow":
        tf = p.tensorflow
        value = t(v + "not_installed") if tf is None else f"{tf.version} ({tf.distribution})"
        return [(t(f + "tensorflow"), value)]
    if part == "states":
        # Failures only, with their first line: a healthy stack needs no rows (its parts say it).
        from wizard.probe.state_view import state_label, state_line

        return [(state_label(s), state_line(s)) for s in p.failed_states]
    if part == "resources":
        r = p.resources
        return [
            (t(f + "ram"), _mib(r.ram_mib)),
            (t(f + "disk"), _mib(r.home_free_mib)),
            (t(f + "cpus"), str(r.cpu_count) if r.cpu_count else t(v + "unknown")),
        ]
    return []


def powershell_quote(value: str) -> str:
    """A PowerShell single-quoted string: nothing inside is expanded; a ' is doubled."""
    return "'" + value.replace("'", "''") + "'"


def wsl1_command(distro: str) -> str:
    """How to turn this WSL1 distribution into WSL2, in PowerShell: the command with the
    distribution's own name (WSL_DISTRO_NAME), or how to find the name when it is unknown."""
    arg = wsl1_distro_arg(distro)
    return t("profile.wsl1.command", distro=arg) if arg else t("profile.wsl1.command_unknown")


def wsl1_distro_arg(distro: str) -> str | None:
    """The distribution's name as a PowerShell argument (quoted where it must be), None if unknown."""
    if distro and distro != UNKNOWN and distro.isprintable() and len(distro) < 200:
        name = distro if distro.replace("-", "").replace(".", "").replace("_", "").isalnum() else None
        return name or powershell_quote(distro)
    return None
