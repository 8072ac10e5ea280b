"""Secure Boot is named from the evidence where it lives: modprobe's "Key was rejected by service" in
this boot's journal (the kernel logs no line of its own for it), mokutil, else the firmware's
SecureBoot variable; the journal is read bounded, only where the module did not load, recorded in the
dump like every other command and replayed from it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.machines import LINUX_PY, NATIVE_PROC_VERSION, UBUNTU_2204, context, fail, ok, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.dump import detect_dump, recording_context, write_dump
from wizard.probe.state_view import words
from wizard.probe.states import BOOT_JOURNAL
from wizard.profile import MachineProfile
from wizard.sysio import CannedCommands, CommandResult, System

PCI = {
    "/sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
    "/sys/bus/pci/devices/0000:01:00.0/class": "0x030000\n",
}
NOT_LOADED = {
    "/proc/version": NATIVE_PROC_VERSION,
    "/etc/os-release": UBUNTU_2204,
    "/proc/modules": "snd_hda_intel 57344 3 - Live 0x0\n",
    "/usr/lib/x86_64-linux-gnu/libcuda.so.550.120": "",
    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.120": "",
    **PCI,
}
SMI_DOWN = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n"
REJECTED = "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
EFI_SB = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
DENIED = fail(1, stderr="dmesg: read kernel buffer failed: Operation not permitted\n")


def _commands(**extra: CommandResult) -> dict[tuple[str, ...], CommandResult]:
    table = {
        ("nvidia-smi",): fail(9, stdout=SMI_DOWN),
        ("modinfo", "-F", "version", "nvidia"): ok("550.120\n"),
        ("dmesg",): DENIED,
        ("journalctl", "-k"): fail(
            1, stderr="No journal files were opened due to insufficient permissions.\n"
        ),
        ("ldconfig", "-p"): ok("\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"),
    }
    for key, result in extra.items():
        table[{"journal": tuple(BOOT_JOURNAL), "mokutil": ("mokutil", "--sb-state")}[key]] = result
    return table


def _probe(tmp_path: Path, commands: dict, files: dict[str, str] | None = None) -> MachineProfile:
    root = tree(tmp_path, {**NOT_LOADED, **(files or {})})
    nvml = FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED)
    return detect(context=context(root, commands), nvml=nvml)


def _module(p: MachineProfile):  # type: ignore[no-untyped-def]
    return next(s for s in p.states if s.layer == "module")


def test_a_key_rejected_in_the_boot_journal_names_secure_boot_with_that_line(tmp_path: Path) -> None:
    """dmesg is denied and mokutil is not installed: modprobe's own error, as gdm3 logged it, decides."""
    p = _probe(tmp_path, _commands(journal=ok("gdm3[7055]: " + REJECTED + "NVIDIA driver is not loaded\n")))
    state = _module(p)
    assert state.reason == "secure-boot" and state.facts["version"] == "550.120"
    assert any(e.source.startswith("journalctl -b") and "Key was rejected" in e.line for e in state.evidence)
    said = words(state, p)
    assert (
        "Enroll the module's signing key (MOK)" in said.fix and "Restart the computer first" not in said.fix
    )
    assert "install the" not in (said.title + said.fix).lower()  # never over an installed driver


def test_without_the_line_secure_boot_on_is_only_likely(tmp_path: Path) -> None:
    """The journal names nvidia but shows no rejection; mokutil missing, the firmware variable says
    on: restart first, then the key (not-loaded-secure-boot), with the variable as evidence."""
    journal = ok("nvidia-persistenced: Failed to open /dev/nvidiactl\n")
    p = _probe(tmp_path, _commands(journal=journal), {EFI_SB: "\x06\x00\x00\x00\x01"})
    state = _module(p)
    assert p.kernel.secure_boot is True
    assert state.reason == "not-loaded-secure-boot"
    assert any(e.source == EFI_SB and "enabled" in e.line for e in state.evidence)


def test_secure_boot_off_in_the_firmware_is_not_named(tmp_path: Path) -> None:
    p = _probe(tmp_path, _commands(journal=ok("")), {EFI_SB: "\x06\x00\x00\x00\x00"})
    assert p.kernel.secure_boot is False and _module(p).reason == "not-loaded"


def test_the_taint_warning_is_not_a_rejection(tmp_path: Path) -> None:
    """'module verification failed ... tainting kernel' is printed as an unsigned module loads anyway."""
    taint = ok(
        "[ 2.8] nvidia: module verification failed: signature and/or required key missing - tainting kernel\n"
    )
    commands = {**_commands(mokutil=ok("SecureBoot disabled\n")), ("dmesg",): taint}
    assert _module(_probe(tmp_path, commands)).reason == "not-loaded"


def test_a_rejection_mokutil_denies_is_not_secure_boot_without_the_kernels_words(tmp_path: Path) -> None:
    """Another module's rejection is not the nvidia module's."""
    other = ok("modprobe: ERROR: could not insert 'vboxdrv': Key was rejected by service\n")
    p = _probe(tmp_path, _commands(journal=other, mokutil=ok("SecureBoot disabled\n")))
    assert _module(p).reason == "not-loaded"


def test_the_journal_is_not_read_where_the_module_loaded(tmp_path: Path) -> None:
    files = {
        **NOT_LOADED,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "550.120\n",
    }
    runner = CannedCommands(_commands(journal=ok(REJECTED)))
    system = System(root=tree(tmp_path, files), runner=runner, environ={}, home=tmp_path)
    from wizard.probe.context import ProbeContext

    ctx = ProbeContext(system=system, python=LINUX_PY, installed=lambda name: None)
    detect(context=ctx, nvml=FakeNvml(init_error=ErrorKind.OTHER))
    assert not any(call[:2] == ["journalctl", "-b"] for call in runner.calls)


def test_the_journal_read_is_bounded_recorded_and_replayed(tmp_path: Path) -> None:
    assert {"-b", "-n", "-g", "--no-pager", "-o"} <= set(BOOT_JOURNAL)  # this boot, some lines, no pager
    runner = CannedCommands(_commands(journal=ok("gdm3[1]: " + REJECTED)))
    system = System(root=tree(tmp_path / "m", NOT_LOADED), runner=runner, environ={}, home=tmp_path)
    nvml = FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED)
    ctx, rec = recording_context(system=system, nvml_factory=lambda: nvml, python=LINUX_PY)
    original = detect(context=ctx)
    write_dump(tmp_path / "dump", ctx, rec)
    recorded = json.loads((tmp_path / "dump" / "commands.json").read_text())
    assert any(c["argv"] == BOOT_JOURNAL and "Key was rejected" in c["stdout"] for c in recorded)
    replayed = detect_dump(tmp_path / "dump")
    assert _module(replayed).reason == _module(original).reason == "secure-boot"


def test_a_version_the_evidence_does_not_show_is_left_out_of_the_words(tmp_path: Path) -> None:
    """modinfo not read (a pasted output): the key's rejection still decides it; the title names no
    version rather than a '?' (English and Chinese)."""
    from wizard.text import set_language

    commands = {**_commands(journal=ok(REJECTED)), ("modinfo", "-F", "version", "nvidia"): fail(127)}
    p = _probe(tmp_path, commands)
    state = _module(p)
    assert state.reason == "secure-boot" and "version" not in state.facts
    try:
        for lang, want in (
            ("en", "Secure Boot blocks the installed NVIDIA module"),
            ("zh", "已安装的 NVIDIA 模块"),
        ):
            set_language(lang)
            title = words(state, p).title
            assert title.endswith(want) and "?" not in title and "\x00" not in title, title
    finally:
        set_language("en")
