"""Rows written to generalize (issue 21, r21e): each family's message as the program prints it, its
variants, the same words in a Chinese session, and the texts where the row must NOT fire.

Lines marked "from source" are copied from the program that prints them (TensorFlow, XLA, the
NVIDIA Container Toolkit, NumPy, pip); the others are the shapes people write them in.
"""

from __future__ import annotations

import pytest

from wizard.doctor.diagnose import match_output, recognised_in_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


def harmful_ids(text: str) -> list[str]:
    return [d.id for d in match_output(text) if d.harmful]


# ---- cuDNN: "DNN library is not found" explained by the version line beside it ---------------

MISMATCH = (
    "E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN library: 8.0.4 but source was "
    "compiled with: 8.1.0. CuDNN library needs to have matching major version and equal or higher minor version."
)


@pytest.mark.parametrize(
    "op",
    ["UNIMPLEMENTED: DNN library is not found.", "FAILED_PRECONDITION: DNN library initialization failed."],
)
def test_the_dnn_library_line_is_the_version_mismatch_where_tensorflow_says_it(op: str) -> None:
    assert first(f"{op}\n{MISMATCH}") == "cudnn-version-mismatch"  # the cue after the line
    assert first(f"{MISMATCH}\n{op}") == "cudnn-version-mismatch"
    assert first(op) == "dnn-library-not-found"  # alone: the family's own id


# ---- the driver as the cause of a cuDNN start failure, said in words ---------------------------

NOT_INIT = (
    "E tensorflow/stream_executor/cuda/cuda_dnn.cc:385] could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"
    "E tensorflow/stream_executor/cuda/cuda_dnn.cc:393] possibly insufficient driver version: 384.69.0\n"
)


@pytest.mark.parametrize(
    "words",
    [
        "it works after I update driver to 387.34!",
        "Updating the NVIDIA driver to the latest version fixed it.",
        "After upgrading my driver it works fine now.",
        "my driver is too old",
        "更新显卡驱动后就好了",
        "驱动版本太低了",
    ],
)
def test_a_cudnn_start_failure_is_an_old_driver_where_the_text_says_so(words: str) -> None:
    assert first(NOT_INIT + words) == "driver-too-old"


@pytest.mark.parametrize(
    "words",
    [
        "",
        "I set allow_growth and it works now.",  # the common cause: memory, not the driver
        "I updated the driver but it still fails.",
        "It worked after I downgraded the driver to 470.",
    ],
)
def test_a_cudnn_start_failure_without_that_stays_the_symptom(words: str) -> None:
    assert first(NOT_INIT + words) == "gpu-lib-init-failed"


# ---- memory another process holds -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "出现了CUDA内存不足的问题\n我运行nvidia-smi，发现有个VeCarRecoServer进程，把所有内存基本全吃了",
        "RuntimeError: CUDA error: out of memory\nnvidia-smi shows another python process holding 10 GB of memory",
        "显存不足\n显存被其他进程占用了",
        "Resource exhausted: OOM when allocating tensor with shape[64,3,224,224]\n"
        "The GPU memory was used by another notebook that was still running.",
        "E cuda_driver.cc:828] failed to allocate 3.8G from device: CUDA_ERROR_OUT_OF_MEMORY\n"
        "Turned out a zombie process was occupying all the GPU memory.",
    ],
)
def test_out_of_memory_where_another_process_holds_the_memory_is_memory_held(text: str) -> None:
    assert first(text) == "memory-held"


@pytest.mark.parametrize(
    "text",
    [
        # The work's own tensors (the batch), or the memory growing with the program's own use.
        "Resource exhausted: OOM when allocating tensor with shape[64,3,224,224]\nreduce the batch size",
        "enable_eager_execution 持续报出 CUDA_ERROR_OUT_OF_MEMORY\n\n程序运行时显存占用持续增长",
    ],
)
def test_out_of_memory_of_the_work_itself_is_not_memory_held(text: str) -> None:
    assert first(text) == "tensor-oom"


def test_another_process_holding_the_memory_alone_is_the_cause_in_words() -> None:
    assert first("nvidia-smi: another process is using almost all GPU memory") == "memory-held"
    # words only: any error line the text shows comes first
    text = (
        "ImportError: libcudnn.so.8: cannot open shared object file\nanother process is using the GPU memory"
    )
    assert harmful_ids(text)[0] == "missing-cudnn"


