"""Round 26's training texts, read after the blind score (issue 35, i35h): the reasoning each one
needed, on short lines, each line cited from the round-26 text it stands for.

* A build's code retold in words (cuobjdump's "binary code for CC 3.5, ... as well as PTX code for
  CC 7.0") is its list: a GPU between its entries, with no binary of its major at or below its minor
  and no PTX at or below it, is a gap in that list (cover-gap), not too old or too new.
* cuInit failing where the text says the machine has no GPU and shows none expected is the notice a
  CPU-only node prints (harmless, as the catalogue's cuinit-failed says); with a GPU expected it is
  the harmful symptom it always was.
"""

from __future__ import annotations

import pytest

from tests import doctor_first
from wizard.doctor.catalogue import pattern
from wizard.doctor.diagnose import match_output, recognised_in_output
from wizard.doctor.facts import read_facts

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first


# tensorflow/tensorflow#46537 (r26_arch_tf231-cc50-no-kernel-image_15)
CUOBJDUMP = (
    'TensorFlow 2.3.1 crashes on my GPU with compute capability (CC) 5.0 with the error "no kernel image is '
    'available for execution on the device". I found binary code for CC 3.5, 3.7, 5.2, 6.0, 6.1, and 7.0 as '
    "well as PTX code for CC 7.0.\n"
)


def test_a_build_list_told_in_words_and_a_capability_in_parentheses_are_read() -> None:
    facts = read_facts(CUOBJDUMP)
    assert facts.compute_capabilities == ["5.0"]
    assert facts.build_code == ["sm_35", "sm_37", "sm_52", "sm_60", "sm_61", "sm_70", "compute_70"]


def test_a_gpu_between_the_lists_entries_is_a_gap_not_too_old_or_too_new() -> None:
    d = first(CUOBJDUMP)
    assert d.verdict == "cover-gap"
    assert "5.0" in d.why + d.fix + d.evidence


def test_the_same_gpu_with_its_major_in_the_list_is_not_a_gap() -> None:
    # 5.0 binary in the list: the build serves a 5.0 GPU, so the list decides nothing against it.
    served = CUOBJDUMP.replace("CC 3.5, 3.7, 5.2", "CC 3.5, 3.7, 5.0, 5.2")
    assert first(served).verdict != "cover-gap"


def test_a_gpu_below_every_entry_is_too_old() -> None:
    old = CUOBJDUMP.replace("(CC) 5.0", "(CC) 3.0")
    assert first(old).verdict == "cover-too-old"


# nanoporetech/medaka#214 (r26_noise_medaka-cuinit-303-cpu-node_9)
CUINIT = "2020-10-08 23:28:14.726991: E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)\n"
NO_GPU_ENV = "**Environment:\n - Installation method [conda]\n - OS: [e.g. CentoOS 7]\n - No GPU\n"


def test_cuinit_on_a_node_the_text_says_has_no_gpu_is_harmless() -> None:
    found = match_output(CUINIT + NO_GPU_ENV)
    assert [d.id for d in found] == ["cuinit-failed"]
    assert not found[0].harmful and not recognised_in_output(found)


@pytest.mark.parametrize(
    "expected",
    [
        "nvidia-smi shows my GeForce GTX 1080\n",
        ">>> tf.config.list_physical_devices('GPU')\n[]\n",
        "docker run --gpus all my-image\n",
    ],
)
def test_cuinit_beside_a_gpu_expected_stays_harmful(expected: str) -> None:
    found = match_output(CUINIT + NO_GPU_ENV + expected)
    assert found[0].id == "cuinit-failed" and found[0].harmful


def test_cuinit_with_no_word_about_the_machine_stays_harmful() -> None:
    assert first(CUINIT).harmful


def test_the_ids_row_is_its_harmful_one() -> None:
    row = pattern("cuinit-failed")
    assert row is not None and row.harmful and row.symptom and row.family == "no-device"


# huggingface/huggingface_hub#4128 (r26_fabric_h200-fm-in-progress_5): 802 retold in words, and
# nvidia-smi -q's fabric state retold on one line.
def test_a_code_retold_in_words_is_read_and_802_is_the_fabric_manager() -> None:
    d = first("vLLM at TP=1 on h200x4 also fails with CUDA 802 (CUDA_VISIBLE_DEVICES=0, same traceback)\n")
    assert d.id == "fabric-manager" and d.harmful


@pytest.mark.parametrize("text", ["it fails with CUDA 12.4 here\n", "it failed with CUDA 11 and cuDNN 8\n"])
def test_a_cuda_version_after_fails_with_is_no_code(text: str) -> None:
    assert read_facts(text).codes == []


def test_the_fabric_state_retold_on_one_line_is_read() -> None:
    text = (
        "The Fabric Manager state at job start shows State: In Progress, Status: N/A, GPU Fabric GUID: N/A.\n"
    )
    assert read_facts(text).fabric_in_progress is not None
    assert read_facts("State: In Progress\n").fabric_in_progress is None
    found = match_output(text + "RuntimeError: No CUDA GPUs are available\n")
    assert found[0].id == "fabric-manager"


# NVIDIA/nvidia-container-toolkit#218 (r26_container_docker-build-run-nvidia-smi_21): a build step's
# container has no GPU, so nvidia-smi alone exits 127 (the shell's "command not found").
@pytest.mark.parametrize(
    "line",
    [
        'ERROR: failed to solve: process "/bin/sh -c nvidia-smi" did not complete successfully: exit code: 127',
        "The command '/bin/sh -c nvidia-smi' returned a non-zero code: 127",
    ],
)
def test_a_build_step_running_nvidia_smi_alone_that_exits_127_is_a_container_without_gpu(line: str) -> None:
    d = first(line + "\n")
    assert d.id == "container-no-gpu" and d.harmful


@pytest.mark.parametrize(
    "line",
    [
        # 127 from a longer step may be another command's; another exit code is not "not found".
        'ERROR: failed to solve: process "/bin/sh -c pip install foo && nvidia-smi" did not complete '
        "successfully: exit code: 127",
        'ERROR: failed to solve: process "/bin/sh -c nvidia-smi" did not complete successfully: exit code: 1',
    ],
)
def test_other_build_step_failures_are_not_claimed(line: str) -> None:
    assert all(d.id != "container-no-gpu" for d in match_output(line + "\n"))


# Bumblebee-Project/Bumblebee#944 (r26_no-device_bumblebee-optimus-cuinit_10): Bumblebee loads the
# NVIDIA module only for a program started with optirun / primusrun.
KERNEL_DRIVER = (
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_UNKNOWN\n"
    "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:145] kernel driver does not appear to be running "
    "on this host (linux-2186): /proc/driver/nvidia/version does not exist\n"
)


def test_cuinit_on_a_bumblebee_laptop_is_the_driver_not_loaded() -> None:
    found = match_output(KERNEL_DRIVER + "when I use 'optirun python' it can detect my GPU.\n")
    assert found[0].id == "no-device"


def test_the_same_lines_without_bumblebee_stay_cuinit_failed() -> None:
    assert first(KERNEL_DRIVER).id == "cuinit-failed"
