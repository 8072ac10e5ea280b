"""Round 10's training texts and released held-out misses (issue 21, r21k): the program messages
behind them, as variants (other versions, numbers, GPUs, locales), and what must not match.

Lines marked "from source" are the programs' own strings (PaddlePaddle's gpu_resources.cc and its v1
hl_cuda_device.cc, TensorFlow's gpu_device.cc, cuda_gpu_executor.cc and cudart_stub, JAX's
xla_bridge version checks, NVML, PyTorch's CUDACachingAllocator, dkms/make, the CUDA driver API).
"""

from __future__ import annotations

from tests.doctor_answers import first, harmless_only, ids
from wizard.doctor.catalogue import LineMatcher, pattern
from wizard.doctor.diagnose import match_output, recognised_in_output

# ---- a log page that lost its line breaks: each TensorFlow record is matched ---------------------


def _one_line(*records: str) -> str:
    stamps = ("2025-01-09 07:11:02.101010", "2025-01-09 07:11:02.202020", "2025-01-09 07:11:03.303030")
    return " ".join(f"{stamps[i % 3]}: {r}" for i, r in enumerate(records))


ONEDNN = (
    "I tensorflow/core/util/port.cc:153] oneDNN custom operations are on. You may see slightly different "
    "numerical results due to floating-point round-off errors from different computation orders. To turn them "
    "off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`."
)
STUB = "I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on your machine, GPU will not be used."
FACTORY = (
    "E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:477] Unable to register cuFFT factory: "
    "Attempting to register factory for plugin cuFFT when one has already been registered"
)


def test_a_log_glued_onto_one_line_is_read_record_by_record() -> None:
    text = _one_line(ONEDNN, STUB, FACTORY)
    found = match_output(text)
    assert [d.id for d in found] == ["noise-onednn", "noise-cudart-stub-hint", "noise-plugin-factory"]
    assert not recognised_in_output(found)
    assert all(d.line == 1 for d in found)  # the line as pasted, its number


def test_a_real_error_inside_a_glued_log_is_found_and_ranked_first() -> None:
    cudnn = "W tensorflow/tsl/platform/default/dso_loader.cc:66] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file"
    found = match_output(_one_line(ONEDNN, FACTORY, cudnn))
    assert found[0].id == "missing-cudnn" and found[0].harmful
    assert {"noise-onednn", "noise-plugin-factory"} <= {d.id for d in found}


def test_a_quoted_record_is_not_cut_from_its_quote_mark() -> None:
    found = match_output("> " + _one_line(FACTORY))
    assert [d.id for d in found] == ["noise-plugin-factory"]
    assert found[0].evidence.endswith(found[0].evidence[-20:]) and "> " in found[0].evidence


def test_the_line_numbers_after_a_glued_line_stay_the_lines() -> None:
    matcher = LineMatcher()
    matcher.feed_text(
        _one_line(ONEDNN, FACTORY) + "\nthe next line\nfailed call to cuInit: CUDA_ERROR_NO_DEVICE"
    )
    hit = matcher.hits["cuinit-failed"]
    assert hit.number == 3


# ---- PaddlePaddle's arch check: older or newer than the build's list -----------------------------


PADDLE_ARCH = (
    "W0102 10:00:00.000000  1234 gpu_resources.cc:96] The GPU architecture in your current machine is {name}, "
    "which is not compatible with Paddle installation with arch: {archs} , it is recommended to install the "
    "corresponding wheel package according to the installation information on the official Paddle website."
)


def test_a_gpu_older_than_every_arch_of_the_paddle_build_has_no_code() -> None:
    for name, archs in (("Pascal", "75 80 86 89 90"), ("Maxwell", "60 61 70 75"), ("Volta", "80 86 90")):
        assert first(PADDLE_ARCH.format(name=name, archs=archs)) == "unsupported-cc", name


