"""Round 8's training texts and released held-out misses (issue 21, r21i): the program messages
behind them, and the neighbouring causes each must stay apart from.

Lines marked "from source" are the programs' own strings (cuDNN 8's sub-library loader, Windows'
system error codes, TensorFlow's CHECK on a CUDA driver call, PyTorch's capability warning,
ptxas, nvidia-smi's device table, libnvidia-container).
"""

from __future__ import annotations

from wizard.doctor.diagnose import match_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text)]


# ---- cudnn-version-mismatch vs missing-cudnn: Windows' error code decides ------------------------


def test_a_cudnn_dll_that_loads_without_its_procedure_is_a_version_mix() -> None:
    # from source: cuDNN 8 "Could not load library %s. Error code %d"; 127 = ERROR_PROC_NOT_FOUND
    msg = "Could not load library cudnn_cnn_infer64_8.dll. Error code 127"
    assert first(msg) == "cudnn-version-mismatch"
    assert first(f"推理调用cudnn的时候报错：{msg}") == "cudnn-version-mismatch"
    torch = 'OSError: [WinError 127] 找不到指定的程序。 Error loading "C:\\x\\torch\\lib\\cudnn_adv_infer64_8.dll"'
    assert first(torch) == "cudnn-version-mismatch"


def test_a_cudnn_dll_not_found_stays_missing_cudnn() -> None:
    # 126 = ERROR_MOD_NOT_FOUND: the DLL (or one it needs, zlibwapi.dll) is not there
    assert first("Could not load library cudnn_cnn_infer64_8.dll. Error code 126") == "missing-cudnn"
    assert (
        first("Could not locate zlibwapi.dll. Please make sure it is in your library path!")
        == "missing-cudnn"
    )
    assert "cudnn-version-mismatch" not in ids(
        "Could not load library cudnn_ops_infer64_8.dll. Error code 126"
    )
    # another library's error 127 is no cuDNN mix
    assert "cudnn-version-mismatch" not in ids(
        "OSError: [WinError 127] The specified procedure could not be found"
    )


# ---- cuinit-failed vs no-device: cuInit's own failure, and the driver that cannot be reached ------


def test_tensorflows_check_on_a_driver_call_returning_no_device_is_cuinit_failed() -> None:
    # from source: TensorFlow's cuda_driver.cc CHECK; 303 = CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
    # (TensorFlow's "UNKNOWN ERROR (303)" of cuInit), 100 = CUDA_ERROR_NO_DEVICE
    for code in (303, 100):
        msg = (
            "tensorflow/stream_executor/cuda/cuda_driver.cc:404] Check failed: CUDA_SUCCESS == "
            "cuDevicePrimaryCtxGetState(device, &former_primary_context_flags, "
            f"&former_primary_context_is_active) (0 vs. {code})"
        )
        assert first(msg) == "cuinit-failed", code
    # another driver error in the same CHECK (2 = CUDA_ERROR_OUT_OF_MEMORY) is not cuInit's
    oom = "Check failed: CUDA_SUCCESS == cuCtxCreate(&context, flags, device) (0 vs. 2)"
    assert "cuinit-failed" not in ids(oom)


def test_cuinit_said_across_a_wrapped_line_is_still_cuinit_failed() -> None:
    text = (
        "external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to\n"
        "cuInit: INTERNAL: CUDA error: Failed call to cuInit:\n"
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    )
    assert first(text) == "cuinit-failed"


def test_a_driver_that_cannot_be_reached_stays_no_device() -> None:
    for msg in (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.",
        "Failed to initialize NVML: Driver Not Loaded",
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1",
        "failed call to cuInit: CUDA_ERROR_NOT_FOUND: named symbol not found",
    ):
        assert first(msg) == "no-device", msg
        assert "cuinit-failed" not in ids(msg), msg


# ---- memory-held vs tensor-oom: PyTorch's two out-of-memory messages -----------------------------

SMI_BUSY = (
    "|   0  Tesla V100-SXM2...  On   | 00000000:00:08.0 Off |                    0 |\n"
    "| N/A   54C    P0   246W / 300W |  15514MiB / 16130MiB |    100%      Default |"
)
SMI_IDLE = (
    "|   0  Tesla V100-SXM2...  On   | 00000000:00:08.0 Off |                    0 |\n"
    "| N/A   38C    P0    39W / 300W |      0MiB / 16130MiB |      0%      Default |"
)


