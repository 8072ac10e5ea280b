"""nv-pci.c's probe giving one GPU up where it could not claim the device's registers ("NVRM:
request_mem_region failed for 0M @ 0x0", NVIDIA/gpu-operator#232: one T4 of four): that GPU did not
start (gpu-init-failed), the driver's line as its evidence; the module's own loading lines alone are no
failure."""

from __future__ import annotations

from pathlib import Path

from tests.dump_corpus import materialize
from wizard.probe.dump import detect_dump

LOADED = (
    "[  204.016338] nvidia-nvlink: Nvlink Core is being initialized, major device number 508\n"
    "[  204.016893] nvidia 0000:12:00.0: enabling device (0140 -> 0142)\n"
    "[  204.163230] nvidia 0000:af:00.0: enabling device (0140 -> 0142)\n"
)
REFUSED = (
    "[  204.163286] NVRM: request_mem_region failed for 0M @ 0x0. This can\n"
    "               NVRM: occur when a driver such as rivatv is loaded and claims\n"
    "               NVRM: ownership of the device's registers.\n"
    "[  204.163305] nvidia: probe of 0000:af:00.0 failed with error -1\n"
)


def _states(tmp_path: Path, dmesg: str):  # type: ignore[no-untyped-def]
    case = {
        "slug": "t4",
        "source": "a test",
        "files": {},
        "commands": [{"argv": ["dmesg"], "stdout": dmesg, "stderr": "", "exit": None}],
    }
    return detect_dump(materialize(case, tmp_path)).states


def test_a_probe_that_could_not_claim_the_registers_is_a_gpu_that_did_not_start(tmp_path: Path) -> None:
    gpu = [s for s in _states(tmp_path, LOADED + REFUSED) if s.reason == "gpu-init-failed"]
    assert len(gpu) == 1
    assert any("request_mem_region failed" in e.line for e in gpu[0].evidence)


def test_the_modules_loading_lines_alone_are_no_failure(tmp_path: Path) -> None:
    assert all(s.reason != "gpu-init-failed" for s in _states(tmp_path, LOADED))
