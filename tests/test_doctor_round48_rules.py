"""The doctor's rules from round 48's training side, each on a minimal text:

* "No kernel image" beside one GPU below compute capability 5.0 (Kepler, Fermi): too old for the
  build, whatever the build (a build too new for it would hold Fermi code alone: no CUDA since 9).
  A GPU between that and 8.0 stays open; the GPU table knows Kepler/Maxwell GeForce models.
* A build's floor as "sm_70+"; a program's own "GPU is too old ... Compute Capability detected: 5.2";
  AliceVision's "compute capabilities is not enough" with its requirement: too old.
* "My gpu is a 5070 ti": a GPU as people write it. "at least compute capability 2.0" is a
  requirement, never a GPU's figure, and AliceVision's "needs a CUDA-Enabled GPU" is a failure.
* "Torch not compiled with CUDA enabled" on a Mac (Mac mini, an app bundle's path): the Mac.
* A discrete AMD (or Intel Arc) GPU named as the machine's, no NVIDIA GPU shown: no NVIDIA GPU.
* ENOSPC (errno 28, "No space left on device"): low disk; shared memory is not.
* PyTorch not found for a 32-bit Python, or beside only its 0.1.2 placeholders: the Python.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def test_a_kepler_gpu_with_no_kernel_image_is_too_old_for_the_build() -> None:
    d = first("环境：Windows 10 22H2\\GPU：(N)GeForce GTX 650\n" + NO_KERNEL)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-too-old")
    assert "3.0" in d.why and "Fermi" in d.why
    k80 = first("The runtime uses a Tesla K80 GPU.\n" + NO_KERNEL)
    assert k80.verdict == "cover-too-old"
    # Pascal is too old for a new build or too new for an old one: open, with the command that decides.
    assert first("My GPU is a GeForce GTX 1060.\n" + NO_KERNEL).verdict == "cover-open"


def test_a_build_floor_written_sm_xy_plus_decides_a_gpu_below_it() -> None:
    text = (
        "PyTorch 2.9+ with CUDA 12.8, which only includes kernels for newer GPU architectures (sm_70+).\n"
        "Older GPUs like the GTX 1070 (Pascal, compute capability 6.1) get this error:\n" + NO_KERNEL
    )
    assert read_facts(text).build_minimum == "7.0"
    assert first(text).verdict == "cover-too-old"
    assert (
        first(text.replace("GTX 1070 (Pascal, compute capability 6.1)", "RTX 3060")).verdict
        != "cover-too-old"
    )


def test_a_program_s_own_too_old_check_with_the_capability_it_read() -> None:
    ollama = (
        "2024/01/14 19:50:06 gpu.go:94: Nvidia GPU detected\n"
        "2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. "
        "Compute Capability detected: 5.2\n"
    )
    assert first(ollama).verdict == "cover-too-old"
    alice = (
        "[02:06:25.958896][error] CUDA-Enabled GPU detected, but the compute capabilities is not enough.\n"
        "- Device 0: 2.1, global memory: 961MB\n"
        " - Requirements: 3.0, global memory: 0MB\n"
    )
    facts = read_facts(alice)
    assert (facts.build_minimum, facts.compute_capabilities) == ("3.0", ["2.1"])
    assert first(alice).verdict == "cover-too-old"


def test_a_gpu_written_after_gpu_is_a_and_a_requirement_that_is_no_gpu() -> None:
    d = first("My gpu is a 5070 ti cpu ryzen 7700x\n" + NO_KERNEL)
    assert d.id == "gpu-too-new" and "RTX 5070 Ti" in d.why
    needs = '"this program needs a CUDA-Enabled GPU (with at least compute capability 2.0)"\n'
    assert read_facts(needs).compute_capabilities == []
    assert first(needs + "But the graphic card is a GEFORCE GTX 1050 !!!?...\n").id == "no-device"


def test_torch_without_cuda_on_a_mac_is_the_mac() -> None:
    text = (
        "Mac mini M4\n"
        '  File "/Applications/ComfyUI.app/Contents/Resources/ComfyUI/execution.py", line 327, in execute\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert first(text).id == "macos"
    assert first(text.replace("Mac mini M4\n", "")).id == "macos"  # the app bundle's path alone
    plain = "AssertionError: Torch not compiled with CUDA enabled\n"
    assert first(plain).id == "cpu-only-wheel"


def test_an_amd_gpu_named_as_the_machine_s_is_no_nvidia_gpu() -> None:
    text = (
        "With  NITRO+ RX 5700 XT 8G\n"
        "[error] cudaGetDeviceCount failed: CUDA driver version is insufficient for CUDA runtime version\n"
    )
    d = first(text)
    assert d.id == "no-nvidia-gpu" and "RX 5700 XT" in d.why
    assert "driver-too-old" not in {x.id for x in match_output(text)}
    # An NVIDIA GPU shown beside it (a second card, an nvidia-smi row): the reading stands aside.
    both = text.replace("8G\n", "8G and an RTX 3060\n")
    assert first(both).id != "no-nvidia-gpu"
    # An integrated Radeon (a laptop's, beside its NVIDIA GPU) is not read as the machine's GPU.
    apu = text.replace("With  NITRO+ RX 5700 XT 8G", "AMD Ryzen 7 with Radeon Graphics")
    assert first(apu).id != "no-nvidia-gpu"


def test_no_space_left_on_device_is_low_disk() -> None:
    pip = (
        "  Downloading torch-2.0.1-cp38-cp38-manylinux1_x86_64.whl (619.9 MB)\n"
        "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n"
    )
    d = first(pip)
    assert d.id == "low-disk" and "TMPDIR" in d.fix
    shm = "OSError: [Errno 28] No space left on device: '/dev/shm/torch_12345'\n"
    assert "low-disk" not in {x.id for x in match_output(shm)}


def test_pytorch_not_found_for_this_python() -> None:
    bits = (
        "Python 3.10.6 (tags/v3.10.6:9c7b4bd, Aug  1 2022, 21:38:17) [MSC v.1932 32 bit (Intel)]\n"
        "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from versions: none)\n"
        "ERROR: No matching distribution found for torch==2.0.1\n"
    )
    assert first(bits).id == "python-unsupported"
    stubs = (
        "ERROR: Could not find a version that satisfies the requirement torch===1.4.0 "
        "(from versions: 0.1.2, 0.1.2.post1, 0.1.2.post2)\n"
        "ERROR: No matching distribution found for torch===1.4.0\n"
    )
    assert first(stubs).id == "python-unsupported"
    # "from versions: none" alone: an index not reached says the same; not decided.
    none = (
        "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from versions: none)\n"
    )
    assert "python-unsupported" not in {x.id for x in match_output(none)}
