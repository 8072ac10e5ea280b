"""Round 11's training texts and released held-out misses (issue 21, r21l): the program messages
behind them, as variants (other versions, numbers, GPUs, paths, locales), and what must not match.

Lines marked "from source" are the programs' own strings (MXNet's pooled_storage_manager.h, ONNX
Runtime's provider_bridge_ort.cc, onnxruntime_pybind_state.cc and cuda_provider_factory.cc, Paddle's
gpu_info.cc, ollama's gpu.go, PyTorch's collect_env, kmod's modprobe, the CUDA runtime).
"""

from __future__ import annotations

from tests.doctor_answers import first, harmless_only, ids
from wizard.doctor.diagnose import match_output, recognised_in_output

# ---- the CUDA runtime's error 35 inside a GPU image started without GPU access -------------------

ERR35 = (
    "F1103 09:12:44.100200   211 hl_cuda_device.cc:454] Check failed: cudaSuccess == cudaStat (0 vs. 35) "
    "Cuda Error: CUDA driver version is insufficient for CUDA runtime version"
)


def test_error_35_in_a_gpu_image_run_with_plain_docker_is_the_container() -> None:
    text = "$ docker run --rm -it paddlepaddle/paddle:1.8.5-gpu-cuda10.0-cudnn7 python train.py\n" + ERR35
    assert first(text) == "container-no-gpu"
    cuda = "docker run -it nvidia/cuda:11.8.0-runtime-ubuntu22.04 python3 -c 'import torch'\ncudaErrorInsufficientDriver"
    assert first(cuda) == "container-no-gpu"


def test_error_35_where_the_text_says_the_image_needs_nvidia_docker_is_the_container() -> None:
    assert (
        first(ERR35 + "\n\nmaintainer · comment\n这是GPU镜像，需要用 nvidia-docker 运行")
        == "container-no-gpu"
    )
    assert first(ERR35 + "\nThe GPU image must be run with nvidia-docker.") == "container-no-gpu"


def test_error_35_with_gpu_access_or_no_container_stays_driver_too_old() -> None:
    assert first(ERR35) == "driver-too-old"
    gpus = "$ docker run --gpus all -it paddlepaddle/paddle:2.4.2-gpu-cuda11.7-cudnn8.4-trt8.4 bash\n" + ERR35
    assert first(gpus) == "driver-too-old"
    nv = "$ nvidia-docker run -it paddlepaddle/paddle:1.8.5-gpu-cuda10.0-cudnn7 bash\n" + ERR35
    assert first(nv) == "driver-too-old"
    # Not a GPU image and no GPU given: not the image's missing toolkit (above), but 35 there is as much
    # the container's missing libcuda as an old driver, and no driver version is shown (round 46's rule).
    cpu_image = "$ docker run -it ubuntu:20.04 bash\n" + ERR35
    assert first(cpu_image) == "not-sure"


# ---- modprobe's "Function not implemented": WSL only where the text is about WSL -----------------

MODPROBE = (
    "modprobe: ERROR: ../libkmod/libkmod-module.c:832 kmod_module_insert_module() could not find module by name='nvidia_390_uvm'\n"
    "modprobe: ERROR: could not insert 'nvidia_390_uvm': Function not implemented"
)


def test_a_module_modprobe_cannot_find_on_a_plain_linux_is_a_missing_module() -> None:
    assert first(MODPROBE + "\ncudaGetDeviceCount returned 30\n-> unknown error") == "kernel-module-missing"
    assert "linux-driver-in-wsl" not in ids(MODPROBE)


def test_function_not_implemented_inside_wsl_is_the_linux_driver_in_wsl() -> None:
    assert first("Ubuntu 18.04 under WSL on Windows 10\n" + MODPROBE.splitlines()[1]) == "linux-driver-in-wsl"
    kernel = "uname -r: 4.4.0-19041-Microsoft\nmodprobe: ERROR: could not insert 'nvidia': Function not implemented"
    assert first(kernel) == "linux-driver-in-wsl"


# ---- Paddle's allocator: 0 B free and nothing of its own allocated ------------------------------


def test_paddle_with_nothing_allocated_and_0_b_free_is_memory_held() -> None:
    line = "Out of memory error on GPU 1. Cannot allocate 1.000000kB memory on GPU 1, available memory is only 0.000000B."
    assert first("ResourceExhaustedError:\n\n" + line) == "memory-held"
    assert (
        first("Cannot allocate 256.000000MB memory on GPU 0, available memory is only 0B.") == "memory-held"
    )


