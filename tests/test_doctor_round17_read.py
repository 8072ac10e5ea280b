"""Rules for round 17's texts (the lead's read: its released held-out miss and its one training
miss), as the general messages they are.

A TensorFlow requirement whose "==" was lost ("tensorflow1.14.0", as a blog's markdown prints it)
is still pip failing to find TensorFlow for this Python, the versions pip offers beside it; and
TensorFlow's NUMA start-up note is harmless when a pasted log wraps it mid-word ("negative v" /
"alue (-1)"), as it was before the wrap.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, harmless_only, ids

VERSIONS = "(from versions: 2.2.0rc1, 2.2.0rc2, 2.2.0, 2.2.1, 2.3.0, 2.3.1, 2.4.0rc0, 2.4.0)"


@pytest.mark.parametrize(
    "text",
    [
        f"ERROR: Could not find a version that satisfies the requirement tensorflow1.14.0 {VERSIONS}\n"
        "ERROR: No matching distribution found for tensorflow1.14.0",
        "ERROR: No matching distribution found for tensorflow2.0.0",
        f"ERROR: Could not find a version that satisfies the requirement tensorflow==1.14.0 {VERSIONS}",
    ],
)
def test_a_tensorflow_requirement_glued_to_its_version_is_no_wheel_for_this_python(text: str) -> None:
    assert first(text) == "python-unsupported"


@pytest.mark.parametrize(
    "text",
    [
        # Another project whose name starts with "tensorflow": not TensorFlow's own wheel.
        "ERROR: No matching distribution found for tensorflowjs==4.0.0",
        "ERROR: Could not find a version that satisfies the requirement tensorflow_hub2 (from versions: none)",
        # tensorflow-gpu glued to a version stays the removed package's rows, not this one.
        "ERROR: No matching distribution found for tensorflow-gpu1.14",
    ],
)
def test_other_names_beginning_with_tensorflow_are_not_read_as_tensorflow(text: str) -> None:
    assert first(text) != "python-unsupported"


NUMA = (
    "2021-06-11 07:20:08.757992: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:937] successful NUMA"
    " node read from SysFS had negative v\nalue (-1), but there must be at least one NUMA node, so returning"
    " NUMA node zero"
)
CPU = (
    "2021-06-11 07:20:08.757312: I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow binary"
    " is optimized with oneAPI Deep Neura\nl Network Library (oneDNN) to use the following CPU instructions in"
    " performance-critical operations:  AVX2 FMA"
)


def test_a_numa_note_wrapped_mid_word_is_still_the_harmless_numa_note() -> None:
    assert harmless_only(NUMA) and ids(NUMA) == ["noise-numa"]


def test_two_start_up_notes_are_both_named_in_their_order_and_nothing_harmful() -> None:
    assert harmless_only(CPU + "\n" + NUMA) and ids(CPU + "\n" + NUMA) == [
        "noise-cpu-instructions",
        "noise-numa",
    ]


def test_a_numa_note_read_unwrapped_is_unchanged() -> None:
    assert ids(NUMA.replace("v\nalue", "value")) == ["noise-numa"]


def test_the_word_negative_alone_is_not_numa() -> None:
    assert "noise-numa" not in ids("successful NUMA node read from SysFS had negatively signed ids")