# ---- a container that lost (or never had) its GPU ---------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "(container) $ nvidia-smi -L\nFailed to initialize NVML: Unknown Error\n(host) # nvidia-smi -L\nGPU 0: NVIDIA A10",
        "root@098b49afe624:/# nvidia-smi\nFailed to initialize NVML: Unknown Error",
        "This works until you do `systemctl daemon-reload`.\nFailed to initialize NVML: Unknown Error",
        "sudo docker run -v /usr/bin:/usr/local/nvidia/bin -p 8888:8888 my_image\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        "Inside the running container:\nFailed to initialize NVML: Driver Not Loaded",
        "在容器里执行 nvidia-smi\nFailed to initialize NVML: Unknown Error",
    ],
)
def test_nvml_failing_inside_a_container_is_a_container_without_gpu_access(text: str) -> None:
    assert first(text) == "container-no-gpu"


@pytest.mark.parametrize(
    "text, want",
    [
        ("$ nvidia-smi\nFailed to initialize NVML: Unknown Error", "no-device"),
        # A kernel upgrade on the host: the module, even where the user also runs containers.
        (
            "After the kernel upgrade nvidia-smi fails inside the container and on the host:\n"
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
            "kernel-module-missing",
        ),
        # --gpus given: no container cue from the command line alone.
        (
            "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
            "$ docker run --rm --gpus all nvidia/cuda:12.4.1-base nvidia-smi",
            "no-device",
        ),
    ],
)
def test_nvml_failing_on_a_host_is_not_a_container(text: str, want: str) -> None:
    assert first(text) == want


# ---- words: nvidia-smi off PATH, Secure Boot, a slow first start -------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "`nvidia-smi` may not be available via `PATH`.",
        "In WSL nvidia-smi is not on the PATH, it is in /usr/lib/wsl/lib",
        "找不到 nvidia-smi",
    ],
)
def test_nvidia_smi_off_path_said_in_words_is_nvidia_smi_missing(text: str) -> None:
    assert first(text) == "nvidia-smi-missing"


@pytest.mark.parametrize(
    "text",
    [
        "I installed with Secure Boot disabled, and later I enabled the Secure Boot. "
        "In such a case, the driver is no longer loaded during boot.",
        "After disabling Secure Boot it works.",
        "关闭安全启动后就好了",
    ],
)
def test_secure_boot_said_in_words_is_the_module_it_refused(text: str) -> None:
    assert first(text) == "secure-boot-module"


def test_secure_boot_words_come_after_an_error_line() -> None:
    text = "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.5.0-14-generic\nI disabled secure boot and it is fixed"
    assert first(text) == "kernel-module-missing"


@pytest.mark.parametrize(
    "text",
    [
        "Its likely jit compiling the binary PTX up to your device's compute capacity.",
        'It freezes at the point "I gpu_device.cc:1484] Adding visible gpu devices: 0, 1, 2, 3"',
        "第一次运行要等好几分钟，是在做 PTX JIT 编译",
    ],
)
def test_a_slow_first_start_said_in_words_is_the_harmless_ptx_jit(text: str) -> None:
    found = match_output(text)
    assert found and found[0].id == "ptx-jit-slow-start" and not recognised_in_output(found)


# ---- pip: tensorflow-gpu not found on a 32-bit Python ------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        "My problem turned out to be that my python3 installed was 32bit version.",
        "Python 3.6.3 (v3.6.3:2c5fed8, Oct  3 2017, 17:26:49) [MSC v.1900 32 bit (Intel)] on win32",
        "我装的 python 是 32位 的",
    ],
)
def test_tensorflow_gpu_not_found_on_a_32_bit_python_is_the_python(words: str) -> None:
    text = (
        f"pip3 install --upgrade tensorflow-gpu: No matching distribution found for tensorflow-gpu\n{words}"
    )
    assert first(text) == "python-unsupported"


def test_tensorflow_gpu_not_found_on_a_64_bit_python_stays_removed() -> None:
    text = (
        "ERROR: No matching distribution found for tensorflow-gpu\n"
        "Python 3.11.4 (tags/v3.11.4:d2340ef, Jun  7 2023, 05:45:37) [MSC v.1934 64 bit (AMD64)] on win32"
    )
    assert first(text) == "tensorflow-gpu-removed"


