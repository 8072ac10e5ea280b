"""Rules written after round 3's held-out cases were released (SCORES_round3.txt, section 3), each
tested on a minimal machine of its own (written here, not copied from a dump)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dump_corpus import bbswitch_state
from tests.machines import ok
from tests.test_probe_round3_rules import NATIVE, SMI_DOWN, probe, reasons
from wizard.probe.failure_words import fallen_off_bus


# ---- a GPU gone from the bus, in the running driver's words ---------------------------------
@pytest.mark.parametrize(
    ("log", "bus"),
    [
        # the running driver's line (R5xx open and proprietary modules)
        ("[ 7.1] NVRM: GPU 0000:06:00.0: GPU has fallen off the bus.\n", "0000:06:00.0"),
        # Xid 79 alone names the device without its function: a GPU is function 0
        ("[ 7.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n", "0000:3b:00.0"),
        # the probe-time message, continued on NVRM: lines
        (
            "[ 7.1] NVRM: The NVIDIA GPU 0000:b3:00.0\n        NVRM: (PCI ID: 10de:26b5) installed in this"
            " system has\n        NVRM: fallen off the bus and is not responding to commands.\n",
            "0000:b3:00.0",
        ),
    ],
)
def test_the_kernels_fallen_off_line_names_the_gpu_lost(tmp_path: Path, log: str, bus: str) -> None:
    found = fallen_off_bus(log)
    assert found is not None and found[1] == bus
    p = probe(tmp_path, NATIVE, {("dmesg",): ok(log)})
    state = next(s for s in p.failed_states if s.layer == "gpu")
    # a GPU that fell off the bus is lost, never "did not start"
    assert (state.reason, state.facts.get("bus")) == ("gpu-lost", bus)
    assert "gpu-init-failed" not in reasons(p)
    assert any("fallen off the bus" in e.line or "79" in e.line for e in state.evidence)


def test_another_xid_is_not_a_lost_gpu(tmp_path: Path) -> None:
    log = "[ 7.1] NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception\n"
    assert fallen_off_bus(log) is None
    log += "[ 7.2] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:1941)\n"
    assert reasons(probe(tmp_path, NATIVE, {("dmesg",): ok(log)})) == {"gpu-init-failed"}


# ---- the module refused at load: another driver holds the GPU ------------------------------
HELD = (
    "[ 96.1] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
    "[ 96.1] NVRM: This can occur when a driver such as nouveau, rivafb,\n"
    "[ 96.1] NVRM: nvidiafb, or rivatv was loaded and obtained ownership of\n"
    "[ 96.1] NVRM: the NVIDIA device(s).\n"
)
GAVE_UP = "[ 96.2] NVRM: No NVIDIA graphics adapter probed!\n"
LOADED = "[ 99.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"


def test_the_modules_own_refusal_names_nouveau_without_nvidia_smi(tmp_path: Path) -> None:
    p = probe(tmp_path, NATIVE, {("dmesg",): ok(HELD + GAVE_UP)})
    state = next(s for s in p.failed_states if s.layer == "module")
    assert state.reason == "not-loaded-nouveau"
    assert any("probe routine was not called" in e.line for e in state.evidence)


@pytest.mark.parametrize(
    "log",
    [
        HELD + GAVE_UP + LOADED,  # it loaded later in this boot (nouveau unloaded since)
        HELD + LOADED,  # another GPU was taken up: the module loaded
        HELD + GAVE_UP.replace("96.2", "96.0") + "[ 5.0] vfio-pci 0000:01:00.0: enabling device\n",
    ],
    ids=["loaded-later", "loaded-for-another-gpu", "vfio-passthrough"],
)
def test_a_refusal_the_log_answers_otherwise_names_nothing(tmp_path: Path, log: str) -> None:
    assert "not-loaded-nouveau" not in reasons(probe(tmp_path, NATIVE, {("dmesg",): ok(log)}))


def test_nvidia_smis_words_with_the_refusal_still_name_nouveau(tmp_path: Path) -> None:
    commands = {("nvidia-smi",): ok(SMI_DOWN), ("dmesg",): ok(HELD)}
    assert reasons(probe(tmp_path, NATIVE, commands)) == {"not-loaded-nouveau"}


# ---- bbswitch ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "off"), [("0000:01:00.0 OFF\n", True), ("0000:01:00.0 ON\n", False)])
def test_bbswitchs_last_word_is_the_cards_state(tmp_path: Path, text: str, off: bool) -> None:
    p = probe(tmp_path, {**NATIVE, "/proc/acpi/bbswitch": text}, {})
    assert ("gpu-switched-off" in reasons(p)) is off


def test_prime_selects_bbswitch_line_is_the_files_state_and_nothing_else() -> None:
    said = "Driver configured: intel\n[bbswitch] NVIDIA card is OFF\n"
    assert bbswitch_state([{"argv": ["prime-select", "get-current"], "stdout": said}]) == "OFF\n"
    broken = (
        "Driver configured: intel\nbbswitch is running but seems broken. Cannot get NVIDIA power status\n"
    )
    assert bbswitch_state([{"argv": ["prime-select", "get-current"], "stdout": broken}]) is None
    # the echo of a write (`tee /proc/acpi/bbswitch <<<OFF`) is what was asked, not the state
    assert bbswitch_state([{"argv": ["tee", "/proc/acpi/bbswitch"], "stdout": "OFF\n"}]) is None


# ---- the kernel's refusal of a module's key --------------------------------------------------
@pytest.mark.parametrize(
    ("line", "named"),
    [
        # a DKMS module signed with a MOK that is not enrolled (the kernel's reason for -ENOKEY)
        ("[ 5.1] Loading of module with unavailable key is rejected\n", "secure-boot"),
        ("[ 5.1] Loading of unsigned module is rejected\n", "secure-boot"),
        # the taint warning of a kernel that does not enforce signatures: the module loaded
        ("[ 5.1] nvidia: module verification failed: signature and/or required key missing\n", "not-loaded"),
    ],
)
def test_the_kernels_words_for_a_refused_key_decide_secure_boot(
    tmp_path: Path, line: str, named: str
) -> None:
    commands = {("nvidia-smi",): ok(SMI_DOWN), ("dmesg",): ok(line)}
    assert reasons(probe(tmp_path, NATIVE, commands)) == {named}


# ---- a GPU the states name is a GPU -------------------------------------------------------------
@pytest.mark.parametrize(
    ("files", "commands"),
    [
        ({"/proc/acpi/bbswitch": "0000:01:00.0 OFF\n"}, {}),
        ({}, {("dmesg",): ok("[ 7.1] NVRM: GPU 0000:06:00.0: GPU has fallen off the bus.\n")}),
        ({}, {("dmesg",): ok("[ 7.1] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:1941)\n")}),
    ],
    ids=["switched-off", "lost", "not-started"],
)
def test_a_gpu_the_states_name_is_never_no_nvidia_gpu(tmp_path: Path, files: dict, commands: dict) -> None:
    """The doctor and Detect show one finding per fault: a GPU switched off, lost or not started is
    there, so "No NVIDIA GPU found, TensorFlow will run on the CPU" would contradict it."""
    from wizard.doctor.findings import find_problems

    p = probe(tmp_path, {**NATIVE, **files}, commands)
    assert p.failed_states and not p.gpus
    keys = [f.key for f in find_problems(p)]
    assert "no-nvidia-gpu" not in keys and any(k.startswith("state-gpu-") for k in keys), keys