def test_a_cuda_call_out_of_memory_beside_a_busy_gpu_is_memory_held() -> None:
    assert first(f"{SMI_BUSY}\nRuntimeError: CUDA error: out of memory") == "memory-held"


def test_a_cuda_call_out_of_memory_alone_or_beside_an_idle_gpu_names_no_cause() -> None:
    # a wrong cause costs more than a miss: without the busy GPU the message alone says no more
    # (i35: the doctor says "not sure", a note that names no cause, where the text shows a code)
    # stop 45: "not sure" with the command that shows who holds the memory (no cause named either way)
    assert first("RuntimeError: CUDA error: out of memory") == "not-sure"
    assert not any(d.harmful for d in match_output("RuntimeError: CUDA error: out of memory"))
    assert first(f"{SMI_IDLE}\nRuntimeError: CUDA error: out of memory") in ("nothing", "not-sure")
    assert not any(d.harmful for d in match_output(f"{SMI_IDLE}\nRuntimeError: CUDA error: out of memory"))


def test_pytorchs_allocator_running_out_stays_the_works_own_memory() -> None:
    # from source: the caching allocator's message is the work's own tensors, busy GPU or not
    msg = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.75 GiB total capacity)"
    assert first(msg) == "tensor-oom"
    assert first(f"{SMI_BUSY}\n{msg}") == "tensor-oom"


# ---- gpu-too-new vs unsupported-cc: PyTorch's list of the build's capabilities is not the GPU -----


def test_pytorchs_capability_warning_for_a_newer_gpu_is_gpu_too_new() -> None:
    # from source: PyTorch's "{name} with CUDA capability sm_XY is not compatible with the current
    # PyTorch installation. The current PyTorch install supports CUDA capabilities sm_37 sm_50 ..."
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "NVIDIA A2 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70."
    )
    assert ids(text)[0] == "gpu-too-new"
    assert "unsupported-cc" not in ids(text)


def test_an_old_gpu_under_a_newer_build_stays_unsupported_cc() -> None:
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "Tesla K40c with CUDA capability sm_35 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."
    )
    assert first(text) == "unsupported-cc"
    assert "gpu-too-new" not in ids(text)
    # the GPU's own old capability, said beside a new one's name, still rules a new GPU out
    assert first(
        "no kernel image is available for execution on the device\nGPU: sm_35 (I also have an RTX 3090)"
    ) == ("unsupported-cc")


# ---- ptxas-too-old: ptxas's own fatal line, cut short ------------------------------------------


def test_ptxas_fatal_on_an_unknown_sm_is_ptxas_too_old() -> None:
    # from source: ptxas "Value '%s' is not defined for option '%s'", here cut after the value
    assert first("ptxas fatal   : Value 'sm_89' is not defined") == "ptxas-too-old"
    assert first("ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'") == "ptxas-too-old"
    # the words without ptxas's prefix are no program's message
    assert first("Value 'sm_89' is not defined") == "nothing"


# ---- precision: a program's own message outranks a cause that words decided ----------------------


def test_a_cause_a_program_names_comes_before_one_a_persons_words_decided() -> None:
    # "works after a driver update" makes a cuDNN handle failure driver-too-old, but TensorFlow's own
    # line names another cause: that line decides, wherever it stands in the text
    text = (
        "could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n"
        "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0\n"
        "It worked after I updated the nvidia driver."
    )
    assert ids(text)[:2] == ["cudnn-version-mismatch", "driver-too-old"]
    # "upgrading the driver would work" beside PyTorch's own words that the GPU is newer than the build
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "Upgrading the driver should work, someone said.\n"
        "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation."
    )
    assert ids(text)[:2] == ["gpu-too-new", "ptx-too-new-for-driver"]


def test_a_cause_decided_by_words_still_stands_where_no_program_names_one() -> None:
    alone = "could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\nIt worked after I updated the nvidia driver."
    assert first(alone) == "driver-too-old"
    smi = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "It stopped after the kernel was upgraded."
    )
    assert first(smi) == "kernel-module-missing"


