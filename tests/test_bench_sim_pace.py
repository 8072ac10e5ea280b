"""The simulated benchmark (demo profiles): one pace and one clock for the app and the CLI, and
`bench --quick` replays a quick run (issue 36 point 13).

Before: the app replayed at 0.35 s an event (41 s), the CLI at 0.1 s (12 s); every phase said
"2.0 s" in --json whatever the replay took; `--quick` was dropped (its start event said "quick":
false, and the sizes were the full run's).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from wizard.bench.runner import SimulatedBenchRun
from wizard.cli import main
from wizard.demo import load_demo
from wizard.monitor.sampler import make_sampler

DEMO = "ubuntu-22.04-rtx3090-cuda11.8"


def _events(capsys: pytest.CaptureFixture[str], *extra: str) -> list[dict[str, Any]]:
    assert main(["--profile", DEMO, "bench", "--json", *extra]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]


def test_bench_quick_on_a_demo_is_a_quick_run(capsys: pytest.CaptureFixture[str]) -> None:
    full = _events(capsys)
    quick = _events(capsys, "--quick")
    assert full[0]["event"] == "start" and full[0]["quick"] is False
    assert quick[0]["event"] == "start" and quick[0]["quick"] is True
    sizes = {e["data"]["n"] for e in quick if e["event"] == "result" and e["kind"] == "matmul"}
    assert sizes == {512, 1024}  # tf_bench.py --quick's sizes, as a real quick run
    trains = [e["data"] for e in quick if e["event"] == "result" and e["kind"] == "train"]
    assert trains and all(d["steps"] == 8 and d["batch"] == 32 for d in trains)
    assert len(quick) < len(full)


def test_the_seconds_in_the_events_are_the_replays_own(capsys: pytest.CaptureFixture[str]) -> None:
    events = _events(capsys)  # --json: no pace, so every phase took (nearly) no time
    ends = [e for e in events if e["event"] in ("phase_end", "done")]
    assert ends and all(e["seconds"] < 1.0 for e in ends), [e["seconds"] for e in ends]


def test_the_app_and_the_cli_replay_the_same_run_in_the_same_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from screens.monitor_screen import MonitorScreen
    from wizard.cli import bench as cli_bench

    profile = load_demo(DEMO)
    made: list[SimulatedBenchRun] = []

    class Kept(SimulatedBenchRun):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

        def events(self) -> Any:
            return iter(())  # what it would replay is all this test needs

    monkeypatch.setattr(cli_bench, "SimulatedBenchRun", Kept)
    assert main(["--profile", DEMO, "bench"]) in (0, 1)  # the CLI, as a person runs it
    app = MonitorScreen(profile, sampler_factory=lambda: make_sampler(profile))
    app_run = app._make_run()  # the run the app's `b` starts
    assert isinstance(app_run, SimulatedBenchRun) and len(made) == 1
    cli_run = made[0]
    assert cli_run.delay == app_run.delay > 0
    assert cli_run.planned_seconds == pytest.approx(app_run.planned_seconds)
    assert 5 <= app_run.planned_seconds <= 20, app_run.planned_seconds


def test_a_paced_replay_reports_the_time_it_took() -> None:
    run = SimulatedBenchRun(load_demo(DEMO), delay=0.002, quick=True)
    started = time.monotonic()
    events = [e.raw for e in run.events()]
    wall = time.monotonic() - started
    done = events[-1]
    assert done["event"] == "done" and abs(done["seconds"] - wall) < 0.25
    assert run.report.seconds == pytest.approx(done["seconds"], abs=0.05)
    phases = [e for e in events if e["event"] == "phase_end"]
    assert sum(e["seconds"] for e in phases) <= done["seconds"] + 0.01