# ---- symbols: a CUDA driver-API symbol the loaded libcuda lacks --------------------------------


@pytest.mark.parametrize("symbol", ["nvrtcGetCUBIN"])
def test_an_undefined_cuda_symbol_is_mixed_cuda_libraries(symbol: str) -> None:
    line = f"ImportError: /usr/lib/python3/dist-packages/tensorflow/python/libtensorflow_framework.so: undefined symbol: {symbol}"
    assert first(line) == "cuda-libs-mixed"


@pytest.mark.parametrize(
    "symbol", ["cuDevicePrimaryCtxGetState", "cuCtxGetDevice", "cuGetProcAddress_v2", "cuLaunchKernelEx"]
)
def test_an_undefined_driver_entry_point_is_not_sure_never_mixed_cuda(symbol: str) -> None:
    # i35f: a driver API entry point (cuX) comes only from libcuda: an old driver's or a stub's libcuda
    # was loaded, which the line does not show (tests/test_doctor_round24_rules.py says why).
    line = f"ImportError: /usr/lib/python3/dist-packages/tensorflow/python/libtensorflow_framework.so: undefined symbol: {symbol}"
    assert first(line) == "not-sure"


def test_an_undefined_symbol_of_another_library_is_not_cuda() -> None:
    assert first("ImportError: /x/_pywrap.so: undefined symbol: curl_easy_init") == "nothing"
    assert first("ImportError: /x/_C.so: undefined symbol: cutlassGemm") == "nothing"


# ---- message variants copied from program source (not yet in the corpus) ----------------------


@pytest.mark.parametrize(
    "text, want",
    [
        # XLA (asm_compiler.cc / subprocess_compilation.cc): ptxas failed with "Value 'sm_XY' is not
        # defined for option 'gpu-name'", so XLA returns this and compiles with the driver (from source).
        (
            "XlaRuntimeError: UNIMPLEMENTED: /usr/local/cuda/bin/ptxas ptxas too old. Falling back to the driver to compile.",
            "ptxas-too-old",
        ),
        (
            "W external/xla/xla/stream_executor/gpu/redzone_allocator.cc:322] UNIMPLEMENTED: ptxas ptxas too old. "
            "Falling back to the driver to compile.\nRelying on driver to perform ptx compilation.",
            "ptxas-too-old",
        ),
        # dkms_autoinstaller / dkms (from source): no module built for the new kernel.
        (
            "dkms: autoinstall for kernel 6.8.0-49-generic was skipped since the kernel headers for this kernel do not seem to be installed.",
            "kernel-module-missing",
        ),
        (
            "Module build for kernel 6.8.0-49-generic was skipped since the\nkernel headers for this kernel do not seem to be installed.",
            "kernel-module-missing",
        ),
        (
            "Automatic installation of modules for kernel 5.15.0-91-generic was skipped since the kernel headers for this kernel do not seem to be installed.",
            "kernel-module-missing",
        ),
        # ... and for WSL's own kernel: a Linux driver installed inside WSL.
        (
            "Module build for kernel 5.15.153.1-microsoft-standard-WSL2 was skipped since the kernel headers for this kernel do not seem to be installed.",
            "linux-driver-in-wsl",
        ),
        # NVIDIA's .run installer (from its messages): it cannot build the module for this kernel.
        (
            "ERROR: Unable to find the kernel source tree for the currently running kernel.  Please make sure you "
            "have installed the kernel source files for your kernel",
            "kernel-module-missing",
        ),
        # pip 19.3 moved main; a pip script of another version calling it (from pip's history).
        ("AttributeError: module 'pip._internal' has no attribute 'main'", "pip-half-upgraded"),
    ],
)
def test_a_message_variant_from_program_source_is_recognised(text: str, want: str) -> None:
    assert first(text) == want


BFLOAT16 = (
    '  File "/usr/lib/python3/site-packages/tensorflow/python/framework/dtypes.py", line 37, in <module>\n'
    "    _np_bfloat16 = _pywrap_bfloat16.TF_bfloat16_type()\n"
    "TypeError: Unable to convert function return value to a Python type! The signature was\n\t() -> handle"
)


