"""Rules for rounds 13-14's training texts (r21n: RULES_ROUND 12 -> 14), as the general messages they are.

nvidia-smi's message retold in words ("`nvidia-smi` cannot communicate with drivers") after a kernel
upgrade is the module not rebuilt for the new kernel; Paddle's allocator message alone is the work's
own tensors not fitting; XLA's newer warning of a ptxas older than CUDA 12.6.3 is the old ptxas it
picked, and XLA's report of ptxas's exit status a consequence of ptxas's own message; and the CUDA
runtime's "driver version is insufficient" where the text says the container needed
NVIDIA_VISIBLE_DEVICES (or --runtime=nvidia, --gpus) is a container given no GPU, not an old driver,
which it stays wherever those words are absent or say they did not help.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first

# --------------------------------------------------------------------------- nvidia-smi, in words

RETOLD = "Can't install drivers. `nvidia-smi` cannot communicate with drivers."
KERNEL_UPGRADE = (
    "I guess there was a kernel upgrade at some point and apt didn't install headers for the new kernel.\n"
    "`sudo apt install linux-headers-$(uname -r)` did the trick."
)


@pytest.mark.parametrize(
    "said",
    [
        RETOLD,
        "nvidia-smi fails to communicate with the driver",
        "nvidia-smi: unable to communicate with the NVIDIA drivers",
    ],
)
def test_nvidia_smi_retold_after_a_kernel_upgrade_is_the_module_not_rebuilt(said: str) -> None:
    assert first(said + "\n" + KERNEL_UPGRADE) == "kernel-module-missing"


def test_nvidia_smi_retold_alone_is_only_no_driver_reached() -> None:
    # No kernel change in the text: a symptom, not the module's cause.
    assert first(RETOLD) == "no-device"


def test_nvidia_smi_retold_in_wsl_after_a_kernel_update_is_not_the_module() -> None:
    assert first("In WSL2 the kernel was updated. " + RETOLD) != "kernel-module-missing"