def test_paddle_with_its_own_memory_allocated_or_some_free_stays_tensor_oom() -> None:
    own = (
        "Out of memory error on GPU 0. Cannot allocate 310.000000MB memory on GPU 0, 10.750000GB memory has been "
        "allocated and available memory is only 0.000000B."
    )
    assert first("ResourceExhaustedError:\n\n" + own) == "tensor-oom"
    some = "Out of memory error on GPU 0. Cannot allocate 98.500000MB memory on GPU 0, available memory is only 40.250000MB."
    assert first("ResourceExhaustedError:\n\n" + some) == "tensor-oom"


# ---- MXNet's pooled storage manager --------------------------------------------------------------


def test_mxnet_cudamalloc_out_of_memory_is_tensor_oom() -> None:
    # from source: "cudaMalloc failed: " / "cudaMalloc retry failed: " + cudaGetErrorString(e)
    v1 = "[08:02:11] src/storage/./pooled_storage_manager.h:143: cudaMalloc failed: out of memory"
    assert first("mxnet.base.MXNetError: " + v1) == "tensor-oom"
    v2 = "mxnet.base.MXNetError: [10:40:51] ../src/storage/./pooled_storage_manager.h:161: cudaMalloc retry failed: out of memory"
    assert first(v2) == "tensor-oom"
    assert first("训练时报错 MXNetError: cudaMalloc retry failed: out of memory，显存 4G") == "tensor-oom"


def test_other_cudamalloc_failures_are_not_out_of_memory() -> None:
    assert "tensor-oom" not in ids("cudaMalloc failed: invalid device ordinal")


# ---- ONNX Runtime's CUDA provider DLL not loading ------------------------------------------------

ORT126 = (
    "2025-02-11 10:01:12.3456789 [E:onnxruntime:Default, provider_bridge_ort.cc:1862 onnxruntime::TryGetProviderInfo_CUDA] "
    "D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1539 onnxruntime::ProviderLibrary::Get "
    '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load '
    '"E:\\apps\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"'
)


def test_ort_error_126_loading_its_cuda_provider_is_a_missing_cuda_library() -> None:
    assert first(ORT126) == "missing-cudart"
    assert first(ORT126 + "\nonnxruntime-gpu 1.17.1, CUDA 11.8 installed") == "missing-cudart"


def test_ort_error_126_where_the_text_names_a_cudnn_dll_is_missing_cudnn() -> None:
    assert first(ORT126 + "\nIt needs cudnn64_8.dll and I can't find it anywhere") == "missing-cudnn"
    dep = '"onnxruntime_providers_cuda.dll" which depends on "cudnn64_9.dll" which is missing. (Error 126)'
    assert first(dep) == "missing-cudnn"


def test_ort_naming_a_missing_cuda_dll_is_missing_cudart() -> None:
    # from source (1.18+): 'Error loading "%s" which depends on "%s" which is missing.'
    dep = '..\\capi\\onnxruntime_providers_cuda.dll" which depends on "cufft64_11.dll" which is missing.'
    assert first(dep) == "missing-cudart"
    both = dep + "\ncudnn64_9.dll is present in the same folder"
    assert first(both) == "missing-cudart"


def test_ort_cuda_path_set_but_cuda_not_loaded_is_a_missing_cuda_library() -> None:
    line = (
        "EP Error C:\\a\\_work\\1\\s\\onnxruntime\\python\\onnxruntime_pybind_state.cc:857 "
        "onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt able to be loaded. "
        "Please install the correct version of CUDA and cuDNN as mentioned in the GPU requirements page"
    )
    assert first(line) == "missing-cudart"


def test_ort_error_126_of_another_provider_is_not_a_cuda_library() -> None:
    trt = (
        'LoadLibrary failed with error 126 "" when trying to load "C:\\x\\onnxruntime_providers_tensorrt.dll"'
    )
    assert "missing-cudart" not in ids(trt) and "missing-cudnn" not in ids(trt)


# ---- a slow first CUDA start: PTX JIT-compiled once (harmless) ----------------------------------


def test_ort_cuda_took_long_to_start_is_harmless_ptx_jit() -> None:
    # from source: "CUDA took more than 30 seconds to start, please see this issue for how to fix it"
    w = (
        "2024-01-02 08:00:01.1 [W:onnxruntime:Default, cuda_provider_factory.cc:220 "
        "onnxruntime::CUDA_Provider::CreateExecutionProviderFactory] CUDA took more than 30 seconds to start"
    )
    assert harmless_only(w) and first(w) == "ptx-jit-slow-start"


