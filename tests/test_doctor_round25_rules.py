"""Round 25's training texts, read after the blind score (issue 35, i35g): the reasoning each one
needed, on short lines, each line cited from the round-25 text it stands for.

* "No kernel image" names too old or too new only where the text's facts decide it: the GPU's
  compute capability from its name as people write it (the GPU table, by model), the build's code
  (detectron2's arch flags, a build compiled on another GPU); otherwise cover-open with the command
  that decides.
* Libraries older than the running module are driver-userspace-older (a reboot does not mend it).
* nvidia-smi crashing in WSL2 is the Windows driver's release; a Mac that says CUDA is not there is macOS.
* Paddle's start-up note ranks after the CUDA library it failed to load; a message wrapped inside its
  code span is read glued.
"""

from __future__ import annotations

import pytest

from tests import doctor_first
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts
from wizard.doctor.gpu_names import built_on, named_gpus, table_cc
from wizard.doctor.judge import DECIDE_CC, DECIDE_TORCH_BUILD
from wizard.text import set_language

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


def harmful(text: str) -> list[str]:
    return [d.id for d in match_output(text) if d.harmful]


# ---- GPU names as people write them ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "cc"),
    [
        ("显卡：5070Ti提示出错", "RTX 5070 Ti", "12.0"),  # duixcom/duix-avatar#283
        ("5090显卡无法运行", "RTX 5090", "12.0"),  # jianchang512/parakeet-api#5
        ("- Gpu: 5060ti 16gb", "RTX 5060 Ti", "12.0"),  # jamiepine/voicebox#395 (no 5060 Ti row: the 5060's)
        ("2070super", "RTX 2070 SUPER", "7.5"),  # iperdance/ipercore#47
        ("with tesla v100 graphic card", "Tesla V100", "7.0"),  # yanwenkun/hunyuan3d-2-winportable#67
        ("GPU 0,1,2,3,4,5,6,7     Tesla P40", "Tesla P40", "6.1"),  # facebookresearch/detectron2#251
        ("NVIDIA GeForce GTX1080ti", "GTX 1080 Ti", "6.1"),
    ],
)
def test_a_gpu_written_loosely_is_read_and_the_gpu_table_gives_its_capability(
    text: str, name: str, cc: str
) -> None:
    assert named_gpus(text) == [name]
    assert str(table_cc(name, load_knowledge())) == cc


@pytest.mark.parametrize(
    "text", ["port 5090 is open", "I have 2070 apples", "took 3090 ms", "version 4090.1", "step 1080 of 2000"]
)
def test_a_model_number_alone_is_no_gpu(text: str) -> None:
    assert named_gpus(text) == []


def test_a_model_whose_table_rows_disagree_has_no_capability() -> None:
    # Quadro RTX 4000 is 7.5, RTX 4000 Ada 8.9: "RTX 4000" alone decides nothing.
    assert named_gpus("my RTX 4000") == ["RTX 4000"]
    assert table_cc("RTX 4000", load_knowledge()) is None


# ---- "no kernel image": the direction only where the facts decide it ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        "显卡：5070Ti提示出错：\n音频特征提取失败，异常信息:[CUDA error: no kernel image is available for execution on the device\n",
        "CUDA error: no kernel image is available for execution on the device\n- Gpu: 5060ti 16gb\n- OS: Win 11\n",
    ],
)
def test_a_blackwell_gpu_written_loosely_is_newer_than_the_build(text: str) -> None:
    # duixcom/duix-avatar#283, jamiepine/voicebox#395: 12.0 is above every build's lowest code.
    d = first(text)
    assert d.id == "gpu-too-new" and "12.0" in d.why and "newer than this build" in d.why
    assert "unsupported-cc" not in harmful(text)


@pytest.mark.parametrize(
    "text",
    [
        "Error in forward_face_index_map_1: no kernel image is available for execution on the device\n"
        "Win10系统\n2070super\nDriver Version: 460.89\nCUDA Version: 11.2\n",  # iperdance/ipercore#47
        "facing this issue when trying to run this program on winserver2019 with tesla v100 graphic card\n"
        "Status Message: CUDA error cudaErrorNoKernelImageForDevice:no kernel image is available for "
        "execution on the device\n",  # yanwenkun/hunyuan3d-2-winportable#67
    ],
)
def test_a_turing_or_volta_gpu_and_no_build_leave_the_direction_open(text: str) -> None:
    # 7.5 and 7.0: too old for a CUDA 13 build, too new for a CUDA 8 one: the build's list decides.
    d = first(text)
    assert d.id == "unsupported-cc" and d.verdict == "cover-open"
    assert "too old and too new cannot be told apart" in d.why
    assert "gpu-too-new" not in harmful(text)


