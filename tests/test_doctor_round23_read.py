"""Reasoning for round 23's 3 released held-out misses (i35e), as the general facts they are, each with
the case that must stay undecided beside it.

A GPU in an exclusive compute mode (nvidia-smi's column, or said in words) beside CUDA failing to
create or bind a context is the GPU held (cuda.h's CU_COMPUTEMODE_EXCLUSIVE_PROCESS: "Only one context
used by a single process can be present on this device at a time"); a CHECK on a driver call's
CUresult "(0 vs. 216)" is read as cuda.h's CUDA_ERROR_CONTEXT_ALREADY_IN_USE, whose documented meaning
(a context bound to one CPU thread at a time; driver_types.h's 216: "an exclusive-thread device that
is already in use by a different thread") is the GPU held; WSL2 beside a GPU said to run TCC only (no
WDDM) or nvidia-smi -q's "Driver Model / Current : TCC", where the text says the GPU is not
recognised, is the driver model.
"""

from __future__ import annotations

from tests.doctor_answers import first
from wizard.doctor.diagnose import match_output

REFUSED = (
    "exception: Error initializing Context: CUDA_ERROR_INVALID_DEVICE (101) at src/CudaContext.cpp:167\n"
)


def test_an_exclusive_mode_said_in_words_beside_a_refused_context_is_the_gpu_held() -> None:
    text = (
        "$ ./TestCudaForce\n"
        + REFUSED
        + "\nThis happens on every node where the GPUs are in compute exclusive mode.\n"
    )
    found = match_output(text)
    assert found[0].id == "gpu-busy"
    # The deciding line is the refused context (the mode alone decides nothing), shown with its number.
    assert found[0].line == 2 and "Error initializing Context" in found[0].evidence
    assert "compute exclusive mode" in found[0].why and "nvidia-smi -q -d COMPUTE" in found[0].fix


def test_nvidia_smis_exclusive_process_beside_a_context_not_created_is_the_gpu_held() -> None:
    table = (
        "|   0  Tesla V100-SXM2...  On   | 00000000:06:00.0 Off |                    0 |\n"
        "| N/A   34C    P0    41W / 300W |    310MiB / 16160MiB |      0%   E. Process |\n"
    )
    failed = "RuntimeError: failed to create CUDA context: CUDA_ERROR_INVALID_DEVICE\n"
    found = match_output(table + failed)
    assert found[0].id == "gpu-busy" and found[0].line == 3 and "E. Process" in found[0].why
    q = "    Compute Mode                          : Exclusive_Process\n"
    assert first(q + failed) == "gpu-busy"  # nvidia-smi -q's line


def test_the_mode_or_the_refused_context_alone_decides_nothing() -> None:
    alone = match_output(REFUSED)
    assert alone[0].id == "not-sure"  # 101 has two meanings: the note names the command that decides
    assert "nvidia-smi -q -d COMPUTE" in alone[0].fix  # the mode decides between its meanings
    said = "\nThe GPUs are in compute exclusive mode.\n"
    assert first("the build failed with an error\n" + said) != "gpu-busy"  # no context refused
    assert first(REFUSED + "\nAre the GPUs in exclusive process mode?\n") != "gpu-busy"  # a question
    assert first(REFUSED + "\nThe GPUs are not in exclusive mode.\n") != "gpu-busy"  # negated
    ordinal = "cudaSetDevice(3) failed: CUDA_ERROR_INVALID_DEVICE: invalid device ordinal\n"
    assert first(ordinal + said) != "gpu-busy"  # 101's other meaning: a GPU number that is not there
    oom = "Error initializing Context: CUDA_ERROR_OUT_OF_MEMORY (2)\n"
    assert first(oom + said) != "gpu-busy"  # a code that names another cause


