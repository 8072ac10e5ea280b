"""The doctor's rules from round 50's training side, each on a minimal text:

* The open kernel module refusing a GPU without a GSP (Maxwell, Pascal, Volta): the proprietary
  module of a branch that serves it, decisive over what follows and over an unsigned-module notice.
* FFmpeg's NVENC check ("Driver does not support the required nvenc API version"): the driver.
* PyTorch's "sm_35 is not compatible" with its build's list: too old only where the GPU is below every
  code listed (its check is stricter than the driver's above that).
* Kokkos' start-up architecture check is "no kernel image" in its words.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts
from wizard.text import set_language

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
GSP = (
    "[ 1157.036170] PKCS#7 signature not signed with a trusted key\n"
    "[ 1157.046099] NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5)\n"
    "               NVRM: installed in this system is not supported by open\n"
    "               NVRM: nvidia.ko because it does not include the required GPU\n"
    "               NVRM: System Processor (GSP).\n"
)


def test_the_open_module_refusing_a_gpu_without_gsp() -> None:
    d = first(GSP + "$ nvidia-smi\nNo devices were found\n")
    assert d.id == "driver-drops-gpu" and "proprietary" in d.title
    assert "--kernel-module-type=proprietary" in d.fix
    assert "secure-boot-module" not in {x.id for x in match_output(GSP)[:1]}
    set_language("zh")
    assert "专有" in first(GSP).title
    set_language("en")
    # The legacy branch's own message keeps its own words.
    legacy = (
        "NVRM: The NVIDIA GeForce GTX 1050 GPU installed in this system is\n"
        "NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please\n"
        "NVRM: The 595.71.05 NVIDIA driver will ignore\n"
    )
    assert first(legacy).id == "driver-drops-gpu" and "legacy" in first(legacy).title


def test_ffmpeg_s_nvenc_api_check_is_the_driver() -> None:
    text = (
        "[h264_nvenc @ 0x7ff3e9b83c00] Driver does not support the required nvenc API version. Required: 9.1 Found: 9.0\n"
        "[h264_nvenc @ 0x7ff3e9b83c00] The minimum required Nvidia driver for nvenc is 418.30 or newer\n"
    )
    assert first(text).id == "driver-too-old"


def test_pytorch_s_warning_decides_too_old_only_below_its_list() -> None:
    text = (
        "NVIDIA GeForce GT 710 with CUDA capability sm_35 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75.\n"
    )
    assert read_facts(text).no_kernel_line is not None
    assert first(text).verdict == "cover-too-old"
    # A GPU inside the list's range (sm_70's code runs on 7.5, yet PyTorch warned): not read as no kernel.
    inside = text.replace("GT 710", "RTX 2080").replace("sm_35", "sm_75").replace(" sm_75.", ".")
    assert read_facts(inside).no_kernel_line is None


def test_kokkos_architecture_check_is_no_kernel_image() -> None:
    text = "Kokkos::Cuda::initialize ERROR: likely mismatch of architecture\n"
    assert read_facts(text).no_kernel_line is not None
    assert first(text).id == "unsupported-cc"


def test_onnx_runtime_s_provider_failing_with_no_library_named_is_open() -> None:
    text = "Loadlibrary failed with error 126 when trying to load onnxruntime_providers_cuda.dll\n"
    d = first(text)
    assert (d.id, d.verdict) == ("missing-cudart", "cuda-libs-open")
    assert "ort.get_build_info()" in d.fix and "{command}" not in d.fix
    assert "missing-cudnn" not in {x.id for x in match_output(text)}
    # A library named decides: cuDNN's DLL is missing-cudnn, a CUDA one missing-cudart, both closed.
    cudnn = text + "Could not locate cudnn64_9.dll. Please make sure it is in your library path!\n"
    assert first(cudnn).id == "missing-cudnn"
    cublas = text.replace(
        "onnxruntime_providers_cuda.dll\n",
        "onnxruntime_providers_cuda.dll which depends on cublasLt64_12.dll which is missing.\n",
    )
    assert (first(cublas).id, first(cublas).verdict) == ("missing-cudart", "")


def test_the_gsp_message_quoted_in_part_and_a_mac_chip_said_as_the_machine() -> None:
    # Round 52's training side: the GSP refusal quoted in part beside the open flavour's package.
    quoted = (
        "the default installed driver is nvidia-driver-580-open, which does NOT support Pascal GPUs.\n"
        'dmesg shows:\n"nvidia.ko because it does not include the required GPU"\n'
    )
    assert first(quoted).id == "driver-drops-gpu" and "proprietary" in first(quoted).title
    mac = (
        "Running into the error: `AssertionError: Torch not compiled with CUDA enabled`\n"
        "Would be good if there was a check for cuda (else mps, for those of us on an M1) in the code.\n"
    )
    assert first(mac).id == "macos"
    assert first(mac.replace("on an M1", "on a GPU")).id == "cpu-only-wheel"
