"""Broken machines read as they are: each failure state, probed from a fixture machine by the real
probe, carries its evidence, and Detect, Choose, Plan and the doctor give the same fix for it (the one
view, wizard.probe.state_view) — never a driver install over an installed driver."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, WSL2_PROC_VERSION, context, fail, ok, tree
from wizard.choose.driver_view import first_step_line
from wizard.choose.resolver import recommend
from wizard.doctor.diagnose import diagnose
from wizard.doctor.findings import find_problems
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeGpu, FakeNvml
from wizard.plan.build import build_plan
from wizard.probe import detect
from wizard.probe.state_view import StateWords, words
from wizard.profile import MachineProfile
from wizard.profile_view import part_rows
from wizard.sysio import CommandResult

PCI = {
    "/sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
    "/sys/bus/pci/devices/0000:01:00.0/class": "0x030000\n",
}
NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
NOT_LOADED = {**NATIVE, **PCI, "/proc/modules": "snd_hda_intel 57344 3 - Live 0x0\n"}
LIB_550 = {
    "/usr/lib/x86_64-linux-gnu/libcuda.so.550.120": "",
    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.120": "",
}
SMI_DOWN = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n"
QUERY = ("nvidia-smi", "--query-gpu=index,name,compute_cap,memory.total,uuid,pci.bus_id,driver_version")
LDCONFIG_550 = ok("\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n")
HEADER_550 = "| NVIDIA-SMI 550.120                 Driver Version: 550.120        CUDA Version: 12.4     |\n"
ROW_3060 = "0, NVIDIA GeForce RTX 3060, 8.6, 12288, GPU-1, 00000000:01:00.0, 550.120\n"
NO_LIB = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
NOT_LOADED_NVML = FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED)
WSL = {
    "/proc/version": WSL2_PROC_VERSION,
    "/etc/os-release": UBUNTU_2204,
    "/dev/dxg": "",
    "/usr/lib/wsl/lib/libcuda.so.1": "",
    "/usr/lib/wsl/lib/libnvidia-ml.so.1": "",
    "/usr/lib/wsl/lib/nvidia-smi": "",
}
WSL_LDCONFIG = ok("\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1\n")
WSL_NVML = FakeNvml(
    [FakeGpu(name="NVIDIA GeForce RTX 4060 Laptop GPU", cc=(8, 9))], driver="566.36", cuda=12070
)


class Blocked(FakeNvml):
    def init(self) -> None:
        from wizard.nvml import NvmlError

        raise NvmlError(ErrorKind.OTHER, "GPU access blocked by the operating system")


class Mismatch(FakeNvml):
    def init(self) -> None:
        from wizard.nvml import NvmlError

        raise NvmlError(ErrorKind.OTHER, "Driver/library version mismatch")


def machine(
    tmp_path: Path,
    files: dict[str, str],
    commands: dict[tuple[str, ...], CommandResult],
    nvml: FakeNvml,
    env: dict[str, str] | None = None,
) -> MachineProfile:
    return detect(context=context(tree(tmp_path, files), commands, env=env), nvml=nvml)


def secure_boot(tmp_path: Path) -> MachineProfile:
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): ok("550.120\n"),
        ("mokutil", "--sb-state"): ok("SecureBoot enabled\n"),
        ("dmesg",): ok("[    3.1] Loading of unsigned module is rejected\n"),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**NOT_LOADED, **LIB_550}, commands, NOT_LOADED_NVML)


def not_loaded_secure_boot(tmp_path: Path) -> MachineProfile:
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): ok("550.120\n"),
        ("mokutil", "--sb-state"): ok("SecureBoot enabled\n"),
        ("dmesg",): fail(1, stderr="dmesg: read kernel buffer failed: Operation not permitted\n"),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**NOT_LOADED, **LIB_550}, commands, NOT_LOADED_NVML)


def not_loaded(tmp_path: Path) -> MachineProfile:
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): ok("550.120\n"),
        ("mokutil", "--sb-state"): ok("SecureBoot disabled\n"),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**NOT_LOADED, **LIB_550}, commands, NOT_LOADED_NVML)


def module_not_built(tmp_path: Path) -> MachineProfile:
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): fail(1, stderr="modinfo: ERROR: Module nvidia not found.\n"),
        ("mokutil", "--sb-state"): ok("SecureBoot disabled\n"),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**NOT_LOADED, **LIB_550}, commands, NOT_LOADED_NVML)


def version_mismatch(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia_uvm 1 0 - Live 0x0\nnvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "535.154.05\n",
        "/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.154.05  Thu Dec 28 2023\n",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.183.01": "",
        "/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01": "",
    }
    smi = fail(
        18,
        stdout="Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183\n",
    )
    commands = {("nvidia-smi",): smi, ("ldconfig", "-p"): LDCONFIG_550}
    return machine(tmp_path, files, commands, Mismatch())


def switched_off(tmp_path: Path) -> MachineProfile:
    files = {**NOT_LOADED, "/proc/acpi/bbswitch": "0000:01:00.0 OFF\n"}
    return machine(tmp_path, files, {("ldconfig", "-p"): ok("")}, NO_LIB)


def gpu_lost(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    lost = "Unable to determine the device handle for GPU 0000:01:00.0: GPU is lost.  Reboot the system to recover this GPU\n"
    commands = {
        QUERY: fail(15, stdout=lost),
        ("nvidia-smi",): fail(15, stdout=lost),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**files, **LIB_550}, commands, FakeNvml(init_error=ErrorKind.OTHER))


# The 590+ branches dropped Maxwell, Pascal and Volta: the module says so as it probes the GPU.
LEGACY_LOG = (
    "[    3.1] NVRM: The NVIDIA GeForce GTX 1050 GPU installed in this system is\n"
    "               NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please\n"
    "               NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    "               NVRM:  information.  The 595.58.03 NVIDIA driver will ignore\n"
    "               NVRM:  this GPU.  Continuing probe...\n"
    "[    3.2] NVRM: No NVIDIA GPU found.\n"
)


def driver_drops_gpu(tmp_path: Path) -> MachineProfile:
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("dmesg",): ok(LEGACY_LOG),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**NOT_LOADED, **LIB_550}, commands, NOT_LOADED_NVML)


# The open module's GSP check (kernel-open/nvidia/nv.c), as a 570 open module prints it for a GeForce
# GTX 1060 (10de:1c03, Pascal: no GSP), then gives up at load.
NO_GSP_LOG = (
    "[    3.0] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.172.08  Release Build\n"
    "[    3.1] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1c03)\n"
    "               NVRM: installed in this system is not supported by open\n"
    "               NVRM: nvidia.ko because it does not include the required GPU\n"
    "               NVRM: System Processor (GSP).\n"
    "[    3.2] nvidia 0000:01:00.0: probe with driver nvidia failed with error -1\n"
    "[    3.2] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    "[    3.2] NVRM: None of the NVIDIA devices were initialized.\n"
)


def open_module_no_gsp(tmp_path: Path) -> MachineProfile:
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("dmesg",): ok(NO_GSP_LOG),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**NOT_LOADED, **LIB_550}, commands, NOT_LOADED_NVML)


# kernel-open/nvidia/nv.c's print_unsupported, as a 550 driver prints it for an RTX 5090 Laptop GPU
# (10de:2c58): a generation that came with CUDA 12.8 (the 570 branch).
UNSUPPORTED_LOG = (
    "[    8.299192] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2c58)\n"
    "               NVRM: installed in this system is not supported by the\n"
    "               NVRM: NVIDIA 550.120 driver release.\n"
    "[    8.299233] nvidia 0000:01:00.0: probe with driver nvidia failed with error -1\n"
    "[    8.299260] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    "[    8.299262] NVRM: None of the NVIDIA devices were initialized.\n"
)


def driver_too_old_for_gpu(tmp_path: Path) -> MachineProfile:
    files = {**NOT_LOADED, "/sys/bus/pci/devices/0000:01:00.0/device": "0x2c58\n", **LIB_550}
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("dmesg",): ok(UNSUPPORTED_LOG),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, files, commands, NOT_LOADED_NVML)


def init_failed(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    commands = {
        QUERY: fail(6, stdout="No devices were found\n"),
        ("nvidia-smi",): fail(6, stdout="No devices were found\n"),
        ("dmesg",): ok("[ 5.2] NVRM: RmInitAdapter failed! (0x26:0xffff:1227)\n"),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**files, **LIB_550}, commands, FakeNvml(init_error=ErrorKind.OTHER))


def cuda_shown(tmp_path: Path, shown: str) -> MachineProfile:
    """A loaded 550 driver whose nvidia-smi shows `shown` (4 cells) for its CUDA Version."""
    commands = {
        QUERY: ok(ROW_3060),
        ("nvidia-smi",): ok(HEADER_550.replace("CUDA Version: 12.4 ", f"CUDA Version: {shown}")),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    return machine(tmp_path, {**files, **LIB_550}, commands, FakeNvml(init_error=ErrorKind.OTHER))


def cuda_err(tmp_path: Path) -> MachineProfile:
    return cuda_shown(tmp_path, "ERR!")


def no_libcuda(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    commands = {("ldconfig", "-p"): ok("\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6\n")}
    nvml = FakeNvml([FakeGpu(name="NVIDIA GeForce RTX 3060", cc=(8, 6))], driver="550.120", cuda=12040)
    return machine(tmp_path, files, commands, nvml)


def wsl_no_device(tmp_path: Path) -> MachineProfile:
    files = {"/proc/version": WSL2_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
    return machine(tmp_path, files, {}, NO_LIB, env={"WSL_DISTRO_NAME": "Ubuntu"})


def wsl_blocked(tmp_path: Path) -> MachineProfile:
    commands = {("ldconfig", "-p"): WSL_LDCONFIG, ("/usr/lib/wsl/lib/nvidia-smi",): fail(255, stdout="")}
    return machine(tmp_path, WSL, commands, Blocked(), env={"WSL_DISTRO_NAME": "Ubuntu"})


def container_no_gpu(tmp_path: Path) -> MachineProfile:
    # An image made for a GPU (nvidia/cuda sets NVIDIA_VISIBLE_DEVICES) started without --gpus.
    files = {**NATIVE, "/.dockerenv": "", "/proc/modules": "overlay 1 0 - Live 0x0\n"}
    env = {"NVIDIA_VISIBLE_DEVICES": "all"}
    return machine(tmp_path, files, {("ldconfig", "-p"): ok("")}, NO_LIB, env=env)


def container_no_libs(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        "/.dockerenv": "",
        "/dev/nvidiactl": "",
        "/dev/nvidia0": "",
        "/proc/modules": "nvidia 1 0 - Live 0x0\n",
    }
    return machine(tmp_path, files, {("ldconfig", "-p"): ok("")}, NO_LIB)


def not_loaded_nouveau(tmp_path: Path) -> MachineProfile:
    files = {**NOT_LOADED, "/proc/modules": "nouveau 2 0 - Live 0x0\n"}
    commands = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): ok("550.120\n"),
        ("mokutil", "--sb-state"): ok("SecureBoot disabled\n"),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    return machine(tmp_path, {**files, **LIB_550}, commands, NOT_LOADED_NVML)


def no_permission(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    commands = {("ldconfig", "-p"): LDCONFIG_550}
    return machine(tmp_path, {**files, **LIB_550}, commands, FakeNvml(init_error=ErrorKind.NO_PERMISSION))


class Hung(FakeNvml):
    def init(self) -> None:
        import time

        time.sleep(2.0)  # NVML that does not answer (a GPU wedged in the driver)


def nvml_timeout(tmp_path: Path) -> MachineProfile:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    commands = {QUERY: ok(ROW_3060), ("nvidia-smi",): ok(HEADER_550), ("ldconfig", "-p"): LDCONFIG_550}
    ctx = context(tree(tmp_path, {**files, **LIB_550}), commands)
    ctx.nvml_timeout = 0.2
    return detect(context=ctx, nvml=Hung())


def basic_render_only(tmp_path: Path) -> MachineProfile:
    files = {"/proc/version": WSL2_PROC_VERSION, "/etc/os-release": UBUNTU_2204, "/dev/dxg": ""}
    files["/usr/lib/wsl/lib/libd3d12.so"] = ""  # Windows' own folder, without the NVIDIA driver's libcuda
    lspci = ok("1a3b:00:00.0 3D controller: Microsoft Corporation Basic Render Driver\n")
    return machine(tmp_path, files, {("lspci",): lspci}, NO_LIB, env={"WSL_DISTRO_NAME": "Ubuntu"})


def wsl_linux_driver(tmp_path: Path) -> MachineProfile:
    files = {
        **WSL,
        "/usr/lib/x86_64-linux-gnu/libcuda.so.535.54.03": "",
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1": "",
    }
    return machine(
        tmp_path, files, {("ldconfig", "-p"): WSL_LDCONFIG}, WSL_NVML, env={"WSL_DISTRO_NAME": "Ubuntu"}
    )


def wsl_shadowing_lib(tmp_path: Path) -> MachineProfile:
    files = {**WSL, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": ""}
    return machine(
        tmp_path, files, {("ldconfig", "-p"): WSL_LDCONFIG}, WSL_NVML, env={"WSL_DISTRO_NAME": "Ubuntu"}
    )


def wsl_path(tmp_path: Path) -> MachineProfile:
    env = {"WSL_DISTRO_NAME": "Ubuntu", "PATH": "/usr/sbin:/usr/bin"}
    return machine(tmp_path, WSL, {("ldconfig", "-p"): WSL_LDCONFIG}, WSL_NVML, env=env)


def container_no_gpu_unmeant(tmp_path: Path) -> MachineProfile:
    files = {**NATIVE, "/.dockerenv": "", "/proc/modules": "overlay 1 0 - Live 0x0\n"}
    return machine(tmp_path, files, {("ldconfig", "-p"): ok("")}, NO_LIB)


BLOCKING = {
    "secure-boot": secure_boot,
    "not-loaded": not_loaded,
    "not-loaded-secure-boot": not_loaded_secure_boot,
    "module-not-built": module_not_built,
    "version-mismatch": version_mismatch,
    "gpu-switched-off": switched_off,
    "gpu-lost": gpu_lost,
    "gpu-init-failed": init_failed,
    "cuda-err": cuda_err,
    "no-libcuda": no_libcuda,
    "wsl-no-gpu-device": wsl_no_device,
    "wsl-gpu-blocked": wsl_blocked,
    "container-no-gpu": container_no_gpu,
    "container-no-libs": container_no_libs,
    "driver-drops-gpu": driver_drops_gpu,
    "open-module-no-gsp": open_module_no_gsp,
}
INSTALLS = ("ubuntu-drivers", "nvidia-driver", "cuda-drivers")
# Every reason the probe names (wizard/probe/states.py), each from a machine that shows it; the
# blocking ones above, and those whose fix is the plan's remove step or that do not stop the set.
EVERY_REASON = {
    **BLOCKING,
    "not-loaded-nouveau": not_loaded_nouveau,
    "no-permission": no_permission,
    "nvml-timeout": nvml_timeout,
    "basic-render-only": basic_render_only,
    "wsl-linux-driver": wsl_linux_driver,
    "wsl-shadowing-lib": wsl_shadowing_lib,
    "wsl-path": wsl_path,
    # Not blocking: the plan's driver step (the floor Choose names) installs the driver it needs.
    "driver-too-old-for-gpu": driver_too_old_for_gpu,
}
STATES_SOURCE = Path(__file__).resolve().parent.parent / "wizard" / "probe" / "states.py"


def test_the_walk_covers_every_reason_the_probe_names() -> None:
    """Each reason id states.py passes to a state, and each the one view words, is walked below."""
    import re

    from wizard.text import has

    source = STATES_SOURCE.read_text(encoding="utf-8")
    named = {m for m in re.findall(r'"([a-z]+(?:-[a-z]+)+)"', source) if has(f"states.{m}.title")}
    assert len(named) == 24 and named == set(EVERY_REASON), sorted(named ^ set(EVERY_REASON))


@pytest.mark.parametrize("reason", sorted(EVERY_REASON))
def test_every_view_words_every_reason_alike(tmp_path: Path, reason: str) -> None:
    """Detect (its finding and its row), Choose (the set's first step, its reasons or its notes),
    the plan (the step that fixes it, or its notes) and the doctor give the one view's fix, and no
    view gives it a second wording (the older WSL findings and step titles)."""
    profile = EVERY_REASON[reason](tmp_path)
    state = next((s for s in profile.failed_states if s.reason == reason), None)
    assert state is not None, [(s.layer, s.state, s.reason) for s in profile.states]
    assert state.evidence and all(e.source for e in state.evidence)
    w = words(state, profile)
    assert w.fix and "states." not in w.title + w.fix

    found = {f.key: f for f in find_problems(profile)}
    assert found[f"state-{reason}"].fix.startswith(w.fix) and found[f"state-{reason}"].title == w.title
    assert w.title in [value.split(": ", 1)[-1] for _, value in part_rows("states", profile)]
    assert "linux-driver-in-wsl" not in found  # the state's finding, not a second one

    rec = recommend(profile)
    best = rec.recommended
    assert best is not None
    choose = [*rec.notes, *best.reasons]
    if best.driver is not None and best.driver.fix is not None:
        choose.append(first_step_line(best.driver))
    assert any(w.fix in text for text in choose), choose

    plan = build_plan(profile, best, home="/home/student")
    said = [f"{s.title} {s.why}" for s in plan.steps] + list(plan.notes)
    assert any(w.fix in text for text in said), said
    if reason in ("wsl-linux-driver", "wsl-shadowing-lib"):
        step = next(s for s in plan.steps if s.id == "remove-linux-driver")
        assert w.title in step.title and w.fix in step.why
    if reason == "basic-render-only":  # the Windows driver's own step, its download kept
        step = next(s for s in plan.steps if s.id == "windows-driver")
        assert w.title in step.title and w.fix in step.why and step.manual

    fixes = [d.fix for d in diagnose(profile)]
    assert any(w.fix in fix for fix in fixes), fixes


@pytest.mark.parametrize("reason", sorted(BLOCKING))
def test_every_view_gives_the_same_fix(tmp_path: Path, reason: str) -> None:
    profile = BLOCKING[reason](tmp_path)
    state = profile.blocking_state
    assert state is not None and state.reason == reason, [
        (s.layer, s.state, s.reason) for s in profile.states
    ]
    assert state.evidence and all(e.source for e in state.evidence)
    w = words(state, profile)
    assert w.fix and "states." not in w.title + w.fix  # worded, not a bare key

    # Detect: the finding, and the row of the GPU stack, name it; its fix is the one view's.
    found = {f.key: f for f in find_problems(profile)}
    assert found[f"state-{reason}"].fix.startswith(w.fix)
    assert w.title in [value.split(": ", 1)[-1] for _, value in part_rows("states", profile)]
    assert not {"gpu-without-driver", "no-nvidia-gpu"} & set(found)  # never "install the driver"

    # Choose: a GPU set, its first step the fix.
    rec = recommend(profile)
    best = rec.recommended
    assert best is not None and best.set.method != "cpu"
    assert best.driver is not None and best.driver.fix is not None and best.driver.fix.reason == reason
    assert w.title in first_step_line(best.driver)
    assert w.fix in best.reasons[0]

    # Plan: the step that fixes it comes first; nothing installs a driver.
    plan = build_plan(profile, best, home="/home/student")
    step = plan.steps[0]
    assert w.title in step.title and w.fix in step.why and best.driver.floor in step.why
    assert (step.manual or "") == (w.manual or "")
    assert not any(word in " ".join(c) for s in plan.steps for c in s.commands for word in INSTALLS)

    # Doctor: the same fix.
    fixes = [d.fix for d in diagnose(profile)]
    assert any(w.fix in fix for fix in fixes), fixes
    # No view says to install a driver over the installed one (but the legacy branch the installed
    # driver itself names, where it ignores this GPU: that state's own fix, said once, in its words).
    said = [f"{f.why} {f.fix}" for f in find_problems(profile)] + fixes + best.reasons
    if reason in ("driver-drops-gpu", "open-module-no-gsp"):
        said = [text.replace(w.fix, "") for text in said]
    assert not any(word in text for text in said for word in INSTALLS), said


def test_mismatch_keeps_both_versions(tmp_path: Path) -> None:
    state = version_mismatch(tmp_path).blocking_state
    assert state is not None
    assert (state.facts["module"], state.facts["library"]) == ("535.154.05", "535.183")
    assert any("Driver/library version mismatch" in e.line for e in state.evidence)


def test_cuda_err_is_kept_not_derived(tmp_path: Path) -> None:
    profile = cuda_err(tmp_path)
    assert profile.driver is not None and profile.driver.cuda == "unknown"
    state = profile.blocking_state
    assert state is not None and state.facts["shown"] == "ERR!"
    assert "CUDA Version: ERR!" in state.evidence[0].line


def test_one_lost_gpu_keeps_the_others(tmp_path: Path) -> None:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    out = (
        ROW_3060
        + "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.  Reboot the system to recover this GPU\n"
    )
    commands = {
        QUERY: fail(15, stdout=out),
        ("nvidia-smi",): fail(15, stdout=out),
        ("ldconfig", "-p"): LDCONFIG_550,
    }
    p = machine(tmp_path, {**files, **LIB_550}, commands, FakeNvml(init_error=ErrorKind.OTHER))
    assert [g.name for g in p.gpus] == ["NVIDIA GeForce RTX 3060"]
    lost = [s for s in p.states if s.reason == "gpu-lost"]
    assert len(lost) == 1 and lost[0].facts["bus"] == "0000:02:00.0" and not lost[0].blocks
    assert p.blocking_state is None  # TensorFlow runs on the GPU that works
    finding = {f.key: f for f in find_problems(p)}["state-gpu-lost"]
    assert finding.severity == "warning" and "0000:02:00.0" in finding.title


def test_r610_header_gives_the_driver_cuda(tmp_path: Path) -> None:
    header = "| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |\n"
    row = "0, NVIDIA GeForce RTX 5070, 12.0, 12227, GPU-1, 00000000:02:00.0, 610.43.02\n"
    commands = {QUERY: ok(row), ("nvidia-smi",): ok(header), ("ldconfig", "-p"): LDCONFIG_550}
    p = machine(tmp_path, {**NATIVE, **PCI}, commands, FakeNvml(init_error=ErrorKind.OTHER))
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("610.43.02", "13.3")


def test_wsl_shadowing_library_is_removed_by_the_plan(tmp_path: Path) -> None:
    files = {**WSL, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": ""}
    commands = {("ldconfig", "-p"): WSL_LDCONFIG}
    nvml = FakeNvml(
        [FakeGpu(name="NVIDIA GeForce RTX 4060 Laptop GPU", cc=(8, 9))], driver="566.36", cuda=12070
    )
    p = machine(tmp_path, files, commands, nvml, env={"WSL_DISTRO_NAME": "Ubuntu"})
    state = next(s for s in p.states if s.layer == "wsl")
    assert state.reason == "wsl-shadowing-lib"
    assert "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" in p.linux_driver_in_wsl
    rec = recommend(p)
    assert rec.recommended is not None
    plan = build_plan(p, rec.recommended, home="/home/student")
    step = next(s for s in plan.steps if s.id == "remove-linux-driver")
    assert any("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" in c for cmd in step.commands for c in cmd)
    assert "state-wsl-shadowing-lib" in {f.key for f in find_problems(p)}  # the one view's finding


def test_wsl_path_missing_is_a_warning(tmp_path: Path) -> None:
    commands = {("ldconfig", "-p"): WSL_LDCONFIG}
    nvml = FakeNvml(
        [FakeGpu(name="NVIDIA GeForce RTX 4060 Laptop GPU", cc=(8, 9))], driver="566.36", cuda=12070
    )
    p = machine(
        tmp_path, WSL, commands, nvml, env={"WSL_DISTRO_NAME": "Ubuntu", "PATH": "/usr/sbin:/usr/bin"}
    )
    found = {f.key: f for f in find_problems(p)}
    assert found["state-wsl-path"].severity == "warning"
    assert p.blocking_state is None


def test_healthy_machine_has_no_failed_state(tmp_path: Path) -> None:
    files = {
        **NATIVE,
        **PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    nvml = FakeNvml([FakeGpu(name="NVIDIA GeForce RTX 3060", cc=(8, 6))], driver="550.120", cuda=12040)
    p = machine(tmp_path, {**files, **LIB_550}, {("ldconfig", "-p"): LDCONFIG_550}, nvml)
    assert p.failed_states == []
    assert {s.layer for s in p.states} >= {"pci", "module", "libraries", "nvml", "cuda", "gpu"}
    assert all(s.state == "works" for s in p.states)


def test_states_round_trip_through_json(tmp_path: Path) -> None:
    p = version_mismatch(tmp_path)
    again = MachineProfile.from_json(p.to_json())
    assert again.states == p.states


def test_cc_from_the_pci_device_id_where_the_driver_does_not_say(tmp_path: Path) -> None:
    # A 470 driver's nvidia-smi does not know compute_cap: the query without it, then the PCI id.
    row = "0, NVIDIA GeForce GTX 1080, 8192, GPU-1, 00000000:01:00.0, 470.256.02\n"
    files = {
        **NATIVE,
        **PCI,
        "/sys/bus/pci/devices/0000:01:00.0/device": "0x1b80\n",
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "470.256.02\n",
    }
    old = ("nvidia-smi", "--query-gpu=index,name,memory.total,uuid,pci.bus_id,driver_version")
    commands = {QUERY: fail(2, stdout='Field "compute_cap" is not a valid field to query.\n'), old: ok(row)}
    p = machine(tmp_path, files, commands, FakeNvml(init_error=ErrorKind.FUNCTION_NOT_FOUND))
    assert [(g.name, g.compute_capability) for g in p.gpus] == [("NVIDIA GeForce GTX 1080", "6.1")]
    assert any("0x1b80" in n for n in p.notes)
    unknown = {**files, "/sys/bus/pci/devices/0000:01:00.0/device": "0xffff\n"}
    q = machine(tmp_path / "b", unknown, commands, FakeNvml(init_error=ErrorKind.FUNCTION_NOT_FOUND))
    assert q.gpus[0].compute_capability == "unknown"  # an id the table lacks is not guessed


def test_a_container_not_made_for_a_gpu_is_a_warning_not_a_gpu_plan(tmp_path: Path) -> None:
    # Whether the host has a GPU cannot be seen from inside: no GPU set is assumed, the fix is said.
    files = {**NATIVE, "/.dockerenv": "", "/proc/modules": "overlay 1 0 - Live 0x0\n"}
    p = machine(tmp_path, files, {("ldconfig", "-p"): ok("")}, NO_LIB)
    state = next(s for s in p.states if s.layer == "container")
    assert state.reason == "container-no-gpu" and not state.blocks and p.blocking_state is None
    rec = recommend(p)
    assert rec.recommended is not None and rec.recommended.set.method == "cpu"
    assert any("--gpus all" in n for n in rec.notes)
    assert {f.key: f for f in find_problems(p)}["state-container-no-gpu"].severity == "warning"


def no_devices(tmp_path: Path) -> MachineProfile:
    """nvidia-smi's "No devices were found" and nothing else read: the driver is loaded (NVML
    started and counted no GPU), and nothing says why."""
    said = "No devices were found\n"
    commands = {QUERY: fail(6, stdout=said), ("nvidia-smi",): fail(6, stdout=said)}
    return machine(tmp_path, dict(NATIVE), commands, FakeNvml(init_error=ErrorKind.OTHER))


def unnamed_first_step(profile: MachineProfile, layer: str) -> StateWords:
    """A failure with no cause named blocks, and Choose's first step, the plan's first step and the
    doctor give its one wording, with no driver installed over the installed one: its words."""
    state = profile.blocking_state
    assert state is not None and (state.layer, state.state, state.reason) == (layer, "failing", "")
    w = words(state, profile)
    best = recommend(profile).recommended
    assert best is not None and best.set.method != "cpu"
    assert best.driver is not None and best.driver.fix is not None
    assert w.title in first_step_line(best.driver) and w.fix in best.reasons[0]
    plan = build_plan(profile, best, home="/home/student")
    assert w.title in plan.steps[0].title and w.fix in plan.steps[0].why
    assert not any(word in " ".join(c) for s in plan.steps for c in s.commands for word in INSTALLS)
    assert any(w.fix in d.fix for d in diagnose(profile))
    return w


def test_a_driver_that_gives_no_gpu_is_a_gpu_to_fix_in_every_view(tmp_path: Path) -> None:
    """No view says "no driver" or "no GPU" of a machine whose loaded driver gives no GPU: Detect's
    Driver row says loaded, Choose plans a GPU set whose first step is the state's fix (a restart),
    the plan's first step is it, and the doctor gives the same fix."""
    profile = no_devices(tmp_path)
    w = unnamed_first_step(profile, "gpu")
    assert "No devices were found" in w.title and w.fix.startswith("Restart the computer")
    driver_row = dict(part_rows("nvidia", profile))["Driver"]
    assert "loaded" in driver_row and "no NVIDIA driver" not in driver_row
    codes = {n.code for n in profile.notes}
    assert "probe.no_driver" not in codes and "probe.driver_no_gpus" in codes
    assert not {"gpu-without-driver", "no-nvidia-gpu"} & {f.key for f in find_problems(profile)}


