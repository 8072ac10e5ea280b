"""The doctor's rules from round 54's training side, each on a minimal text:

* NVRTC refusing an architecture newer than the toolkit's CUDA (apt's nvidia-cuda-toolkit 10.1 and an
  RTX 3080): the runtime compiler is older than the GPU, from the architectures table.
* nvcc's "Unsupported gpu architecture 'compute_60'" quoted without its "nvcc fatal :" prefix.
* A GitHub Actions job container (/__w/) of a CUDA image (/usr/local/nvidia/lib64 on its
  LD_LIBRARY_PATH) with no libcuda and no nvidia-smi: the container was given no GPU.
* A container's libcuda newer than the host's module: the open verdict (which side, the host says).
* conda's cpu_ build string; TensorFlow 1.x's CPU package beside tensorflow-gpu; the CPU build in words.
* A driver entry point missing from libcuda.so.1 with the driver's version shown elsewhere (/proc).
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

NVRTC = "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"


def test_nvrtc_older_than_the_gpu_is_the_toolkit() -> None:
    apt = "nvidia-cuda-toolkit/focal,now 10.1.243-3 amd64 [installed]\n"
    assert read_facts(apt + NVRTC).nvrtc_cuda == "10.1"
    d = first("Setting compute_8x fails (tested on RTX 3080).\n" + NVRTC + apt)
    assert d.id == "ptxas-too-old" and d.verdict == "nvcc-too-old"
    assert "CUDA 10.1" in d.why and "11.1" in d.why and "Ampere" in d.why
    # dpkg's listing says the same.
    dpkg = "ii  nvidia-cuda-toolkit  10.1.243-3  amd64  NVIDIA CUDA development toolkit\n"
    assert read_facts(dpkg).nvrtc_cuda == "" and read_facts(dpkg + NVRTC).nvrtc_cuda == "10.1"
    # A GPU that CUDA knows is not newer than it: not this verdict.
    old = first("GPU: GTX 1080\n" + NVRTC + apt)
    assert old.verdict != "nvcc-too-old"


def test_nvcc_s_words_quoted_without_their_prefix() -> None:
    text = "RIG: GTX960\nwhen I build from source I get \"Unsupported gpu architecture 'compute_60'\".\n"
    d = first(text)
    assert d.id == "ptxas-too-old" and "compute_60" in d.why and "Pascal" in d.why


def test_a_job_container_of_a_cuda_image_given_no_gpu() -> None:
    text = (
        "    LD_LIBRARY_PATH: /__w/_tool/Python/3.8.10/x64/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64\n"
        "W dso_loader.cc:60] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot "
        "open shared object file: No such file or directory\n"
        "W cuda_driver.cc:326] failed call to cuInit: UNKNOWN ERROR (303)\n"
        "/__w/_temp/7ce10603.sh: 2: nvidia-smi: not found\n"
    )
    assert "container" in read_facts(text).platforms
    ids = [d.id for d in match_output(text)]
    assert ids[0] == "container-no-gpu" and "nvidia-smi-missing" not in ids
    # Outside a container the same words keep nvidia-smi's own reading.
    bare = text.replace("/__w/", "/home/u/").replace("/usr/local/nvidia/lib64", "/usr/lib")
    assert first(bare).id != "container-no-gpu"


def test_a_containers_newer_libcuda_is_the_open_mismatch_verdict() -> None:
    text = (
        "docker run --gpus all tensorflow/tensorflow:2.5.0-gpu python -c 'import tensorflow'\n"
        "I cuda_diagnostics.cc:200] libcuda reported version is: 460.73.1\n"
        "I cuda_diagnostics.cc:204] kernel reported version is: 455.32.0\n"
        "E cuda_diagnostics.cc:313] kernel version 455.32.0 does not match DSO version 460.73.1 -- cannot "
        "find working devices in this configuration\n"
    )
    found = match_output(text)
    d = found[0]
    assert d.id == "driver-library-mismatch" and d.verdict == "driver-mismatch-one-side"
    assert "460.73.1" in d.why and "455.32.0" in d.why and "on the host" in d.why
    assert d.fix.endswith("nvidia-smi")
    # Neither side's fix is given: not a reboot, not a driver update.
    assert not {"driver-too-old", "driver-userspace-older"} & {x.id for x in found}
    # Outside a container the newer library is the reboot's case, as before.
    host = text.replace("docker run --gpus all tensorflow/tensorflow:2.5.0-gpu ", "")
    assert first(host).verdict != "driver-mismatch-one-side"


def test_tensorflow_s_cpu_package_read_from_its_listing() -> None:
    conda = "  tensorflow                       2.7.0-cpu_py39h4655687_0 --> 2.7.0-cuda112py39h01bd6f0_0\n"
    assert first(conda).id == "cpu-only-wheel"
    assert all(d.id != "cpu-only-wheel" for d in match_output("tensorflow  2.7.0  cuda112py39h01bd6f0_0\n"))
    both = "tensorflow           1.14.0\ntensorflow-estimator 1.14.0\ntensorflow-gpu       1.14.0\n"
    assert first(both).id == "cpu-only-wheel"
    # Since 2.1 "tensorflow" has the GPU: both listed is no CPU build.
    later = both.replace("1.14.0", "2.4.0")
    assert all(d.id != "cpu-only-wheel" for d in match_output(later))
    words = "SMD 1.8.0+ has TensorFlow CPU installed instead of GPU\ntf.config.list_physical_devices('GPU')\n"
    assert first(words).id == "cpu-only-wheel"


def test_a_driver_entry_point_missing_with_the_driver_shown_in_proc() -> None:
    text = (
        "F cuda_driver.cc:94] Check failed: s.ok() could not find cuDevicePrimaryCtxSetFlags in libcuda DSO; "
        "dlerror: /usr/lib/libcuda.so.1: undefined symbol: cuDevicePrimaryCtxSetFlags\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  340.101  Thu Dec  1 15:52:31 PST 2016\n"
    )
    d = first(text)
    assert d.id == "driver-too-old" and "cuDevicePrimaryCtxSetFlags" in d.why
    # Two drivers shown decide nothing about which one libcuda.so.1 is.
    two = text + "| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0 |\n"
    assert first(two).id != "driver-too-old" or "340.101" not in first(two).why
