"""Rules for round 24's training texts (i35f: RULES_ROUND 23 -> 24), as the reasoning they are.

The driver's own library (libcuda.so.<driver version>) lacking an entry point the program calls is an
old driver, never two CUDA installs mixed; without the version in its file name it is not sure. The
Fabric Manager refusing a driver of another version, and a CUDA call's bare 802, are the Fabric
Manager. CUDA's unknown error after a suspend is cuInit's failure. A GPU whose architecture came a
whole CUDA major after the CUDA of the libraries a program uses is newer than the build (Choose's
architectures table). PyTorch's "No CUDA GPUs are available" is cuInit finding no device. WSL 2 and
a GPU in TCC mode decide WSL2's TCC. CUDA's out of memory on a GPU that was all but free before the
run is the work's own.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, ids
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.codes import codes_in
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts
from wizard.doctor.reasoned import unsure
from wizard.doctor.stack_reason import DECIDE_LIBCUDA

# --------------------------------------------------------------------------- the driver's own library

# ollama/ollama#5493: ollama 0.1.48 on a host with driver 418.74 (CUDA 10.1).
OLLAMA_418 = (
    'time=2024-07-04T17:13:20.135+08:00 level=DEBUG source=gpu.go:385 msg="Unable to load nvcuda" '
    'library=/usr/lib64/libcuda.so.418.74 error="symbol lookup for cuCtxCreate_v3 failed: '
    '/usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3"'
)
DLERR_418 = "dlerr: /usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3"


@pytest.mark.parametrize("text", [OLLAMA_418, DLERR_418])
def test_an_entry_point_missing_from_the_drivers_libcuda_is_an_old_driver(text: str) -> None:
    found = match_output(text)
    assert found[0].id == "driver-too-old"
    # The driver's version is read from libcuda's file name and judged by Choose's table.
    assert "418.74" in found[0].why and "10.1" in found[0].why
    assert "cuda-libs-mixed" not in [d.id for d in found]  # its fix (one CUDA install) contradicts


def test_an_entry_point_nvcuda_dll_lacks_is_an_old_driver_on_windows() -> None:
    # nvcuda.dll is only ever the Windows driver's own file.
    text = (
        "python.exe - Entry Point Not Found: The procedure entry point cuCtxCreate_v3 could not be located "
        "in the dynamic link library C:\\Windows\\system32\\nvcuda.dll."
    )
    assert first(text) == "driver-too-old"


def test_the_drivers_cuda_named_is_chooses_own() -> None:
    from packaging.version import Version

    assert load_knowledge().cuda_for_driver(Version("418.74"), windows=False) == Version("10.1")


def test_an_entry_point_missing_from_a_libcuda_without_its_version_is_not_sure() -> None:
    # libcuda.so.1 or libcuda.so may be a toolkit's stub on the library path: an old driver and a stub
    # need different fixes, so the doctor names neither, and never mixed CUDA installs.
    text = "/usr/lib64/libcuda.so.1: undefined symbol: cuCtxCreate_v3"
    found = match_output(text)
    note = unsure(found)
    assert note is not None and DECIDE_LIBCUDA in note.fix
    assert not [d for d in found if d.harmful]


@pytest.mark.parametrize(
    "text",
    [
        "libtorch_cuda.so: undefined symbol: cuGetProcAddress_v2",
        # tensorflow/tensorflow#23925 (round 4), as its body shows it
        "ImportError: /usr/local/lib/python3.5/dist-packages/tensorflow/python/libtensorflow_framework.so: "
        "undefined symbol: cuDevicePrimaryCtxGetState",
    ],
)
def test_a_driver_entry_point_another_library_lacks_is_not_sure_never_mixed_cuda(text: str) -> None:
    # Only libcuda provides cuX: an old driver's libcuda or a stub was loaded; which is not shown.
    found = match_output(text)
    note = unsure(found)
    assert note is not None and DECIDE_LIBCUDA in note.fix
    assert "cuda-libs-mixed" not in [d.id for d in found]


def test_a_toolkit_library_missing_a_symbol_of_its_partner_stays_mixed_cuda() -> None:
    # The same loader words naming a CUDA library (not the driver's) are still two installs mixed.
    text = "ImportError: /usr/lib/libcublas.so.11: undefined symbol: cublasLtGetStatusString, version libcublasLt.so.11"
    assert first(text) == "cuda-libs-mixed"


# --------------------------------------------------------------------------- the Fabric Manager

# NVIDIA/gpu-driver-container#735: the 580.126.09 driver image shipped nv-fabricmanager 590.48.01.
FM_REFUSED = (
    "fabric manager NVIDIA GPU driver interface version 590.48.01 don't match with driver version "
    "580.126.09.\nPlease update with matching NVIDIA driver package."
)


def test_the_fabric_manager_refusing_a_driver_of_another_version_is_the_fabric_manager() -> None:
    found = match_output(FM_REFUSED)
    assert found[0].id == "fabric-manager"
    assert "590.48.01" in found[0].why and "580.126.09" in found[0].why
    assert "driver-library-mismatch" not in [d.id for d in found]


def test_the_fabric_managers_refusal_wrapped_by_a_narrow_paste_is_read_whole() -> None:
    wrapped = FM_REFUSED.replace("don't match", "don't\nmatch")
    assert first(wrapped) == "fabric-manager"


def test_the_fabric_manager_of_the_drivers_own_version_decides_nothing() -> None:
    text = "fabric manager NVIDIA GPU driver interface version 580.126.09 don't match with driver version 580.126.09."
    assert first(text) == "nothing"


# ollama/ollama#9031: ollama's discovery on an 8-GPU H200 board.
OLLAMA_802 = (
    'msg="Unable to load cudart library /usr/lib/ollama/libcudart.so.12.4.127: cudart init failure: 802"\n'
    "cudaSetDevice err: 802"
)


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("cudart init failure: 802", "cudaErrorSystemNotReady"),
        ("cudaSetDevice err: 802", "cudaErrorSystemNotReady"),
        ("nvcuda init failure: 802", "CUDA_ERROR_SYSTEM_NOT_READY"),
        ("cuInit err: 100", "CUDA_ERROR_NO_DEVICE"),
    ],
)
def test_a_cuda_calls_own_return_value_is_read_in_its_apis_table(line: str, name: str) -> None:
    # cuda* and cudart return a cudaError_t (driver_types.h), cu* and nvcuda a CUresult (cuda.h).
    assert [c.name for c in codes_in(line)] == [name]


def test_a_cuda_calls_802_is_the_fabric_manager() -> None:
    assert first(OLLAMA_802) == "fabric-manager"


# --------------------------------------------------------------------------- cuInit after a suspend

# mumax/3#167: a GTX 1070 laptop, fine after boot, failing after a suspend.
MUMAX = (
    "When I start the computer, mumax3 works well on a terminal. But once I suspend the Ubuntu 16.04.3 and "
    "then wake it from suspend, mumax3 doesn't work.\n\npanic: CUDA_ERROR_UNKNOWN\n"
)


def test_cudas_unknown_error_after_a_suspend_is_cuinit_failing() -> None:
    found = match_output(MUMAX)
    assert found[0].id == "cuinit-failed"
    assert "nvidia_uvm" in found[0].why  # what brings it back, shown with the reason


def test_cudas_unknown_error_alone_stays_not_sure() -> None:
    found = match_output("panic: CUDA_ERROR_UNKNOWN\n")
    assert unsure(found) is not None and not [d for d in found if d.harmful]


def test_a_suspend_beside_a_code_that_names_its_own_cause_is_that_cause() -> None:
    text = "after a suspend it fails:\ncudaGetDeviceCount returned 802 -> system not yet initialized"
    assert first(text) == "fabric-manager"


# --------------------------------------------------------------------------- a GPU newer than its CUDA

# lengstrom/fast-style-transfer#260: TensorFlow 2.1 (cuBLAS 10) on an RTX 3090.
FST = (
    "- Tensorflow 2.1.0\n- GeForce RTX 3090\n"
    "I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library "
    "libcublas.so.10\n"
    "E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: CUBLAS_STATUS_NOT_SUPPORTED"
)
# weizhepei/CasRel#62: TensorFlow 1.13-1.15 with CUDA 10.0/10.1 on an RTX 3070, as written.
CASREL = (
    "failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED\n\n"
    "Using the given requirements, still won't work on my RTX3070.\n"
    "Already tried on tensorflow-gpu=1.13.1/1.14.0/1.15.0 .\ncudatookit=10.0/10.1"
)


@pytest.mark.parametrize("text", [FST, CASREL])
def test_an_ampere_gpu_beside_cuda_10_libraries_failing_is_too_new(text: str) -> None:
    found = match_output(text)
    assert found[0].id == "gpu-too-new"
    # Choose's architectures table: CUDA first builds code for Ampere in 11.1.
    assert "Ampere" in found[0].why and "11.1" in found[0].why
    assert found[0].line is not None and "CUBLAS_STATUS" in text.splitlines()[found[0].line - 1]


def test_the_same_failure_with_cuda_11_libraries_is_only_the_librarys_failure() -> None:
    # TensorFlow 2.1's own build is not in Choose's tables; cuBLAS 11 may serve the GPU: not decided.
    text = FST.replace("libcublas.so.10", "libcublas.so.11")
    assert ids(text) == ["gpu-lib-init-failed"]


def test_the_same_failure_on_an_older_gpu_is_only_the_librarys_failure() -> None:
    assert ids(FST.replace("RTX 3090", "GTX 1080")) == ["gpu-lib-init-failed"]


def test_nvidia_smis_cuda_version_is_the_drivers_not_the_libraries() -> None:
    # "CUDA Version: 11.2" is what the driver serves; the libraries loaded are CUDA 10's.
    facts = read_facts("| NVIDIA-SMI 460.32.03 Driver Version: 460.32.03 CUDA Version: 11.2 |\n" + FST)
    assert facts.stack.lib_cudas == [10]


# --------------------------------------------------------------------------- no device, in PyTorch's words


def test_pytorchs_no_cuda_gpus_is_cuinit_finding_none() -> None:
    assert first("RuntimeError: No CUDA GPUs are available") == "cuinit-failed"


def test_no_cuda_gpus_beside_a_cuda_visible_devices_of_a_missing_gpu_is_cuinit_failed() -> None:
    text = 'I resolved this by removing "export CUDA_VISIBLE_DEVICES=2".\nRuntimeError: No CUDA GPUs are available'
    assert first(text) == "cuinit-failed"


# --------------------------------------------------------------------------- WSL 2 and TCC

# microsoft/WSL#11865: Windows Server 2022, an L40S in TCC mode, WSL 2.
WSL_TCC = (
    "- [X] WSL 2\n- [ ] WSL 1\n"
    "|   0  NVIDIA L40S                  TCC   |   00000000:61:00.0 Off |                    0 |\n"
)


def test_wsl2_and_a_gpu_in_tcc_mode_is_wsl_tcc() -> None:
    found = match_output(WSL_TCC)
    assert found[0].id == "wsl-tcc"
    assert found[0].line == 3


def test_a_tcc_gpu_without_wsl2_named_is_not_wsl_tcc() -> None:
    # Windows itself uses a TCC GPU for compute: nothing failed, nothing to name.
    assert first(WSL_TCC.replace("WSL 2", "Windows").replace("WSL 1", "Linux")) == "nothing"


# --------------------------------------------------------------------------- the work's own memory

# cfzd/Ultra-Fast-Lane-Detection#175: a 2 GB GPU.
LANE = (
    'my computer cannot run the code normally with an error "CUDA out of memory"，mine is 2G. I used watch '
    "command to see the real-time CUDA memory. In the beginning only less than 100M memory was used. When "
    "running the code, soon it reaches full memory."
)


def test_out_of_memory_on_a_gpu_free_before_the_run_is_the_works_own() -> None:
    assert first(LANE) == "tensor-oom"


def test_out_of_memory_alone_names_no_cause() -> None:
    # i35k: "not sure" with the command that shows what holds the memory names no cause either
    text = 'an error "CUDA out of memory" on my 2G card'
    assert first(text) in ("nothing", "not-sure")
    assert not any(d.harmful for d in match_output(text))


def test_out_of_memory_with_another_process_holding_it_is_memory_held() -> None:
    text = LANE + " Another process is using 1500MiB of the GPU memory."
    assert ids(text)[0] == "memory-held"