def test_a_check_on_a_driver_calls_216_is_a_context_bound_to_another_thread() -> None:
    text = (
        "I tensorflow/core/common_runtime/gpu/gpu_init.cc:102] Found device 0 with properties:\n"
        "name: Tesla K40m\n"
        "F tensorflow/stream_executor/cuda/cuda_driver.cc:383] Check failed: CUDA_SUCCESS == "
        "dynload::cuCtxSetCurrent(context) (0 vs. 216)\n"
    )
    found = match_output(text)
    assert found[0].id == "gpu-busy" and found[0].line == 3
    assert "(0 vs. 216)" in found[0].evidence
    assert "CUDA_ERROR_CONTEXT_ALREADY_IN_USE (216)" in found[0].why and "cuda.h" in found[0].why
    # The runtime's name for 216 (driver_types.h) says the same.
    assert first("CUDA error: cudaErrorDeviceAlreadyInUse\n") == "gpu-busy"
    # Another CUresult in the same CHECK is read as that code, not as a busy GPU.
    other = text.replace("(0 vs. 216)", "(0 vs. 101)")
    assert first(other) != "gpu-busy"
    assert "CUDA_ERROR_INVALID_DEVICE (101)" in match_output(other)[0].evidence


WSL_TCC = (
    "We moved our CUDA work to WSL on the new server.\n"
    "The H100 PCIe supports only TCC mode, it has no WDDM.\n"
    "In WSL2 the GPUs are not recognized at all, even with the latest driver.\n"
)


def test_wsl2_and_a_gpu_that_runs_tcc_only_with_the_gpu_not_recognised_is_the_driver_model() -> None:
    found = match_output(WSL_TCC)
    assert found[0].id == "wsl-tcc"
    assert found[0].line == 3 and "not recognized" in found[0].evidence  # the GPU not seen, as before
    assert "-dm 0" in found[0].fix


def test_nvidia_smi_q_driver_model_tcc_is_read() -> None:
    q = (
        "PS C:\\> nvidia-smi -q\n"
        "    Driver Model\n"
        "        Current                           : TCC\n"
        "        Pending                           : TCC\n"
        "Inside WSL2: no CUDA-capable device is detected\n"
    )
    assert first(q) == "wsl-tcc"
    assert first(q.replace(": TCC", ": WDDM")) != "wsl-tcc"


def test_tcc_said_otherwise_decides_nothing() -> None:
    assert first(WSL_TCC.replace("supports only TCC mode, it has no WDDM", "runs in WDDM mode")) != "wsl-tcc"
    assert first(WSL_TCC.replace("WSL2", "Ubuntu 22.04").replace("to WSL on", "to")) != "wsl-tcc"
    not_tcc = WSL_TCC.replace("supports only TCC mode, it has no WDDM", "is not in TCC mode")
    assert first(not_tcc) != "wsl-tcc"
    seen = WSL_TCC.replace("the GPUs are not recognized at all", "nvidia-smi lists both GPUs")
    assert first(seen) != "wsl-tcc"  # the GPU is seen: nothing failed


def test_the_new_reason_reads_in_chinese_too() -> None:
    from wizard.text import language, set_language

    before = language()
    set_language("zh")
    try:
        found = match_output(REFUSED + "The GPUs are in exclusive process mode.\n")
        assert found[0].id == "gpu-busy" and "计算模式" in found[0].why and "上下文" in found[0].why
    finally:
        set_language(before)


def test_a_quoted_documentation_sentence_about_tcc_is_not_this_gpus_mode() -> None:
    quoted = (
        'NVIDIA\'s guide says it "will not be available on Quadro GPUs in TCC mode or Tesla GPUs yet".\n'
        "My GPU is not recognized in WSL2.\n"
    )
    assert first(quoted) != "wsl-tcc"
    said = quoted + "The card runs in TCC mode, as nvidia-smi shows.\n"
    assert first(said) == "wsl-tcc"  # this GPU's own mode, said as a fact, decides


def test_tcc_denied_is_no_tcc() -> None:
    for said in ("The GeForce card doesn't support TCC mode.", "It does not support TCC mode."):
        assert first(said + "\nIn WSL2 the GPUs are not recognized.\n") != "wsl-tcc", said
