"""Round 28's training texts, read after the blind score (issue 35, i35j): the reasoning and rows each
one needed, on short lines of their own, each citing the round-28 text it stands for.

* A message read through a paste's marks: Markdown bold inside it, a comma typed for a library's dot.
* cuInit failing where the person wants CUDA off and no GPU is shown: harmless (no GPU expected).
* CUDA finding no device beside lspci's NVIDIA row, nothing hiding the GPU: no-device.
* 46, "busy or unavailable", on native Windows (WDDM: Default compute mode only) with no mode, no other
  work and no nvidia-smi shown: not sure, with nvidia-smi, never gpu-busy as if decided.
* Paddle's cuDNN warning with a pair PyTorch's own check refuses, and no run shown after it: the cause.
* "DLL load failed" beside cuDNN's folder said with %PATH% and its cuda\\bin: the cuDNN DLL not found.
"""

from __future__ import annotations

import re

import pytest

from tests import doctor_first
from wizard.doctor.catalogue import plain
from wizard.doctor.diagnose import harmful, match_output, recognised_in_output
from wizard.doctor.figures import cudnn_runtime_incompatible
from wizard.doctor.host_reason import DECIDE_BUSY
from wizard.doctor.reasoned import unsure

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


# ---- a paste's marks (bvlc/caffe#4225's bold; tonyyxliu/cuhksz-csc4005#69's comma) ----------------


def test_markdown_bold_inside_a_message_is_read_through() -> None:
    d = first(
        "F0527 syncedmem.hpp:18] Check failed: error == cudaSuccess (38 vs. 0)  no **CUDA-capable device is detected**\n"
    )
    assert d.id == "cuinit-failed" and d.harmful


def test_globs_three_stars_stay() -> None:
    assert plain("*** Check failure stack trace: ***") == "*** Check failure stack trace: ***"
    assert plain("make[2]: *** [Makefile:12] Error 1") == "make[2]: *** [Makefile:12] Error 1"


def test_a_comma_typed_for_a_librarys_dot_is_read_as_the_dot() -> None:
    text = "error while loading shared libraries: libcudart,so.11.0: cannot open shared object file: No such file or directory\n"
    assert first(text).id == "missing-cudart"
    assert plain("also,so it goes") == "also,so it goes"  # no library's name: left alone


# ---- cuInit where CUDA is not wanted (serengil/deepface#34) -------------------------------------

CUINIT = "2020-05-20 14:35:39.426369: E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)\n"


@pytest.mark.parametrize(
    "said",
    [
        "I would like to disable cuda support, is there how?",
        "How can I turn off CUDA completely?",
        "We don't need the GPU.",
        "我想禁用 cuda",
        "I would like to disable cuda support",  # the line's end ends it
    ],
)
def test_cuinit_where_cuda_is_said_unwanted_is_harmless(said: str) -> None:
    found = match_output(said + "\n" + CUINIT)
    d = found[0]
    assert d.id == "cuinit-failed" and not d.harmful and d.severity == "harmless"
    assert not recognised_in_output(found) and "failed call to cuInit" in d.evidence


@pytest.mark.parametrize(
    "said",
    [
        "I would like to disable cuda support, but my GeForce RTX 3060 should be used.",
        "I want to disable CUDA graphs in this model.",
        "How do I turn off the GPU fan?",
        "The run finished.",
    ],
)
def test_a_gpu_shown_or_another_wish_keeps_cuinit_harmful(said: str) -> None:
    d = first(said + "\n" + CUINIT)
    assert d.id == "cuinit-failed" and d.harmful


# ---- lspci's NVIDIA row beside no device (bvlc/caffe#4225) --------------------------------------

NO_DEVICE = "F0527 08:43:32.401912 27274 syncedmem.hpp:18] Check failed: error == cudaSuccess (38 vs. 0)  no CUDA-capable device is detected\n"
LSPCI = "00:03.0 VGA compatible controller: NVIDIA Corporation GK104GL [GRID K520] (rev a1)\n"


@pytest.mark.parametrize("failure", [NO_DEVICE, CUINIT])
def test_a_gpu_on_the_pci_bus_that_cuda_does_not_find_is_no_device(failure: str) -> None:
    d = first(failure + "Graphic card:\n" + LSPCI)
    assert d.id == "no-device" and d.harmful and "GRID K520" in d.why and d.line == 1


