"""The doctor's rules from round 33's training side, each on a minimal text:

* PyTorch's "Tried to allocate R" whose own figures show far more free than R: no tensor too big is
  shown (invoke-ai/InvokeAI: 20 MiB asked, 6.59 GiB free): not sure, never tensor-oom.
* A library's floor said as an architecture ("FlashAttention only supports Ampere GPUs or newer"):
  a named GPU below it, or none named (the library read it), is too old; one at or above it is not.
* A container "image with GPU support", said in words, whose program finds no libcuda.so.1: the
  container was started without the GPU (tensorflow/serving).
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def oom(request: str, free: str) -> str:
    return (
        f"RuntimeError: CUDA out of memory. Tried to allocate {request} (GPU 0; 8.00 GiB total capacity; "
        f"5.00 GiB already allocated; {free} free; 5.10 GiB reserved in total by PyTorch)\n"
    )


def test_a_request_far_below_what_is_free_is_not_a_tensor_too_big() -> None:
    assert first(oom("20.00 MiB", "2.50 GiB")).id == "not-sure"
    assert first(oom("2.00 GiB", "1.50 GiB")).id == "tensor-oom"  # it did not fit
    assert first("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n").id == "tensor-oom"


def test_flash_attentions_architecture_floor_decides_by_the_gpu() -> None:
    said = "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n"
    d = first(said + "My graphics card is a 2080ti.\n")
    assert d.id == "unsupported-cc" and d.verdict == "cover-too-old" and "7.5" in d.why and "8.0" in d.why
    assert first(said).verdict == "cover-too-old"  # the library read the GPU itself
    assert first(said + "GPU: NVIDIA A100-SXM4-40GB\n").verdict != "cover-too-old"  # the A100 is Ampere


def test_a_gpu_image_said_in_words_without_libcuda_is_a_container_without_the_gpu() -> None:
    text = (
        "I built the docker image with GPU support. The image builds successfully, but:\n"
        "tensorflow_model_server: error while loading shared libraries: libcuda.so.1: cannot open shared "
        "object file: No such file or directory\n"
    )
    assert first(text).id == "container-no-gpu"
    assert all(d.id != "container-no-gpu" for d in match_output(text.replace(" with GPU support", "")))


def test_paddles_loader_not_finding_cudnn_is_missing_cudnn() -> None:
    # Round 34's training side (PaddlePaddle/Paddle#24953): the loader's own words.
    assert first("Error: Can not find library: libcudnn.so. The process maybe hang.\n").id == "missing-cudnn"
    assert first("Can not find library: libcublas.so\n").id == "missing-cudart"


def test_35_on_a_machine_said_to_have_no_gpu_is_no_gpu_not_an_old_driver() -> None:
    # cudaErrorInsufficientDriver is also what the runtime answers where no NVIDIA driver is there.
    said = "CUDA driver version is insufficient for CUDA runtime version\n"
    d = first("This machine has no GPU.\n" + said)
    assert d.id == "no-nvidia-gpu" and "35" in d.why
    assert (
        first("I do not have an NVIDIA GPU.\ncudaGetDeviceCount returned 35\n-> " + said).id
        == "no-nvidia-gpu"
    )
    # A driver shown, or the statement a question: the catalogue's reading stands.
    table = "| NVIDIA-SMI 418.87   Driver Version: 418.87   CUDA Version: 10.1 |\n"
    assert first("This machine has no GPU.\n" + said + table).id == "driver-too-old"
    assert first("Do I not have a GPU?\n" + said).id == "driver-too-old"
