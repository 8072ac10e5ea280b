"""The doctor's rules from round 41's training side, and one from CUDA's own compatibility rules,
each on a minimal text:

* RAPIDS' floor on import ("A GPU with NVIDIA Pascal™ (Compute Capability 6.0) or newer architecture
  is required" beside "Detected Compute Capability: 5.2"), a program's "kernel requires 5.0
  capability" beside a Tesla K80 (3.7), and RAPIDS' PTX check ("missing the necessary PTX files that
  are <=50"): the GPU is below the build's floor, too old for it.
* The providers list ONNX Runtime's CPU package prints (['AzureExecutionProvider',
  'CPUExecutionProvider']) where the text wants CUDAExecutionProvider: its CPU package.
* "cudaGetErrorString symbol not found" (TensorFlow's and jaxlib's runtime stub: the CUDA runtime
  was not loaded) names no old driver: its threads' causes differ (an old driver, a CUDA 11 build on
  CUDA 12 libraries).
* CUDA's 35 beside a driver that runs the program's CUDA (minor-version compatibility: a 12.x runtime
  on 525.60.13 and later on Linux), or every CUDA (the newest major's floor): not the driver's age,
  so not "update the driver"; not sure, with what the program's own environment shows.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
INSUFFICIENT = "CUDA driver version is insufficient for CUDA runtime version\n"


def test_a_gpu_below_a_rapids_or_program_floor_is_too_old_for_it() -> None:
    rapids = (
        "UserWarning: A GPU with NVIDIA Pascal™ (Compute Capability 6.0) or newer architecture is required.\n"
        "Detected GPU 0: Tesla M60\nDetected Compute Capability: 5.2\n"
    )
    assert (first(rapids).id, first(rapids).verdict) == ("unsupported-cc", "cover-too-old")
    above = rapids.replace("Compute Capability: 5.2", "Compute Capability: 7.0")
    assert all(x.verdict != "cover-too-old" for x in match_output(above))  # at or above the floor
    kernel = "[2020-09-08] GPU #0: FATAL: the 't' kernel requires 5.0 capability!\non a TESLA K80 gpu\n"
    assert first(kernel).verdict == "cover-too-old"
    ptx = "RuntimeError: This cuDF installation is missing the necessary PTX files that are <=50.\n"
    d = first(ptx)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old") and "5.0" in d.why


def test_the_cpu_package_s_provider_list_beside_a_cuda_provider_wanted() -> None:
    shown = "ONNX Runtime Providers:\n  • ['AzureExecutionProvider', 'CPUExecutionProvider']\n"
    wanted = "⚠️  CUDAExecutionProvider not available — ONNX will fall back to CPU.\n"
    d = first(shown + wanted)
    assert d.id == "cpu-only-wheel" and "ONNX Runtime" in d.title
    assert "cpu-only-wheel" not in {x.id for x in match_output(shown)}  # no CUDA asked for: nothing


def test_the_runtime_stub_s_symbol_not_found_names_no_old_driver() -> None:
    text = "InternalError: cudaGetDevice() failed. Status: cudaGetErrorString symbol not found.\n"
    assert "driver-too-old" not in {d.id for d in match_output(text) if d.harmful}


def test_35_beside_a_driver_that_runs_the_program_s_cuda_is_not_sure() -> None:
    served = (
        INSUFFICIENT + "libcudart.so.12\nNVIDIA-SMI 550.78   Driver Version: 550.78   CUDA Version: 12.4\n"
    )
    d = first(served)
    assert d.id == "not-sure"
    assert "550.78" in d.why and "525.60.13" in d.why and "ldconfig -p | grep libcuda" in d.fix
    assert "driver-too-old" not in {x.id for x in match_output(served) if x.harmful}
    # below the runtime's floor the driver is too old, as 35 says
    old = INSUFFICIENT + "libcudart.so.12\nDriver Version: 470.82.01    CUDA Version: 11.4\n"
    assert first(old).id == "driver-too-old"
    # the program's CUDA not shown: only a driver that runs every CUDA rules 35's meaning out
    assert first(INSUFFICIENT + "Driver Version: 550.78    CUDA Version: 12.4\n").id == "driver-too-old"
    every = first(INSUFFICIENT + "NVIDIA-SMI 580.82.07   Driver Version: 580.82.07   CUDA Version: 13.0\n")
    assert every.id == "not-sure" and "580" in every.why
