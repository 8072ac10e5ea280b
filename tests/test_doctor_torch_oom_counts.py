"""PyTorch's out-of-memory message read by its own counts, in each spelling PyTorch has printed.

PyTorch 2.1 spells it "total capacty"; a process NVML cannot see (a container's own pid) is counted
as "this process has 0 bytes", while the same message says PyTorch allocated GiBs itself.
"""

from __future__ import annotations

import pytest

from tests.doctor_first import first_cause

NEW = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 234.00 MiB. GPU 0 has a total "
    "{capacity} of 80 GiB of which 176.38 MiB is free. Process 4683 has 11.05 GiB memory in use. "
    "Including non-PyTorch memory, this process has 18.80 GiB memory in use. Of the allocated memory "
    "18.26 GiB is allocated by PyTorch, and 30.10 MiB is reserved by PyTorch but unallocated."
)
UNSEEN_PID = (
    "CUDA out of memory. Tried to allocate 146.00 MiB. GPU 0 has a total capacty of 21.95 GiB of which "
    "72.12 MiB is free. Including non-PyTorch memory, this process has 0 bytes memory in use. Of the "
    "allocated memory 19.83 GiB is allocated by PyTorch, and 1.73 GiB is reserved by PyTorch but unallocated."
)


@pytest.mark.parametrize("capacity", ["capacity", "capacty"])
def test_most_of_the_gpu_held_by_others_is_memory_held_in_either_spelling(capacity: str) -> None:
    # 80 GiB, 0.17 free, this process 18.8: about 61 GiB is another process's.
    assert first_cause(NEW.format(capacity=capacity)) == "memory-held"


def test_zero_bytes_for_this_process_beside_pytorchs_own_gibs_is_not_another_process() -> None:
    # PyTorch holds 21.5 of 21.95 GiB itself: its own tensors did not fit.
    assert first_cause(UNSEEN_PID) == "tensor-oom"


def test_zero_bytes_with_nothing_allocated_by_pytorch_is_still_another_process() -> None:
    text = UNSEEN_PID.replace("19.83 GiB is allocated", "0 bytes is allocated").replace(
        "1.73 GiB is reserved", "0 bytes is reserved"
    )
    assert first_cause(text) == "memory-held"
