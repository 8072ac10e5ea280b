"""The doctor's rules from round 40's training side, each on a minimal text:

* CUDA's "no kernel image is available" cut before "for execution on the device" (a title, a
  quote) is the same message; an "RTX 50 series" GPU is a GPU newer than a build without sm_120.
* PyTorch's CPU build is told in PyTorch's words (not TensorFlow's), with its own fix and no
  TensorFlow set "for this machine".
* ONNX Runtime's "Specified provider 'CUDAExecutionProvider' is not in available provider names" is
  its CPU package: the providers it offers are those it was built with. Where the list it prints
  holds CUDAExecutionProvider, it is not.
* The legacy-branch line as people retype it ("is supported by the 340.xx Legacy drivers", "The
  379.39 driver will ignore this GPU"): driver-drops-gpu.
* OpenCV's "(-216:No CUDA support) OpenCV was not built to work with the selected device" is its
  build without code for the GPU: the same "no code for this GPU" family, its side left open.
* A PyTorch build's CUDA (+cu118, "CUDA used to build PyTorch") below whose compiler floor the GPU
  lies (knowledge: nvcc_floor): too old for that build, whatever its list.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.diagnose import match_output
from wizard.text import t

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def test_the_cut_no_kernel_message_on_an_rtx_50_series_gpu_is_a_gpu_too_new() -> None:
    cut = "I'm getting the error 'RuntimeError: CUDA error: no kernel image is available' when generating.\n"
    assert first(cut + "I'm using an RTX 50 series GPU.\n").id == "gpu-too-new"
    assert first(NO_KERNEL + "on my RTX 50xx card\n").id == "gpu-too-new"
    # the GPU unnamed: the side stays open, the command that decides is given
    assert first(cut).verdict == "cover-open"


def test_pytorch_s_cpu_build_is_told_in_pytorch_s_words() -> None:
    d = first("AssertionError: Torch not compiled with CUDA enabled\n")
    assert d.id == "cpu-only-wheel"
    assert d.title == t("doctor.cpu-only-wheel-torch.title") and "PyTorch" in d.title
    assert "torch.cuda.is_available()" in d.fix and "tensorflow" not in d.fix.lower()
    assert d.for_this_machine == ""  # the wizard's TensorFlow set is not this text's fix
    plus_cpu = first("torch 2.1.0+cpu\nValueError: Invalid CUDA 'device=0' requested on my RTX 3060\n")
    assert plus_cpu.title == d.title


def test_onnx_runtime_without_its_cuda_provider_is_its_cpu_package() -> None:
    said = (
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names."
        "Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n"
    )
    d = first(said)
    assert d.id == "cpu-only-wheel" and "ONNX Runtime" in d.title
    assert "onnxruntime-gpu" in d.fix
    offered = said.replace(
        "'AzureExecutionProvider, CPUExecutionProvider'", "'CUDAExecutionProvider, CPUExecutionProvider'"
    )
    assert "cpu-only-wheel" not in {x.id for x in match_output(offered)}


def test_the_legacy_line_as_retyped_is_driver_drops_gpu() -> None:
    text = (
        'NVRM: "The GeForce 9400M GPU installed is supported by the 340.xx Legacy drivers. Please see ...."\n'
        'NVRM: "The 379.39 driver will ignore this GPU."\n'
    )
    assert first(text).id == "driver-drops-gpu"


def test_opencv_built_without_code_for_the_device_is_no_code_for_the_gpu() -> None:
    text = (
        "cv2.error: OpenCV(4.5.3) /tmp/opencv/modules/dnn/src/dnn.cpp:2385: error: (-216:No CUDA support) "
        "OpenCV was not built to work with the selected device. Please check CUDA_ARCH_PTX or CUDA_ARCH_BIN "
        "in your build configuration. in function 'initCUDABackend'\n"
    )
    d = first(text)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-open")


def test_a_gpu_below_its_build_s_cuda_compiler_floor_is_too_old() -> None:
    kb = load_knowledge()
    from packaging.version import Version

    assert [str(kb.nvcc_lowest(Version(c))) for c in ("9.2", "11.8", "12.1", "13.0")] == [
        "3.0",
        "3.5",
        "5.0",
        "7.5",
    ]
    too_old = first("torch 2.9.0+cu130\n" + NO_KERNEL + "GPU: GeForce GTX 1060\n")
    assert (too_old.id, too_old.verdict) == ("unsupported-cc", "cover-too-old")
    assert "13.0" in too_old.why and "7.5" in too_old.why
    assert "cuda-toolkit-release-notes" in too_old.seen_in  # the knowledge row that decided, cited
    said = first("CUDA used to build PyTorch: 11.8\n" + NO_KERNEL + "GPU 0 has compute capability 3.0\n")
    assert said.verdict == "cover-too-old"
    # at or above the floor the build's own list decides: open
    assert first("torch 2.9.0+cu128\n" + NO_KERNEL + "GPU: GeForce GTX 1060\n").verdict == "cover-open"
    # two builds named: which one ran is not shown
    two = first("torch 2.1.0+cu118, later torch 2.5.0+cu130\n" + NO_KERNEL + "GPU: GeForce GTX 1060\n")
    assert two.verdict == "cover-open"