def test_pybind11s_cast_error_at_tensorflows_import_is_numpy_2() -> None:
    assert first(BFLOAT16) == "numpy-abi"  # TensorFlow's bfloat16 type, built for NumPy 1.x
    assert (
        first("TypeError: Unable to convert function return value to a Python type!\nnumpy==2.0.1")
        == "numpy-abi"
    )
    # pybind11's words alone are about any C++ type: no cause named
    assert (
        first("TypeError: Unable to convert function return value to a Python type! The signature was")
        == "nothing"
    )


# CPython's dynload_win.c: "DLL load failed while importing %s: %s" (3.8+; before: "DLL load failed: %s"),
# the second part Windows' own message in the user's language.
DLL_EN = "ImportError: DLL load failed: The specified module could not be found."
DLL_ZH = "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: 找不到指定的模块。"


@pytest.mark.parametrize("dll", [DLL_EN, DLL_ZH])
@pytest.mark.parametrize(
    "build",
    [
        "pip install tensorflow-gpu==1.14.0",
        "tensorflow-gpu 1.13.1, CUDA 10.0, cuDNN 7.4",
        "tensorflow_gpu-2.0.0",
    ],
)
def test_dll_load_failed_under_a_tensorflow_gpu_that_links_cuda_is_the_cuda_runtime(
    dll: str, build: str
) -> None:
    assert first(f"{build}\n{dll}\nFailed to load the native TensorFlow runtime.") == "missing-cudart"


@pytest.mark.parametrize(
    "context",
    [
        "pip install tensorflow==2.10.0",  # not a GPU build that links CUDA: the C++ runtime, the CPU ...
        "pip install tensorflow-gpu==2.6.0",  # 2.1+ loads CUDA itself (its own dlerror lines say which)
        "tensorflow-gpu 1.14, CUDA 10.0\nI found cudnn64_7.dll is missing",  # the cuDNN DLL, its own row
        "tensorflow-gpu 1.14, CUDA 10.0\nInstalling the Visual C++ redistributable (msvcp140.dll) fixed it",
    ],
)
def test_dll_load_failed_elsewhere_names_no_cuda_runtime(context: str) -> None:
    assert "missing-cudart" not in harmful_ids(f"{context}\n{DLL_ZH}")


# ---- causes said in words: fallbacks, after any error line --------------------------------------


@pytest.mark.parametrize(
    "text, want",
    [
        ("After the kernel update nvidia-smi stopped working.", "kernel-module-missing"),
        ("更新内核后驱动没了", "kernel-module-missing"),
        ("After upgrading pip, pip is broken.", "pip-half-upgraded"),
        ("升级pip之后pip用不了了", "pip-half-upgraded"),
        ("Downgrading numpy to 1.26.4 fixed it.", "numpy-abi"),
        ("把 numpy 降级到 1.26 就好了", "numpy-abi"),
        ("I think it is a cuDNN version mismatch.", "cudnn-version-mismatch"),
        ("cudnn版本不对", "cudnn-version-mismatch"),
        ("驱动版本太低", "driver-too-old"),
        ("The NVIDIA driver is too old for this CUDA.", "driver-too-old"),
        ("训练时显存不足", "tensor-oom"),
        (
            "TensorFlow cannot see the GPU inside the docker container, the host's nvidia-smi works.",
            "container-no-gpu",
        ),
        ("容器里看不到GPU", "container-no-gpu"),
    ],
)
def test_a_cause_said_in_words_is_the_cause_where_nothing_else_is_shown(text: str, want: str) -> None:
    assert first(text) == want


def test_a_cause_in_words_comes_after_the_error_line() -> None:
    text = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\ncudnn版本不对"
    assert harmful_ids(text)[:2] == ["missing-cudart", "cudnn-version-mismatch"]
    oom = "训练时显存不足\n发现显存被其他进程占用了"  # another process: the context row, not the words
    assert first(oom) == "memory-held"


