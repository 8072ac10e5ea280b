"""Rules written from round 59's training texts (its held-out third was scored blind first)."""

from __future__ import annotations

from tests.doctor_first import first_cause
from wizard.doctor.codes import codes_in
from wizard.doctor.diagnose import match_output


def test_a_runtime_calls_number_after_a_hash_is_its_cuda_error() -> None:
    text = 'DIGITS says: "cudaRuntimeGetVersion() failed with error #35". What is causing this?'
    assert [c.name for c in codes_in(text)] == ["cudaErrorInsufficientDriver"]
    assert first_cause(text) == "driver-too-old"


def test_a_hash_number_without_a_cuda_call_is_no_code() -> None:
    assert codes_in("the build failed with error #35 in step 4") == []


def test_julias_driver_support_message_is_a_driver_too_old_even_wrapped() -> None:
    one = "ERROR: LoadError: CUDA 10.0 is not supported by your driver (which supports up to 9.0)\n"
    wrapped = "ERROR: LoadError: CUDA 10.0 is not supported by\nyour driver (which supports up to 9.0)\n"
    assert first_cause(one) == "driver-too-old"
    assert first_cause(wrapped) == "driver-too-old"


BOOT_MISMATCH = (
    "[{t}] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n"
    "               NVRM: has the version 595.84, but this kernel module has\n"
    "               NVRM: the version 595.80.  Please make sure that this\n"
)


def test_a_mismatch_met_at_boot_is_an_old_module_not_a_pending_reboot() -> None:
    found = match_output(BOOT_MISMATCH.format(t="    9.424670"))
    assert found[0].verdict == "driver-module-behind"
    assert found[0].fix.endswith("modinfo -F version nvidia; dkms status")
    assert "595.84" in found[0].fix
    assert not [d for d in found[1:] if d.harmful and d.id == "driver-too-old"]


def test_the_same_mismatch_hours_after_boot_waits_for_a_reboot() -> None:
    found = match_output(BOOT_MISMATCH.format(t=" 7469.555884"))
    assert found[0].id == "driver-library-mismatch" and found[0].verdict != "driver-module-behind"
    assert "reboot" in found[0].fix.lower()


SUSPENDED = (
    "Every time after a wake up from suspend it fails:\n"
    "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: "
    "CUDA_ERROR_UNKNOWN: unknown error\n"
)


def test_cudas_unknown_error_after_a_suspend_reloads_nvidia_uvm() -> None:
    first = match_output(SUSPENDED)[0]
    assert first.verdict == "cuda-after-suspend"
    assert "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm" in first.fix
    assert "wake up from suspend" in first.why  # the words that decided it, beside the failing line


def test_old_cuda_unknown_error_30_after_a_suspend_is_the_same() -> None:
    text = (
        "Every time when Digits is used after a wake up from a suspension mode:\n"
        "F0504 common.cpp:163] Check failed: error == cudaSuccess (30 vs. 0) unknown error\n"
        "cudaGetDeviceCount returned 30\n-> unknown error\n"
    )
    assert match_output(text)[0].verdict == "cuda-after-suspend"


def test_the_unknown_error_without_a_suspend_keeps_its_general_answer() -> None:
    found = match_output(SUSPENDED.replace("Every time after a wake up from suspend it fails:\n", ""))
    assert found[0].verdict != "cuda-after-suspend"


def test_in_wsl2_the_windows_driver_answers_not_a_suspend() -> None:
    found = match_output("uname: 5.15.153.1-microsoft-standard-WSL2\n" + SUSPENDED)
    assert found[0].verdict != "cuda-after-suspend"


def test_ollamas_driver_library_start_failure_is_a_curesult() -> None:
    line = (
        'msg="Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.575.57.08: '
        'cuda driver library init failure: 802"'
    )
    assert [(c.table, c.name) for c in codes_in(line)] == [("curesult", "CUDA_ERROR_SYSTEM_NOT_READY")]
