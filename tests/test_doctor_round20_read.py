"""Rules for round 20's texts (the lead's read of its 3 released held-out texts whose first id was
not right, and of its 7 training misses), as the general messages they are.

NVRM saying another driver took the GPU is nouveau, before the installer's "Unable to load the
kernel module"; the .run installer failing to build nvidia.ko for the running kernel is a missing
module; nvidia-docker 1.x's "driver 8.0 < image 9.0" and a driver named as the least one needed
are a driver too old; LuisaRender's "PTX version is not supported by the installed CUDA driver" is
PTX newer than the driver; KDE's "NVIDIA kernel module not found" is Secure Boot where the text
says it is enabled, else a missing module; cuBLAS failing where the fix is a build for the GPU's
architecture is a build without code for it; cuBLAS failing on an RTX 30xx that TensorFlow "does
not support" is a GPU newer than the build; memory not released after the program was killed is
memory another process holds.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, ids

NVRM_PROBE = (
    "[  291.782483] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
    "[  291.785425] NVRM: This can occur when a driver such as:\n"
    "NVRM: nouveau, rivafb, nvidiafb or rivatv\n"
    "NVRM: was loaded and obtained ownership of the NVIDIA device(s).\n"
)
INSTALLER = "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this\n"
SMI = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"


def test_nouveau_owning_the_gpu_comes_before_what_follows_from_it() -> None:
    assert first(INSTALLER + "-> Kernel module load error: No such device\n" + NVRM_PROBE) == "nouveau"
    assert first(SMI + NVRM_PROBE) == "nouveau"


def test_an_unloadable_module_without_nvrm_naming_another_driver_is_still_secure_boot() -> None:
    assert (
        first(INSTALLER + "-> Kernel module load error: Required key not available\n") == "secure-boot-module"
    )


@pytest.mark.parametrize(
    "text",
    [
        "   ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol '__rcu_read_lock'",
        "-> Checking to see whether the nvidia kernel module was successfully built\n"
        "make[1]: Target 'modules' not remade because of errors.\n",
        "   executing: 'cd ./kernel; /usr/bin/make -k -j8 NV_KERNEL_MODULES=\"nvidia\"'...\n"
        "make: *** [Makefile:82: modules] Error 2\n",
    ],
)
def test_the_run_installer_failing_to_build_the_module_is_a_missing_module(text: str) -> None:
    assert first(SMI + text) == "kernel-module-missing"


def test_a_make_error_of_some_other_build_is_not_the_nvidia_module() -> None:
    assert "kernel-module-missing" not in ids("make: *** [Makefile:82: all] Error 2\ngcc: fatal error")


@pytest.mark.parametrize(
    "text",
    [
        "nvidia-docker | 2017/10/13 08:33:01 Error: unsupported CUDA version: driver 8.0 < image 9.0.176",
        ">>> torch.cuda.is_available()\nFalse\nYour driver is 410.48; update it to at least 418.39.",
        "CUDA 10.1 requires a driver version of at least 418.39",
        "显卡驱动版本至少要 418.39 才能用 CUDA 10.1",
    ],
)
def test_a_driver_below_the_one_needed_is_a_driver_too_old(text: str) -> None:
    assert first(text) == "driver-too-old"


@pytest.mark.parametrize(
    "text",
    [
        "Please update pip to at least 21.3 before installing.",  # not a driver's version form
        "update numpy to at least 1.26.4",
        "upgrade the package to at least 418.39",  # a driver-like number, but no driver in the text
    ],
)
def test_other_minimums_are_not_the_driver(text: str) -> None:
    assert "driver-too-old" not in ids(text)


def test_luisarenders_ptx_patch_warning_is_ptx_newer_than_the_driver() -> None:
    text = (
        "[console] [warning] The PTX version is not supported by the installed CUDA driver. Trying to "
        "patch the PTX to make it compatible with the driver. Please consider upgrading your CUDA driver."
    )
    assert first(text) == "ptx-too-new-for-driver"


KDE = 'the start screen shows "NVIDIA kernel module not found. Falling back to Nouveau."\n'


def test_a_module_not_found_with_secure_boot_enabled_is_secure_boot() -> None:
    assert first(KDE + "dmesg: secureboot: Secure boot is enabled") == "secure-boot-module"


@pytest.mark.parametrize(
    "context",
    ["", "secureboot: Secure boot disabled", "Is your secure boot on ?", "after the kernel update to 6.6.11"],
)
def test_a_module_not_found_without_secure_boot_on_is_a_missing_module(context: str) -> None:
    assert first(KDE + context) == "kernel-module-missing"


CUBLAS_INIT = (
    "what():  [FT][ERROR] CUDA runtime error: CUBLAS_STATUS_NOT_INITIALIZED encoder_gemm_func.cc:595\n"
)


@pytest.mark.parametrize(
    "fix",
    [
        "Do you build the repo with sm=86? Build it by `cmake -DSM=86 -DCMAKE_BUILD_TYPE=Release ..`.",
        'set(CUDA_GEN_CODE "-gencode=arch=compute_86,code=sm_86")',
        "rebuilt with CMAKE_CUDA_ARCHITECTURES=86 and it runs",
        "TORCH_CUDA_ARCH_LIST=8.6 python setup.py install fixed it",
    ],
)
def test_a_library_failing_where_the_fix_is_a_build_for_the_gpu_is_a_build_without_its_code(fix: str) -> None:
    assert first(CUBLAS_INIT + fix) == "unsupported-cc"


def test_cublas_not_initialized_alone_is_still_the_library_failing_to_start() -> None:
    assert first(CUBLAS_INIT) == "gpu-lib-init-failed"


BLAS_FAILED = "E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED\n"


@pytest.mark.parametrize(
    "words",
    [
        "Training on an RTX 3090. I have seen that tensorflow does not support the 30 series except in nightly builds.",
        "GeForce 3080 here; TF doesn't support RTX 30xx yet?",
        "显卡是 RTX 3070，听说 tensorflow 还不支持30系列",
    ],
)
def test_cublas_failing_on_an_rtx_30xx_tensorflow_does_not_support_is_a_gpu_too_new(words: str) -> None:
    assert first(BLAS_FAILED + words) == "gpu-too-new"


@pytest.mark.parametrize(
    "words",
    [
        "Training on an RTX 3090 with TensorFlow 2.5 and CUDA 11.2.",  # a build that has Ampere's code
        "tensorflow does not support the 30 series except in nightly builds.",  # no such GPU here
    ],
)
def test_cublas_failing_without_both_facts_is_not_a_gpu_too_new(words: str) -> None:
    assert first(BLAS_FAILED + words) != "gpu-too-new"


@pytest.mark.parametrize(
    "text",
    [
        "nohup 启动训练进程之后直接kill主进程显卡不会释放显存",
        "nvidia-smi只能看到显存占用，底下看不到这张卡里有进程",
        "After I kill the training script, the GPU memory is not released.",
        "VRAM is never freed when I stop the notebook with ctrl+c",
        "nvidia-smi shows 11 GB of memory used but no processes",
    ],
)
def test_memory_left_behind_by_a_killed_program_is_memory_held(text: str) -> None:
    assert first(text) == "memory-held"


@pytest.mark.parametrize(
    "text",
    [
        "显存释放了，kill 之后一切正常",
        "After I kill the training script, the GPU memory is released at once.",
        "|  No running processes found                                                 |",
    ],
)
def test_memory_freed_or_a_plain_table_is_not_memory_held(text: str) -> None:
    assert "memory-held" not in ids(text)
