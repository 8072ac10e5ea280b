"""Rules for round 18's training misses (the lead's read; its held-out texts were all right blind),
as the general messages they are.

A log pasted with its lines cut at a fixed width parts words ("successful NUMA node read fr" /
"om SysFS had negative value"): the two halves are read glued as well as spaced. And a web service
started as several processes on one GPU (flask, uwsgi, a 服务 "开了8个进程") is memory the other
processes hold, as gunicorn's workers were already.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, harmless_only, ids

STAMP = "2021-01-09 18:37:57.745350: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:941] "
NUMA_CUT = (
    STAMP
    + "successful NUMA node read fr\nom SysFS had negative value (-1), but there must be at least one NUMA node"
)
NVML_CUT = (
    "Sun Jan 10 12:00:00 2021 $ nvidia-smi -q : Failed to initialize NVML: Driver/library version mis\nmatch"
)
DLOPEN_CUT = (
    "2021-01-09 18:37:57.746363: E tensorflow/core/common_runtime/gpu/gpu_device.cc:1900] Cannot dlopen some GPU libr"
    "\naries. Please make sure the missing libraries mentioned above are installed properly"
)


def test_a_numa_note_cut_mid_word_by_the_paste_is_the_harmless_numa_note() -> None:
    assert harmless_only(NUMA_CUT) and ids(NUMA_CUT) == ["noise-numa"]
    # Its second half on its own line (the paste wrapped again at words) is still that note.
    assert ids(
        "NUMA node read fr\nom SysFS had negative value (-1), but there must be at least one NUMA"
    ) == ["noise-numa"]


@pytest.mark.parametrize(
    ("text", "expected"), [(NVML_CUT, "driver-library-mismatch"), (DLOPEN_CUT, "gpu-list-empty")]
)
def test_a_message_cut_mid_word_by_the_paste_is_read_glued(text: str, expected: str) -> None:
    assert first(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # A short line is not a width cut: its last word is whole, and nothing is glued.
        "Failed to initialize NVML: Driver/library version mis\nmatch",
        # The first half ends in a space: a break between words, read spaced only.
        NVML_CUT.replace("mis\n", "mis \n"),
    ],
)
def test_only_a_long_line_ending_inside_a_word_is_glued_to_the_next(text: str) -> None:
    assert "driver-library-mismatch" not in ids(text)


def test_a_spaced_join_still_reads_a_message_wrapped_between_words() -> None:
    text = NVML_CUT.replace("version mis\nmatch", "version\nmismatch")
    assert first(text) == "driver-library-mismatch"


@pytest.mark.parametrize(
    "text",
    [
        "用flask包了一个m3e服务,开了8个进程,刚开始GPU显卡只用到15G+\n最终显卡增加到24G,然后爆出CUDA out of memory.错误。",
        "The flask app runs 4 worker processes on the one GPU: RuntimeError: CUDA out of memory.",
        "uwsgi with 8 processes, each loads the model: CUDA out of memory",
        "gunicorn -w 4 ... gunicorn 开了4个worker\nCUDA out of memory",
    ],
)
def test_a_service_started_as_several_processes_on_one_gpu_is_memory_they_hold(text: str) -> None:
    assert first(text) == "memory-held"


@pytest.mark.parametrize(
    "text",
    [
        "用flask包了一个服务。CUDA out of memory",  # one process: nothing says another holds it
        "DataLoader(num_workers=8)\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",  # CPU workers
    ],
)
def test_one_service_process_or_data_loader_workers_are_not_memory_held(text: str) -> None:
    assert first(text) != "memory-held"
