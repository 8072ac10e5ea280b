"""Round 27's training texts, read after the blind score (issue 35, i35i): the reasoning each one
needed (wizard.doctor.host_facts / host_reason), on short lines of their own, each citing the
round-27 text it stands for.

* cuInit failing where the text says the machine has no GPU and shows none is what CUDA answers
  there: the catalogue's harmless cuinit-failed, whatever words say it; a GPU shown keeps it harmful.
* A driver/library mismatch with neither version and no update said: which side is newer is open, so
  the one-side verdict with the command that shows both, never "reboot" as if decided.
* PyTorch's "driver on your system is too old (found version N)": N is the driver's CUDA
  (cudaDriverGetVersion), judged against the build's CUDA by Choose's floor (judge.cuda_floor).
* WSL2, the Windows driver shown, and the failure tied to a driver release in words: that release.
* Two Jupyter kernels said to run, each using the GPU, beside out of memory: memory another holds.
"""

from __future__ import annotations

import pytest

from tests import doctor_first
from wizard.doctor.diagnose import harmful, match_output, recognised_in_output
from wizard.doctor.facts import read_facts
from wizard.doctor.host_facts import cuda_of_driver_api
from wizard.doctor.host_reason import DECIDE_TORCH_CUDA
from wizard.doctor.reason import DECIDE_MISMATCH
from wizard.doctor.reasoned import unsure
from wizard.text import set_language

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


# ---- cuInit on a machine said to have no GPU (tensorflow/tensorflow#37689) ---------------------

CUINIT = "E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: UNKNOWN ERROR (303)\n"


@pytest.mark.parametrize(
    "said",
    [
        "On a machine *without* a GPU, importing tensorflow prints this.",
        "This node has no GPU, and the job runs on.",
        "We run it on a CPU-only server.",
        "I don't have an NVIDIA GPU.",
    ],
)
def test_cuinit_where_the_machine_is_said_to_have_no_gpu_is_harmless(said: str) -> None:
    found = match_output(said + "\n" + CUINIT)
    d = found[0]
    assert d.id == "cuinit-failed" and not d.harmful and d.severity == "harmless"
    assert not recognised_in_output(found) and "failed call to cuInit" in d.evidence


def test_the_reason_names_what_was_said() -> None:
    # Words the catalogue's context row does not hold: the reasoning reads the fact and says it.
    d = first("On a machine *without* a GPU, importing tensorflow prints this.\n" + CUINIT)
    assert "machine without a GPU" in d.why and not d.harmful


@pytest.mark.parametrize(
    "said",
    [
        "On a machine without a GPU this is fine, but here my GeForce RTX 3060 is not used.",
        "If you are running on a CPU-only machine, please use torch.load with map_location.",
        "The machine without a GPU driver fails.",
        "Does it fail on a machine without a GPU?",
    ],
)
def test_a_gpu_shown_a_condition_or_a_question_keeps_cuinit_harmful(said: str) -> None:
    d = first(said + "\n" + CUINIT)
    assert d.id == "cuinit-failed" and d.harmful


# ---- a mismatch with neither side's version (Syllo/nvtop#95) ----------------------------------

NVTOP = "Impossible to initialize nvidia nvml : Driver/library version mismatch\n"


def test_a_mismatch_with_no_version_says_the_question_and_the_command() -> None:
    found = match_output(NVTOP + "I am using the latest proprietary Nvidia driver and a GTX 1650.\n")
    d = found[0]
    assert d.id == "driver-library-mismatch" and d.verdict == "driver-mismatch-one-side"
    assert d.fix.endswith(DECIDE_MISMATCH) and "neither" in d.why
    assert all("sudo reboot" not in x.fix for x in found)


@pytest.mark.parametrize(
    "said",
    [
        "It started after an automatic driver update.",
        "Rebooting fixed it.",
        "I updated the nvidia driver.",
        "After upgrading the nvidia drivers on the host, tasks fail.",
        "I think rebooting the server somehow fix the problem.",
        "服务器更新 nvidia driver 后遇到以下问题",
    ],
)
def test_an_update_said_beside_it_leaves_the_reboot(said: str) -> None:
    d = first(NVTOP + said + "\n")
    assert d.id == "driver-library-mismatch" and d.verdict == "" and d.fix == "sudo reboot"


# ---- PyTorch's "found version" (pytorch/pytorch#920, #1564, #52675; googlecolab/colabtools#1773) --


def test_the_found_version_is_the_drivers_cuda() -> None:
    assert [cuda_of_driver_api(n) for n in (6000, 8000, 10010, 11040, 12080)] == [
        "6.0",
        "8.0",
        "10.1",
        "11.4",
        "12.8",
    ]