def test_no_gpu_at_all_asks_for_the_gpus_capability() -> None:
    d = first(NO_KERNEL)
    assert d.verdict == "cover-open" and DECIDE_CC in d.fix


def test_a_named_gpu_with_no_build_asks_for_the_builds_list() -> None:
    d = first("PyTorch on my tesla v100 graphic card\n" + NO_KERNEL)
    assert d.verdict == "cover-open" and DECIDE_TORCH_BUILD in d.fix


def test_detectron2s_arch_flags_above_the_gpu_are_too_old() -> None:
    # facebookresearch/detectron2#251: built for sm_70, run on Tesla P40 (6.1).
    text = (
        "error in modulated_deformable_col2im_cuda: no kernel image is available for execution on the device\n"
        "detectron2 arch flags   sm_70\nGPU 0,1,2,3,4,5,6,7     Tesla P40\n"
    )
    d = first(text)
    assert d.id == "unsupported-cc" and d.verdict == "cover-too-old"
    assert "6.1" in d.why and "7.0" in d.why


def test_a_build_of_ones_own_that_left_the_gpu_out_is_a_gap_not_too_new() -> None:
    # facebookresearch/detectron2#1621: compiled here for sm_37 alone, run on a V100 (7.0).
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device "
        "(ROIAlign_forward_cuda at /home/ubuntu/detectron2/detectron2/layers/csrc/ROIAlign/ROIAlign_cuda.cu:365)\n"
        "detectron2 arch flags   sm_37\nGPU 0                   Tesla V100-SXM2-16GB\n"
    )
    d = first(text)
    assert d.verdict == "cover-gap" and "TORCH_CUDA_ARCH_LIST" in d.fix
    assert "gpu-too-new" not in harmful(text)


def test_a_build_compiled_on_an_a100_run_on_a_v100_is_too_old_for_it() -> None:
    # open-mmlab/mmcv#2201: "When I use A100 compile mmcv ... but use V100".
    text = (
        "When I use A100 compile mmcv through the source code, used MMCV_WITH_OPS = 1 python install -e . "
        "on Linux. I repeated the above operation under this directory, but use V100, then I encountered "
        "this error.\nCUDA error: no kernel image is available for execution on the device\n"
    )
    assert built_on(text) == ("A100", "Tesla V100")
    d = first(text)
    assert d.verdict == "cover-too-old" and "8.0" in d.why and "7.0" in d.why
    assert "gpu-too-new" not in harmful(text)


def test_an_ampere_gpu_under_a_build_of_ones_own_is_not_called_too_new() -> None:
    # tensorflow/tensorflow#47058 (round 1): TF compiled here for 7.0, run on an A100.
    text = "I'm compiling TF for our cluster with a 10.1 toolkit.\nThe A100 GPUs used have 8.0.\n" + NO_KERNEL
    assert first(text).id == "unsupported-cc"
    assert "gpu-too-new" not in harmful(text)


# ---- the other causes --------------------------------------------------------------------------


def test_libraries_older_than_the_running_module_are_driver_userspace_older() -> None:
    # tensorflow/tensorflow#22525: libcuda 375.66 beside kernel module 384.130.
    text = (
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_NO_DEVICE\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: 375.66.0\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported version is: 384.130.0\n"
    )
    d = first(text)
    assert d.id == "driver-library-mismatch" and d.verdict == "driver-userspace-older"
    assert d.title == "Old NVIDIA driver libraries beside a newer running driver"