def test_a_gpu_newer_than_every_arch_of_the_paddle_build_is_too_new() -> None:
    for name, archs in (
        ("Ampere", "35 50 52 60 61 70 75"),
        ("Turing", "35 50 52 60 61"),
        ("Pascal", "35 50 52"),
    ):
        assert first(PADDLE_ARCH.format(name=name, archs=archs)) == "gpu-too-new", name
    # from source: a capability the check's name table lacks, newer than every named one
    line = "W0730 gpu_resources.cc:106] The GPU compute capability in your current machine is 120, which is not supported by Paddle, it is recommended to install the corresponding wheel package"
    assert first(line) == "gpu-too-new"


def test_a_jetson_capability_paddle_has_no_name_for_is_not_called_too_new() -> None:
    # 53 (Jetson Nano), 72 (Xavier), 87 (Orin) are missing from the name table too: neither way is known
    for cc in ("53", "72", "87"):
        line = f"The GPU compute capability in your current machine is {cc}, which is not supported by Paddle"
        assert first(line) not in ("gpu-too-new", "unsupported-cc"), cc


# ---- TensorFlow's device listing: an 8.x GPU beside a CUDA 10 runtime ------------------------------


def test_an_ampere_gpu_listed_by_a_cuda_10_tensorflow_is_too_new() -> None:
    listing = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1555] Found device 0 with properties:\n"
        "pciBusID: 0000:0b:00.0 name: GeForce RTX 3090 computeCapability: 8.6\n"
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library {lib}"
    )
    assert first(listing.format(lib="libcudart.so.10.1")) == "gpu-too-new"
    assert first(listing.format(lib="cudart64_100.dll")) == "gpu-too-new"
    tf1 = "name: NVIDIA A100-SXM4-40GB major: 8 minor: 0 memoryClockRate(GHz): 1.41\nSuccessfully opened dynamic library libcudart.so.10.0"
    assert first(tf1) == "gpu-too-new"


def test_a_gpu_the_cuda_10_build_knows_or_a_cuda_11_build_is_no_cause() -> None:
    volta = "pciBusID: 0000:68:00.0 name: TITAN V computeCapability: 7.0\nSuccessfully opened dynamic library libcudart.so.10.1"
    assert not recognised_in_output(match_output(volta))
    cuda11 = (
        "name: GeForce RTX 3090 computeCapability: 8.6\nSuccessfully opened dynamic library libcudart.so.11.0"
    )
    assert "gpu-too-new" not in ids(cuda11)


# ---- the driver's PTX JIT: a GPU too new, or PTX newer than the driver ---------------------------


JETSON = '========= Program hit CUDA_ERROR_INVALID_PTX (error 218) due to "a PTX JIT compilation failed" on CUDA API call to cuModuleLoadDataEx.'


def test_the_driver_refusing_ptx_with_no_newer_gpu_named_is_a_driver_older_than_the_ptx() -> None:
    assert first(JETSON) == "ptx-too-new-for-driver"
    assert first("RuntimeError: CUDA error: a PTX JIT compilation failed") == "ptx-too-new-for-driver"
    assert first("cudaErrorInvalidPtx: a PTX JIT compilation failed") == "ptx-too-new-for-driver"


def test_the_driver_refusing_ptx_under_a_current_driver_is_no_driver_cause() -> None:
    smi = "| NVIDIA-SMI 570.86.15              Driver Version: 570.86.15      CUDA Version: 12.8     |"
    found = match_output(f"{smi}\n{JETSON}")
    assert found[0].id == "kernel-launch-failed"  # a symptom: no cause claimed
    assert "ptx-too-new-for-driver" not in [d.id for d in found]


def test_the_driver_refusing_ptx_on_a_blackwell_gpu_is_a_gpu_too_new() -> None:
    assert first(f"Device 0: NVIDIA GeForce RTX 5080, compute capability 12.0\n{JETSON}") == "gpu-too-new"
    kernel_gen = "W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'"
    assert first(kernel_gen) == "gpu-too-new"