@pytest.mark.parametrize(
    "text, want",
    [
        # TensorFlow's copy to the GPU (copy_tensor: "Dst tensor is not initialized.") when the GPU has
        # no room for the tensor (from source).
        (
            "InternalError: Failed copying input tensor from /job:localhost/replica:0/task:0/device:CPU:0 to "
            "/job:localhost/replica:0/task:0/device:GPU:0 in order to run _EagerConst: Dst tensor is not initialized.",
            "tensor-oom",
        ),
        # uv's resolver (from its messages) and conda's: no TensorFlow for this Python.
        (
            "  ╰─▶ Because the current Python version (3.13.0) does not satisfy Python>=3.9,<3.13 and "
            "tensorflow==2.18.0 depends on Python>=3.9,<3.13, we can conclude that tensorflow==2.18.0 cannot be used.",
            "python-unsupported",
        ),
        (
            "  ╰─▶ Because tensorflow==2.16.1 has no wheels with a matching Python ABI tag (e.g., `cp313`) and you "
            "require tensorflow==2.16.1, we can conclude that your requirements are unsatisfiable.",
            "python-unsupported",
        ),
        (
            "UnsatisfiableError: The following specifications were found\nto be incompatible with the existing "
            "python installation in your environment:",
            "python-unsupported",
        ),
        # TensorFlow's cuda_diagnostics when no NVIDIA kernel driver is loaded (from source).
        (
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:204] kernel reported version is: Permission denied: "
            "could not open driver version path for reading: /proc/driver/nvidia/version",
            "no-device",
        ),
    ],
)
def test_more_message_variants_from_program_source(text: str, want: str) -> None:
    assert first(text) == want


def test_dst_tensor_where_another_process_holds_the_memory_is_memory_held() -> None:
    text = "Dst tensor is not initialized.\nAnother python process was holding most of the GPU memory."
    assert first(text) == "memory-held"


@pytest.mark.parametrize(
    "words",
    [
        "no other process is using the GPU memory",
        "the memory is not used by another process",
        "I checked: there is not any other process holding GPU memory",
    ],
)
def test_memory_another_process_does_not_hold_is_not_memory_held(words: str) -> None:
    assert (
        first(f"Resource exhausted: OOM when allocating tensor with shape[64,3,224,224]\n{words}")
        == "tensor-oom"
    )


def test_words_that_deny_the_cause_name_no_cause() -> None:
    assert first("显存不足\n没有其他进程占用显存") == "tensor-oom"
    assert first("I have not enabled Secure Boot and the driver is not loading") == "nothing"


@pytest.mark.parametrize(
    "text, want",
    [
        # onnxruntime's "CUDA failure %d: %s" and Torch's "cuda runtime error (35)": cudaErrorInsufficientDriver.
        ("onnxruntime::CudaCall CUDA failure 35: CUDA driver version is insuffic", "driver-too-old"),
        (
            "RuntimeError: cuda runtime error (35) : at /pytorch/aten/src/THC/THCGeneral.cpp:51",
            "driver-too-old",
        ),
        # The NVIDIA kernel module's own words (dmesg): a driver that ignores this GPU (its legacy
        # branch serves it: driver-drops-gpu since stop 44), or no GPU at all.
        (
            "NVRM: The NVIDIA GeForce GT 710 GPU installed in this system is\nNVRM:  supported through the NVIDIA "
            "470.xx Legacy drivers. Please\nNVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
            "NVRM:  information.  The 535.154.05 NVIDIA driver will ignore\nNVRM:  this GPU.  Continuing probe...",
            "driver-drops-gpu",
        ),
        ("NVRM: No NVIDIA GPU found.", "no-device"),
        # TensorFlow's placer when it has no GPU device (from source).
        (
            "InvalidArgumentError: Cannot assign a device for operation MatMul: node MatMul was explicitly assigned "
            "to /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ].",
            "gpu-list-empty",
        ),
        (
            "Could not satisfy explicit device specification '/device:GPU:0' because no devices matching that "
            "specification are registered in this process; available devices: /job:localhost/replica:0/task:0/device:CPU:0",
            "gpu-list-empty",
        ),
    ],
)
def test_driver_and_device_messages_from_program_source(text: str, want: str) -> None:
    assert first(text) == want


def test_an_op_without_a_gpu_kernel_is_not_an_empty_gpu_list() -> None:
    text = (
        "Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU "
        "devices is available."
    )
    assert first(text) == "nothing"


# ---- Chinese: English words glued to Chinese ones --------------------------------------------


def test_an_english_word_glued_to_chinese_still_has_its_word_boundary() -> None:
    from wizard.doctor.catalogue import plain

    assert plain("报错ImportError: 我的RTX3060显卡") == "报错 ImportError: 我的 RTX3060 显卡"
    assert plain("plain ascii line") == "plain ascii line"
    # "我的RTX3060" names an Ampere GPU as "my RTX 3060" does (the cue needs a word boundary).
    text = "我的RTX3060跑tensorflow-gpu 1.15报错：\nInternalError: Blas GEMM launch failed : a.shape=(64, 32)\n环境是cuda10.0"
    assert first(text) == "gpu-too-new"
    assert first("我的N卡驱动版本太低") == "driver-too-old"


