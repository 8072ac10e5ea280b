"""Rules for round 16's texts (r21p: its 6 training misses and its 5 released held-out misses), as the
general messages they are.

PyTorch's CPU wheel says so in its version ("torch-2.1.0+cpu"), a CPU build where the text shows a GPU
was asked for; a reply that says to install the GPU build of torch explains an empty GPU list; cuDNN's
zlibwapi.dll said missing in words, and the Lua torch bindings' "libcudnn (R4) not found", are cuDNN
not loadable; GNU ld's undefined reference from a CUDA library to its partner's versioned symbol is
two CUDA releases mixed; CUDA's "no device" where the text says the NVIDIA driver is switched off is
no device reachable; and an Ampere GPU under a PyTorch built for CUDA 9-10 (torch 1.6 or older,
"+cu101", torch's own "CUDA版本: 9.2") is a GPU newer than the build, with or without cuDNN's
CUDNN_STATUS_EXECUTION_FAILED, which alone (or beside an older GPU, or a CUDA 11 build) is not.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, ids

# --------------------------------------------------------------------------- PyTorch's "+cpu" wheel

BANNER = "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu"
INVALID = (
    "An Error occurred: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if "
    "available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU."
)
SELECT = (
    '  File "E:\\ruanjian\\RookieAI_yolov8-main\\venv\\lib\\site-packages\\ultralytics\\engine\\predictor.py", '
    "line 305, in setup_model\n    device=select_device(self.args.device, verbose=verbose),"
)


@pytest.mark.parametrize(
    "text",
    [
        BANNER + "\n" + INVALID + "\n\ntorch.cuda.is_available(): False\ntorch.cuda.device_count(): 0",
        "Ultralytics YOLOv8.2.54 🚀 Python-3.9.13 torch-2.2.0+cpu \nException in thread Thread-1:\n" + SELECT,
        "@Laughing-q  No. it is returning False \nCUDA Version: 11.6\nPython 3.8.15\npytorch 1.13.1+cpu",
        "-- device=0 is not working to train on GPU\nPyTorch version: 2.0.1+cpu",
        "Successfully installed torch-2.2.0+cpu\n$ nvidia-smi\nNVIDIA-SMI 535.54   Driver Version: 535.54",
    ],
)
def test_a_torch_cpu_wheel_where_a_gpu_was_asked_for_is_the_cpu_build(text: str) -> None:
    assert first(text) == "cpu-only-wheel"


def test_the_cpu_wheel_is_the_cause_before_the_empty_gpu_list() -> None:
    text = BANNER + "\n" + INVALID + "\ntorch.cuda.is_available(): False"
    assert ids(text)[:2] == ["cpu-only-wheel", "gpu-list-empty"]


@pytest.mark.parametrize(
    "text",
    [
        # A CPU host's banner: the CPU build on a machine that asked for nothing else.
        BANNER + " CPU (Intel Core(TM) i7-9750H 2.60GHz)",
        # The CUDA wheel: the request failed for another reason, not the build.
        "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cu121\n" + INVALID,
        # "+cpu" of something that is not torch.
        "onnxruntime 1.16.0+cpu\n" + INVALID,
    ],
)
def test_a_cpu_banner_alone_or_a_cuda_wheel_is_not_the_cpu_build(text: str) -> None:
    assert "cpu-only-wheel" not in ids(text)


# --------------------------------------------------------------------------- deserialize on a CPU build

DESERIALIZE = (
    "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to "
    "map your storages to the CPU."
)


@pytest.mark.parametrize(
    "reply",
    [
        "要安装GPU版本的torch吧",
        "重装CUDA版本的pytorch就好了",
        "Reinstalling the GPU version of PyTorch fixed it.",
    ],
)
def test_no_cuda_in_torch_where_the_fix_is_the_gpu_build_of_torch_is_the_cpu_build(reply: str) -> None:
    assert first(DESERIALIZE + "\n\n" + reply) == "cpu-only-wheel"


@pytest.mark.parametrize(
    "reply", ["", "要安装GPU版本的torch吗？", "Did you install the GPU version of torch?"]
)
def test_no_cuda_in_torch_alone_or_asked_stays_the_empty_gpu_list(reply: str) -> None:
    assert first(DESERIALIZE + "\n" + reply) == "gpu-list-empty"


# --------------------------------------------------------------------------- cuDNN not loadable


@pytest.mark.parametrize(
    "said",
    [
        "提示zlibwapi.dll找不到，这个是干嘛用的？",
        "zlibwapi.dll 缺失导致的报错.找到对应zlip资源问题修正",
        "The error says zlibwapi.dll is missing",
        "Windows could not find zlibwapi.dll",
    ],
)
def test_zlibwapi_said_missing_in_words_is_cudnn_not_loadable(said: str) -> None:
    assert first(said) == "missing-cudnn"


def test_zlibwapi_named_without_being_missing_is_nothing() -> None:
    assert first("I copied zlibwapi.dll into C:\\Windows\\System32 as the guide says") == "nothing"


LUA_CUDNN = (
    "/root/torch/install/bin/luajit: /root/torch/install/share/lua/5.1/cudnn/ffi.lua:1278: 'libcudnn (R4) not "
    "found in library path.\nPlease install CuDNN from https://developer.nvidia.com/cuDNN\n"
    "Then make sure files named as libcudnn.so.4 or libcudnn.4.dylib are placed in your library load path "
    "(for example /usr/local/lib , or manually add a path to LD_LIBRARY_PATH)"
)


@pytest.mark.parametrize("text", [LUA_CUDNN, LUA_CUDNN.replace("(R4)", "(R5)").replace(".so.4", ".so.5")])
def test_the_lua_cudnn_bindings_library_not_found_is_cudnn_missing(text: str) -> None:
    assert first(text) == "missing-cudnn"
    assert first(text.splitlines()[0]) == "missing-cudnn"


# --------------------------------------------------------------------------- ld: a CUDA library's partner

LD_MIX = [
    "/usr/bin/ld: /usr/local/cuda-11.7/lib64/libcublas.so: undefined reference to "
    "`cublasLtGetStatusString@libcublasLt.so.11'",
    "/usr/bin/ld: /usr/local/cuda-11.7/lib64/libcublas.so: undefined reference to "
    "`cublasLtGetStatusName@libcublasLt.so.11'",
    "/usr/bin/ld: /usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8: undefined reference to "
    "`cublasLtMatmul@libcublasLt.so.11'",
]


@pytest.mark.parametrize("line", LD_MIX)
def test_ld_undefined_reference_from_a_cuda_library_to_its_partner_is_cuda_libs_mixed(line: str) -> None:
    assert first(line + "\ncollect2: error: ld returned 1 exit status") == "cuda-libs-mixed"


@pytest.mark.parametrize(
    "line",
    [
        "/usr/bin/ld: main.o: undefined reference to `cublasCreate_v2'",
        "main.cpp:(.text+0x1a): undefined reference to `cudnnCreate'",
        "/usr/bin/ld: obj/convolutional_kernels.o: undefined reference to `cudnnGetConvolutionForwardAlgorithm'",
    ],
)
def test_ld_undefined_reference_from_ones_own_objects_is_not_a_mix(line: str) -> None:
    assert "cuda-libs-mixed" not in ids(line)


# --------------------------------------------------------------------------- no device: the driver off

NO_DEVICE = [
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorNoDevic",
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected",
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no "
    "CUDA-capable device is detected",
]
SWITCHED_OFF = [
    "I have a laptop with two GPUs, one integrated and one dedicated. However, I've disabled NVIDIA drivers in my "
    "sessions to save power, in archlinux.",
    "$ sudo prime-select intel",
    "optimus-manager --switch integrated",
    "The NVIDIA driver is unloaded while on battery.",
    "为了省电我禁用了独显",
]


@pytest.mark.parametrize("said", SWITCHED_OFF)
@pytest.mark.parametrize("line", NO_DEVICE)
def test_no_device_where_the_text_switched_the_nvidia_driver_off_is_no_device(said: str, line: str) -> None:
    assert first(said + "\n" + line) == "no-device"


@pytest.mark.parametrize("line", NO_DEVICE)
def test_no_device_alone_or_with_the_driver_on_stays_cuinit_failed(line: str) -> None:
    assert first(line) == "cuinit-failed"
    assert first("I enabled the NVIDIA driver again\n" + line) == "cuinit-failed"
    assert first("Should I disable the NVIDIA driver?\n" + line) == "cuinit-failed"


# --------------------------------------------------------------------------- an Ampere GPU, a CUDA 10 torch

EXECUTION_FAILED = 'return torch.batch_norm(\nRuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"'


@pytest.mark.parametrize(
    "setup",
    [
        "I followed the author to set the torch=1.6 with cuda=10.1\nthe gpu i use is 3090",
        "我和作者一样将torch设置成1.6以及cuda10.1，显卡是3090",
        "torch 1.6.0+cu101 on an NVIDIA GeForce RTX 3090",
        "pytorch=1.4.0, GTX 3090",
        "CUDA used to build PyTorch: 10.2\nGPU models and configuration: GPU 0: NVIDIA A100-SXM4-40GB",
    ],
)
def test_cudnn_execution_failed_on_an_ampere_gpu_under_a_cuda10_torch_is_gpu_too_new(setup: str) -> None:
    assert first(setup + "\n" + EXECUTION_FAILED) == "gpu-too-new"
    assert first(EXECUTION_FAILED + "\n" + setup) == "gpu-too-new"


@pytest.mark.parametrize(
    "setup",
    [
        "",  # the error alone
        "torch=1.6 with cuda=10.1 on a GTX 1080",  # an old build, an old GPU
        "torch=1.10 with cuda=11.3, the gpu is 3090",  # an Ampere GPU, a CUDA 11 build
        "torch 1.10.0+cu113 on an RTX 3090",
        "torch>=1.6 in requirements.txt, RTX 3090",  # a floor, not the build installed
    ],
)
def test_cudnn_execution_failed_without_an_old_cuda_beside_an_ampere_gpu_is_not_gpu_too_new(
    setup: str,
) -> None:
    assert first(setup + "\n" + EXECUTION_FAILED) != "gpu-too-new"


REPORT = (
    "torch.cuda.is_available()： True\nGPU数量： 4\ntorch方法查看CUDA版本： 9.2.148\n查看torch版本： 0.4.1\n"
    "GPU索引号： 0\nGPU名称： NVIDIA GeForce RTX 3090\ncudnn是否可用 True\n查看cudnn版本 7104"
)


def test_an_ampere_gpu_reported_beside_a_cuda9_torch_is_gpu_too_new() -> None:
    assert first(REPORT) == "gpu-too-new"
    said = "cuDNN:8.5.0\ncuda：11.7\npytorch=1.4.0\npython=3.6.6\nThis is because I'm using GTX 3090"
    assert first(said) == "gpu-too-new"


@pytest.mark.parametrize(
    "report",
    [
        REPORT.replace("RTX 3090", "RTX 2080 Ti"),  # a Turing GPU: CUDA 9.2 has its code
        REPORT.replace("9.2.148", "11.3").replace("0.4.1", "1.10.0"),  # a CUDA 11 torch
        "pytorch=1.4.0 was too old, now pytorch=1.13.1 on GTX 3090",  # the old one replaced
    ],
)
def test_a_report_of_a_build_that_runs_on_its_gpu_is_nothing(report: str) -> None:
    assert "gpu-too-new" not in ids(report)


def test_an_error_line_beside_the_old_build_comes_first() -> None:
    oom = (
        "torch 1.6.0+cu102 on RTX 3090\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; "
        "23.70 GiB total capacity; 1.2 GiB already allocated)"
    )
    assert ids(oom)[:2] == ["tensor-oom", "gpu-too-new"]


# --------------------------------------------------------------------------- Paddle's arch check, wrapped

PADDLE_WRAPPED = (
    "W1015 15:39:09.441613 65444 gpu_resources.cc:96] The GPU architecture in\n"
    "your current machine is Pascal, which is not compatible with Paddle\n"
    "installation with arch: 70 75 80 86 , it is recommended to install the"
)


def test_paddles_arch_check_wrapped_after_its_first_words_is_still_read() -> None:
    assert first(PADDLE_WRAPPED) == "unsupported-cc"
    newer = PADDLE_WRAPPED.replace("Pascal", "Ampere").replace("70 75 80 86", "60 61 70 75")
    assert first(newer) == "gpu-too-new"