def test_nvidia_smi_crashing_in_wsl2_is_the_windows_drivers_release() -> None:
    # nevuly/wsl2-linux-kernel-rolling#13: WSL2's nvidia-smi (555.42.03) beside Windows driver 555.85.
    text = (
        "| NVIDIA-SMI 555.42.03              Driver Version: 555.85         CUDA Version: 12.5     |\n"
        "[1]    494 segmentation fault  nvidia-smi\n"
    )
    d = first(text)
    assert d.id == "wsl-windows-driver" and d.line == 2
    assert "555.85" in d.why and "555.85" in d.fix and "/usr/lib/wsl/lib" in d.why


def test_nvidia_smi_crashing_on_native_linux_is_not_called_a_windows_driver() -> None:
    text = (
        "| NVIDIA-SMI 555.42.02              Driver Version: 555.42.02      CUDA Version: 12.5     |\n"
        "[1]    494 segmentation fault  nvidia-smi\n"
    )
    assert "wsl-windows-driver" not in [d.id for d in match_output(text)]


def test_a_mac_that_says_cuda_is_not_there_is_macos() -> None:
    # mouseland/cellpose#809.
    text = (
        "Im running cell pose locally on my Mac laptop (CPU). I start getting the message in the terminal "
        "window - TORCH CUDA version not installed/working. Does it matter or can I ignore it?\n"
    )
    d = first(text)
    assert d.id == "macos" and "10.2" in d.why and "CPU" in d.why


def test_cuda_not_installed_without_a_mac_is_not_macos() -> None:
    assert "macos" not in [d.id for d in match_output("TORCH CUDA version not installed/working\n")]


def test_paddles_start_up_note_ranks_after_the_cudnn_it_could_not_load() -> None:
    # paddlepaddle/paddledetection#5795: a 3060 under runtime 10.2, and libcudnn.so not found.
    text = (
        "I0421 22:18:47.915304 58190 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 8.6, "
        "Driver API Version: 11.6, Runtime API Version: 10.2\n"
        "W0421 22:18:47.915446 58190 dynamic_loader.cc:287] The third-party dynamic library (libcudnn.so) that "
        "Paddle depends on is not configured correctly. (error code is /usr/local/cuda/lib64/libcudnn.so: cannot "
        "open shared object file: No such file or directory)\n"
    )
    assert harmful(text)[:2] == ["missing-cudnn", "gpu-too-new"]


def test_a_quoted_message_wrapped_inside_its_code_span_is_read() -> None:
    # tensorflow/docs#2251.
    text = (
        "I was hitting an error, `Loaded runtime CuD\n"
        "NN library: 8.1.0 but source was compiled with: 8.6.0.`\n"
    )
    assert first(text).id == "cudnn-version-mismatch"


def test_a_break_outside_a_code_span_is_not_glued() -> None:
    assert "cudnn-version-mismatch" not in harmful(
        "I was hitting an error, Loaded runtime CuD\nNN library: 8.1.0\n"
    )


# ---- Chinese ----------------------------------------------------------------------------------


def test_the_new_verdicts_speak_chinese() -> None:
    set_language("zh")
    too_new = first(
        "CUDA error: no kernel image is available for execution on the device\n- Gpu: 5060ti 16gb\n"
    )
    assert "算力 12.0" in too_new.why
    mac = first("on my Mac laptop: TORCH CUDA version not installed/working\n")
    assert "macOS" in mac.why or "Mac" in mac.why
    wsl = first(
        "| NVIDIA-SMI 555.42.03              Driver Version: 555.85         CUDA Version: 12.5     |\n"
        "[1]    494 segmentation fault  nvidia-smi\n"
    )
    assert "WSL2" in wsl.why and "555.85" in wsl.why


def test_facts_show_a_gpu_written_loosely() -> None:
    facts = read_facts(NO_KERNEL + "显卡：5070Ti\n")
    assert ("gpus", "RTX 5070 Ti") in facts.lines()


def test_a_build_another_tool_chose_the_code_for_is_not_judged_by_the_compiling_gpu() -> None:
    # TensorFlow's configure (bazel) picks its own list: the compiling GPU says nothing of it.
    text = "I compiled TF on my RTX 3090 with bazel. On the GTX 1080 I get:\n" + NO_KERNEL
    assert built_on(text) is None
    assert "cover-too-old" not in [d.verdict for d in match_output(text)]


def test_memory_beside_the_word_gpu_is_no_model_number() -> None:
    assert named_gpus("GPU 1060 MiB / 8192 MiB") == []
