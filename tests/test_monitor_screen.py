"""The monitor screen with FakeNvml and canned benchmark events: Pilot tests and snapshots."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from screens.monitor_screen import MonitorScreen
from screens.widgets.bench_panel import BarChart, BenchPanel
from screens.widgets.gpu_panel import GpuPanel
from tests.apps.monitor_app import MonitorApp, build, fake_sampler, settle, still_clock
from wizard import paths
from wizard.bench.runner import SimulatedBenchRun
from wizard.demo import load_demo
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeGpu
from wizard.text import t

# Paths under the wizard's home are the same on every checkout (see conftest.fixed_snapshot_home).
pytestmark = pytest.mark.usefixtures("fixed_snapshot_home")


SIZES = [(80, 24), (120, 40)]


def _screen(app: MonitorApp) -> MonitorScreen:
    screen = app.screen
    assert isinstance(screen, MonitorScreen)
    return screen


def _text(app: MonitorApp, selector: str) -> str:
    return str(_screen(app).query_one(selector, Static).render())


async def test_gpus_processes_and_a_finished_benchmark() -> None:
    app = build()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        panels = list(screen.query(GpuPanel))
        assert [p.index for p in panels] == [0, 1]
        assert "RTX 3090" in str(panels[0].border_title)
        assert screen.query_one("#processes", DataTable).row_count == 2
        report = screen.report
        assert report is not None and report.done and report.ok
        chart = screen.query_one(BarChart)
        assert [label for label, _, _ in chart.bars] == ["CPU", "GPU", "GPU+XLA"]
        assert "times as fast as the CPU" in _text(app, "#bench-verdict")  # the verdict, on top
        assert "Done in" in _text(app, "#bench-footer")


async def test_zero_gpus_shows_host_and_says_why() -> None:
    app = build(gpus=[], bench=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        assert list(screen.query(GpuPanel)) == []
        assert t("monitor.no_gpu.none") in _text(app, "#monitor-notes")
        assert not screen.query_one("#processes").display


async def test_nvml_library_missing() -> None:
    app = build(gpus=[], bench=False, init_error=ErrorKind.LIBRARY_NOT_FOUND)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "NVML library was not found" in _text(app, "#monitor-notes")


async def test_a_lost_gpu_says_so_in_its_panel() -> None:
    app = build(gpus=[FakeGpu(lost_after=0), FakeGpu(uuid="GPU-1")], bench=False, history=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lost = _screen(app).query_one("#gpu-0", GpuPanel)
        assert lost.has_class("-lost")
        assert "was lost" in str(lost.query_one("#lost", Static).render())
        assert not _screen(app).query_one("#gpu-1", GpuPanel).has_class("-lost")


async def test_wsl2_explains_the_empty_process_table() -> None:
    app = build(bench=False, wsl2=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert _text(app, "#processes-note") == t("monitor.processes_wsl2")
        assert not _screen(app).query_one("#processes").display


async def test_simulated_profile_is_labelled_and_runs_a_replay() -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    app = MonitorApp(
        lambda: MonitorScreen(
            profile,
            bench_factory=lambda: SimulatedBenchRun(profile, delay=0, clock=still_clock),
            interval=3600,
            save_results=False,
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        assert "SIMULATED" in _text(app, "#simulated-banner")  # once, on top: not again in the notes
        assert "SIMULATED" in _text(app, "#bench-status")
        await pilot.press("b")
        await settle(pilot)
        assert screen.report is not None and screen.report.simulated and screen.report.done
        assert "SIMULATED" in _text(app, "#bench-status")


async def test_benchmark_without_the_venv_says_how_to_fix_it(tmp_path: Path) -> None:
    app = MonitorApp(
        lambda: MonitorScreen(
            None,
            sampler_factory=lambda: fake_sampler(),
            bench_python=tmp_path / "nope" / "bin" / "python",
            interval=3600,
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await pilot.pause()
        status = _screen(app).query_one("#bench-status", Static)
        assert "No Python at" in str(status.render()) and status.has_class("-error")


async def test_results_are_saved_with_the_monitor_summary() -> None:
    bench_profile = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    app = MonitorApp(
        lambda: MonitorScreen(
            None,
            sampler_factory=lambda: fake_sampler(),
            bench_factory=lambda: SimulatedBenchRun(bench_profile, delay=0, clock=still_clock),
            autostart_bench=True,
            interval=3600,
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        assert screen.saved is not None and screen.saved.parent == paths.data_dir() / "bench"
        assert "Result saved to" in _text(app, "#bench-footer")


async def test_stop_key_interrupts_the_benchmark() -> None:
    bench_profile = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    app = MonitorApp(
        lambda: MonitorScreen(
            None,
            sampler_factory=lambda: fake_sampler(),
            bench_factory=lambda: SimulatedBenchRun(bench_profile, delay=0.05),
            autostart_bench=True,
            interval=3600,
            save_results=False,
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        await pilot.press("s")
        await settle(pilot)
        report = _screen(app).report
        assert report is not None and report.ok is False and report.stopped and not report.errors


async def test_polling_keeps_going_one_tick_at_a_time() -> None:
    app = MonitorApp(
        lambda: MonitorScreen(None, sampler_factory=lambda: fake_sampler(history=0), interval=0.01)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _screen(app)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if screen.samples_taken >= 5:
                break
        assert screen.samples_taken >= 5
        sampler = screen.sampler
        # The next poll is scheduled only once a sample is drawn: at most one taken and not yet drawn
        # (its message on the way), never two polls at once.
        assert sampler is not None
        assert screen.samples_taken <= len(sampler.history) <= screen.samples_taken + 1
        await pilot.press("escape")  # back: the screen closes its sampler
        await pilot.pause()
        assert not isinstance(app.screen, MonitorScreen)


async def test_bench_panel_fits_at_80_columns() -> None:
    app = build()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        panel = _screen(app).query_one(BenchPanel)
        assert panel.size.width >= 30 and panel.region.right <= 80


# ---- snapshots (deterministic: fixed fake data, no clocks, a long poll interval) -------


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_gpus_and_benchmark(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(build(), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_no_gpu(snap_compare: Any, size: tuple[int, int]) -> None:
    app = build(gpus=[], bench=False, init_error=ErrorKind.DRIVER_NOT_LOADED)
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_simulated_wsl2(snap_compare: Any, size: tuple[int, int]) -> None:
    app = build(profile="wsl2-rtx4060-laptop", bench=False)
    assert snap_compare(app, terminal_size=size, run_before=settle)


async def test_process_headers_line_up_with_their_rows_even_if_drawn_before_measuring() -> None:
    """A DataTable measures auto-width columns on its next idle and keeps a header line drawn before
    that (a loaded machine draws it early): the columns get their widths with the rows, so the
    header drawn at once is the header above the rows (a 120x40 snapshot once showed "GPU  PID  GPU
    mem" above "0    4242  19456 MiB")."""
    app = build(bench=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        table = screen.query_one("#processes", DataTable)
        sampler = screen.sampler
        assert sampler is not None
        table.clear(columns=True)  # the table as the screen mounts it: its columns, no widths yet
        for key in ("gpu", "pid", "gpu_mem", "process"):
            table.add_column(t(f"monitor.col.{key}"), key=key)
        screen._processes(sampler.sample())
        early = table.render_line(0).text  # before the table's idle: what a busy machine may draw
        await pilot.pause()
        header, row = table.render_line(0).text, table.render_line(1).text
        assert early == header
        assert header.index("PID") == row.index("4242") and header.index("GPU mem") == row.index("19456")
