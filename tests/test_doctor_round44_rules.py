"""The doctor's rules from round 44's training side, each on a minimal text:

* "No kernel image" where the text names GPUs of different compute capabilities (a build made on an
  RTX 3090's machine, run on a 2080 Ti): which GPU met the build is not shown, so neither "too new"
  nor "too old" is named, only the command that decides.
* PyTorch's "Found no NVIDIA driver on your system" where the text says the machine has no GPU
  ("As I don't have GPU on my system, how can I run this code?": a statement before its question):
  no NVIDIA GPU here, the CPU is the answer; no driver to install.
* Both ONNX Runtime packages installed side by side (pip freeze) with the CPU device in use: the
  CPU package is what loads. A program's provider list without CUDA, then "Fallback to cpu", even
  where the paste wrapped the list.
* A label in another program's words (cpu-only-wheel-torch) is the catalogue id told in those words.
"""

from __future__ import annotations

from tests import doctor_first
from tests.test_doctor_corpus import says
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
NO_KERNEL = "CUDA Error: no kernel image is available for execution on the device\n"


def test_no_kernel_image_beside_two_gpus_of_different_capabilities_is_open() -> None:
    two = "I built darknet on my RTX3090 (cuda 11) and copied it to my old PC (RTX2080ti).\n" + NO_KERNEL
    d = first(two)
    assert (d.id, d.verdict) == ("unsupported-cc", "cover-open")
    assert "gpu-too-new" not in {x.id for x in match_output(two)}
    one = "It runs on my RTX3090 with a CUDA 10 build.\n" + NO_KERNEL
    assert first(one).id == "gpu-too-new"  # one GPU: the catalogue's reading stands


def test_no_driver_found_on_a_machine_said_to_have_no_gpu_is_no_gpu() -> None:
    text = (
        "AssertionError: \nFound no NVIDIA driver on your system. Please check that you\n"
        "have an NVIDIA GPU and installed a driver from\nhttp://www.nvidia.com/Download/index.aspx\n"
        "As I don't have GPU on my system, how can I run this code?\n"
    )
    d = first(text)
    assert (d.id, d.verdict, d.title) == (
        "no-nvidia-gpu",
        "no-nvidia-gpu-said",
        "No NVIDIA GPU on this machine",
    )
    asked = text.replace("As I don't have GPU on my system, how", "Do I not have a GPU on my system? How")
    assert first(asked).id == "no-device"  # a question says nothing of the machine
    shown = text + "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2 |\n"
    assert first(shown).id != "no-nvidia-gpu"  # a GPU shown: not this


def test_both_onnxruntime_packages_with_the_cpu_in_use_is_the_cpu_package() -> None:
    freeze = "$ pip freeze | grep onnxruntime\nonnxruntime==1.22.0\nonnxruntime-gpu==1.22.0\n"
    cpu = freeze + '$ python -c "import onnxruntime; print(onnxruntime.get_device())"\nCPU\n'
    d = first(cpu)
    assert d.id == "cpu-only-wheel" and "ONNX Runtime is the CPU package" in d.title
    assert not [x for x in match_output(freeze) if x.harmful]  # both listed, nothing used: nothing said
    failing = cpu + "Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.12\n"
    assert "ONNX Runtime is the CPU package" not in first(failing).title


def test_a_provider_list_without_cuda_then_fallback_to_cpu_even_wrapped() -> None:
    wrapped = (
        "Please compile with -DSHERPA_ONNX_ENABLE_GPU=ON. Available providers: AzureExe\n"
        "cutionProvider, CPUExecutionProvider, . Fallback to cpu!\n"
    )
    assert "ONNX Runtime is the CPU package" in first(wrapped).title
    with_cuda = "Available providers: CUDAExecutionProvider, CPUExecutionProvider, . Fallback to cpu!\n"
    assert not [x for x in match_output(with_cuda) if "ONNX Runtime is the CPU package" in x.title]


def test_a_label_in_pytorch_s_words_is_the_cpu_build_told_so() -> None:
    d = first('raise AssertionError("Torch not compiled with CUDA enabled")\n')
    assert d.id == "cpu-only-wheel" and says(d, "cpu-only-wheel-torch") and says(d, "cpu-only-wheel")
    tf = first(
        "Could not find cuda drivers on your machine, GPU will not be used.\nlist_physical_devices('GPU')\n"
    )
    assert tf.id == "cpu-only-wheel" and not says(tf, "cpu-only-wheel-torch")