def test_the_message_cut_before_the_is_read_and_decided() -> None:
    d = first("**error info:** NVIDIA driver on your system is too old (found version 6000)....\n")
    assert d.id == "driver-too-old" and d.harmful
    assert "6.0" in d.why and "6000" in d.why and d.line == 1


def test_the_builds_cuda_names_the_floor_choose_uses() -> None:
    text = (
        "CUDA used to build PyTorch: 11.8\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 10010).\n"
    )
    d = first(text)
    assert d.id == "driver-too-old"
    assert "10.1" in d.why and "11.8" in d.why and "450.80.02" in d.why


def test_a_build_the_driver_serves_makes_it_not_sure() -> None:
    # CUDA 10.2's build on a driver of CUDA 11.4 runs: another libcuda answered PyTorch.
    text = (
        "CUDA used to build PyTorch: 10.2\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n"
    )
    found = match_output(text)
    assert "driver-too-old" not in {d.id for d in harmful(found)}
    note = unsure(found)
    assert note is not None and note.fix.endswith(DECIDE_TORCH_CUDA)
    assert "11.4 (11040)" in note.evidence


# ---- WSL2 and a driver release blamed (microsoft/WSL#11277, #11870) --------------------------

WSL_SMI = (
    "5.15.153.1-microsoft-standard-WSL2 #1 SMP Fri Mar 29 23:14:13 UTC 2024 x86_64 GNU/Linux\n"
    "| NVIDIA-SMI 560.28.03              Driver Version: 560.76         CUDA Version: 12.6     |\n"
)


def test_wsl2_and_a_failure_tied_to_the_driver_release_is_that_release() -> None:
    d = first("Still problem exists with 560 drivers\n" + WSL_SMI)
    assert d.id == "wsl-windows-driver" and "560.76" in d.why + d.fix
    assert "Still problem exists with 560 drivers" in d.evidence


def test_updating_that_did_not_help_blames_no_release() -> None:
    # "still exists with the latest drivers" says an update did not mend it, not that a release broke it.
    found = match_output("The issue still exists with the latest drivers\n" + WSL_SMI)
    assert "wsl-windows-driver" not in {d.id for d in found}


def test_the_same_words_without_wsl2_name_no_windows_driver() -> None:
    found = match_output(
        "Still problem exists with 560 drivers\n"
        "| NVIDIA-SMI 560.28.03              Driver Version: 560.28.03      CUDA Version: 12.6     |\n"
    )
    assert "wsl-windows-driver" not in {d.id for d in found}


def test_a_game_ready_driver_named_beside_wsl2s_segfault_is_the_windows_driver() -> None:
    text = (
        "### Are you using WSL 1 or WSL 2?\n- [X] WSL 2\n"
        "Nvidia Game Ready Driver Version: 560.7\n"
        "The newer drivers are giving the error segmentation fault when nvidia-smi is executed in wsl\n"
    )
    assert read_facts(text).setup.windows_driver == "560.7"
    d = first(text)
    assert d.id == "wsl-windows-driver" and "560.7" in d.why
    assert "nvidia-smi nvidia-smi" not in d.why


# ---- two Jupyter kernels on one GPU (NVIDIA/cudf#6773) ---------------------------------------

CUDF_OOM = (
    "MemoryError: std::bad_alloc: CUDA error at: ../include/rmm/mr/device/cuda_memory_resource.hpp:68: "
    "cudaErrorMemoryAllocation out of memory\n"
)


def test_two_kernels_each_using_the_gpu_hold_its_memory() -> None:
    d = first("it only comes up if I have 2 kernels running and I am using cudf in both\n" + CUDF_OOM)
    assert d.id == "memory-held"


def test_the_message_alone_is_not_memory_held() -> None:
    assert all(d.id != "memory-held" for d in match_output(CUDF_OOM))


# ---- the words in Chinese --------------------------------------------------------------------


def test_the_new_reasons_read_in_chinese() -> None:
    set_language("zh")
    d = first("On a machine without a GPU:\n" + CUINIT)
    assert "这台机器没有 GPU" in d.why
    d = first(NVTOP)
    assert "哪一边更新" in d.why
    d = first("NVIDIA driver on your system is too old (found version 8000)\n")
    assert "驱动支持的 CUDA 是 8.0" in d.why


# ---- nvidia-smi's "No devices were found" quoted in a reply (NVIDIA/open-gpu-kernel-modules#862) ----


def test_no_devices_found_quoted_in_a_reply_is_still_read() -> None:
    for text in ("# nvidia-smi\nNo devices were found\n", "> # nvidia-smi\n> No devices were found\n"):
        assert first(text).id == "no-device"
    assert all(d.id != "no-device" for d in match_output("> No devices were found in the list, it says\n"))