# ---- speed: a healthy log line holds no rule's anchor ------------------------------------------

# Lines a training run prints at every step (the 100 MiB log test's line, Keras' progress): a rule
# whose anchor one of them holds is tried on every line of a long log.
HEALTHY = [
    "2024-03-09 19:15:45.018171: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2019] Created device "
    "/job:localhost/replica:0/task:0/device:GPU:0 with 22282 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 4090",
    "I0000 00:00:1712345678.123456   4242 gpu_device.cc:2022] Created device /job:localhost/replica:0/task:0/device:GPU:0",
    "1875/1875 [==============================] - 5s 2ms/step - loss: 0.2961 - accuracy: 0.9139 - val_loss: 0.1416",
    "Epoch 3/10",
    "step 1200: loss 0.0413, 512 samples/s on /device:GPU:0",
]


def test_a_healthy_tensorflow_log_line_holds_no_rule_anchor() -> None:
    # Each rule is tried only on lines holding its anchor ("/job:localhost/replica" of a device name
    # as an anchor made a 100 MiB log read every rule on every line).
    from wizard.doctor.catalogue import patterns

    loose = {
        (p.id, rule.anchor)
        for p in patterns()
        for rule in p.rules
        for line in HEALTHY
        if rule.anchor is not None and rule.anchor in line.lower()
    }
    assert loose == set()


@pytest.mark.parametrize(
    "text, want",
    [
        (NOT_INIT + "Is your driver too old?", "gpu-lib-init-failed"),
        (NOT_INIT + "是不是驱动版本太低？", "gpu-lib-init-failed"),
        ("OOM when allocating tensor\nmaybe another process is using the GPU memory?", "tensor-oom"),
        ("OOM when allocating tensor\ncheck if another process is using the GPU memory", "tensor-oom"),
        (
            "$ nvidia-smi\nFailed to initialize NVML: Unknown Error\nAre you running this inside a container?",
            "no-device",
        ),
        (
            "No matching distribution found for tensorflow-gpu\nIs your python 32-bit?",
            "tensorflow-gpu-removed",
        ),
    ],
)
def test_a_cause_asked_about_is_not_a_cue(text: str, want: str) -> None:
    # A commenter's question ("is your driver too old?") is not the fact the cue stands for.
    assert first(text) == want


def test_tensorflows_cudnn_version_line_wrapped_at_60_columns_is_still_the_mismatch() -> None:
    text = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:347] Loaded\n"
        "runtime CuDNN library: 5005 (compatibility version 5000)\n"
        "but source was compiled with 5103 (compatibility version\n"
        "5100).  If using a binary install, upgrade your CuDNN\n"
        "UNIMPLEMENTED: DNN library is not found."
    )
    assert first(text) == "cudnn-version-mismatch"


@pytest.mark.parametrize(
    "text, want",
    [
        # dkms (from its messages): the module's build failed for the new kernel, or is not in its tree.
        (
            "Error!  Build of nvidia.ko failed for: 6.8.0-49-generic (x86_64)\nConsult the make.log",
            "kernel-module-missing",
        ),
        ("Error! Could not locate nvidia.ko for module nvidia in the DKMS tree.", "kernel-module-missing"),
        # TensorFlow 1.x's gpu_device.cc: the GPU below the build's floor, then no usable device.
        (
            "Ignoring gpu device (device: 0, name: GeForce GTX 660M) with Cuda multiprocessor count: 2. "
            "insufficient compute capability: 3.5 required, device is 3.0\n"
            "F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling error "
            "Internal: no supported devices found for platform CUDA",
            "unsupported-cc",
        ),
    ],
)
def test_module_build_and_device_floor_messages_from_program_source(text: str, want: str) -> None:
    assert first(text) == want


def test_no_supported_devices_is_left_to_the_line_that_says_why() -> None:
    # TensorFlow 1.x and JAX print it after the real cause (a GPU below the floor, memory another
    # process holds): no row of its own, so a session's list of findings is not lengthened.
    assert first("Internal: no supported devices found for platform CUDA") == "nothing"


