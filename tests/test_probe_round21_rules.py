"""Round 21 of the dump corpus, its training side: the module's probe giving a GPU up because the
firmware or a VM assigned it no memory window is a GPU the driver could not start (gpu-init-failed),
the kernel's line its evidence; a log without those words names no such state."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.machines import NATIVE_PROC_VERSION, UBUNTU_2204, context, ok, tree
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.profile import MachineProfile
from wizard.sysio import CommandResult

NATIVE = {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204}
LOADED = "[83260.106441] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  510.108.03  Thu Oct 20 05:10:45 UTC 2022\n"
# NVIDIA/gpu-operator#492 (a VM's passed-through GPUs), as the kernel printed it.
BAR_INVALID = (
    "[83260.063553] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\n"
    "               NVRM: BAR1 is 0M @ 0x0 (PCI:0000:14:00.0)\n"
    "[83260.063557] nvidia: probe of 0000:14:00.0 failed with error -1\n"
)


def probe(tmp_path: Path, commands: Mapping[Any, CommandResult]) -> MachineProfile:
    nvml = FakeNvml(init_error=ErrorKind.LIBRARY_NOT_FOUND)
    return detect(context=context(tree(tmp_path, NATIVE), dict(commands)), nvml=nvml)


def test_a_gpu_given_no_memory_window_is_a_gpu_the_driver_could_not_start(tmp_path: Path) -> None:
    p = probe(tmp_path, {("dmesg",): ok(BAR_INVALID + LOADED)})
    failed = [s for s in p.failed_states if s.reason == "gpu-init-failed"]
    assert len(failed) == 1
    assert any("I/O region assigned to your NVIDIA device is invalid" in e.line for e in failed[0].evidence)
    assert p.driver is not None and p.driver.version == "510.108.03"


def test_the_module_loading_alone_names_no_gpu_failure(tmp_path: Path) -> None:
    p = probe(tmp_path, {("dmesg",): ok(LOADED)})
    assert "gpu-init-failed" not in {s.reason for s in p.failed_states}
