"""A Mac is read from what a text shows of it (a home under /Users, a MacBook prompt, "using Mac"),
and a GPU-only package pip cannot find there is the Mac's answer, not the Python's or the package's."""

from __future__ import annotations

import pytest

from tests.doctor_first import first_cause
from wizard.doctor.diagnose import match_output

TORCH_NO_CUDA = (
    '  File "{home}/env/lib/python3.10/site-packages/torch/cuda/__init__.py", line 289, in _lazy_init\n'
    '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
    "AssertionError: Torch not compiled with CUDA enabled\n"
)
PIP_GPU = (
    "(dt) {prompt}:project me$ pip install -r requirements.txt\n"
    "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.5.0"
    " (from versions: 0.12.1, 1.0.0, 1.0.1, 1.1.0)\n"
    "ERROR: No matching distribution found for tensorflow-gpu==2.5.0\n"
)


@pytest.mark.parametrize("home", ["/Users/ann/pinokio/app", "/Volumes/SSD/sd-webui"])
def test_a_mac_home_or_disk_makes_torch_without_cuda_the_macs_answer(home: str) -> None:
    assert first_cause(TORCH_NO_CUDA.format(home=home)) == "macos"


@pytest.mark.parametrize(
    "home", ["C:/Users/ann/app", "/mnt/c/Users/ann/app", "/c/Users/ann/app", "/home/ann/app"]
)
def test_windows_homes_and_linux_are_not_a_mac(home: str) -> None:
    assert first_cause(TORCH_NO_CUDA.format(home=home)) == "cpu-only-wheel"


def test_saying_using_mac_is_a_mac() -> None:
    text = "I'm using Mac and trying to run this model.\n" + TORCH_NO_CUDA.format(home="/opt/app")
    assert first_cause(text) == "macos"


def test_a_mac_address_is_not_a_mac() -> None:
    text = "using MAC address filtering on the router\n" + TORCH_NO_CUDA.format(home="/opt/app")
    assert first_cause(text) == "cpu-only-wheel"


def test_pip_finding_no_tensorflow_gpu_on_a_macbook_is_the_mac() -> None:
    found = match_output(PIP_GPU.format(prompt="Admins-MacBook-Pro"))
    assert found[0].id == "macos"
    assert "tensorflow-gpu==2.5.0" in found[0].evidence
    assert not {"python-unsupported", "tensorflow-gpu-removed"} & {d.id for d in found}


def test_the_same_pip_failure_on_linux_is_not_called_a_mac() -> None:
    assert first_cause(PIP_GPU.format(prompt="student@lab-pc")) not in ("macos", "")


def test_saying_a_mac_has_no_cuda_is_a_mac() -> None:
    text = "I installed every package, but Mac doesn't have cuda and I got this error:\n"
    assert first_cause(text + "AssertionError: Torch not compiled with CUDA enabled\n") == "macos"


def test_a_dylib_the_driver_library_cannot_load_is_a_mac() -> None:
    text = (
        "julia> CUDA.versioninfo()\n┌ Error: Error during initialization of CUDA.jl\n"
        '│    could not load library "libcuda"\n│    dlopen(libcuda.dylib, 1): image not found\n'
    )
    assert first_cause(text) == "macos"
    # The same words from Linux ("libcuda.so") are no Mac.
    assert (
        first_cause(text.replace("dlopen(libcuda.dylib, 1): image not found", "libcuda.so: cannot open"))
        != "macos"
    )
