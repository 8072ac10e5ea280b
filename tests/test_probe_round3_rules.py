"""Rules read from the training side of the third round of real dumps, each tested on a minimal
machine of its own (written here, not copied from a dump): the probe says what the text proves, and
where the text leaves the cause open it says so (gpu-unreachable) instead of naming one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests import test_machine_states as views
from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, context, fail, ok, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.smi_formats import parse_smi_list, parse_smi_xml
from wizard.profile import MachineProfile
from wizard.sysio import CommandResult

NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
NO_LIB = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
SMI_DOWN = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
LSPCI_GPU = "01:00.0 VGA compatible controller: NVIDIA Corporation AD106 [GeForce RTX 4060 Ti] (rev a1)\n"


def probe(
    tmp_path: Path,
    files: dict[str, str],
    commands: Mapping[Any, CommandResult],
    links: dict[str, str] | None = None,
) -> MachineProfile:
    return detect(context=context(tree(tmp_path, files, links), dict(commands)), nvml=NO_LIB)


def reasons(p: MachineProfile) -> set[str]:
    return {s.reason for s in p.failed_states if s.reason}


# ---- nvidia-smi's other formats ------------------------------------------------------------
def test_gpu_list_counts_gpus_not_their_mig_instances() -> None:
    text = (
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa-1)\n"
        "  MIG 3g.40gb     Device  0: (UUID: MIG-bbbb-1)\n"
        "  MIG 3g.40gb     Device  1: (UUID: MIG-bbbb-2)\n"
        "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa-2)\n"
    )
    gpus = parse_smi_list(text)
    assert [(g.index, g.name, g.uuid) for g in gpus] == [
        (0, "NVIDIA H100 80GB HBM3", "GPU-aaaa-1"),
        (1, "NVIDIA H100 80GB HBM3", "GPU-aaaa-2"),
    ]
    assert parse_smi_list("Failed to initialize NVML: Unknown Error\n") == []


def test_a_pasted_gpu_list_gives_the_gpus_and_no_driver_version(tmp_path: Path) -> None:
    listing = "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-1)\nGPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-2)\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi", "-L"): ok(listing)})
    assert [g.name for g in p.gpus] == ["NVIDIA GeForce RTX 4090"] * 2
    assert p.driver is not None and p.driver.version == "unknown"  # -L prints none: none is read


def test_xml_report_of_an_old_driver_cut_off_mid_gpu() -> None:
    text = (
        '<?xml version="1.0" ?>\n<nvidia_smi_log>\n\t<driver_version>340.108</driver_version>\n'
        '\t<attached_gpus>1</attached_gpus>\n\t<gpu id="00000000:02:00.0">\n'
        "\t\t<product_name>GeForce GT 730 &amp; co</product_name>\n\t\t<uuid>GPU-xyz</uuid>\n"
    )
    driver, cuda, gpus = parse_smi_xml(text)
    assert (driver, cuda) == ("340.108", "")
    assert [(g.pci_bus_id, g.name, g.uuid) for g in gpus] == [
        ("00000000:02:00.0", "GeForce GT 730 & co", "GPU-xyz")
    ]


def test_xml_report_read_where_nothing_else_answered(tmp_path: Path) -> None:
    xml = (
        "<nvidia_smi_log><driver_version>550.54.14</driver_version><cuda_version>12.4</cuda_version>"
        '<gpu id="00000000:01:00.0"><product_name>NVIDIA L4</product_name>'
        "<fb_memory_usage><total>23034 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>\n"
    )
    p = probe(tmp_path, NATIVE, {("nvidia-smi", "-q", "-x"): ok(xml)})
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("550.54.14", "12.4")
    assert [(g.name, g.memory_mib) for g in p.gpus] == [("NVIDIA L4", 23034)]


def test_an_indented_table_is_read(tmp_path: Path) -> None:
    table = (
        "  | NVIDIA-SMI 590.10.01     Driver Version: 590.10.01     CUDA Version: 13.1     |\n"
        "  |=========================================+========================+======================|\n"
        "  |   0  NVIDIA GeForce RTX 5060        Off |   00000000:01:00.0  On |                  N/A |\n"
        "  |  0%   40C    P8              9W /  145W |     512MiB /   8151MiB |      2%      Default |\n"
    )
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(-1, stdout=table)})
    assert p.driver is not None and (p.driver.version, p.driver.cuda) == ("590.10.01", "13.1")
    assert [(g.name, g.memory_mib) for g in p.gpus] == [("NVIDIA GeForce RTX 5060", 8151)]


# ---- what a failure line proves -----------------------------------------------------------
def handle_failure(tmp_path: Path, said: str, dmesg: str = "") -> MachineProfile:
    line = f"Unable to determine the device handle for GPU 0000:41:00.0: {said}\n"
    commands = {("nvidia-smi",): fail(-1, stdout=line)}
    if dmesg:
        commands[("dmesg",)] = ok(dmesg)
    return probe(tmp_path, NATIVE, commands)


@pytest.mark.parametrize(
    ("said", "dmesg", "reason"),
    [
        ("Unknown Error", "", "gpu-unreachable"),  # NVML_ERROR_UNKNOWN decides neither cause
        ("GPU is lost.  Reboot the system to recover this GPU", "", "gpu-lost"),
        (
            "Unknown Error",
            "[ 9.1] NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x24:0x65:1457)\n",
            "gpu-init-failed",
        ),
        (
            "Unknown Error",
            "[ 99.] NVRM: GPU at PCI:0000:41:00: GPU-1\n[ 99.] NVRM: Xid (PCI:0000:41:00): 79, GPU has fallen off the bus.\n",
            "gpu-lost",
        ),
        # the kernel's line about another GPU decides nothing for this one
        (
            "Unknown Error",
            "[ 9.1] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1457)\n",
            "gpu-unreachable",
        ),
    ],
)
def test_a_handle_failure_is_named_by_what_proves_it(
    tmp_path: Path, said: str, dmesg: str, reason: str
) -> None:
    p = handle_failure(tmp_path, said, dmesg)
    states = [s for s in p.states if s.layer == "gpu" and s.failed]
    assert states and states[0].reason == reason, [(s.layer, s.reason) for s in p.states]
    assert states[0].facts["bus"] == "0000:41:00.0"
    assert any(said.split(".")[0] in e.line for e in states[0].evidence)
    if dmesg and reason != "gpu-unreachable":
        assert any("NVRM" in e.line for e in states[0].evidence)


def test_a_row_of_err_beside_a_working_gpu(tmp_path: Path) -> None:
    table = (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
        "|===============================+======================+======================|\n"
        "|   0  ERR!                On   | 00000000:3B:00.0 Off |                 ERR! |\n"
        "|ERR!  ERR! ERR!    ERR! / ERR! |      0MiB / 24576MiB |    ERR!      Default |\n"
        "|   1  NVIDIA L4           On   | 00000000:5E:00.0 Off |                    0 |\n"
        "| N/A   30C    P8    12W /  72W |      0MiB / 23034MiB |      0%      Default |\n"
    )
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(-1, stdout=table)})
    gpu = {s.index: s for s in p.states if s.layer == "gpu"}
    assert gpu[0].reason == "gpu-unreachable" and not gpu[0].blocks  # the L4 still runs TensorFlow
    assert gpu[0].facts["bus"] == "00000000:3B:00.0"
    assert gpu[1].state == "works" and p.blocking_state is None


def unreachable(tmp_path: Path) -> MachineProfile:
    """One GPU the driver cannot reach (NVML: Unknown Error), module and libraries in place."""
    files = {
        **views.NATIVE,
        **views.PCI,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
        **views.LIB_550,
    }
    said = "Unable to determine the device handle for GPU 0000:01:00.0: Unknown Error\n"
    commands = {
        views.QUERY: fail(15, stdout=said),
        ("nvidia-smi",): fail(15, stdout=said),
        ("ldconfig", "-p"): views.LDCONFIG_550,
    }
    return views.machine(tmp_path, files, commands, FakeNvml(init_error=ErrorKind.OTHER))


def test_gpu_unreachable_has_the_same_fix_in_every_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(views.BLOCKING, "gpu-unreachable", unreachable)
    views.test_every_view_gives_the_same_fix(tmp_path, "gpu-unreachable")


def test_no_devices_found_with_the_gpu_on_the_bus(tmp_path: Path) -> None:
    commands = {("nvidia-smi",): fail(-1, stdout="No devices were found\n"), ("lspci",): ok(LSPCI_GPU)}
    assert "gpu-init-failed" in reasons(probe(tmp_path / "a", NATIVE, commands))
    # nothing on the bus read: no device today says nothing about which failure
    assert (
        reasons(probe(tmp_path / "b", NATIVE, {("nvidia-smi",): fail(-1, stdout="No devices were found\n")}))
        == set()
    )
    # inside a container it means no GPU was passed, not a GPU that failed
    inside = {**NATIVE, "/.dockerenv": "", "/dev/nvidiactl": ""}
    assert "gpu-init-failed" not in reasons(probe(tmp_path / "c", inside, commands))


def test_a_saved_log_shows_the_init_failure_beside_no_devices(tmp_path: Path) -> None:
    files = {
        **NATIVE,
        "/var/log/kern.log": "Mar 1 10:00:01 h kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n",
    }
    p = probe(tmp_path, files, {("nvidia-smi",): fail(-1, stdout="No devices were found\n")})
    state = next(s for s in p.states if s.reason == "gpu-init-failed")
    assert any(e.source == "/var/log/kern.log" and "RmInitAdapter" in e.line for e in state.evidence)
    # the saved log alone (nvidia-smi not read) names nothing: it may be an older boot's
    assert "gpu-init-failed" not in reasons(probe(tmp_path / "b", files, {}))


def test_insufficient_permissions_in_a_container(tmp_path: Path) -> None:
    files = {**NATIVE, "/run/.containerenv": "", "/dev/nvidiactl": "", "/dev/nvidia0": ""}
    said = "Failed to initialize NVML: Insufficient Permissions\n"
    p = probe(tmp_path, files, {("nvidia-smi",): fail(-1, stdout=said)})
    assert reasons(p) == {"no-permission"}  # not "libraries not mounted": NVML loaded and refused


def test_module_not_found_for_this_kernel_is_not_built(tmp_path: Path) -> None:
    stderr = "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-51-generic\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(-1, stdout=SMI_DOWN, stderr=stderr)})
    assert reasons(p) == {"module-not-built"}
    # nvidia-smi's words alone still say only that the module is not loaded
    assert reasons(probe(tmp_path / "b", NATIVE, {("nvidia-smi",): fail(-1, stdout=SMI_DOWN)})) == {
        "not-loaded"
    }


def test_modinfo_finding_no_module_is_not_built(tmp_path: Path) -> None:
    commands = {
        ("nvidia-smi",): fail(-1, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): fail(1, stderr="modinfo: ERROR: Module nvidia not found.\n"),
    }
    assert reasons(probe(tmp_path, NATIVE, commands)) == {"module-not-built"}


def test_the_kernel_rejecting_the_key_is_secure_boot_where_modinfo_is_unread(tmp_path: Path) -> None:
    commands = {
        ("nvidia-smi",): fail(-1, stdout=SMI_DOWN),
        ("journalctl", "-k"): ok("Jan 01 10:00:00 h kernel: Loading of unsigned module is rejected\n"),
    }
    assert reasons(probe(tmp_path, NATIVE, commands)) == {"secure-boot"}


# ---- WSL ------------------------------------------------------------------------------------
OLD_WSL2 = {"/proc/version": "Linux version 4.19.128-microsoft-standard (oe-user@oe-host) #1 SMP\n"}


def test_a_linux_driver_inside_a_wsl2_without_gpu_support(tmp_path: Path) -> None:
    files = {**OLD_WSL2, "/usr/bin/nvidia-smi": "", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": ""}
    p = probe(tmp_path, files, {("nvidia-smi",): fail(-1, stdout=SMI_DOWN)})
    assert p.platform == "wsl2"
    assert reasons(p) == {"wsl-no-gpu-device", "wsl-linux-driver"}
    state = next(s for s in p.states if s.reason == "wsl-linux-driver")
    assert any(e.source == "/usr/bin/nvidia-smi" for e in state.evidence)


def test_a_link_to_the_windows_nvidia_smi_is_no_linux_driver(tmp_path: Path) -> None:
    files = {
        **OLD_WSL2,
        "/dev/dxg": "",
        "/usr/lib/wsl/lib/nvidia-smi": "",
        "/usr/lib/wsl/lib/libcuda.so.1": "",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": "",
    }
    links = {"/usr/bin/nvidia-smi": str(tmp_path / "usr/lib/wsl/lib/nvidia-smi")}
    p = probe(tmp_path, files, {}, links)
    assert "wsl-linux-driver" not in reasons(p) and "wsl-shadowing-lib" in reasons(p)


def test_wsl1_is_still_wsl1(tmp_path: Path) -> None:
    files = {"/proc/version": "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) #1-Microsoft\n"}
    assert probe(tmp_path, files, {}).platform == "wsl1"


def test_nouveau_holding_the_gpu_of_an_installed_driver(tmp_path: Path) -> None:
    log = ok("Feb 02 09:00:00 h kernel: nouveau 0000:01:00.0: DRM: VRAM: 4096 MiB\n")
    installed = {("nvidia-smi",): fail(-1, stdout=SMI_DOWN), ("journalctl", "-k"): log}
    assert reasons(probe(tmp_path / "a", NATIVE, installed)) == {"not-loaded-nouveau"}
    # nouveau alone shows no NVIDIA driver installed: nothing is named "installed but ..."
    assert reasons(probe(tmp_path / "b", NATIVE, {("journalctl", "-k"): log})) == set()


def test_akmods_failing_for_the_running_kernel_is_not_built(tmp_path: Path) -> None:
    kernel = probe(tmp_path / "k", NATIVE, {}).os.kernel
    smi = {("nvidia-smi",): fail(-1, stdout=SMI_DOWN)}
    failed = {**NATIVE, f"/var/cache/akmods/nvidia/580.95.05-1-for-{kernel}.failed.log": "error\n"}
    p = probe(tmp_path / "a", failed, smi)
    assert reasons(p) == {"module-not-built"}
    assert any(e.source.endswith(f"-for-{kernel}.failed.log") for s in p.states for e in s.evidence)
    # a failed build for another kernel says nothing about this one
    other = {**NATIVE, "/var/cache/akmods/nvidia/580.95.05-1-for-6.1.0-1.fc40.x86_64.failed.log": "error\n"}
    assert reasons(probe(tmp_path / "b", other, smi)) == {"not-loaded"}


def test_the_kernel_decides_an_err_row_too(tmp_path: Path) -> None:
    table = (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
        "|   0  ERR!                On   | 00000000:3B:00.0 Off |                 ERR! |\n"
        "|ERR!  ERR! ERR!    ERR! / ERR! |      0MiB / 24576MiB |    ERR!      Default |\n"
    )
    dmesg = "[ 50.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(-1, stdout=table), ("dmesg",): ok(dmesg)})
    state = next(s for s in p.states if s.layer == "gpu")
    assert state.reason == "gpu-lost" and any("fallen off the bus" in e.line for e in state.evidence)


def test_insufficient_permissions_on_a_machine_of_its_own(tmp_path: Path) -> None:
    said = "Failed to initialize NVML: Insufficient Permissions\n"
    assert reasons(probe(tmp_path / "a", NATIVE, {("nvidia-smi",): fail(-1, stdout=said)})) == {
        "no-permission"
    }
    one = "Unable to determine the device handle for GPU 0000:65:00.0: Insufficient Permissions\n"
    assert reasons(probe(tmp_path / "b", NATIVE, {("nvidia-smi",): fail(-1, stdout=one)})) == {
        "no-permission"
    }
