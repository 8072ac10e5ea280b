"""The doctor's rules from round 43's training side, each on a minimal text:

* PyTorch 2.x's own range ("Minimum and Maximum cuda capability supported by this version of PyTorch
  is (7.0) - (12.0)") beside the GPU it found ("Found GPU0 Tesla P100-PCIE-16GB which is of cuda
  capability 6.0"): below the range the GPU is too old for the build, above it too new; inside it
  the range decides nothing.
* A GeForce number before its brand ("I use a 5090 RTX") is that card.
* darknet's bare "CUDA Error: out of memory" names the work's size only where the text shows it (a
  batch or subdivisions said, or nvidia-smi's memory near empty): at layer 0 on a GPU another
  process may hold, it is not sure.
* CUDA's 35 beside a driver/library mismatch whose sides are not shown: the mismatch only, with the
  command that shows which side is newer (never "update the driver" beside "reboot").
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.gpu_names import named_gpus

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
RANGE = "Minimum and Maximum cuda capability supported by this version of PyTorch is\n    (7.0) - (12.0)\n"


def test_pytorch_s_own_range_decides_too_old_and_too_new() -> None:
    p100 = "Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0.\n" + RANGE
    assert (first(p100).id, first(p100).verdict) == ("unsupported-cc", "cover-too-old")
    newer = "Found GPU0 NVIDIA B300 which is of cuda capability 12.1.\n" + RANGE.replace("(12.0)", "(9.0)")
    assert first(newer).id == "gpu-too-new"
    inside = "Found GPU0 NVIDIA GeForce RTX 3090 which is of cuda capability 8.6.\n" + RANGE
    assert not [d for d in match_output(inside) if d.harmful]


def test_a_geforce_number_before_its_brand_is_the_card() -> None:
    assert named_gpus("after a new install (I use a 5090 RTX)") == ["RTX 5090"]
    assert named_gpus("my 3060 GTX card") == ["RTX 3060"]  # named by its number, once
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n(I use a 5090 RTX)\n"
    assert first(text).id == "gpu-too-new"


def test_darknet_s_bare_out_of_memory_needs_the_work_s_size() -> None:
    bare = (
        ">     0 CUDA Error: out of memory\n> darknet: ./src/cuda.c:36: check_error: Assertion `0' failed.\n"
    )
    assert "tensor-oom" not in {d.id for d in match_output(bare) if d.harmful}
    assert first(bare + "it works after I set subdivisions=16\n").id == "tensor-oom"
    empty = bare + "|  0%   38C    P8    N/A / 120W |      0MiB /  4040MiB |      0%      Default |\n"
    assert first(empty).id == "tensor-oom"


def test_an_old_driver_beside_a_mismatch_of_unshown_sides_names_the_mismatch_only() -> None:
    """mattshma/bigdata#105: CUDA's 35 in the title, NVML's mismatch in the paste, the module's
    version in dmesg and the libraries' only in prose. The mismatch is certain and its sides decide
    its fix; "update the driver" would contradict that answer, so it is not given."""
    text = (
        "Check failed: error == cudaSuccess (35 vs. 0) CUDA driver version is insufficient for CUDA runtime version\n"
        "$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n"
        "[    2.618780] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  375.39  Tue Jan 31 20:47:00 PST 2017\n"
    )
    found = [d for d in match_output(text) if d.harmful]
    assert [(d.id, d.verdict) for d in found] == [("driver-library-mismatch", "driver-mismatch-one-side")]
    assert "cat /proc/driver/nvidia/version" in found[0].fix
