"""Probe readings added in stop 52 (dump round 38 and 39's training sides), each on the real words."""

from __future__ import annotations

from wizard.probe.legacy_gpu import ignored_gpu

LEGACY = (
    "[ 5476.271648] nvidia-nvlink: Nvlink Core is being initialized, major device number 237\n"
    "[ 5476.271957] NVRM: The NVIDIA GeForce GT 635M GPU installed in this system is\n"
    "               NVRM:  supported through the NVIDIA 390.xx Legacy drivers. Please\n"
    "               NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    "               NVRM:  information.  The 410.78 NVIDIA driver will ignore\n"
    "               NVRM:  this GPU.  Continuing probe...\n"
)


def test_a_legacy_gpu_message_after_another_dmesg_line_is_read() -> None:
    found = ignored_gpu(LEGACY)
    assert found is not None
    assert (found.gpu, found.branch, found.version) == ("GeForce GT 635M", "390", "410.78")
    assert found.line.startswith("[ 5476.271957] NVRM: The NVIDIA GeForce GT 635M")


def test_the_same_message_first_in_the_log_is_read_too() -> None:
    found = ignored_gpu(LEGACY.split("\n", 1)[1])
    assert found is not None and found.branch == "390"
