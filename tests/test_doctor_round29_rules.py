"""Round 29's training texts, read after the blind score (issue 35, i35k): the reasoning each one needed,
on short texts of their own, each citing the round-29 text it stands for.

* A machine said to have no GPU (also TensorFlow's issue template's "GPU model and memory: None") that
  shows none: CUDA_ERROR_NO_DEVICE in cuInit's own line, libcuda.so.1 not found, and a libcudart not
  loaded beside TensorFlow's own "Ignore above cudart dlerror" hint are what it prints: harmless.
* 35's words beside NVML failing to start, no driver version shown: a driver merely older than the
  runtime still starts NVML, so "driver too old" is not decided: not sure, with nvidia-smi.
* deviceQuery's "cudaGetDeviceCount returned 35" retold as "return 35": the code's documented meaning.
"""

from __future__ import annotations

import pytest

from tests import doctor_first
from wizard.doctor.diagnose import match_output, recognised_in_output
from wizard.doctor.host_reason import DECIDE_MEMORY, DECIDE_NVML
from wizard.doctor.reasoned import unsure

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


# ---- a machine said to have no GPU (tensorflow/tensorflow#57916, #45359) -------------------------

NO_DEVICE = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"


def test_cuinit_no_device_on_a_machine_said_to_have_no_gpu_is_harmless() -> None:
    found = match_output("I do not have a GPU and TF is showing me:\n\n" + NO_DEVICE)
    assert [d.id for d in found] == ["cuinit-failed"]
    assert not found[0].harmful and found[0].severity == "harmless"
    assert not recognised_in_output(found)


def test_cuinit_no_device_with_a_gpu_shown_keeps_its_reading() -> None:
    # The same words where the text names a GPU: the no-GPU statement no longer stands alone.
    found = match_output("I do not have a GPU working, my GeForce RTX 3060 says:\n" + NO_DEVICE)
    assert recognised_in_output(found)


def test_no_device_alone_keeps_its_reading() -> None:
    assert recognised_in_output(match_output(NO_DEVICE))


TF_CPU_HOST = (
    "- GPU model and memory: {gpu}\n\n"
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library "
    "'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open shared object file: No such file or directory\n"
    "{hint}"
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library "
    "'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    "W tensorflow/stream_executor/cuda/cuda_driver.cc:312] failed call to cuInit: UNKNOWN ERROR (303)\n"
)
HINT = (
    "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not "
    "have a GPU set up on your machine.\n"
)


@pytest.mark.parametrize("gpu", ["None", "none", "No GPU"])
def test_tf_template_gpu_none_with_the_stub_hint_is_harmless(gpu: str) -> None:
    found = match_output(TF_CPU_HOST.format(gpu=gpu, hint=HINT))
    assert found[0].id == "cuinit-failed" and not found[0].harmful
    assert not recognised_in_output(found)
    assert "missing-cudart" not in {d.id for d in found}


def test_without_the_stub_hint_a_missing_cudart_stays_harmful() -> None:
    # TensorFlow's own hint is what says that dlerror is no fault without a GPU.
    found = match_output(TF_CPU_HOST.format(gpu="None", hint=""))
    assert recognised_in_output(found)


@pytest.mark.parametrize("gpu", ["N/A", "RTX 3060 12GB", "None yet, waiting for a GTX 1080"])
def test_other_template_answers_say_nothing_of_the_machine(gpu: str) -> None:
    assert recognised_in_output(match_output(TF_CPU_HOST.format(gpu=gpu, hint=HINT)))


# ---- 35's words beside NVML failing to start (PaddlePaddle/FastDeploy#2390) -----------------------

INSUFFICIENT = (
    "W0303 09:57:36.731207 125 pinned_memory_manager.cc:236] Unable to allocate pinned system memory, "
    "pinned memory pool will not be available: CUDA driver version is insufficient for CUDA runtime version\n"
)


def test_insufficient_driver_beside_nvml_failing_is_not_sure() -> None:
    found = match_output("Error: Failed to initialize NVML\n" + INSUFFICIENT)
    assert "driver-too-old" not in {d.id for d in found}
    note = unsure(found)
    assert note is not None and note.fix.endswith(DECIDE_NVML)
    assert "Failed to initialize NVML" in note.evidence  # the fact read is listed beside the command


def test_insufficient_driver_alone_is_driver_too_old() -> None:
    assert first(INSUFFICIENT).id == "driver-too-old"


def test_nvml_with_a_reason_is_not_this_rule() -> None:
    # A reason after the colon is the catalogue's to read (a version mismatch is its own cause).
    found = match_output("Failed to initialize NVML: Driver/library version mismatch\n" + INSUFFICIENT)
    assert unsure(found) is None or "driver-too-old" not in {d.id for d in found}
    assert recognised_in_output(found)


def test_nvml_failing_with_the_driver_version_shown_keeps_driver_too_old() -> None:
    # nvidia-smi on the host shows the driver (and its CUDA): the version decides, not this rule.
    smi = "| NVIDIA-SMI 390.48                 Driver Version: 390.48                    |\n"
    text = smi + "Error: Failed to initialize NVML\n" + INSUFFICIENT
    found = match_output(text)
    assert found[0].id == "driver-too-old", [d.id for d in found]


# ---- deviceQuery's 35 retold (OE4T/meta-tegra#95) -------------------------------------------------


@pytest.mark.parametrize("said", ["cudaGetDeviceCount return 35 error", "cudaGetDeviceCount returned 35"])
def test_device_count_35_is_read_as_the_code(said: str) -> None:
    d = first(f"when I run the deviceQuery sample I just get a {said}.\n")
    assert d.id == "driver-too-old" and d.harmful


# ---- out-of-memory words alone (zigangzhao-ai/zte_img_denoise#5) ---------------------------------


@pytest.mark.parametrize(
    "said", ["CUDA out of memory\n\n请问您的显存是多大的？", "RuntimeError: CUDA out of memory\n"]
)
def test_out_of_memory_words_alone_are_not_sure_with_what_holds_the_memory(said: str) -> None:
    found = match_output(said)
    assert not recognised_in_output(found)  # neither the work's own use nor another holder is decided
    note = unsure(found)
    assert note is not None and note.fix.endswith(DECIDE_MEMORY)
    assert "CUDA out of memory" in note.evidence


def test_out_of_memory_with_pytorchs_figures_is_decided() -> None:
    text = (
        "CUDA out of memory. Tried to allocate 108.00 MiB (GPU 0; 5.79 GiB total capacity; 4.96 GiB already "
        "allocated; 145.19 MiB free; 4.96 GiB reserved in total by PyTorch)\n"
    )
    assert first(text).id == "tensor-oom"
