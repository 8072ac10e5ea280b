"""SVG snapshots at 80x24 of every screen in its fullest state: the most steps, the most rows,
the longest reasons, the benchmark finished. What they must show (nothing that carries meaning
cut) is asserted in tests/test_small_terminal.py; these keep the look from drifting.

Update only these with `pytest tests/test_app_snapshots_80x24_full.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from screens.monitor_screen import MonitorScreen
from tests.apps.monitor_app import MonitorApp, build, settle, settle_then_sample, still_clock
from tests.apps.wizard_app import build_app, to_choose, to_detect, to_finished, to_plan, to_windows_step
from tests.test_app_snapshots import LOG
from wizard.bench.runner import SimulatedBenchRun
from wizard.demo import load_demo

# Paths under the wizard's home are the same on every checkout (see conftest.fixed_snapshot_home).
pytestmark = pytest.mark.usefixtures("fixed_snapshot_home")


SMALL = (80, 24)


@pytest.fixture(autouse=True)
def _fixed_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/student")
    monkeypatch.setenv("USER", "student")
    monkeypatch.setenv("LOGNAME", "student")


def app_for(profile: str | None, **kwargs: Any) -> Any:
    kwargs.setdefault("runner_options", {"log_path": LOG})
    return build_app(profile, **kwargs)


def then(*steps: Any) -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        for step in steps:
            if isinstance(step, str):
                await pilot.press(step)
                await pilot.pause()
            else:
                await step(pilot)

    return run


def test_welcome_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=SMALL)


def test_help_glossary_80x24_full(snap_compare: Any) -> None:
    app = app_for("wsl2-rtx4060-laptop")
    assert snap_compare(app, terminal_size=SMALL, press=["question_mark", "g"])


def test_detect_most_findings_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(app_for("ubuntu-24.04-rtx4090-fresh"), terminal_size=SMALL, run_before=to_detect)


def test_detect_newest_tf_blocked_80x24_full(snap_compare: Any) -> None:
    app = app_for("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=SMALL, run_before=to_detect)


def test_choose_all_rows_80x24_full(snap_compare: Any) -> None:
    app = app_for("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=SMALL, run_before=then(to_choose, "a"))


def test_choose_longest_reasons_detail_80x24_full(snap_compare: Any) -> None:
    app = app_for("ubuntu-24.04-rtx5090")
    assert snap_compare(app, terminal_size=SMALL, run_before=then(to_choose, "d"))


def test_plan_most_steps_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=SMALL, run_before=to_plan)


def test_plan_step_detail_80x24_full(snap_compare: Any) -> None:
    app = app_for("wsl2-rtx4060-laptop")
    assert snap_compare(app, terminal_size=SMALL, run_before=then(to_plan, "d"))


def test_run_windows_step_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(app_for("wsl2-rtx4060-laptop"), terminal_size=SMALL, run_before=to_windows_step)


def test_run_finished_80x24_full(snap_compare: Any) -> None:
    app = app_for("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=SMALL, run_before=to_finished)


def test_monitor_two_gpus_benchmark_finished_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(build(), terminal_size=SMALL, run_before=settle)


def _monitor(profile: str) -> MonitorApp:
    p = load_demo(profile)
    return MonitorApp(
        lambda: MonitorScreen(
            p,
            bench_factory=lambda: SimulatedBenchRun(p, delay=0, clock=still_clock),
            interval=3600,
            autostart_bench=True,
            save_results=False,
        )
    )


def test_monitor_simulated_wsl2_benchmark_finished_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(_monitor("wsl2-rtx4060-laptop"), terminal_size=SMALL, run_before=settle_then_sample)


def test_monitor_cpu_only_benchmark_finished_80x24_full(snap_compare: Any) -> None:
    assert snap_compare(_monitor("no-nvidia-gpu"), terminal_size=SMALL, run_before=settle_then_sample)
