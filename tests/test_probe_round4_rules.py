"""Rules read from the training side of the fourth round of real dumps, each tested on a minimal
machine of its own (written here, not copied from a dump): a state is named only where the text
proves it and nothing in the text contradicts it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, WSL2_PROC_VERSION, context, fail, ok, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.container_cli import parse_container_cli_info
from wizard.probe.failure_words import fallen_off_bus
from wizard.probe.state_view import unsure_key, words
from wizard.profile import MachineProfile
from wizard.sysio import CommandResult

NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
WSL = {"/proc/version": WSL2_PROC_VERSION, "/etc/os-release": UBUNTU_2204, "/dev/dxg": ""}
NO_LIB = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
# A pasted output shows no exit code: the replay reads it as -1, never as 0.
UNSHOWN = -1


def probe(tmp_path: Path, files: dict[str, str], commands: Mapping[Any, CommandResult]) -> MachineProfile:
    return detect(context=context(tree(tmp_path, files), dict(commands)), nvml=NO_LIB)


def reasons(p: MachineProfile) -> set[str]:
    return {s.reason for s in p.failed_states if s.reason}


# ---- WSL2: Basic Render only where nothing says otherwise ------------------------------------
def test_windows_blocking_the_gpu_is_named_not_a_missing_windows_driver(tmp_path: Path) -> None:
    said = "Failed to initialize NVML: GPU access blocked by the operating system\n"
    p = probe(tmp_path, WSL, {("nvidia-smi",): fail(UNSHOWN, said)})
    assert "wsl-gpu-blocked" in reasons(p)
    assert "basic-render-only" not in reasons(p)


def test_an_nvml_that_answered_is_not_basic_render_only(tmp_path: Path) -> None:
    # "Failed to initialize NVML: Unknown Error": an NVML library loaded and answered.
    p = probe(tmp_path, WSL, {("nvidia-smi",): fail(UNSHOWN, "Failed to initialize NVML: Unknown Error\n")})
    assert "basic-render-only" not in reasons(p)


def test_lspci_without_the_basic_render_device_is_not_basic_render_only(tmp_path: Path) -> None:
    lspci = ok("5582:00:00.0 SCSI storage controller: Red Hat, Inc. Virtio filesystem (rev 01)\n")
    p = probe(tmp_path, WSL, {("lspci",): lspci})
    assert "basic-render-only" not in reasons(p)


def test_basic_render_and_no_windows_library_is_basic_render_only(tmp_path: Path) -> None:
    files = {**WSL, "/usr/lib/wsl/lib/libd3d12.so": ""}
    lspci = ok("1a3b:00:00.0 3D controller: Microsoft Corporation Basic Render Driver\n")
    p = probe(tmp_path, files, {("lspci",): lspci})
    state = next(s for s in p.failed_states if s.reason == "basic-render-only")
    said = [e.line for e in state.evidence]
    assert any("Basic Render Driver" in line for line in said)
    assert any("libd3d12.so" in line for line in said)


# ---- nvidia-smi's banner ----------------------------------------------------------------------
BANNER = (
    "Mon Jul 14 07:46:26 2025       \n"
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 575.57.08              Driver Version: 575.57.08      CUDA Version: 12.9     |\n"
)


def test_a_header_cut_after_the_banner_reads_driver_and_cuda(tmp_path: Path) -> None:
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, BANNER)})
    assert p.driver is not None
    assert (p.driver.version, p.driver.cuda) == ("575.57.08", "12.9")


def test_a_wrapper_library_s_lines_inside_the_table_do_not_hide_the_driver(tmp_path: Path) -> None:
    hook = "[vgpu-hook Msg(1:2:hook.c:400)]: loaded nvml libraries\n[vgpu-hook]: driver version=12040\n"
    rows = "|=========================================+========================+\n[vgpu-hook]: limit 0\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, hook + BANNER + rows)})
    assert p.driver is not None
    # The hook's "driver version=12040" is the CUDA driver API number, not the NVIDIA driver.
    assert (p.driver.version, p.driver.cuda) == ("575.57.08", "12.9")


def test_a_failure_without_the_banner_reads_no_driver(tmp_path: Path) -> None:
    said = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 575.57\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, said)})
    assert p.driver is None


# ---- nvidia-container-cli info ---------------------------------------------------------------
INFO = (
    "NVRM version:   470.256.02\n"
    "CUDA version:   11.4\n\n"
    "Device Index:   0\nDevice Minor:   0\nModel:          Tesla T4\nBrand:          Tesla\n"
    "GPU UUID:       GPU-11111111-2222-3333-4444-555555555555\n"
    "Bus Location:   00000000:3b:00.0\nArchitecture:   7.5\n\n"
    "Device Index:   1\nDevice Minor:   1\nModel:          Tesla T4\nBrand:          Tesla\n"
    "GPU UUID:       GPU-66666666-2222-3333-4444-555555555555\n"
    "Bus Location:   00000000:d8:00.0\nArchitecture:   7.5\n"
)


def test_container_cli_info_gives_driver_cuda_and_each_gpu() -> None:
    found = parse_container_cli_info(INFO)
    assert found is not None
    driver, gpus = found
    assert (driver.version, driver.cuda, driver.source) == ("470.256.02", "11.4", "nvidia-container-cli")
    assert [(g.index, g.name, g.compute_capability, g.pci_bus_id) for g in gpus] == [
        (0, "Tesla T4", "7.5", "00000000:3b:00.0"),
        (1, "Tesla T4", "7.5", "00000000:d8:00.0"),
    ]
    said = "nvidia-container-cli: initialization error: nvml error: driver not loaded\n"
    assert parse_container_cli_info(said) is None


def test_the_probe_reads_container_cli_info_where_nvidia_smi_is_not_there(tmp_path: Path) -> None:
    p = probe(tmp_path, NATIVE, {("nvidia-container-cli", "info"): ok(INFO)})
    assert p.driver is not None and p.driver.version == "470.256.02" and p.driver.cuda == "11.4"
    assert [g.compute_capability for g in p.gpus] == ["7.5", "7.5"]
    assert p.probe_layers.get("nvidia") == "nvidia-container-cli"


def test_a_failing_container_cli_reads_no_driver(tmp_path: Path) -> None:
    said = "nvidia-container-cli: initialization error: nvml error: driver not loaded\n"
    p = probe(tmp_path, NATIVE, {("nvidia-container-cli", "info"): fail(1, "", said)})
    assert p.driver is None


def test_nvidia_smi_is_asked_before_container_cli(tmp_path: Path) -> None:
    table = BANNER.replace("575.57.08", "550.90.07", 2)
    commands = {("nvidia-smi",): ok(table), ("nvidia-container-cli", "info"): ok(INFO)}
    p = probe(tmp_path, NATIVE, commands)
    assert p.driver is not None and p.driver.version == "550.90.07"


# ---- a GPU fallen off the bus, in older drivers' words ---------------------------------------
def test_older_drivers_fallen_off_the_bus_line_names_the_gpu() -> None:
    log = "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
    assert fallen_off_bus(log) == (log.strip(), "0000:01:00.0")
    assert fallen_off_bus("[   21.38] bbswitch: enabling discrete graphics\n") is None


def test_the_kernel_log_alone_names_the_gpu_lost(tmp_path: Path) -> None:
    log = "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
    p = probe(tmp_path, NATIVE, {("dmesg",): ok(log)})
    lost = [s for s in p.failed_states if s.reason == "gpu-lost"]
    assert lost and lost[0].facts.get("bus") == "0000:01:00.0"


# ---- NVML's "Unknown Error" as it starts -----------------------------------------------------
UNKNOWN = "Failed to initialize NVML: Unknown Error\n"


def test_nvml_unknown_error_on_a_machine_of_its_own_fails_the_gpu_with_no_cause_named(tmp_path: Path) -> None:
    # NVML_ERROR_UNKNOWN says "an internal driver error": a GPU the driver cannot reach, a shim over
    # libnvidia-ml (round 12) and a pod's lost device rules (round 10) all print it. Round 4 named it
    # gpu-unreachable; rounds 10 and 12 showed that wrong twice.
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, UNKNOWN)})
    state = next(s for s in p.failed_states if s.layer == "gpu")
    assert any("Unknown Error" in e.line for e in state.evidence)
    assert reasons(p) == set() and state.gives_no_gpu  # still a GPU to fix, no cause it does not show
    assert unsure_key(state) == "nvml-unknown"
    assert "Unknown Error" in words(state, p).title and "dmesg" in words(state, p).fix


def test_nvml_unknown_error_in_a_container_names_neither_container_cause(tmp_path: Path) -> None:
    # Stop 48: a container run without --gpus (nvidia-docker#1171) and two whose device rules a
    # reload dropped (round 20) print it alike; the container's own undecided words, not a cause.
    files = {**NATIVE, "/.dockerenv": ""}
    p = probe(tmp_path, files, {("nvidia-smi",): fail(UNSHOWN, UNKNOWN)})
    assert reasons(p) == set()
    state = next(s for s in p.failed_states if s.layer == "gpu")
    assert unsure_key(state) == "nvml-unknown-container"


def test_nvml_unknown_error_with_the_kernel_s_words_names_what_they_say(tmp_path: Path) -> None:
    log = "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, UNKNOWN), ("dmesg",): ok(log)})
    assert "gpu-lost" in reasons(p) and "gpu-unreachable" not in reasons(p)


# ---- akmods' failed build, without nvidia-smi --------------------------------------------------
def test_akmods_failing_for_the_running_kernel_alone_is_not_built(tmp_path: Path) -> None:
    kernel = probe(tmp_path / "k", NATIVE, {}).os.kernel
    log = f"/var/cache/akmods/nvidia/590.44.01-1-for-{kernel}.failed.log"
    p = probe(tmp_path / "a", {**NATIVE, log: "error\n"}, {})
    assert reasons(p) == {"module-not-built"}
    assert any(e.source == log for s in p.states for e in s.evidence)


def test_akmods_failed_log_does_not_outweigh_a_module_that_is_there(tmp_path: Path) -> None:
    kernel = probe(tmp_path / "k", NATIVE, {}).os.kernel
    files = {**NATIVE, f"/var/cache/akmods/nvidia/590.44.01-1-for-{kernel}.failed.log": "error\n"}
    # an older kmod built for this kernel is loaded, or found by modinfo: not "not built"
    loaded = {
        **files,
        "/proc/modules": "nvidia 1 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "580.95.05\n",
    }
    assert "module-not-built" not in reasons(probe(tmp_path / "l", loaded, {}))
    found = {("modinfo", "-F", "version", "nvidia"): ok("580.95.05\n")}
    assert "module-not-built" not in reasons(probe(tmp_path / "m", files, found))
    # a failed build for another kernel says nothing about this one
    other = {**NATIVE, "/var/cache/akmods/nvidia/590.44.01-1-for-6.1.0-1.fc40.x86_64.failed.log": "x\n"}
    assert reasons(probe(tmp_path / "o", other, {})) == set()


# ---- the corpus replay: optimus-manager's read of /proc/acpi/bbswitch ----------------------------
def test_optimus_manager_s_refusal_is_bbswitch_read_off() -> None:
    from tests.dump_corpus import bbswitch_state

    refused = "python[1]: Ordering ON via bbswitch\npython[1]: Cannot switch GPUS : bbswitch refuses to turn ON the GPU\n"
    on = "python[2]: Ordering ON via bbswitch\npython[2]: bbswitch reports that the GPU is ON\n"
    assert bbswitch_state([{"argv": ["journalctl", "-b"], "stdout": refused}]) == "OFF\n"
    assert bbswitch_state([{"argv": ["journalctl", "-b"], "stdout": refused + on}]) == "ON\n"
    assert (
        bbswitch_state([{"argv": ["journalctl", "-b"], "stdout": "python[1]: Switching to Nvidia\n"}]) is None
    )


def test_bbswitch_off_names_the_gpu_switched_off(tmp_path: Path) -> None:
    p = probe(tmp_path, {**NATIVE, "/proc/acpi/bbswitch": "OFF\n"}, {})
    assert "gpu-switched-off" in reasons(p)


def test_an_r610_banner_alone_reads_its_kmd_and_cuda_umd_versions(tmp_path: Path) -> None:
    banner = "| NVIDIA-SMI 610.12     KMD Version: 610.12     CUDA UMD Version: 13.2     |\n"
    p = probe(tmp_path, NATIVE, {("nvidia-smi",): fail(UNSHOWN, banner)})
    assert p.driver is not None
    assert (p.driver.version, p.driver.cuda) == ("610.12", "13.2")
