"""Rules for round 19's texts (the lead's read of its one released held-out text whose first id was
not the cause; its training texts were all right blind).

A build's CUDA as its wheel writes it ("torch 1.8.1+cu111") printed on the same line as the
driver's version ("Driver version: 440.82") is a driver too old for that build where the version is
below the CUDA major's floor under minor-version compatibility: the one table the plan's driver step
uses (wizard.choose.driver_floors), so the doctor and the plan cannot disagree about it.
"""

from __future__ import annotations

import pytest

from tests.doctor_answers import first, ids
from wizard.choose.driver_floors import DRIVER_FLOOR_LINUX, below_linux_floor

INIT = (
    "/home/xy/anaconda3/envs/py38/lib/python3.8/site-packages/torch/cuda/init.py:52: UserWarning: CUDA "
    "initialization: CUDA driver initialization failed, you might not have a CUDA gpu."
)


@pytest.mark.parametrize(
    "line",
    [
        "环境说明:ubuntu16.04, GeForce GTX 1080 Ti, torch 1.8.1+cu111, Driver version: 440.82",
        "torch 2.1.0+cu121, Driver Version: 470.82.01",
        "Driver Version: 510.47.03 | torch 2.4.0+cu124",
        "torch==2.5.1+cu118 driver_version=418.67",
    ],
)
def test_a_build_for_a_newer_cuda_than_the_driver_runs_is_the_driver_too_old(line: str) -> None:
    assert first(INIT + "\n" + line) == "driver-too-old"
    assert first(line) == "driver-too-old"


def test_the_two_figures_on_lines_one_after_the_other_are_read_together() -> None:
    assert first("torch 2.1.0+cu121\nDriver Version: 470.82.01") == "driver-too-old"


def test_the_driver_is_the_cause_before_cuda_failing_to_start() -> None:
    text = INIT + "\n环境说明:ubuntu16.04, GeForce GTX 1080 Ti, torch 1.8.1+cu111, Driver version: 440.82"
    assert ids(text)[:2] == ["driver-too-old", "cuinit-failed"]


@pytest.mark.parametrize(
    "line",
    [
        "torch 1.8.1+cu111, Driver version: 460.32",  # at or above CUDA 11's floor
        "torch 1.8.1+cu102, Driver version: 440.82",  # a CUDA 10 build: no minor-version floor to read
        "torch 2.1.0+cu121, Driver Version: 535.54.03",
        "torch 2.1.0+cu121\nTraining started.\nepoch 1 loss 0.3\nDriver Version: 470.82.01",  # far apart
        "torch 2.1.0+cpu, Driver Version: 470.82.01",
    ],
)
def test_a_driver_new_enough_or_figures_apart_say_nothing_about_the_driver(line: str) -> None:
    assert "driver-too-old" not in ids(line)


def test_the_floors_are_the_plans() -> None:
    assert below_linux_floor("525.60.12", 12) and not below_linux_floor(DRIVER_FLOOR_LINUX[12], 12)
    assert not below_linux_floor("440.82", 10)  # no floor known: never "too old"
    assert not below_linux_floor("４４０.82", 11)  # not ASCII digits: not a version