def test_the_driver_refusing_ptx_beside_xlas_missing_ptxas_stays_a_symptom_of_ptxas() -> None:
    text = f"W external/xla/xla/service/gpu/nvptx_compiler.cc] Couldn't get ptxas version : FAILED_PRECONDITION: Couldn't invoke ptxas --version\n{JETSON}"
    assert ids(text)[:2] == ["xla-ptxas-problem", "kernel-launch-failed"]


WARNING = (
    "W0000 00:00:1740000000.000000 4242 gpu_device.cc:2344] TensorFlow was not built with CUDA kernel binaries "
    "compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 "
    "minutes or longer."
)


def test_the_slow_start_warning_alone_is_harmless_for_any_gpu() -> None:
    for cc in ("12.0", "10.0", "9.0", "8.9"):
        found = match_output(WARNING.replace("12.0", cc))
        assert [(d.id, d.harmful) for d in found] == [("ptx-jit-slow-start", False)], cc


def test_the_slow_start_warning_followed_by_a_launch_failure_is_not_harmless() -> None:
    for failure in (
        "E0000 00:00:1740000001.000000 4242 gpu_timer.cc] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'",
        "'cuModuleGetFunction(&function, module, kernel_name)' failed with 'CUDA_ERROR_INVALID_HANDLE'",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ):
        found = match_output(f"{WARNING}\n{failure}")
        assert found[0].id == "gpu-too-new" and found[0].harmful, failure
        assert recognised_in_output(found)


def test_tensorflows_module_check_is_a_gpu_module_not_loaded() -> None:
    # from source: cuda_gpu_executor.cc's CHECK on the loaded module
    assert first(
        "F tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:912] Check failed: module != nullptr"
    ) == ("kernel-launch-failed")
    assert first("F cuda_gpu_executor.cc:847 check failed:module!=nullptr，") == "kernel-launch-failed"
    row = pattern("kernel-launch-failed")
    assert row is not None and row.symptom


# ---- the CUDA library versions JAX checks ------------------------------------------------------


def test_jax_finding_an_older_cuda_library_than_its_build_is_a_mix() -> None:
    for name, found, built in (("CUDA", 12030, 12040), ("cuSPARSE", 12001, 12200), ("cuFFT", 11000, 11200)):
        msg = (
            f"CUDA backend failed to initialize: Found {name} version {found}, but JAX was built against version "
            f"{built}, which is newer. The copy of {name} that is installed must be at least as new as the version "
            "against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)"
        )
        assert first(msg) == "cuda-libs-mixed", name


def test_jax_finding_an_older_cudnn_is_the_cudnn_mismatch() -> None:
    msg = "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8904, which is newer."
    assert first(msg) == "cudnn-version-mismatch"


def test_a_mangled_cuda_symbol_wrapped_onto_its_own_line_is_a_mix() -> None:
    text = "Could not load library libcudnn_cnn_train.so.8. Error:\n/opt/env/lib/libcudnn_ops_train.so.8:\nundefined symbol:\n_ZN5cudnn3ops18GetInternalStreamsEP12cudnnContextiPP11CUstream_st, version libcudnn_ops_infer.so.8"
    assert first(text) == "cuda-libs-mixed"
    assert "cuda-libs-mixed" not in ids("undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs")


# ---- NVML's own code for a driver/library mismatch -------------------------------------------


def test_nvmls_rm_version_mismatch_code_is_the_driver_library_mismatch() -> None:
    assert first(
        "pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch."
    ) == ("driver-library-mismatch")
    assert (
        first("tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH")
        == "driver-library-mismatch"
    )


# ---- memory: at start-up it is held by another process; under an op it is the work's ------------


