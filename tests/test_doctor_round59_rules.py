"""Rules written from round 59's training texts (its held-out third was scored blind first)."""

from __future__ import annotations

from wizard.doctor.codes import codes_in
from wizard.doctor.diagnose import match_output


def _first(text: str) -> str:
    found = [d for d in match_output(text) if d.harmful]
    return found[0].id if found else ""


def test_a_runtime_calls_number_after_a_hash_is_its_cuda_error() -> None:
    text = 'DIGITS says: "cudaRuntimeGetVersion() failed with error #35". What is causing this?'
    assert [c.name for c in codes_in(text)] == ["cudaErrorInsufficientDriver"]
    assert _first(text) == "driver-too-old"


def test_a_hash_number_without_a_cuda_call_is_no_code() -> None:
    assert codes_in("the build failed with error #35 in step 4") == []


def test_julias_driver_support_message_is_a_driver_too_old_even_wrapped() -> None:
    one = "ERROR: LoadError: CUDA 10.0 is not supported by your driver (which supports up to 9.0)\n"
    wrapped = "ERROR: LoadError: CUDA 10.0 is not supported by\nyour driver (which supports up to 9.0)\n"
    assert _first(one) == "driver-too-old"
    assert _first(wrapped) == "driver-too-old"
