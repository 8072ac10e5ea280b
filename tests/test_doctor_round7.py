"""Neighbouring causes after round 7 (issue 21, r21h): for each pair the doctor confused, which
program message means which cause, and what context decides when both could fire. A wrong cause
costs more than a miss: where no message decides, a symptom is ranked first rather than a guess.

Lines marked "from source" are the programs' own strings (CUDA's driver API error names, the
driver's PTX JIT log, XLA's nvptx_compiler, modprobe, Fedora's nvidia fallback notice).
"""

from __future__ import annotations

from wizard.doctor.diagnose import match_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text)]


NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


# ---- gpu-too-new vs unsupported-cc: the GPU named decides ----------------------------------------


def test_no_kernel_image_on_an_ampere_or_newer_gpu_is_a_gpu_too_new() -> None:
    # No build's floor was ever above compute capability 7.x: an 8.x/9.x GPU is newer than the build.
    for gpu in ("RTX 3090", "GTX3090", "GPU3090", "RTX 4090", "an H100", "compute capability: 8.6"):
        assert first(f"{NO_KERNEL}\nI use the {gpu} to run the code.") == "gpu-too-new", gpu


def test_no_kernel_image_on_a_blackwell_variant_is_a_gpu_too_new() -> None:
    for gpu in ("RTX 5090D", "RTX 5070 Ti", "RTX 5080"):
        assert first(f"running PyTorch on an {gpu} in Ubuntu\n{NO_KERNEL}") == "gpu-too-new", gpu


def test_no_kernel_image_on_an_old_gpu_stays_unsupported_cc() -> None:
    for gpu in ("GTX 750 Ti, compute capability 5.0", "Tesla K40 (sm_35)", "a GTX 1060"):
        assert first(f"{NO_KERNEL}\nMy GPU: {gpu}") == "unsupported-cc", gpu
    # a build of one's own whose capability list left the (new) GPU out: the build's list, not the GPU
    own = f"I'm compiling TF with TF_CUDA_COMPUTE_CAPABILITIES=7.0 for our A100 GPUs\n{NO_KERNEL}"
    assert first(own) == "unsupported-cc"


# ---- CUDA_ERROR_INVALID_PTX: gpu-too-new only where no other message explains it ---------------


def test_invalid_ptx_with_the_driver_jit_refusing_the_ptx_version_is_a_driver_too_old() -> None:
    # from source: the driver's JIT log ("ptx input, line N; fatal : Unsupported .version X; current version is 'Y'")
    text = (
        "CudaException: 'a PTX JIT compilation failed'\n"
        "CudaError cudaStatus = CUDA_ERROR_INVALID_PTX;\n"
        "ptxas application ptx input, line 5; fatal   : Unsupported .version 6.0; current version is '5.0'\n"
        "my graphic card is Quadro M2000M."
    )
    assert first(text) == "ptx-too-new-for-driver"
    assert "gpu-too-new" not in ids(text)


def test_invalid_ptx_beside_xla_not_finding_ptxas_is_the_ptxas_problem() -> None:
    # from source: XLA's nvptx_compiler ("Can't find ptxas binary in ${CUDA_DIR}/bin")
    text = (
        "CUDA_ERROR_INVALID_PTX\n"
        "W tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:70] Can't find ptxas binary in "
        "${CUDA_DIR}/bin.  Will back to the GPU driver for PTX -> sass compilation."
    )
    assert first(text) == "xla-ptxas-problem"
    assert "gpu-too-new" not in ids(text)


def test_invalid_ptx_alone_from_tensorflow_s_kernels_stays_gpu_too_new() -> None:
    text = "W tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'"
    assert first(text) == "gpu-too-new"


def test_xla_s_own_ptxas_refusing_the_ptx_version_stays_ptxas_too_old() -> None:
    # from source: XLA runs ptxas itself; no driver JIT error in the text
    text = "ptxas /tmp/x.ptx, line 5; fatal   : Unsupported .version 8.4; current version is '8.2'"
    assert first(text) == "ptxas-too-old"


# ---- secure-boot-module vs kernel-module-missing: the module there but refused, or absent -------


def test_driver_not_loaded_where_secure_boot_keeps_the_module_from_loading() -> None:
    sb = (
        "if you install the nvidia drivers and you have secure boot enabled, you will not be able to load "
        "nvidia kernel modules on boot\nnvidia kernel module missing falling back to nouveau"
    )
    assert first(sb) == "secure-boot-module"
    smi = (
        "the NVIDIA kernel driver cannot be loaded while Secure Boot is enabled.\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    )
    assert first(smi) == "secure-boot-module"


def test_module_not_found_or_a_kernel_upgrade_is_not_secure_boot() -> None:
    # from source: modprobe ("FATAL: Module nvidia not found in directory /lib/modules/<ver>")
    absent = "modprobe: FATAL: Module nvidia not found in directory /lib/modules/5.15.0-91-generic"
    assert first(absent) == "kernel-module-missing"
    fallback = "NVIDIA kernel module missing. Falling back to nouveau"
    assert first(fallback) != "secure-boot-module"
    # Secure Boot named as off does not make it the cause
    off = "Secure Boot is disabled.\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    assert first(off) != "secure-boot-module"


def test_modprobe_s_key_messages_are_secure_boot() -> None:
    # from source: modprobe / the kernel ("Required key not available", "Key was rejected by service")
    for msg in (
        "modprobe: ERROR: could not insert 'nvidia': Required key not available",
        "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
    ):
        assert first(msg) == "secure-boot-module", msg


# ---- kernel-launch-failed vs cuda-illegal-address ------------------------------------------------


def test_invalid_handle_is_the_launch_symptom_and_launch_failed_an_exception_on_the_device() -> None:
    # CUDA driver API: CUDA_ERROR_INVALID_HANDLE (a kernel never loaded) vs CUDA_ERROR_LAUNCH_FAILED
    # ("an exception occurred on the device while executing a kernel": a bad pointer, out of bounds)
    handle = "'cuModuleGetFunction(&function, module, kernel_name)' failed with 'CUDA_ERROR_INVALID_HANDLE'"
    assert first(handle) == "kernel-launch-failed"
    launch = "failed to query event: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"
    assert first(launch) == "cuda-illegal-address"


# ---- program messages added for round 7's training texts (from source) ---------------------------


def test_round_7_program_messages() -> None:
    cases = {
        "cuDNN compiled (7102) and runtime (7005) versions mismatch": "cudnn-version-mismatch",
        "Outdated cuDNN installation found.\nVersion JAX was built against: 8907": "cudnn-version-mismatch",
        "Building DKMS module 'nvidia-367.35' for kernel-4.7.2_1... FAILED!": "kernel-module-missing",
        "XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 6.27GiB (6727663616B) on device ordinal 0": "tensor-oom",
        "Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API Version: 10.2": "gpu-too-new",
        "  Profiling failure on cuDNN engine eng0{}: UNKNOWN: CUDNN_STATUS_EXECUTION_FAILED": "conv-algo-failed",
        "UserWarning: No GPU/TPU found, falling back to CPU.": "cpu-only-wheel",
    }
    for text, want in cases.items():
        assert first(text) == want, text


def test_the_new_rows_refuse_their_neighbours() -> None:
    # an 8.x GPU under a CUDA 11 runtime is fine: no cause from the note
    assert (
        first("GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API Version: 11.2") == "nothing"
    )
    # JAX's fallback beside the CUDA backend failing to start: not a CPU-only jaxlib
    text = (
        "Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices.\n"
        "No GPU/TPU found, falling back to CPU."
    )
    assert "cpu-only-wheel" not in ids(text)
