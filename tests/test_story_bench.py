"""The benchmark's clock (issue 18, point 4): phase durations and the total are the wall time
the run really took, and a stopped run says it was stopped (no phase left running, no
internal names such as "sanity: interrupted")."""

from __future__ import annotations

import threading
import time
from typing import Any

from textual.widgets import Static

from screens.monitor_screen import MonitorScreen
from tests.apps.monitor_app import MonitorApp, fake_sampler
from wizard.bench.events import PHASES
from wizard.bench.runner import SimulatedBenchRun
from wizard.demo import load_demo

PROFILE = "ubuntu-22.04-rtx3090-cuda11.8"


def _within(value: float | None, measured: float, share: float = 0.10) -> bool:
    return value is not None and abs(value - measured) <= share * measured + 0.02


def test_phase_times_and_the_total_are_the_measured_wall_time() -> None:
    run = SimulatedBenchRun(load_demo(PROFILE), delay=0.01)
    started = time.monotonic()
    phase_started: dict[str, float] = {}
    phase_wall: dict[str, float] = {}
    for ev in run.events():
        now = time.monotonic()
        if ev.event == "phase_start" and ev.phase:
            phase_started[ev.phase] = now
        elif ev.event == "phase_end" and ev.phase:
            phase_wall[ev.phase] = now - phase_started[ev.phase]
    wall = time.monotonic() - started
    report = run.report
    assert report.done and report.ok
    assert _within(report.seconds, wall), (report.seconds, wall)
    for name in PHASES:
        assert _within(report.phases[name].seconds, phase_wall[name]), (name, report.phases[name].seconds)


def test_a_stopped_run_is_stopped_with_no_phase_running() -> None:
    run = SimulatedBenchRun(load_demo(PROFILE), delay=0.02)
    started = time.monotonic()
    seen: list[str] = []

    def stop_when_sanity_runs() -> None:
        for _ in range(500):
            if run.report.phases["sanity"].status == "running":
                break
            time.sleep(0.005)
        run.stop()

    stopper = threading.Thread(target=stop_when_sanity_runs)
    stopper.start()
    for ev in run.events():
        seen.append(ev.event)
    stopper.join()
    wall = time.monotonic() - started
    report = run.report
    assert report.stopped and report.done and report.ok is False
    assert not any(p.status == "running" for p in report.phases.values())
    assert report.phases["sanity"].status == "stopped"
    assert report.phases["matmul"].status == "pending"  # never started: not claimed
    assert not any("interrupted" in e for e in report.errors)
    assert _within(report.seconds, wall, 0.25)
    assert report.seconds is not None and report.seconds > 0


async def test_b_then_s_on_the_monitor_says_stopped_truthfully() -> None:
    profile = load_demo(PROFILE)

    def make() -> MonitorScreen:
        return MonitorScreen(
            None,
            sampler_factory=lambda: fake_sampler(),
            bench_factory=lambda: SimulatedBenchRun(profile, delay=0.05),
            interval=3600.0,
            save_results=False,
        )

    app = MonitorApp(make)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("b")
        screen: Any = app.screen
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.report is not None and screen.report.phases["sanity"].status == "running":
                break
        await pilot.press("s")
        for _ in range(200):
            await pilot.pause(0.02)
            if screen._run is None:
                break
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel_text = " ".join(str(w.render()) for w in screen.query("#bench-panel Static").results(Static))
        assert "interrupted" not in panel_text and "sanity:" not in panel_text
        assert "Done in 0 s" not in panel_text
        assert "Stopped" in panel_text or "stopped" in panel_text
        assert "▶" not in panel_text  # no phase still marked running


async def test_b_then_s_during_the_matmuls_the_verdict_agrees_with_the_table() -> None:
    """Stopped once NumPy's matmul is in: the verdict names what was measured, not "nothing"."""
    from wizard.text import t

    profile = load_demo("wsl2-rtx4060-laptop")

    def make() -> MonitorScreen:
        return MonitorScreen(
            None,
            sampler_factory=lambda: fake_sampler(),
            bench_factory=lambda: SimulatedBenchRun(profile, delay=0.05),
            interval=3600.0,
            save_results=False,
        )

    app = MonitorApp(make)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("b")
        screen: Any = app.screen
        for _ in range(400):
            await pilot.pause(0.01)
            if screen.report is not None and screen.report.matmul:
                break
        await pilot.press("s")
        for _ in range(200):
            await pilot.pause(0.02)
            if screen._run is None:
                break
        await app.workers.wait_for_complete()
        await pilot.pause()
        report = screen.report
        assert report.stopped and report.matmul  # at least NumPy's row, as the table shows
        shown = str(screen.query_one("#bench-verdict", Static).render())
        assert "measure anything" not in shown
        devices = {r.device for r in report.matmul}
        if devices == {"numpy"}:
            assert "NumPy" in shown and t("bench.verdict.gpu_unseen") not in shown
        assert "GPU" in shown or "GPU" not in devices
