"""Round 13's released misses, as the general messages they are (scored blind first: 18/19).

PyTorch's short out-of-memory exception ("torch.OutOfMemoryError: Allocation on device", as
ComfyUI's error report shows it) is the work's own tensors; memory an earlier task did not release,
said in words (Chinese or English) beside an out-of-memory message, is memory held elsewhere.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first

PADDLE = (
    "Out of memory error on GPU 0. Cannot allocate 541.500244MB memory on GPU 0, available memory is only "
    "8.625000MB.\n\nPlease check whether there is any other process using GPU 0."
)


@pytest.mark.parametrize(
    "text",
    [
        "- **Exception Type:** torch.OutOfMemoryError\n- **Exception Message:** Allocation on device ",
        "torch.OutOfMemoryError: Allocation on device",
        "Exception Type: torch.cuda.OutOfMemoryError",
    ],
)
def test_pytorchs_short_oom_is_the_works_own_memory(text: str) -> None:
    assert first(text) == "tensor-oom"


def test_the_short_oom_beside_memory_held_elsewhere_is_that() -> None:
    text = "torch.OutOfMemoryError: Allocation on device\nAnother process is using most of the GPU memory."
    assert first(text) == "memory-held"


@pytest.mark.parametrize(
    "said",
    [
        "可能是之前的任务虽然停止了，但是显存没有释放，导致任务再次运行的时候，显存不够的情况",
        "上一个训练进程的显存未释放",
        "The previous training process did not release the GPU memory after I stopped it.",
        "the killed job never released its memory",
    ],
)
def test_memory_an_earlier_task_did_not_release_is_memory_held(said: str) -> None:
    assert first(f"{PADDLE}\n{said}") == "memory-held"


@pytest.mark.parametrize(
    "said",
    [
        "显存已经释放了",  # released: no cue
        "The previous run finished fine with batch size 32.",
        "I released the memory with torch.cuda.empty_cache() and it still fails.",
    ],
)
def test_other_words_about_memory_leave_paddles_oom_as_it_was(said: str) -> None:
    assert first(f"{PADDLE}\n{said}") == first(PADDLE)


@pytest.mark.parametrize(
    "line",
    [
        "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory",
    ],
)
def test_the_drivers_own_library_not_found_is_no_driver_reachable(line: str) -> None:
    assert first(line) == "no-device"
    # TensorFlow prints cuInit's failure next: that line, the more specific one, comes first.
    assert (
        first(f"{line}\nW cuda_driver.cc:269] failed call to cuInit: UNKNOWN ERROR (303)") == "cuinit-failed"
    )
    # A CUDA runtime library not found is that library missing, not the driver.
    assert first(line.replace("libcuda.so.1", "libcudart.so.11.0")) != "no-device"
