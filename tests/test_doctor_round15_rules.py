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


# --------------------------------------------------------------------------- Paddle's allocator

PADDLE_20 = (
    "Out of memory error on GPU 0. Cannot allocate 18.062744MB memory on GPU 0, "
    "available memory is only 17.537501MB.\n\n"
    "Please check whether there is any other process using GPU 0.\n"
    "1. If yes, please stop them, or start PaddlePaddle on another GPU.\n"
    "2. If no, please decrease the batch size of your model.\n"
    " (at D:\\v2.0.1\\paddle\\paddle\\fluid\\memory\\allocation\\cuda_allocator.cc:69)"
)


def test_paddles_allocator_message_alone_is_the_works_own_memory() -> None:
    assert first(PADDLE_20) == "tensor-oom"
    newer = PADDLE_20.replace(
        "on GPU 0, available", "on GPU 0, 5.866455GB memory has been allocated and available"
    )
    assert first(newer) == "tensor-oom"


def test_paddles_message_with_nothing_free_is_still_memory_held() -> None:
    nothing_free = "Out of memory error on GPU 0. Cannot allocate 512.000000B memory on GPU 0, available memory is only 0.000000B."
    assert first(nothing_free) == "memory-held"


def test_paddles_message_beside_another_process_on_the_gpu_is_memory_held() -> None:
    assert first(PADDLE_20 + "\nAnother training job was running on the GPU at the time.") == "memory-held"


# --------------------------------------------------------------------------- XLA's ptxas warning

PTXAS_WARNING = (
    "E0103 16:41:38.489316 2217885 ptx_compiler_helpers.cc:87] *** WARNING *** Invoking ptxas with "
    "version 12.1.66, which corresponds to a CUDA version <=12.6.2. CUDA versions 12.x.y up to and "
    "including 12.6.2 miscompile certain edge cases around clamping.\n"
    "Please upgrade to CUDA 12.6.3 or newer."
)


def test_xlas_warning_of_an_old_ptxas_is_the_ptxas_it_picked() -> None:
    assert first(PTXAS_WARNING) == "xla-ptxas-problem"
    wrapped = PTXAS_WARNING.replace("CUDA versions 12.x.y", "\nCUDA versions 12.x.y")
    assert first(wrapped) == "xla-ptxas-problem"


def test_ptxas_exit_status_wrapped_before_its_fatal_message_is_its_consequence() -> None:
    # A terminal's wrapping (72 columns) puts XLA's exit-status line above ptxas's own message: the
    # message (a ptxas older than the PTX XLA wrote) is still the root.
    wrapped = (
        "Execution of replica 0 failed: INTERNAL: CustomCall failed: ptxas exited\n"
        "with non-zero error code 65280, output: ptxas\n"
        "/tmp/tempfile-911e745ba31e, line 5; fatal\n"
        ": Unsupported .version 8.4; current version is '8.3'"
    )
    assert first(wrapped) == "ptxas-too-old"
    assert first("INTERNAL: ptxas exited with non-zero error code 65280, output:") == "xla-ptxas-problem"


def test_ptxas_version_output_alone_is_nothing() -> None:
    version = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release 12.1, V12.1.66"
    assert first(version) == "nothing"


# --------------------------------------------------------------------------- a container's driver

INSUFFICIENT = (
    "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version"
)
IN_DOCKER = (
    "When trying to run faster-whisper in a docker on my unraid server.\nNvidia Driver Version: 565.77"
)


@pytest.mark.parametrize(
    "fix",
    [
        'I needed to add the following variable to configuration: "NVIDIA_VISIBLE_DEVICES" with a value of the id for the GPU.',
        "Solved: I forgot to set --runtime=nvidia in the extra parameters.",
        "The template was missing NVIDIA_VISIBLE_DEVICES.",
        "NVIDIA_VISIBLE_DEVICES was not set in the container.",
        "容器里没加 NVIDIA_VISIBLE_DEVICES 变量",
    ],
)
def test_insufficient_driver_where_the_container_lacked_its_gpu_is_container_no_gpu(fix: str) -> None:
    assert first(INSUFFICIENT + "\n" + IN_DOCKER + "\n" + fix) == "container-no-gpu"


def test_insufficient_driver_in_a_container_alone_stays_driver_too_old() -> None:
    # A CUDA 12 image on a host driver that is too old says the same inside docker (faster-whisper's
    # 535 and 510 drivers): no words about the container's GPU, so the driver.
    old_host = INSUFFICIENT + "\nDriver Version: 535.183.01   CUDA Version: 12.2\nDocker version 28.0.4"
    assert first(old_host) == "driver-too-old"


@pytest.mark.parametrize(
    "said",
    [
        "environment:\n  - NVIDIA_VISIBLE_DEVICES=all\n  - NVIDIA_DRIVER_CAPABILITIES=compute,utility",
        "I added NVIDIA_VISIBLE_DEVICES=all but still get the same error.",
        "Even after adding --runtime=nvidia it does not work.",
        "Do I need to add NVIDIA_VISIBLE_DEVICES?",
        "我添加了 NVIDIA_VISIBLE_DEVICES 还是报错",
    ],
)
def test_the_containers_gpu_named_without_being_the_fix_stays_driver_too_old(said: str) -> None:
    assert first(INSUFFICIENT + "\nDriver Version: 418.67\n" + said) == "driver-too-old"