def test_out_of_memory_while_cuda_initialises_is_memory_another_process_holds() -> None:
    paddle = (
        "F0101 hl_cuda_device.cc:399] Check failed: cudaSuccess == cudaStat (0 vs. 2) Cuda Error: out of memory\n"
        "    @     0x7f0000000000  hl_create_global_resources()\n    @     0x7f0000000001  hl_start()"
    )
    assert first(paddle) == "memory-held"
    torch = (
        '  File "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 302, in _lazy_init\n'
        "    torch._C._cuda_init()\nRuntimeError: CUDA error: out of memory"
    )
    assert first(torch) == "memory-held"


def test_cuda_error_2_under_an_op_is_the_works_own_memory() -> None:
    paddle = "OSError: (External) CUDA error(2), out of memory.\n  [Hint: 'cudaErrorMemoryAllocation'. The API call failed because it was unable to allocate enough memory to perform the requested operation. ]\n  [operator < conv2d > error]"
    assert first(paddle) == "tensor-oom"
    assert first(
        "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510"
    ) == ("tensor-oom")
    assert first("RuntimeError: CUDA error: out of memory") == "not-sure"  # a CUDA call, no cause named


PADDLE_OOM = (
    "ResourceExhaustedError:\n\nOut of memory error on GPU 1. Cannot allocate 48.000244MB memory on GPU 1, "
    "available memory is only 3.437500MB.\n\nPlease check whether there is any other process using GPU 1.\n"
    "1. If yes, please stop them, or start PaddlePaddle on another GPU.\n2. If no, please decrease the batch size of your model."
)


def test_paddles_allocator_out_of_memory_alone_is_the_works_own_memory() -> None:
    # Its own advice names both causes; "any other process" is a question, not evidence.
    assert first(PADDLE_OOM) == "tensor-oom"
    assert first(f"{PADDLE_OOM}\nOther programs were running on the GPU at the same time.") == "memory-held"


def test_pytorchs_newer_message_that_this_process_uses_little_of_a_full_gpu_is_memory_held() -> None:
    msg = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
        "23.64 GiB of which 11.06 MiB is free. Process 4017 has 23.31 GiB memory in use. Including non-PyTorch "
        "memory, this process has {mine} memory in use. Of the allocated memory 120.0 MiB is allocated by PyTorch."
    )
    assert first(msg.format(mine="312.00 MiB")) == "memory-held"
    assert first(msg.format(mine="23.30 GiB")) == "tensor-oom"


# ---- TensorFlow's cudart stub: which CUDA is there decides ---------------------------------------


STUB_213 = "I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used."


def test_the_stub_beside_a_cuda_stack_of_its_own_is_the_runtime_this_tensorflow_needs() -> None:
    assert first(f">>> import tensorrt\n>>> import tensorflow as tf\n{STUB_213}") == "missing-cudart"
    nvcc = "$ nvcc --version\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.3, V12.3.107"
    assert first(f"{nvcc}\n{STUB_213}") == "missing-cudart"


def test_the_stub_alone_stays_harmless_and_tensorrts_warning_is_no_cuda_stack() -> None:
    assert harmless_only(f"{STUB_213}\n{STUB_213}")
    trt = "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT"
    assert harmless_only(f"{STUB_213}\n{trt}")
    assert (
        first(f">>> import tensorflow as tf\n>>> tf.config.list_physical_devices('GPU')\n{STUB_213}")
        == "cpu-only-wheel"
    )


def test_tensorrts_plugin_missing_a_library_it_needs_is_tensorrts_even_wrapped() -> None:
    plugin = "W dso_loader.cc:55] Could not load dynamic library 'libnvinfer_plugin.so.7'; dlerror:"
    need = "libnvrtc.so.11.1: cannot open shared object file: No such file or directory"
    gave_up = "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:30] Cannot dlopen some TensorRT libraries."
    assert harmless_only(f"{plugin} {need}\n{gave_up}")
    assert harmless_only(f"{plugin}\n{need}\n{gave_up}")
    zh = "libnvrtc.so.11.1: 无法打开共享对象文件: 没有那个文件或目录"
    assert harmless_only(f"{plugin}\n{zh}\n{gave_up}")
    # TensorFlow's own CUDA library not loaded beside it is still a missing library
    cudart = "W dso_loader.cc:55] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file"
    assert first(f"{plugin}\n{need}\n{gave_up}\n{cudart}") == "missing-cudart"


