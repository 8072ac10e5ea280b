"""Rules read from the training side of the eighth round of real dumps, each tested on a minimal
machine of its own (only the lines the rule reads, copied from the round's texts or from the tools'
own formats): WSL's nvidia-smi and a kernel that loads no module are never "a Linux module not
loaded"; a failed build keeps the driver version its record names; a container runtime's hook error
is the host's nvidia-container-cli; lspci -nnk through grep counts the GPUs it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, WSL2_PROC_VERSION, fail
from tests.probe_case import in_both_languages, layer, reasons
from tests.test_probe_round7_rules import NATIVE, UNSHOWN, probe, replay
from wizard.doctor.findings import find_problems
from wizard.probe.state_view import words
from wizard.profile import FAILING, UNREADABLE, WORKS
from wizard.text import set_language

COULD_NOT = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n"
)
# WSL's nvidia-smi (the Windows driver's) follows its failed start with its shutdown line.
WSL_SMI = COULD_NOT + "\nFailed to properly shut down NVML: Driver Not Loaded\n\n"


# ---- WSL's nvidia-smi: the Windows driver not reached, never a Linux module -------------------------
def test_wsl_s_nvidia_smi_names_no_module_even_where_the_platform_was_not_read(tmp_path: Path) -> None:
    # microsoft/WSL#9640: the paste alone, no /proc/version to say WSL2
    p = probe(tmp_path, {}, {("nvidia-smi",): fail(UNSHOWN, WSL_SMI)})
    assert p.platform == "linux" and not reasons(p)
    assert not any(s.layer == "module" for s in p.states)
    state = layer(p, "wsl")
    assert state.state == FAILING and not state.blocks
    assert any("Failed to properly shut down NVML" in e.line for e in state.evidence)
    (title, fix), (zh_title, zh_fix) = in_both_languages(state, p)
    assert "Windows" in title and "no Linux module" in title and "wsl --shutdown" in fix
    assert "Install nothing inside WSL" in fix and "driver on Windows" in fix and "apt" not in fix
    assert "Windows" in zh_title and "Linux 模块" in zh_title and "wsl --shutdown" in zh_fix
    found = {f.key for f in find_problems(p)}
    assert "state-wsl-driver-unreached" in found and "no-nvidia-gpu" not in found


def test_the_same_words_on_a_machine_that_reads_as_wsl2(tmp_path: Path) -> None:
    files = {"/proc/version": WSL2_PROC_VERSION, "/etc/os-release": UBUNTU_2204, "/dev/dxg": ""}
    files["/usr/lib/wsl/lib/libcuda.so.1"] = ""
    p = probe(tmp_path, files, {("nvidia-smi",): fail(UNSHOWN, COULD_NOT)})
    assert p.platform == "wsl2" and not reasons(p)
    assert layer(p, "wsl").facts.get("unreached") == "windows-driver"


def test_native_nvidia_smi_s_could_not_communicate_alone_is_still_not_loaded(tmp_path: Path) -> None:
    # the Linux driver's nvidia-smi prints no shutdown line: the module is not loaded, as before
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, COULD_NOT)})
    assert reasons(p) == {"not-loaded"} and not any(s.layer == "wsl" for s in p.states)


def test_windows_blocking_the_gpu_keeps_its_own_cause(tmp_path: Path) -> None:
    blocked = (
        "Failed to initialize NVML: GPU access blocked by the operating system\n"
        "Failed to properly shut down NVML: GPU access blocked by the operating system\n"
    )
    p = probe(tmp_path, {}, {("nvidia-smi",): fail(UNSHOWN, blocked)})
    assert reasons(p) == {"wsl-gpu-blocked"}


# ---- a kernel that loads no module (modprobe: Function not implemented) -----------------------------
ENOSYS = "modprobe: ERROR: could not insert 'nvidia_367': Function not implemented\n" + COULD_NOT


def test_a_kernel_that_loads_no_module_names_no_cause(tmp_path: Path) -> None:
    # jcjohnson/neural-style#335 pasted alone (WSL1, a Linux driver inside): no restart or rebuild
    p = probe(tmp_path, {}, {("nvidia-smi",): fail(UNSHOWN, ENOSYS)})
    assert not reasons(p)
    state = layer(p, "module")
    assert state.state == FAILING and state.facts.get("loads") == "none"
    assert any("Function not implemented" in e.line for e in state.evidence)
    (title, fix), (zh_title, zh_fix) = in_both_languages(state, p)
    assert "loads no modules" in title and "--set-version" in fix and "CONFIG_MODULES" in fix
    assert "不加载任何模块" in zh_title and "WSL2" in zh_fix
    assert "state-no-module-loading" in {f.key for f in find_problems(p)}


def test_another_refusal_to_insert_keeps_its_cause(tmp_path: Path) -> None:
    rejected = "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n" + COULD_NOT
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, rejected)})
    assert not any(s.facts.get("loads") for s in p.states)


# ---- a failed build: the driver version its record names ---------------------------------------------
KERNEL = NATIVE_PROC_VERSION.split()[2]  # 6.5.0-41-generic
MAKE_LOG = "/var/lib/dkms/nvidia/470.256.02/build/make.log"


def dkms_log(kernel: str, version: str = "470.256.02", module: str = "nvidia") -> dict[str, str]:
    path = f"/var/lib/dkms/{module}/{version}/build/make.log"
    return {path: f"DKMS make.log for {module}-{version} for kernel {kernel} (x86_64)\nerror: ...\n"}


def test_a_failed_dkms_build_for_the_running_kernel_keeps_its_version(tmp_path: Path) -> None:
    p = probe(tmp_path, {**NATIVE, **dkms_log(KERNEL)}, {("nvidia-smi",): fail(UNSHOWN, "")})
    state = layer(p, "module")
    assert state.reason == "module-not-built" and state.facts["version"] == "470.256.02"
    assert "470.256.02" in words(state, p).title


def test_akmods_failed_log_keeps_its_version(tmp_path: Path) -> None:
    log = f"/var/cache/akmods/nvidia/590.44.01-1.fc43-for-{KERNEL}.failed.log"
    p = probe(tmp_path, {**NATIVE, log: ""}, {})
    state = layer(p, "module")
    assert state.reason == "module-not-built" and state.facts["version"] == "590.44.01"


def test_a_failed_build_for_a_kernel_not_shown_running_is_kept_unread(tmp_path: Path) -> None:
    # no /proc/version (a paste): the build failed for one kernel, which may be the next one booted
    p = probe(tmp_path, dkms_log("6.14.4-arch1-2"), {})
    assert not reasons(p)
    state = layer(p, "module")
    assert state.state == UNREADABLE and not state.blocks
    assert state.facts["version"] == "470.256.02" and state.facts["build_failed_for"] == "6.14.4-arch1-2"
    (title, fix), (zh_title, zh_fix) = in_both_languages(state, p)
    assert "470.256.02" in title and "6.14.4-arch1-2" in title and "not shown" in title
    assert "uname -r" in fix and "dkms autoinstall -k 6.14.4-arch1-2" in fix
    assert "6.14.4-arch1-2" in zh_title and "uname -r" in zh_fix
    # the running kernel read and another one's failed build: nothing said of that build
    q = probe(tmp_path / "b", {**NATIVE, **dkms_log("6.14.4-arch1-2")}, {})
    assert not any(s.facts.get("build_failed_for") for s in q.states)


def test_failed_builds_for_two_kernels_decide_none(tmp_path: Path) -> None:
    files = {**dkms_log("6.14.4-arch1-2"), **dkms_log("6.13.1-arch1-1", version="470.239.06")}
    p = probe(tmp_path, files, {})
    assert not any(s.facts.get("build_failed_for") or s.facts.get("version") for s in p.states)


def test_the_pasted_dkms_run_replays_with_its_version(tmp_path: Path) -> None:
    said = (
        "\nError! Bad return status for module build on kernel: 6.14.4-arch1-2 (x86_64)\n"
        f"Consult {MAKE_LOG} for more information.\n"
    )
    argv = ["dkms", "install", "--no-depmod", "nvidia/470.256.02", "-k", "6.14.4-arch1-2"]
    p, verdict = replay(
        tmp_path, [{"argv": argv, "stdout": said, "stderr": "", "exit": None}], {"driver": None}
    )
    assert verdict.wrong == ["driver 470.256.02 where the text shows none"]  # the version is read
    assert not reasons(p)


# ---- modinfo: the module installed for this kernel ---------------------------------------------------
def test_modinfo_s_version_is_kept_where_whether_loaded_is_unread(tmp_path: Path) -> None:
    p = probe(tmp_path, {}, {("modinfo", "-F", "version", "nvidia"): fail(UNSHOWN, "515.48.07\n")})
    state = layer(p, "module")
    assert state.state == UNREADABLE and state.facts["version"] == "515.48.07" and not state.reason
    assert any(e.source.startswith("modinfo") for e in state.evidence)


@pytest.mark.parametrize("argv", [["modinfo", "-F", "version", "nvidia_352"], ["modinfo", "nvidia_352"]])
def test_ubuntu_s_branch_named_module_replays_as_modinfo_nvidia(tmp_path: Path, argv: list[str]) -> None:
    stdout = (
        "352.63\n"
        if "-F" in argv
        else "filename: /lib/modules/x/updates/dkms/nvidia_352.ko\nversion: 352.63\n"
    )
    p, verdict = replay(
        tmp_path, [{"argv": argv, "stdout": stdout, "stderr": "", "exit": None}], {"driver": "352.63"}
    )
    assert verdict.right, (verdict.wrong, verdict.missed)
    assert layer(p, "module").facts["version"] == "352.63"


# ---- a container runtime's hook: the host's nvidia-container-cli --------------------------------------
HOOK = (
    "docker: Error response from daemon: failed to create shim: OCI runtime create failed: "
    "container_linux.go:380: starting container process caused: process_linux.go:545: container init "
    "caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
    "initialization error: {}: unknown.\n"
)
DOCKER = ["sudo", "docker", "run", "--rm", "--gpus", "all", "nvidia/cuda:11.0-base", "nvidia-smi"]


def test_the_hook_s_driver_not_loaded_is_the_host_s_module(tmp_path: Path) -> None:
    stderr = HOOK.format("nvml error: driver not loaded")
    p, verdict = replay(
        tmp_path,
        [{"argv": DOCKER, "stdout": "", "stderr": stderr, "exit": None}],
        {"driver": None, "reasons": ["not-loaded"]},
    )
    assert verdict.right, (verdict.wrong, verdict.missed)
    state = layer(p, "module")
    assert [e.line for e in state.evidence] == [
        "nvidia-container-cli: initialization error: nvml error: driver not loaded"
    ]


def test_another_runtime_error_is_no_hook_line(tmp_path: Path) -> None:
    said = (
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    )
    p, verdict = replay(
        tmp_path, [{"argv": DOCKER, "stdout": "", "stderr": said, "exit": None}], {"driver": None}
    )
    assert not verdict.wrong and not reasons(p)


# ---- lspci -nnk through grep: the GPUs it shows ------------------------------------------------------
LSPCI_NNK = (
    "0b:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204] (rev a1)\n"
    "\tSubsystem: ASUSTeK Computer Inc. Device [1043:87b3]\n"
    "\tKernel driver in use: nvidia\n"
    "--\n"
    "0c:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3090] [10de:2204] (rev a1)\n"
    "\tSubsystem: ASUSTeK Computer Inc. Device [1043:87af]\n"
    "\tKernel driver in use: nvidia\n"
    "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n"
    "--\n"
    "\tKernel modules: snd_hda_intel\n"
)


def test_lspci_nnk_through_grep_counts_each_gpu_it_shows(tmp_path: Path) -> None:
    p, _ = replay(
        tmp_path, [{"argv": ["lspci", "-nnk"], "stdout": LSPCI_NNK, "stderr": "", "exit": None}], {}
    )
    assert p.nvidia_pci_devices == 2 and [g.bus_id for g in p.pci_gpus] == ["0000:0b:00.0", "0000:0c:00.0"]
    assert layer(p, "pci").state == WORKS and layer(p, "pci").facts["count"] == "2"
    assert not reasons(p)


def test_a_pasted_lspci_is_read_whatever_its_unshown_exit_code(tmp_path: Path) -> None:
    line = "01:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 PCIe 40GB] [10de:20f1] (rev a1)\n"
    p = probe(tmp_path, {}, {("lspci", "-nn"): fail(UNSHOWN, line)})
    assert p.nvidia_pci_devices == 1 and p.pci_gpus[0].device_id == "10de:20f1"


def test_a_gpu_bound_to_nvidia_shows_its_module_loaded_beside_one_on_nouveau(tmp_path: Path) -> None:
    # the kernel binds a device to the nvidia driver only with its module loaded: nouveau holding
    # another GPU is then no "module not loaded"
    mixed = LSPCI_NNK.replace(
        "Device [1043:87af]\n\tKernel driver in use: nvidia",
        "Device [1043:87af]\n\tKernel driver in use: nouveau",
    )
    assert mixed != LSPCI_NNK
    p, _ = replay(
        tmp_path / "a", [{"argv": ["lspci", "-nnk"], "stdout": mixed, "stderr": "", "exit": None}], {}
    )
    assert "not-loaded-nouveau" not in reasons(p)
    alone = mixed.split("--\n", 1)[1]  # the GPU on nouveau alone, the nvidia module beside it
    q, _ = replay(
        tmp_path / "b", [{"argv": ["lspci", "-nnk"], "stdout": alone, "stderr": "", "exit": None}], {}
    )
    assert "not-loaded-nouveau" in reasons(q)


def test_detect_says_an_unread_module_is_installed_not_that_it_fails(tmp_path: Path) -> None:
    from wizard.profile_view import part_rows

    p = probe(tmp_path / "a", {}, {("modinfo", "-F", "version", "nvidia"): fail(UNSHOWN, "515.48.07\n")})
    shown = dict(part_rows("nvidia", p))
    driver = next(v for k, v in shown.items() if "515.48.07" in v)
    assert "installed; whether it works was not read" in driver and "not working" not in driver
    set_language("zh")
    try:
        assert any("没有读到它是否在工作" in v for _, v in part_rows("nvidia", p))
    finally:
        set_language(None)
    # a module that is not loaded stays "installed, not working"
    q = probe(tmp_path / "b", NATIVE, {("nvidia-smi",): fail(UNSHOWN, COULD_NOT)})
    q.states[[s.layer for s in q.states].index("module")].facts["version"] = "515.48.07"
    assert any("installed, not working" in v for _, v in part_rows("nvidia", q))


def test_the_journal_s_enosys_line_is_read_where_a_gpu_is_on_the_bus(tmp_path: Path) -> None:
    from wizard.probe.states import BOOT_JOURNAL

    line = "01:00.0 3D controller [0302]: NVIDIA Corporation TU104GL [Tesla T4] [10de:1eb8] (rev a1)\n"
    journal = (
        "systemd-modules-load[312]: modprobe: ERROR: could not insert 'nvidia': Function not implemented\n"
    )
    commands = {("lspci", "-nn"): fail(UNSHOWN, line), tuple(BOOT_JOURNAL): fail(0, journal)}
    p = probe(tmp_path, {}, commands)
    assert not reasons(p) and layer(p, "module").facts.get("loads") == "none"
