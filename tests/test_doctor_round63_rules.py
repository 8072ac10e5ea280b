"""Rules written from round 63's training texts (its held-out third was scored blind first), each on
the words the real reports use."""

from __future__ import annotations

from tests.doctor_first import english, first, first_cause  # noqa: F401  (english: the autouse fixture)


def test_wsl1s_kernel_string_is_wsl1_even_where_the_person_believes_wsl2() -> None:
    # microsoft/WSL#5644: "(Should be version 2) Linux version 4.4.0-19041-Microsoft".
    text = (
        "Whether the issue is on WSL 2 and/or WSL 1: (Should be version 2) Linux version "
        "4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1-Microsoft\n"
        "I've apt-get installed cuda, but nvidia-smi is not working. lspci gives no output.\n"
    )
    assert first_cause(text) == "wsl1"
    # WSL 2's kernel, and the same string where the text is not about the GPU, are not WSL 1's answer.
    wsl2 = text.replace("4.4.0-19041-Microsoft", "5.15.153.1-microsoft-standard-WSL2")
    assert first_cause(wsl2) != "wsl1"
    assert first_cause("Linux version 4.4.0-19041-Microsoft\nbash: make: command not found\n") != "wsl1"


def test_tensorrts_cuda_initialization_failure_reads_the_runtimes_number() -> None:
    # vbanakha/edgePtychoNN#5, lewes6369/TensorRT-Yolov3#61: 35 is cudaErrorInsufficientDriver.
    for line in (
        "  what():  CUDA initialization failure with error: 35. Please check your CUDA installation",
        "ERROR: Cuda initialization failure with error 35. Please check cuda installation",
    ):
        assert first_cause(line + "\n") == "driver-too-old", line


def test_uvs_no_wheel_for_this_python_is_the_python() -> None:
    # Physical-Intelligence/openpi#907 (the index's address left out here).
    text = (
        "error: Distribution tensorflow-cpu==2.15.0 @ registry+https://example.invalid/simple can't be "
        "installed because it doesn't have a source distribution or wheel for the current platform\n"
        "hint: You're using CPython 3.12 (cp312), but tensorflow-cpu (v2.15.0) only has wheels with the "
        "following Python ABI tag: cp311\n"
    )
    assert first(text).id == "python-unsupported"
    # A Python that release takes: the platform, not the Python, is why (nothing named for the Python).
    fits = text.replace("CPython 3.12 (cp312)", "CPython 3.11 (cp311)")
    assert first_cause(fits) != "python-unsupported"


def test_fedoras_module_missing_beside_secure_boot_enabled_is_secure_boot() -> None:
    # fady-saied/Nvidia-Fedora-Guide#6.
    text = "NVIDIA kernel module missing\n\nmy system:\n- secure boot enabled\n- disk encryption enabled\n"
    assert first_cause(text) == "secure-boot-module"
    assert first_cause(text.replace("- secure boot enabled\n", "")) != "secure-boot-module"