@pytest.mark.parametrize(
    "text, want",
    [
        ("windows下安装了tensorflow 2.12，tf.config.list_physical_devices('GPU')返回[]", "cpu-only-wheel"),
        (
            "On Windows with tensorflow==2.15.0 my GPU is not detected: Num GPUs Available: 0",
            "cpu-only-wheel",
        ),
        ("tensorflow 2.15 on windows subsystem for linux: Num GPUs Available: 0", "gpu-list-empty"),
        ("On Windows, in WSL2 Ubuntu, tensorflow==2.15.0: Num GPUs Available: 0", "gpu-list-empty"),
    ],
)
def test_an_empty_gpu_list_on_native_windows_said_in_words_is_the_cpu_build(text: str, want: str) -> None:
    # No GPU build of TensorFlow after 2.10 on native Windows; in WSL there is one.
    assert first(text) == want


@pytest.mark.parametrize(
    "command, half",
    [
        ("python -m pip install pip --upgrade", True),
        ("pip install -U --user pip", True),
        ("pip install -U pipenv", False),  # another package
        ("pip install --upgrade tensorflow", False),
    ],
)
def test_no_module_named_pip_after_pip_upgrading_itself_in_either_order(command: str, half: bool) -> None:
    text = f"{command}\nModuleNotFoundError: No module named 'pip'"
    assert (first(text) == "pip-half-upgraded") is half


def test_nvidia_docker_run_is_a_container_with_gpu_access() -> None:
    # nvidia-docker gives the container the GPU: its command line is no cue for a container without one.
    text = (
        "[root@localhost ~]# nvidia-docker run --rm nvidia/cuda nvidia-smi\n"
        "nvidia-docker | 2017/01/16 16:55:02 Error: Could not load UVM kernel module\n"
        "[root@localhost ~]# nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    )
    assert "container-no-gpu" not in harmful_ids(text)
    assert "container-no-gpu" not in harmful_ids(
        "$ nvidia-docker run -it nvidia/cuda bash\nbash: nvidia-smi: command not found"
    )


@pytest.mark.parametrize(
    "words, want",
    [
        ("I downgraded python to 3.7 and it worked", "python-unsupported"),
        ("Python 3.9 is not supported", "python-unsupported"),
        ("installing the 64-bit Python fixed it", "python-unsupported"),
        ("把python降级到3.7就可以了", "python-unsupported"),
        ("Is Python 3.9 not supported?", "tensorflow-gpu-removed"),  # asked, not said
        ("I use Python 3.8.", "tensorflow-gpu-removed"),
    ],
)
def test_tensorflow_gpu_not_found_where_the_python_was_the_problem(words: str, want: str) -> None:
    assert first(f"ERROR: No matching distribution found for tensorflow-gpu==1.15\n{words}") == want


@pytest.mark.parametrize(
    "words, want",
    [
        ("my images are too large", "tensor-oom"),
        ("reducing the image size fixed it", "tensor-oom"),
        ("把图片尺寸调小后就好了", "tensor-oom"),
        ("is the model too big?", "memory-held"),  # asked: the allocator line's own reading stands
        ("", "memory-held"),
    ],
)
def test_the_allocators_out_of_memory_where_the_work_is_too_big_is_tensor_oom(words: str, want: str) -> None:
    text = f"E cuda_driver.cc:828] failed to allocate 3.80G (4080218931 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY\n{words}"
    assert first(text) == want


def test_a_container_misspelled_is_still_a_container() -> None:
    assert (
        first("When I run `nvidia-smi` in the containter, I get:\nbash: nvidia-smi: command not found")
        == "container-no-gpu"
    )


def test_every_new_cue_has_an_anchor() -> None:
    # A cue is looked for on every line until it is seen: one without an anchor of two characters
    # or more runs its regex on every line of a long log. These three are older and known.
    from wizard.doctor.catalogue import _cue_list

    loose = {rx.pattern for _, anchor, rx in _cue_list() if anchor is None or len(anchor) < 2}
    known = {
        r"@[0-9a-f]{12}:[~/]",
        r"(pytorch|torch)[^。\n]{0,10}(可以|能够|能)\s*(用|使用|调用|识别|检测到)\s*(GPU|显卡|cuda)",
        r"\b(RTX|GTX|Quadro|Tesla|GeForce)\b",
    }
    assert loose <= known, loose - known
