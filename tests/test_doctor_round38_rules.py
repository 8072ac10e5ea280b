"""The doctor's rules from round 38's training side, each on a minimal text:

* Paddle's start-up warning "not compatible with Paddle installation with arch: 70 75 80 86" is the
  build's code list: beside the GPU's compute capability, coverage decides (6.1 below 7.0: too old).
* A cuBLAS (or cudart) DLL said missing in Chinese ("缺少cublasxx.dll", "cublasxx.dll不存在"): a CUDA
  library missing.
* A GeForce number someone calls theirs ("my 5090") is that GPU: beside "no kernel image", a 12.0 GPU
  is newer than the build.
* "CUDA out of memory" pasted in Chinese prose, and "CUDA error: out of memory" alone: not sure, with
  the command that shows who holds the memory (a word boundary does not hold between CJK and ASCII).
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.gpu_names import named_gpus

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def test_paddles_arch_warning_is_the_builds_code_list() -> None:
    text = (
        "parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device\n"
        "W0826 gpu_resources.cc:96] The GPU architecture in your current machine is Pascal, which is not "
        "compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install the "
        "corresponding wheel package\n"
        "W0826 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 6.1, Driver API Version: 12.2\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    served = text.replace("6.1", "8.6").replace("Pascal", "Ampere")
    assert first(served).verdict != "cover-too-old"


def test_a_cuda_dll_said_missing_in_chinese_is_a_missing_cuda_library() -> None:
    for said in ("提示：缺少cublasxx.dll", "终端显示cublasxx.dll不存在", "找不到 cudart64_110.dll"):
        assert first(said).id == "missing-cudart", said
    assert match_output("cublas 已经安装好了") == []


def test_my_5090_is_that_gpu() -> None:
    assert named_gpus("Would love to use my 5090.") == ["RTX 5090"]
    assert named_gpus("my 1050 MiB") == [] and named_gpus("in my 1080p video") == []
    text = "CUDA error: no kernel image is available for execution on the device\nWould love to use my 5090."
    assert first(text).id == "gpu-too-new"


def test_out_of_memory_in_chinese_prose_is_not_sure_with_the_holders_command() -> None:
    for text in ("跑不通，一直报CUDA out of memory怎么办", "RuntimeError: CUDA error: out of memory"):
        found = match_output(text)
        assert found and found[0].id == "not-sure", text
        assert not any(d.harmful for d in found)
        assert "--query-compute-apps" in found[0].fix