def test_the_runtimes_no_device_from_cudamat_is_cuinits_symptom() -> None:
    # The catalogue's reading (13 training texts): the runtime's cudaErrorNoDevice is cuInit's no device.
    found = match_output("cudamat.cudamat.CUDAMatException: CUDA error: no CUDA-capable device is detected")
    assert found[0].id == "cuinit-failed"
    row = pattern("cuinit-failed")
    assert row is not None and row.symptom


# ---- noise: the CPU note of TensorFlow's add-ons -------------------------------------------------


def test_tensorflow_ios_cpu_instruction_note_is_harmless() -> None:
    line = "I tensorflow_io/core/kernels/cpu_check.cc:128] Your CPU supports instructions that this TensorFlow IO binary was not compiled to use: AVX2 AVX512F FMA"
    found = match_output(line)
    assert [(d.id, d.harmful) for d in found] == [("noise-cpu-instructions", False)]


# ---- the module build, the container toolkit, nvidia-smi in words ------------------------------


def test_make_failing_in_the_nvidia_dkms_build_tree_is_no_module_for_this_kernel() -> None:
    make = (
        "make[3]: *** [scripts/Makefile.build:243: /var/lib/dkms/nvidia/535.183.01/build/nvidia/nv.o] Error 1"
    )
    assert first(make) == "kernel-module-missing"
    cc = "/var/lib/dkms/nvidia/550.54.14/build/nvidia-drm/nvidia-drm-drv.c:480:18: error: 'struct drm_driver' has no member named 'dumb_destroy'"
    assert first(cc) == "kernel-module-missing"
    assert first(make.replace("Error 1", "错误 1")) == "kernel-module-missing"  # make in a zh_CN locale
    other = (
        "make[2]: *** [scripts/Makefile.build:243: /var/lib/dkms/virtualbox/7.0.10/build/vboxdrv.o] Error 1"
    )
    assert first(other) != "kernel-module-missing"
    assert first(f"{make}\n$ uname -r\n5.15.167.4-microsoft-standard-WSL2") == "linux-driver-in-wsl"


def test_the_container_toolkit_failing_to_detect_the_driver_is_the_container_setup() -> None:
    line = "docker: Error response from daemon: failed to create task for container: nvidia-container-cli: detection error: driver error: failed to process request: unknown."
    assert first(line) == "container-no-gpu"


def test_nvidia_smis_no_such_file_said_in_words_is_nvidia_smi_missing() -> None:
    assert (
        first('Running nvidia-smi gives "No such file or directory" on every image') == "nvidia-smi-missing"
    )
    found = match_output(
        "nvidia-smi returns no such file or directory\nRuntimeError: CUDA error: out of memory\nFailed to initialize NVML: Driver/library version mismatch"
    )
    assert found[0].id == "driver-library-mismatch"  # a program's message before the words


# ---- precision: a "1.x" pin of another package is no TensorFlow 1.x --------------------------------


def test_an_ampere_gpu_beside_a_pin_of_another_package_at_1_x_is_no_cuda_10_build() -> None:
    fail = "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"
    for pin in ("torch==1.13.1+cu117", "numpy==1.24.4", "scipy==1.10.1"):
        assert first(f"GPU: NVIDIA GeForce RTX 3090\n{pin}\n{fail}") != "gpu-too-new", pin
    assert first(f"GPU: NVIDIA GeForce RTX 3090\ntensorflow-gpu==1.15.0\n{fail}") == "gpu-too-new"
