"""PyTorch's out-of-memory message read by its figures: whose memory filled the GPU.

The message prints the GPU's total, what is free and what PyTorch holds. Most of the GPU neither
free nor PyTorch's (at least half and 3 GiB) is memory held elsewhere (memory-held: close that
program); PyTorch holding it is the work's own tensors (tensor-oom: a smaller batch).
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first
from wizard.doctor.figures import size_bytes, torch_memory


def old_format(total: str, allocated: str, free: str, reserved: str, request: str = "20.00 MiB") -> str:
    return (
        f"RuntimeError: CUDA out of memory. Tried to allocate {request} (GPU 0; {total} total capacity; "
        f"{allocated} already allocated; {free} free; {reserved} reserved in total by PyTorch)"
    )


@pytest.mark.parametrize(
    ("figures", "expected"),
    [
        # PyTorch holds nearly all of it: the batch is too big.
        (("23.70 GiB", "21.79 GiB", "12.56 MiB", "22.23 GiB"), "tensor-oom"),
        (("8.00 GiB", "7.08 GiB", "0 bytes", "7.32 GiB"), "tensor-oom"),
        # A big request with room left in PyTorch's own pool: still its own work.
        (("14.61 GiB", "6.54 GiB", "4.35 GiB", "9.29 GiB", "5.20 GiB"), "tensor-oom"),
        # The same figures with a request far below what is free: no tensor too big is shown (another
        # program taking it at that moment, fragmentation, a per-process memory fraction): not sure.
        (("14.61 GiB", "6.54 GiB", "4.35 GiB", "9.29 GiB"), "not-sure"),
        (("8.00 GiB", "802.50 KiB", "6.59 GiB", "2.00 MiB"), "not-sure"),
        # 12.1 GiB of 15.90 GiB is neither free nor PyTorch's: another process holds it.
        (("15.90 GiB", "3.58 GiB", "120.25 MiB", "3.67 GiB"), "memory-held"),
        # A 4 GiB laptop GPU with 2.2 GiB outside PyTorch (a desktop, the CUDA context): under 3 GiB.
        (("4.00 GiB", "1.60 GiB", "40.11 MiB", "1.72 GiB"), "tensor-oom"),
        # Over 3 GiB but under half of a big GPU (a desktop and a small viewer on an 80 GiB card).
        (("79.15 GiB", "70.00 GiB", "10.00 MiB", "72.00 GiB"), "tensor-oom"),
    ],
)
def test_the_old_message_by_its_figures(figures: tuple[str, ...], expected: str) -> None:
    assert first(old_format(*figures)) == expected


def test_the_new_message_counts_this_process_with_its_other_libraries() -> None:
    # PyTorch 2.1+: "this process has P memory in use" (non-PyTorch memory included).
    held = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
        "of 23.69 GiB of which 10.56 MiB is free. Process 4242 has 17.10 GiB memory in use. Including "
        "non-PyTorch memory, this process has 6.55 GiB memory in use. Of the allocated memory 6.10 GiB is "
        "allocated by PyTorch, and 200.00 MiB is reserved by PyTorch but unallocated."
    )
    assert first(held) == "memory-held"
    own = held.replace("this process has 6.55 GiB", "this process has 23.60 GiB")
    assert first(own) == "tensor-oom"


def test_a_message_wrapped_onto_three_lines_is_read_whole() -> None:
    text = (
        "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.90 GiB total\n"
        "capacity; 3.58 GiB already allocated; 120.25 MiB free; 3.67 GiB reserved\n"
        "in total by PyTorch)"
    )
    assert first(text) == "memory-held"


def test_sizes_are_read_in_their_units() -> None:
    assert size_bytes("0 bytes") == 0
    assert size_bytes("1010.00 MiB") == 1010 * 1024**2
    assert size_bytes("3.67 GiB") == pytest.approx(3.67 * 1024**3)
    assert size_bytes("12 parsecs") is None
    memory = torch_memory(
        {"total": "15.90 GiB", "free": "120.25 MiB", "reserved": "3.67 GiB", "allocated": "3.58 GiB"}
    )
    assert memory is not None and memory.elsewhere == pytest.approx(
        (15.90 - 3.67) * 1024**3 - 120.25 * 1024**2
    )