def test_every_prose_row_is_a_context_row_with_a_cause() -> None:
    # `prose` ranks a cause that words decided; a row without context has no words to be decided by
    from wizard.doctor.catalogue import patterns

    rows = [p for p in patterns() if p.prose]
    assert rows and all(p.when and p.harmful and not p.symptom and not p.fallback for p in rows)


# ---- precision: cuDNN's loader naming the library it could not find ----------------------------


def test_cudnn_found_but_the_drivers_libcuda_not_is_no_cudnn_cause() -> None:
    # from source: cuDNN 8 "Could not load library %s. Error: %s" (WSL2 without /usr/lib/wsl/lib on
    # the loader's path): cuDNN is there; the driver is not reachable, a symptom, not missing-cudnn
    msg = (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: "
        "No such file or directory"
    )
    assert ids(msg) == ["no-device"]
    nvrtc = msg.replace("libcuda.so", "libnvrtc.so")
    assert first(nvrtc) == "missing-cudart"
    assert "missing-cudnn" not in ids(nvrtc)


def test_cudnns_own_file_not_found_stays_missing_cudnn() -> None:
    own = (
        "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared "
        "object file: No such file or directory"
    )
    assert first(own) == "missing-cudnn"


def test_cudnns_loader_naming_libcuda_in_a_chinese_locale_is_the_same() -> None:
    # glibc's zh_CN message for ENOENT on a shared object, as in TensorFlow's own lines
    msg = "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: 无法打开共享对象文件: 没有那个文件或目录"
    assert ids(msg) == ["no-device"]


def test_pytorchs_list_of_the_builds_capabilities_names_no_gpu() -> None:
    # the list is the build's: an sm_86 in it is no 8.x GPU, an sm_120 in it no Blackwell GPU
    builds = (
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."
    )
    no_kernel = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    assert first(f"{no_kernel}\n{builds}") == "unsupported-cc"
    handle = "'cuModuleGetFunction(&function, module, kernel_name)' failed with 'CUDA_ERROR_INVALID_HANDLE'"
    blackwell_build = (
        "The current PyTorch install supports CUDA capabilities sm_75 sm_80 sm_86 sm_90 sm_100 sm_120."
    )
    assert first(f"{handle}\n{blackwell_build}") == "kernel-launch-failed"
    # the GPU said as the GPU still counts
    assert first(f"{no_kernel}\nMy GPU is sm_86 (an RTX A2000)") == "gpu-too-new"


# ---- precision: memory on the host is not the GPU's ---------------------------------------------


def test_pinned_host_memory_out_is_no_gpu_memory_cause() -> None:
    # from source: TensorFlow's "failed to alloc N bytes on host" (cuMemHostAlloc): the machine's RAM
    host = "cuda_driver.cc:1050] failed to alloc 8589934592 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    # i35: CUDA_ERROR_OUT_OF_MEMORY's documented meaning (memory or other resources) names no cause:
    # "not sure", with the command that tells the host's memory from the GPU's, never a cause
    assert first(host) == "not-sure" and not any(d.harmful for d in match_output(host))
    assert "free -h" in match_output(host)[0].fix
    # words that make a GPU out-of-memory line the work's own do not make this one a GPU cause
    assert {"memory-held", "tensor-oom"}.isdisjoint(ids(f"{host}\nwe reduced the batch size and it worked"))
    device = (
        "cuda_driver.cc:890] failed to allocate 3.77G (4046962432 bytes) from device: "
        "CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    )
    assert first(device) == "memory-held"


def test_a_gpu_the_driver_does_not_support_is_a_device_symptom() -> None:
    # from source: the kernel module (NVRM) and nvidia-installer on a GPU of a legacy branch
    for msg in (
        "NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1c8d) installed in this system is not supported "
        "by the NVIDIA 535.129.03 driver release.",
        "WARNING: You do not appear to have an NVIDIA GPU supported by the 535.129.03 NVIDIA Linux graphics "
        "driver installed in this system.",
    ):
        assert ids(msg) == ["no-device"], msg


def test_pytorchs_words_for_devices_busy_are_the_busy_gpu() -> None:
    # from source: CUDA runtime's cudaErrorDevicesUnavailable string, as PyTorch prints it; i35: its
    # documented meaning (driver_types.h, 46: an exclusive or prohibited compute mode, a GPU in use)
    # is its own cause, gpu-busy, no longer the generic device symptom
    assert ids("RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable") == ["gpu-busy"]
