"""The doctor's rules from round 57's training side, each with the text that must keep its reading."""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.text import t

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

WINDOWS_TF = (
    "### TensorFlow version\n\n2.16.2\n\n### OS platform and distribution\n\nWindows 11\n\n"
    "### Current behavior?\n\ni followed the steps to install CUDA and cuDNN but tensorflow won't see my gpu\n"
)


def test_tensorflow_after_2_10_on_native_windows_is_told_as_native_windows() -> None:
    d = first(WINDOWS_TF)
    assert d.title == t("doctor.native-windows.title")
    assert "WSL2" in d.fix
    # The same complaint from WSL is not native Windows.
    wsl = match_output(WINDOWS_TF + "\nI run it in WSL2 with Ubuntu 22.04\n")
    assert not any(d.title == t("doctor.native-windows.title") for d in wsl)


def test_nvccs_gpu_architecture_option_is_nvcc_and_ptxas_gpu_name_stays_ptxas() -> None:
    nvcc = (
        "I'm getting the error, `Value 'sm_61' is not defined for option 'gpu-architecture'` with CUDA 7.5\n"
    )
    assert first(nvcc).title == t("doctor.nvcc-too-old.title")
    ptxas = "ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'\n"
    d = first(ptxas)
    assert d.id == "ptxas-too-old" and d.title != t("doctor.nvcc-too-old.title")


def test_condas_cpu_build_of_jaxlib_is_the_cpu_package() -> None:
    plan = "The following NEW packages will be INSTALLED:\n\n  jaxlib  conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1\n"
    assert first(plan).id == "cpu-only-wheel"
    cuda = "  jaxlib  conda-forge/linux-64::jaxlib-0.4.23-cuda120py311h5a49573_200\n"
    assert not any(d.id == "cpu-only-wheel" for d in match_output(cuda))


def test_a_brand_condition_failing_last_beside_a_cuda_alternative_is_a_driver_too_old() -> None:
    hook = (
        "stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --device=all --compute "
        "--require=cuda>=10.0 brand=tesla,driver>=384,driver<385 --pid=6970 /var/lib/docker/overlay2/x/merged]"
        "\\nnvidia-container-cli: requirement error: unsatisfied condition: brand = tesla\\n\n"
    )
    assert first(hook).id == "driver-too-old"
    # A brand requirement alone (no CUDA alternative) says nothing of the driver's CUDA.
    alone = hook.replace("--require=cuda>=10.0 brand=tesla", "--require=brand=tesla")
    assert not any(d.id == "driver-too-old" for d in match_output(alone))


ORT_INTEL = (
    "I noticed that ONNX reports `CUDAExecutionProvider` as available even when it is not (like on my Intel GPU).\n"
    "2024-03-05 11:40:14.847702004 [E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] "
    "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
    "libcublasLt.so.11: cannot open shared object file: No such file or directory\n"
)


def test_a_cuda_library_missing_on_a_machine_with_only_an_intel_gpu_is_no_nvidia_gpu() -> None:
    d = first(ORT_INTEL)
    assert d.id == "no-nvidia-gpu" and "on my Intel GPU" in d.why
    # An NVIDIA GPU shown beside it: the library is what is missing.
    shown = ORT_INTEL + "|   0  NVIDIA GeForce RTX 3060        Off |   00000000:01:00.0  On |   N/A |\n"
    assert first(shown).id == "missing-cudart"


NO_DEV = (
    'nvidia is not installed in docker container when I run image with "--runtime nvidia"\n'
    "2019-01-13 12:15:38.188659: E tensorflow/stream_executor/cuda/cuda_driver.cc:300] failed call to cuInit: "
    "UNKNOWN ERROR (-1)\n"
    "2019-01-13 12:15:38.188700: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:157] no NVIDIA GPU "
    "device is present: /dev/nvidia0 does not exist\n"
)


def test_no_device_node_inside_a_container_is_a_container_started_without_the_gpu() -> None:
    d = first(NO_DEV)
    assert d.id == "container-no-gpu" and "/dev/nvidia0 does not exist" in d.evidence
    # On a machine of its own (no container named), the same lines are not a container's.
    host = NO_DEV.replace(
        'nvidia is not installed in docker container when I run image with "--runtime nvidia"\n', ""
    )
    assert first(host).id != "container-no-gpu"
