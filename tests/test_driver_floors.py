"""The one test of a driver against a floor, as the plan's driver step and the doctor both use it."""

from __future__ import annotations

import pytest

from wizard.choose.driver_floors import DRIVER_FLOOR_LINUX, below_linux_floor, driver_at_least
from wizard.demo import load_demo
from wizard.plan.common import driver_ok


@pytest.mark.parametrize(
    ("driver", "floor", "ok"),
    [
        ("525.60.13", "525.60.13", True),  # the floor itself runs CUDA 12
        ("525.60.9", "525.60.13", False),  # numbers, not letters: 9 < 13
        ("525.105.17", "525.60.13", True),
        ("470.82.01", "525.60.13", False),
        ("528.33", "528.33", True),  # a Windows driver has two parts
        ("", "525.60.13", False),
        ("N/A", "525.60.13", False),
        ("535.1\u0663", "525.60.13", False),  # a non-ASCII digit is not a version
    ],
)
def test_a_driver_against_a_floor(driver: str, floor: str, ok: bool) -> None:
    assert driver_at_least(driver, floor) is ok


def test_an_unknown_driver_is_never_called_too_old() -> None:
    assert not below_linux_floor("", 12) and not below_linux_floor("N/A", 12)
    assert below_linux_floor("470.82.01", 12) and not below_linux_floor("470.82.01", 11)


def test_the_plan_asks_the_same_question_as_the_doctor() -> None:
    old = load_demo("ubuntu-20.04-gtx1080-driver470")
    assert old.driver is not None
    for major, floor in DRIVER_FLOOR_LINUX.items():
        assert driver_ok(old, floor) is not below_linux_floor(old.driver.version, major)