def test_a_slow_first_cuda_call_said_in_words_is_harmless_ptx_jit() -> None:
    for text in (
        "The first call to .cuda() takes more than one minute on my GTX 1080, the next ones are instant",
        "the initial x.cuda() call is very slow (about 2 minutes), after that it is fast",
        "第一次调用 .cuda() 非常慢，要等两分钟",
    ):
        assert harmless_only(text) and first(text) == "ptx-jit-slow-start", text


def test_a_failing_first_cuda_call_is_not_a_slow_start() -> None:
    text = "The first call to .cuda() fails with RuntimeError: CUDA error: no kernel image is available for execution on the device"
    assert first(text) != "ptx-jit-slow-start" and recognised_in_output(match_output(text))


# ---- tf.config calls on gpus[0] with an empty list -----------------------------------------------


def test_any_tf_config_call_on_an_empty_gpu_list_is_gpu_list_empty() -> None:
    for call in (
        "tf.config.experimental.set_virtual_device_configuration(gpus[0],",
        "tf.config.set_logical_device_configuration(physical_gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=2048)])",
        "tf.config.set_visible_devices(gpus[0], 'GPU')",
    ):
        text = f'  File "run.py", line 9, in <module>\n    {call}\nIndexError: list index out of range'
        assert first(text) == "gpu-list-empty", call


def test_a_tf_config_call_without_the_index_error_is_healthy_code() -> None:
    assert ids("tf.config.experimental.set_virtual_device_configuration(gpus[0], [cfg])") == []


# ---- the other round 11 messages -----------------------------------------------------------------


def test_rusts_no_binary_for_gpu_is_the_build_without_code_for_the_gpu() -> None:
    text = "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Cuda(NoBinaryForGpu)', src/main.rs:4:5\nI use a Tesla K40"
    assert first(text) == "unsupported-cc"


def test_ollamas_cuda_init_failure_999_is_cuinit_failed() -> None:
    # from source (gpu.go): "cudart init failure: %d", "nvcuda init failure: %d"
    text = (
        'time=2024-10-01T10:00:00.000Z level=DEBUG source=gpu.go:560 msg="Unable to load cudart" '
        'library=/usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127 error="cudart init failure: 999"'
    )
    assert first(text) == "cuinit-failed"
    assert first("cudaSetDevice err: 999") == "cuinit-failed"
    assert "cuinit-failed" not in ids('error="cudart init failure: 35"')


COLLECT_ENV = """PyTorch version: 2.3.1+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A
Is CUDA available: False
CUDA runtime version: 12.1.105
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060
Nvidia driver version: 537.58"""


def test_collect_env_of_a_build_without_cuda_beside_a_gpu_is_the_cpu_wheel() -> None:
    assert first(COLLECT_ENV) == "cpu-only-wheel"
    assert first(COLLECT_ENV.replace("None", "Could not collect")) == "cpu-only-wheel"


def test_collect_env_without_a_gpu_or_of_a_cuda_build_is_not_the_cpu_wheel() -> None:
    no_gpu = "\n".join(
        line for line in COLLECT_ENV.splitlines() if "GPU models" not in line and "Nvidia driver" not in line
    )
    assert "cpu-only-wheel" not in ids(no_gpu)
    cuda = COLLECT_ENV.replace("CUDA used to build PyTorch: None", "CUDA used to build PyTorch: 12.1")
    assert "cpu-only-wheel" not in ids(cuda)


def test_the_nvidia_module_not_loading_through_shim_said_in_words_is_secure_boot() -> None:
    assert (
        first("Since the upgrade, booting with shimx64.efi does not load the nvidia driver; grubx64 works")
        == "secure-boot-module"
    )
    assert first("当我使用 shimx64 时不会加载 NVIDIA 专有驱动程序") == "secure-boot-module"
    assert ids("Boot0000 ubuntu HD(1,GPT,0x800)/File(\\EFI\\ubuntu\\shimx64.efi)") == []


def test_a_driver_below_a_version_said_in_words_is_driver_too_old() -> None:
    assert first("如果你的显卡驱动低于418.81，确实不能正确跑起来") == "driver-too-old"
    assert first("With a driver older than 450.80 it will not run.") == "driver-too-old"
    # A program's message in the same text decides.
    assert (
        first(
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\nA driver below 450 does not work"
        )
        == "tensor-oom"
    )
