"""Rules read from the training side of the fifth round of real dumps, each tested on a minimal
machine of its own (written here; the lines are copied from the round's texts or from the artifact's
source, cited beside them): a state is named only where the text proves it and nothing in the text
contradicts it, and the names the round showed wrong are gone."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, WSL2_PROC_VERSION, context, fail, ok, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.api_mismatch import read_api_mismatch
from wizard.probe.smi_formats import parse_smi_list
from wizard.probe.wsl_files import linux_driver_libraries
from wizard.profile import MachineProfile
from wizard.sysio import CommandResult

NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
KERNEL = "6.5.0-41-generic"  # NATIVE_PROC_VERSION's release
WSL = {"/proc/version": WSL2_PROC_VERSION, "/etc/os-release": UBUNTU_2204, "/dev/dxg": ""}
NO_LIB = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
UNSHOWN = -1  # a pasted output shows no exit code
NOT_COMMUNICATE = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n"
)


def probe(tmp_path: Path, files: dict[str, str], commands: Mapping[Any, CommandResult]) -> MachineProfile:
    return detect(context=context(tree(tmp_path, files), dict(commands)), nvml=NO_LIB)


def reasons(p: MachineProfile) -> set[str]:
    return {s.reason for s in p.failed_states if s.reason}


def state(p: MachineProfile, reason: str) -> Any:
    return next(s for s in p.failed_states if s.reason == reason)


# ---- WSL2: Basic Render only from Windows' own folder ------------------------------------------
def test_wsl2_without_the_windows_folder_is_not_basic_render_only(tmp_path: Path) -> None:
    # The round's wrong answer: a WSL2 whose /usr/lib/wsl/lib was not shown at all.
    assert "basic-render-only" not in reasons(probe(tmp_path, WSL, {}))


def test_windows_folder_without_libcuda_is_basic_render_only(tmp_path: Path) -> None:
    # Windows maps its DirectX libraries (libd3d12.so, libdxcore.so) in with or without a GPU driver.
    files = {**WSL, "/usr/lib/wsl/lib/libd3d12.so": "", "/usr/lib/wsl/lib/libdxcore.so": ""}
    p = probe(tmp_path, files, {})
    assert "basic-render-only" in reasons(p)
    assert "libd3d12.so" in state(p, "basic-render-only").evidence[0].line


def test_a_linux_driver_s_versioned_libraries_inside_wsl_are_wsl_linux_driver(tmp_path: Path) -> None:
    # nvidia/nvidia-docker#1551: `nvidia-container-cli -k -d /dev/tty info` inside WSL2 printed
    # "selecting /usr/lib/x86_64-linux-gnu/libnvoptix.so.470.57.02" and "... libnvidia-tls.so.470.57.02".
    files = {
        **WSL,
        "/usr/lib/x86_64-linux-gnu/libnvoptix.so.470.57.02": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-tls.so.470.57.02": "",
    }
    p = probe(tmp_path, files, {})
    assert reasons(p) == {"wsl-linux-driver"}
    # the plan's removal step gets both files
    assert set(p.linux_driver_in_wsl) == {
        "/usr/lib/x86_64-linux-gnu/libnvoptix.so.470.57.02",
        "/usr/lib/x86_64-linux-gnu/libnvidia-tls.so.470.57.02",
    }


def test_cuda_cudnn_and_toolkit_libraries_are_no_linux_driver(tmp_path: Path) -> None:
    files = {
        **WSL,
        "/usr/lib/wsl/lib/libcuda.so.1": "",
        "/usr/lib/x86_64-linux-gnu/libnvrtc.so.12.2.140": "",
        "/usr/lib/x86_64-linux-gnu/libcudart.so.12.2.140": "",
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-container.so.1.17.3": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-egl-wayland.so.1.1.13": "",
    }
    root = tree(tmp_path / "r", files)
    ctx = context(root)
    assert linux_driver_libraries(ctx.system) == {}
    assert "wsl-linux-driver" not in reasons(probe(tmp_path / "p", files, {}))


# ---- containers: the GPU passed in, its compute libraries left out ------------------------------
def test_wsl2_container_with_only_the_utility_libraries_is_container_no_libs(tmp_path: Path) -> None:
    # mudler/LocalAI#11973: Docker Desktop (WSL2) with `capabilities: [gpu, utility]`: inside,
    # /usr/lib/x86_64-linux-gnu holds libnvidia-ml.so.1 and libdxcore.so, no libcuda.so.1.
    files = {
        **WSL,
        "/.dockerenv": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": "",
        "/usr/lib/x86_64-linux-gnu/libdxcore.so": "",
    }
    p = probe(tmp_path, files, {})
    # the round's wrong names (basic-render-only, container-no-gpu) are gone, and the mounted
    # libnvidia-ml.so.1 is the runtime's, no shadowing copy
    assert reasons(p) == {"container-no-libs"}
    said = [(e.source, e.line) for e in state(p, "container-no-libs").evidence]
    assert ("/dev/dxg", "present") in said and ("libcuda.so.1", "missing") in said


def test_native_container_with_nvidia_smi_working_and_no_libcuda_is_container_no_libs(tmp_path: Path) -> None:
    files = {
        **NATIVE,
        "/.dockerenv": "",
        "/dev/nvidiactl": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": "",
    }
    banner = "| NVIDIA-SMI 575.57.08              Driver Version: 575.57.08      CUDA Version: 12.9     |\n"
    p = probe(tmp_path, files, {("nvidia-smi",): ok(banner)})
    assert p.driver is not None and p.driver.version == "575.57.08"
    assert "container-no-libs" in reasons(p)


def test_a_container_given_libcuda_or_no_gpu_is_not_container_no_libs(tmp_path: Path) -> None:
    base = {**WSL, "/.dockerenv": "", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": ""}
    mounted = {**base, "/usr/lib/x86_64-linux-gnu/libcuda.so.1": ""}
    # with the libraries mounted NVML answers (the Windows driver's, through /dev/dxg)
    nvml = FakeNvml(driver="576.02", cuda=12090)
    p = detect(context=context(tree(tmp_path / "m", mounted), {}), nvml=nvml)
    assert reasons(p) == set()
    no_gpu = {k: v for k, v in base.items() if k != "/dev/dxg"}
    assert "container-no-libs" not in reasons(probe(tmp_path / "n", no_gpu, {}))
    assert "container-no-gpu" in reasons(probe(tmp_path / "n2", no_gpu, {}))


# ---- the kernel module's "API mismatch" ---------------------------------------------------------
# open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osapi.c (RmCheckVersion) prints the
# client's name since R5xx; older drivers print the same two versions without it.
NEW_WORDING = (  # Frogging-Family/nvidia-all#394 (dmesg)
    "[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n"
    "               NVRM: has the version 595.84, but this kernel module has\n"
    "               NVRM: the version 595.80.  Please make sure that this\n"
    "               NVRM: kernel module and all NVIDIA driver components\n"
    "               NVRM: have the same version.\n"
)
OLD_WORDING = (  # negativo17/nvidia-driver#43
    "NVRM: API mismatch: the client has the version 390.25, but\n"
    "NVRM: this kernel module has the version 390.12.  Please\n"
    "NVRM: make sure that this kernel module and all NVIDIA driver\n"
    "NVRM: components have the same version.\n"
)
JOURNAL = (  # NVIDIA/nvidia-docker#182 (journalctl)
    "Aug 26 14:08:07 nyasara-linux kernel: NVRM: API mismatch: the client has the version 367.44, but\n"
    "                                      NVRM: this kernel module has the version 367.35.  Please\n"
)
RSYSLOG = (  # stackhpc/ansible-slurm-appliance#287: rsyslog writes the line breaks as #012
    "Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 535.54.03, but#012"
    "NVRM: this kernel module has the version 530.30.02.  Please#012NVRM: make sure that this kernel "
    "module and all NVIDIA driver#012NVRM: components have the same version.\n"
)


def test_every_wording_of_the_api_mismatch_gives_both_versions() -> None:
    assert read_api_mismatch(NEW_WORDING)[1:] == ("595.84", "595.80")  # type: ignore[index]
    assert read_api_mismatch(OLD_WORDING)[1:] == ("390.25", "390.12")  # type: ignore[index]
    assert read_api_mismatch(JOURNAL)[1:] == ("367.44", "367.35")  # type: ignore[index]
    assert read_api_mismatch(RSYSLOG)[1:] == ("535.54.03", "530.30.02")  # type: ignore[index]
    assert read_api_mismatch("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  595.80\n") is None


def test_a_module_loaded_after_the_mismatch_makes_it_past() -> None:
    later = "[  120.1] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  595.84  Release Build\n"
    assert read_api_mismatch(NEW_WORDING + later) is None


def test_dmesg_api_mismatch_names_version_mismatch_with_both_versions(tmp_path: Path) -> None:
    p = probe(tmp_path, NATIVE, {("dmesg",): ok(NEW_WORDING)})
    mismatch = state(p, "version-mismatch")
    assert (mismatch.facts["module"], mismatch.facts["library"]) == ("595.80", "595.84")
    assert "API mismatch" in mismatch.evidence[0].line
    assert p.driver is not None and p.driver.version == "595.80"  # the loaded module's


def test_a_saved_log_s_mismatch_counts_only_where_the_machine_does_not_contradict_it(tmp_path: Path) -> None:
    saved = {**NATIVE, "/var/log/messages": RSYSLOG}
    assert "version-mismatch" in reasons(probe(tmp_path / "a", saved, {}))
    # rebooted into the new module since: the module loaded now is the client's version
    now = {**saved, "/proc/modules": "nvidia 1 0 - Live 0x0\n", "/sys/module/nvidia/version": "535.54.03\n"}
    assert "version-mismatch" not in reasons(probe(tmp_path / "b", now, {}))
    # the libraries were put back to the module's version since
    back = {**saved, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.530.30.02": ""}
    assert "version-mismatch" not in reasons(probe(tmp_path / "c", back, {}))
    # this boot's kernel log was read and holds none: an older boot's line decides nothing
    booted = {("dmesg",): ok("[    1.0] Linux version 6.5.0-41-generic\n")}
    assert "version-mismatch" not in reasons(probe(tmp_path / "d", saved, booted))


def test_a_working_nvidia_smi_is_not_overruled_by_a_logged_mismatch(tmp_path: Path) -> None:
    banner = "| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03      CUDA Version: 12.2     |\n"
    p = probe(tmp_path, {**NATIVE, "/var/log/syslog": RSYSLOG}, {("nvidia-smi",): ok(banner)})
    assert "version-mismatch" not in reasons(p)


# ---- a module build that failed for the running kernel ------------------------------------------
def test_dkms_make_log_for_the_running_kernel_is_module_not_built(tmp_path: Path) -> None:
    # pop-os/pop#3811: "Error! Bad return status for module build on kernel: 6.17.9-76061709-generic
    # (x86_64) / Consult /var/lib/dkms/nvidia/580.119.02/build/make.log"; DKMS's make.log opens with
    # "DKMS make.log for <module>-<version> for kernel <kernel> (<arch>)".
    log = "/var/lib/dkms/nvidia/580.119.02/build/make.log"
    mine = {**NATIVE, log: f"DKMS make.log for nvidia-580.119.02 for kernel {KERNEL} (x86_64)\nWed Dec 3\n"}
    p = probe(tmp_path / "a", mine, {})
    assert reasons(p) == {"module-not-built"}
    assert any(e.source == log for e in state(p, "module-not-built").evidence)
    other = {
        **NATIVE,
        log: "DKMS make.log for nvidia-580.119.02 for kernel 6.17.9-76061709-generic (x86_64)\n",
    }
    assert reasons(probe(tmp_path / "b", other, {})) == set()
    # a module for the running kernel is there after all (modinfo finds it)
    found = {("modinfo", "-F", "version", "nvidia"): ok("580.119.02\n")}
    assert "module-not-built" not in reasons(probe(tmp_path / "c", mine, found))


def test_dkms_status_decides_only_where_it_shows_this_kernel_unbuilt(tmp_path: Path) -> None:
    # NVIDIA/open-gpu-kernel-modules#526: "nvidia/390.157: added" (built for no kernel).
    added = ok(f"nvidia/390.157: added\nvboxhost/7.0.8_OSE, {KERNEL}, x86_64: installed\n")
    assert reasons(probe(tmp_path / "a", NATIVE, {("dkms", "status"): added})) == {"module-not-built"}
    # other modules built for this kernel, nvidia only for older ones (DKMS before 3: commas)
    older = ok(
        f"nvidia, 535.113.01, 5.15.0-86-generic, x86_64: installed\nvboxhost, 7.0.8, {KERNEL}, x86_64: installed\n"
    )
    assert reasons(probe(tmp_path / "b", NATIVE, {("dkms", "status"): older})) == {"module-not-built"}
    # canonical/nvidia-graphics-drivers#61: nvidia built for three kernels, the running one unseen:
    # its module may be another's (modprobe found one to insert there) — nothing decided
    three = ok(
        "nvidia/535.113.01, 5.15.0-86-generic, x86_64: installed\nnvidia/535.113.01, 6.2.0-33-generic, x86_64: installed\n"
    )
    said = {("dkms", "status"): three, ("nvidia-smi",): fail(UNSHOWN, NOT_COMMUNICATE)}
    assert reasons(probe(tmp_path / "c", NATIVE, said)) == {"not-loaded"}
    built = ok(f"nvidia/535.113.01, {KERNEL}, x86_64: installed\n")
    assert reasons(probe(tmp_path / "d", NATIVE, {("dkms", "status"): built})) == set()


def test_nvidia_installer_s_failed_build_is_module_not_built(tmp_path: Path) -> None:
    # GoogleCloudPlatform/compute-gpu-installation#33 (the .run installer with --dkms).
    failed = (
        'ERROR: An error occurred while performing the step: "Building kernel modules". '
        "See /var/log/nvidia-installer.log for details.\n"
    )
    smi = {("nvidia-smi",): fail(UNSHOWN, NOT_COMMUNICATE)}
    p = probe(tmp_path / "a", {**NATIVE, "/var/log/nvidia-installer.log": failed}, smi)
    assert reasons(p) == {"module-not-built"}
    # built for another kernel (nvidia-installer's "Kernel source path" line names it)
    other = f"-> Kernel source path: '/lib/modules/6.1.0-18-cloud-amd64/build'\n{failed}"
    assert reasons(probe(tmp_path / "b", {**NATIVE, "/var/log/nvidia-installer.log": other}, smi)) == {
        "not-loaded"
    }
    mine = f"-> Kernel source path: '/lib/modules/{KERNEL}/build'\n{failed}"
    assert "module-not-built" in reasons(
        probe(tmp_path / "c", {**NATIVE, "/var/log/nvidia-installer.log": mine}, smi)
    )


# ---- GPUs and driver from nvidia-smi's other answers -------------------------------------------
def test_a_gpu_list_pasted_on_one_line_is_each_gpu() -> None:
    # NVIDIA/open-gpu-kernel-modules#1193: two rows pasted into a one-line field.
    line = (
        "GPU 0: NVIDIA GeForce RTX 2080 SUPER (UUID: GPU-6304bf68-46a6-459f-2dc0-682f676a8d85), "
        "GPU 1: NVIDIA GeForce RTX 2080 SUPER (UUID: GPU-1177f867-a501-9c09-29b9-30540e93cc9a)\n"
    )
    gpus = parse_smi_list(line)
    assert [(g.index, g.name) for g in gpus] == [
        (0, "NVIDIA GeForce RTX 2080 SUPER"),
        (1, "NVIDIA GeForce RTX 2080 SUPER"),
    ]


def test_the_gpu_list_and_the_module_s_version_file_give_gpus_and_driver(tmp_path: Path) -> None:
    version = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.43.02  Release Build  "
        "(dvs-builder@U22-I3-H05-01-2)  GCC version:  gcc version 12.2.0 (Debian 12.2.0-14+deb12u1)\n"
    )
    listed = ok("GPU 0: NVIDIA GeForce RTX 2080 SUPER (UUID: GPU-6304bf68-46a6-459f-2dc0-682f676a8d85)\n")
    p = probe(tmp_path, {**NATIVE, "/proc/driver/nvidia/version": version}, {("nvidia-smi", "-L"): listed})
    assert p.driver is not None and p.driver.version == "610.43.02"
    assert len(p.gpus) == 1


def test_a_table_cut_after_its_banner_takes_its_gpus_from_the_list(tmp_path: Path) -> None:
    # NVIDIA/open-gpu-kernel-modules#859: the table cut inside its column header.
    table = (
        "+-----------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8     |\n"
        "|-----------------------------------------+------------------------+----------------------+\n"
    )
    listed = ok("GPU 0: NVIDIA RTX A6000 (UUID: GPU-d99ca0c5-fd57-6916-0159-acb07fd76c49)\n")
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): ok(table), ("nvidia-smi", "-L"): listed})
    assert [g.name for g in p.gpus] == ["NVIDIA RTX A6000"]
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("570.133.20", "12.8")


# ---- a GPU whose GSP firmware did not boot --------------------------------------------------------
def test_gsp_firmware_that_did_not_boot_is_gpu_init_failed(tmp_path: Path) -> None:
    # NVIDIA/open-gpu-kernel-modules#935; osinit.c's RmInitAdapter prints "Cannot initialize GSP
    # firmware RM" and then always "RmInitAdapter failed!" (the paste ends before it).
    log = (
        "[  +0.009910] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (root@)\n"
        "[  +0.000001] NVRM: kgspInitRm_IMPL: Max GSP-RM boot attempts exceeded: 4/4\n"
        "[  +0.000021] NVRM: RmInitAdapter: Cannot initialize GSP firmware RM\n"
    )
    p = probe(tmp_path, NATIVE, {("dmesg",): ok(log)})
    assert "gpu-init-failed" in reasons(p)
    assert p.driver is not None and p.driver.version == "580.95.05"


# ---- the corpus replay ---------------------------------------------------------------------------
def test_the_replay_keeps_a_journal_entry_whole_and_writes_the_build_logs_a_paste_names() -> None:
    from tests.dump_corpus import as_run, written_build_logs

    pasted = [{"argv": ["journalctl", "-b"], "stdout": "unit: x\n" + JOURNAL}]
    run = {tuple(c["argv"]): c["stdout"] for c in as_run(pasted, {})}
    assert "367.35" in run[("journalctl", "-k")] and "unit: x" not in run[("journalctl", "-k")]
    dkms = (
        "Error! Bad return status for module build on kernel: 6.4.1-zen1-1-zen (x86_64)\n"
        "Consult /var/lib/dkms/nvidia/390.157/build/make.log for more information.\n"
    )
    logs = written_build_logs([{"argv": ["dkms", "install", "nvidia/390.157"], "stdout": dkms}])
    assert logs == {
        "/var/lib/dkms/nvidia/390.157/build/make.log": "DKMS make.log for nvidia-390.157 for kernel 6.4.1-zen1-1-zen (x86_64)\n"
    }


def test_the_replay_reads_dkms_failures_pasted_in_other_words() -> None:
    from tests.dump_corpus import written_build_logs

    # a `dkms install -m M -v V` cut before its "Consult" line
    cut = "Error! Bad return status for module build on kernel: 5.13.18-21.09.16.amdgpu.ubuntu (x86_64)\n"
    argv = ["dkms", "install", "-m", "nvidia", "-v", "470.86"]
    assert written_build_logs([{"argv": argv, "stdout": cut}]) == {
        "/var/lib/dkms/nvidia/470.86/build/make.log": (
            "DKMS make.log for nvidia-470.86 for kernel 5.13.18-21.09.16.amdgpu.ubuntu (x86_64)\n"
        )
    }
    # Void's xbps trigger
    void = "Building DKMS module 'nvidia-367.35' for kernel-4.7.2_1... FAILED!\n"
    assert written_build_logs([{"argv": ["xbps-install", "nvidia-dkms"], "stdout": void}]) == {
        "/var/lib/dkms/nvidia/367.35/build/make.log": "DKMS make.log for nvidia-367.35 for kernel 4.7.2_1\n"
    }


# The user-space side of the same refusal (the X driver, libGL), as `startx` and the X server's log
# print it (public Ubuntu forum posts quote it so): the module's version first.
CLIENT_WORDING = (
    "[    12.104] (EE) NVIDIA: API mismatch: the NVIDIA kernel module has version 304.88,\n"
    "[    12.104] (EE) NVIDIA:     but this NVIDIA driver component has version 319.32.  Please make\n"
    "[    12.104] (EE) NVIDIA:     sure that the kernel module and all NVIDIA driver components\n"
    "[    12.104] (EE) NVIDIA:     have the same version.\n"
)


def test_the_client_side_wording_gives_the_versions_the_other_way_round(tmp_path: Path) -> None:
    said = read_api_mismatch(CLIENT_WORDING)
    assert said is not None and said[1:] == ("319.32", "304.88")  # (libraries, module)
    p = probe(tmp_path, {**NATIVE, "/var/log/Xorg.0.log": CLIENT_WORDING}, {})
    mismatch = state(p, "version-mismatch")
    assert (mismatch.facts["module"], mismatch.facts["library"]) == ("304.88", "319.32")
    assert mismatch.evidence[0].source == "/var/log/Xorg.0.log"


def test_the_replay_gives_a_pasted_startx_as_the_x_server_s_log() -> None:
    from tests.dump_corpus import x_server_log

    assert x_server_log([{"argv": ["sudo", "startx"], "stdout": CLIENT_WORDING}]) == {
        "/var/log/Xorg.0.log": CLIENT_WORDING
    }
    assert x_server_log([{"argv": ["nvidia-smi"], "stdout": "x"}]) == {}


def test_a_windows_folder_with_any_nvidia_file_is_not_basic_render_only(tmp_path: Path) -> None:
    # the NVIDIA driver's nvidia-smi and libnvidia-ml.so.1 are there (a text that did not list libcuda)
    files = {**WSL, "/usr/lib/wsl/lib/nvidia-smi": "", "/usr/lib/wsl/lib/libnvidia-ml.so.1": ""}
    assert "basic-render-only" not in reasons(probe(tmp_path, files, {}))


def test_nvml_s_mismatch_takes_both_versions_from_the_module_s_message(tmp_path: Path) -> None:
    smi = fail(UNSHOWN, "Failed to initialize NVML: Driver/library version mismatch\n")
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): smi, ("dmesg",): ok(OLD_WORDING)})
    mismatch = state(p, "version-mismatch")
    assert (mismatch.facts["module"], mismatch.facts["library"]) == ("390.12", "390.25")
    assert p.driver is not None and p.driver.version == "390.12"


def test_a_failed_build_on_a_machine_without_an_nvidia_gpu_blocks_nothing(tmp_path: Path) -> None:
    added = {("dkms", "status"): ok("nvidia/390.157: added\n")}
    # the PCI bus read, an Intel display controller only (no vendor 0x10de)
    files = {
        **NATIVE,
        "/sys/bus/pci/devices/0000:00:02.0/vendor": "0x8086\n",
        "/sys/bus/pci/devices/0000:00:02.0/class": "0x030000\n",
    }
    assert "module-not-built" not in reasons(probe(tmp_path, files, added))


def test_a_wsl2_container_s_words_never_send_the_user_to_the_windows_driver(tmp_path: Path) -> None:
    from wizard.doctor.findings import find_problems

    files = {
        **WSL,
        "/.dockerenv": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": "",
        "/usr/lib/x86_64-linux-gnu/libdxcore.so": "",
    }
    p = probe(tmp_path, files, {})
    keys = [f.key for f in find_problems(p)]
    assert "state-container-no-libs" in keys and "no-driver-wsl2" not in keys
    assert not any("on Windows" in n for n in p.notes)


def test_a_driver_read_from_the_mismatch_message_says_so(tmp_path: Path) -> None:
    p = probe(tmp_path, NATIVE, {("dmesg",): ok(OLD_WORDING)})
    assert any("API mismatch" in n and "390.12" in n for n in p.notes)
    assert not any("loading line" in n for n in p.notes)


def test_nvidia_smi_printing_the_user_space_side_s_words_is_the_mismatch(tmp_path: Path) -> None:
    said = (
        "NVIDIA: API mismatch: the NVIDIA kernel module has version 304.116,\n"
        "but this NVIDIA driver component has version 319.76.  Please make\n"
        "sure that the kernel module and all NVIDIA driver components\nhave the same version.\n"
    )
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, said)})
    mismatch = state(p, "version-mismatch")
    assert (mismatch.facts["module"], mismatch.facts["library"]) == ("304.116", "319.76")
    assert p.driver is not None and p.driver.version == "304.116"


def test_the_kernel_s_secure_boot_line_decides_secure_boot_where_nothing_else_answered(
    tmp_path: Path,
) -> None:
    # arch/x86/kernel/setup.c prints "secureboot: Secure boot enabled" at boot.
    log = ok("[    0.000000] secureboot: Secure boot enabled\n")
    smi = fail(UNSHOWN, NOT_COMMUNICATE)
    found = {("modinfo", "-F", "version", "nvidia"): ok("535.183.01\n")}
    p = probe(tmp_path / "a", NATIVE, {("dmesg",): log, ("nvidia-smi",): smi, **found})
    assert p.kernel.secure_boot is True
    assert "not-loaded-secure-boot" in reasons(p)
    off = ok("[    0.000000] secureboot: Secure boot disabled\n")
    q = probe(tmp_path / "b", NATIVE, {("dmesg",): off, ("nvidia-smi",): smi, **found})
    assert q.kernel.secure_boot is False and reasons(q) == {"not-loaded"}