def test_nvml_failing_with_unknown_error_is_a_gpu_to_fix_in_every_view(tmp_path: Path) -> None:
    """NVML's "Unknown Error" as it starts, nothing else read: no cause is named (a GPU the driver
    cannot reach, a shim over libnvidia-ml and a pod's lost device rules all print it), yet every
    view says the driver is installed and gives the same first step: Detect's Driver row and note,
    Choose's first step, the plan's first step and the doctor."""
    said = "Failed to initialize NVML: Unknown Error\n"
    commands = {QUERY: fail(255, stdout=said), ("nvidia-smi",): fail(255, stdout=said)}
    profile = machine(tmp_path, dict(NATIVE), commands, FakeNvml(init_error=ErrorKind.OTHER))
    w = unnamed_first_step(profile, "gpu")
    assert "Unknown Error" in w.title and w.fix.startswith("Restart the computer") and "dmesg" in w.fix
    driver_row = dict(part_rows("nvidia", profile))["Driver"]
    assert "installed" in driver_row and "no NVIDIA driver" not in driver_row
    codes = {n.code for n in profile.notes}
    assert "probe.no_driver" not in codes and "probe.driver_nvml_unknown" in codes


def test_cuda_version_na_is_cuda_to_fix_in_every_view_with_no_cause_named(tmp_path: Path) -> None:
    """nvidia-smi's "CUDA Version: N/A": it could not load libcuda to ask (missing, broken, or a vGPU
    host's driver, which serves none), so no cause is named, yet CUDA does not start there: Choose's
    first step, the plan's first step and the doctor give the same words, which say how to tell."""
    profile = cuda_shown(tmp_path, "N/A ")
    w = unnamed_first_step(profile, "cuda")
    assert "N/A" in w.title and "ldconfig -p | grep libcuda.so.1" in w.fix
    err = cuda_err(tmp_path / "err")  # ERR!: it loaded libcuda and CUDA failed: cuda-err, named
    assert err.blocking_state is not None and err.blocking_state.reason == "cuda-err"
