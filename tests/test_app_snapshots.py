"""SVG snapshots of every screen of the wizard at 80x24 and 120x40.

Deterministic: demo profiles, a fixed home and user name, no cursor blink, a frozen
clock, a fixed log path. Update with `pytest tests/test_app_snapshots.py
--snapshot-update` and look at the report before committing.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.apps.flaky_runner import FlakyRunner
from tests.apps.wizard_app import (
    build_app,
    to_choose,
    to_detect,
    to_failed,
    to_finished,
    to_password,
    to_plan,
    to_restart,
    to_windows_step,
)
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.run.runner import Runner, RunnerEvents

# Paths under the wizard's home are the same on every checkout (see conftest.fixed_snapshot_home).
pytestmark = pytest.mark.usefixtures("fixed_snapshot_home")


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
# Relative: in each test's own folder (conftest.fixed_snapshot_home makes it the working folder),
# so two runs at once never share a log, and every snapshot names it the same way.
LOG = Path("apply.log")


@pytest.fixture(autouse=True)
def _fixed_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/student")
    monkeypatch.setenv("USER", "student")
    monkeypatch.setenv("LOGNAME", "student")


def app_for(profile: str | None, **kwargs: Any) -> Any:
    kwargs.setdefault("runner_options", {"log_path": LOG})
    return build_app(profile, **kwargs)


@pytest.mark.parametrize("size", SIZES)
def test_welcome(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(None), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_welcome_simulated(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=size, press=["question_mark"])


@pytest.mark.parametrize("size", SIZES)
def test_demo_picker(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(None), terminal_size=size, press=["d"])


@pytest.mark.parametrize("size", SIZES)
def test_detect(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=size, run_before=to_detect)


@pytest.mark.parametrize("size", SIZES)
def test_detect_problems(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for("wsl2-linux-driver-inside"), terminal_size=size, run_before=to_detect)


@pytest.mark.parametrize("size", SIZES)
def test_choose(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=size, run_before=to_choose)


@pytest.mark.parametrize("size", SIZES)
def test_plan(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=size, run_before=to_plan)


@pytest.mark.parametrize("size", SIZES)
def test_run_windows_host_step(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for("wsl2-rtx4060-laptop")
    assert snap_compare(app, terminal_size=size, run_before=to_windows_step)


@pytest.mark.parametrize("size", SIZES)
def test_run_password(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for("ubuntu-24.04-rtx4090-fresh")
    assert snap_compare(app, terminal_size=size, run_before=to_password)


@pytest.mark.parametrize("size", SIZES)
def test_run_finished(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=size, run_before=to_finished)


@pytest.mark.parametrize("size", SIZES)
def test_run_restart_notice(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for("ubuntu-24.04-rtx4090-fresh")
    assert snap_compare(app, terminal_size=size, run_before=to_restart)


# The notice's hints keep the demo's --profile whatever thread words them (profile_hint.profile_for):
# it once lost it while the Plan screen rendered the script, one line shorter, with or without its scrollbar.
@pytest.mark.parametrize("size", SIZES)
def test_run_failed(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for(
        "ubuntu-22.04-rtx3090-cuda11.8",
        runner_factory=functools.partial(FlakyRunner, fail_once=["tensorflow"]),
    )
    assert snap_compare(app, terminal_size=size, run_before=to_failed)


@pytest.mark.parametrize("size", SIZES)
def test_doctor(snap_compare: Any, size: tuple[int, int]) -> None:
    app = app_for(
        "ubuntu-22.04-rtx3090-cuda11.8",
        runner_factory=functools.partial(FlakyRunner, fail_once=["tensorflow"]),
    )

    async def to_doctor(pilot: Pilot[Any]) -> None:
        await to_failed(pilot)
        await pilot.press("d")

    assert snap_compare(app, terminal_size=size, run_before=to_doctor)


@pytest.mark.parametrize("size", SIZES)
def test_confirm_quit(snap_compare: Any, size: tuple[int, int]) -> None:
    async def to_quit(pilot: Pilot[Any]) -> None:
        await to_windows_step(pilot)
        await pilot.press("ctrl+q")

    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=size, run_before=to_quit)


class _Answers(RunnerEvents):
    def needs_password(self, step: Any, attempt: int) -> str | None:
        return "secret"


@pytest.mark.parametrize("size", SIZES)
def test_resume(snap_compare: Any, size: tuple[int, int]) -> None:
    # A run that stopped for a reboot, left in the journal by the runner itself.
    profile = load_demo("ubuntu-24.04-rtx4090-fresh")
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    assert (
        Runner(plan, _Answers(), simulate=True, confirm_root=False, log_path=LOG).run().outcome == "restart"
    )
    app = app_for("ubuntu-24.04-rtx4090-fresh", offer_resume=True)
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_doctor_answer(snap_compare: Any, size: tuple[int, int]) -> None:
    # A pasted mismatch read on a demo machine whose profile shows the same mismatch.
    from tests.apps.wizard_app import to_doctor_answer

    app = app_for("ubuntu-22.04-rtx3060-mismatch-after-update")
    assert snap_compare(app, terminal_size=size, run_before=to_doctor_answer)