@pytest.mark.parametrize(
    "beside",
    [
        "",
        "export CUDA_VISIBLE_DEVICES=1\n",
        "docker run -it debian bash\n",
        "01:00.0 VGA compatible controller: Intel Corporation UHD 630\n",
    ],
)
def test_without_the_row_or_with_something_that_hides_it_the_answer_stays(beside: str) -> None:
    text = NO_DEVICE + beside + (LSPCI if "docker" in beside or "CUDA_VISIBLE" in beside else "")
    d = first(text)
    assert d.id in ("cuinit-failed", "no-device", "container-no-gpu") and d.harmful
    assert "PCI bus" not in d.why


# ---- 46 on native Windows (automatic1111/stable-diffusion-webui#2986) -----------------------------

BUSY = "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"


def test_46_on_windows_with_nothing_that_shows_its_cause_is_not_sure() -> None:
    found = match_output("Windows 10, an A5000.\n" + BUSY)
    assert not harmful(found) or all(d.id != "gpu-busy" for d in found)
    note = unsure(found)
    assert note is not None and note.fix.endswith(DECIDE_BUSY)


@pytest.mark.parametrize(
    "beside",
    [
        "Windows 10. Another process is already running on the GPU.\n",
        "Windows Server, the GPU is in TCC mode, compute mode Exclusive_Process.\n",
        "Windows 11, an RTX A5000 in MCDM.\n",  # not WDDM: another compute mode may be set there
        "",  # Linux or unsaid: the catalogue's answer, as held since round 21
    ],
)
def test_46_with_a_mode_other_work_or_off_windows_stays_gpu_busy(beside: str) -> None:
    assert first(beside + BUSY).id == "gpu-busy"


# ---- Paddle's cuDNN check (paddlepaddle/paddle#37349, #42566; paddlepaddle/paddleocr#997) ---------

PADDLE = (
    "The installed Paddle is compiled with CUDNN {built}, but CUDNN version in your machine is {machine}\n"
)


@pytest.mark.parametrize(
    ("built", "machine"), [("8.2", "8.1"), ("7.6", "7.5"), ("7.6", "8.0"), ("8.1", "7.6")]
)
def test_an_incompatible_pair_alone_is_the_cause(built: str, machine: str) -> None:
    found = match_output(PADDLE.format(built=built, machine=machine))
    assert found[0].id == "cudnn-version-mismatch" and recognised_in_output(found)


@pytest.mark.parametrize(("built", "machine"), [("8.1", "8.2"), ("7.3", "7.6")])
def test_a_newer_minor_of_the_same_major_is_a_note(built: str, machine: str) -> None:
    found = match_output(PADDLE.format(built=built, machine=machine))
    assert found[0].id == "cudnn-version-mismatch" and not recognised_in_output(found)


def test_paddle_running_on_after_it_is_a_note() -> None:
    found = match_output(PADDLE.format(built="8.2", machine="8.1") + "PaddlePaddle works well on 1 GPU.\n")
    assert not recognised_in_output(found)


def test_the_pair_is_judged_as_pytorch_judges_it() -> None:
    rx = re.compile(r"(?P<built>\S+) (?P<machine>\S+)")

    def refused(pair: str) -> bool:
        m = rx.fullmatch(pair)
        assert m is not None
        return cudnn_runtime_incompatible(m)

    assert refused("8.2 8.1") and refused("7.6 8.0") and refused("6.0 6.1")
    assert not refused("8.1 8.2") and not refused("8.9 8.9") and not refused("x 8.1")


# ---- DLL load failed beside cuDNN and %PATH% (tensorflow/tensorflow#10033) -----------------------

DLL = "ImportError: DLL load failed: The specified module could not be found.\n"
PATH_SAID = (
    "my `%PATH%` includes the directory I extracted my cuDNN download into. "
    "Do I need to add the `cuda\\bin` subdirectory because that's what the DLL is in?\n"
)


def test_dll_load_failed_beside_cudnns_folder_and_path_is_missing_cudnn() -> None:
    assert first(DLL + PATH_SAID).id == "missing-cudnn"


@pytest.mark.parametrize(
    "said",
    [
        "my `%PATH%` includes the directory I extracted my cuDNN download into.\n",  # no cuda\bin
        PATH_SAID + "It says cudart64_90.dll is missing.\n",  # another DLL named
        "I set the path for cuDNN in cuda\\bin.\n",  # 'path', not PATH
    ],
)
def test_without_all_of_it_or_with_another_dll_it_is_not_missing_cudnn(said: str) -> None:
    assert all(d.id != "missing-cudnn" for d in match_output(DLL + said))
