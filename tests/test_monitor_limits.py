"""The monitor under a hung NVML call, failed reads shown as N/A, and Esc during a benchmark.

FakeNvml is given a call that takes seconds to answer (`FakeGpu.delays`), as a wedged driver does.
"""

from __future__ import annotations

import io
import time

from rich.console import Console
from textual.widgets import Static

from screens.confirm_step_modal import ConfirmStepModal
from screens.monitor_screen import MonitorScreen
from tests.apps.monitor_app import MonitorApp, fake_gpus, fake_sampler, settle
from wizard.bench.runner import SimulatedBenchRun
from wizard.cli.monitor import render
from wizard.demo import load_demo
from wizard.monitor.host import FixedHost
from wizard.monitor.nvml_source import TIMEOUT, NvmlSource
from wizard.monitor.sampler import Sampler
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeGpu, FakeNvml
from wizard.text import t

LIMIT = 0.2


def _sampler(gpus: list[FakeGpu], **kwargs: object) -> Sampler:
    source = NvmlSource(
        FakeNvml(gpus),
        shadow_check=lambda: None,
        call_timeout=LIMIT,
        process_name=lambda pid: None,
        **kwargs,  # type: ignore[arg-type]
    )
    return Sampler(source, FixedHost())


def test_a_hung_call_makes_only_its_field_na_within_the_limit() -> None:
    gpus = [FakeGpu(delays={"temperature": 3.0}) for _ in range(4)]
    sampler = _sampler(gpus)
    started = time.monotonic()
    first = sampler.sample()
    first_s = time.monotonic() - started
    # Four GPUs each with a 3 s hang: without a limit this tick took 12 s.
    assert first_s < 2.5 * LIMIT + 0.3, first_s
    g0 = first.gpus[0]
    assert g0.temperature is None and g0.na["temperature"] == TIMEOUT
    assert g0.util_gpu == 3 and g0.mem_used is not None and g0.fan == 30  # the rest is read
    ticks = []
    for _ in range(5):
        started = time.monotonic()
        s = sampler.sample()
        ticks.append(time.monotonic() - started)
        assert all(g.na.get("temperature") == TIMEOUT for g in s.gpus)
        assert all(g.util_gpu == 3 and g.name for g in s.gpus)  # every other field, every GPU
    assert max(ticks) < 2.5 * LIMIT + 0.3, ticks
    sampler.close()


def test_a_call_that_answers_again_is_read_again() -> None:
    gpu = FakeGpu(delays={"power_usage": 1.0})
    sampler = _sampler([gpu])
    assert sampler.sample().gpus[0].na["power_w"] == TIMEOUT
    del gpu.delays["power_usage"]
    time.sleep(1.1)  # the hung call returns; the next tick asks again
    assert sampler.sample().gpus[0].power_w == 18.0
    sampler.close()


def test_a_hung_init_says_why_there_is_no_gpu() -> None:
    class SlowInit(FakeNvml):
        def init(self) -> None:
            time.sleep(30)

    import wizard.monitor.nvml_source as ns

    old = ns.OPEN_TIMEOUT_S
    ns.OPEN_TIMEOUT_S = 0.3
    try:
        started = time.monotonic()
        sampler = Sampler(NvmlSource(SlowInit(), shadow_check=lambda: None, call_timeout=0.3), FixedHost())
        assert time.monotonic() - started < 2
        assert sampler.info.no_gpu_reason and "no answer" in sampler.info.no_gpu_reason
        assert sampler.sample().gpus == []
    finally:
        ns.OPEN_TIMEOUT_S = old


def test_a_failed_process_read_is_na_not_no_process() -> None:
    gpus = [FakeGpu(errors={"processes": ErrorKind.NO_PERMISSION}), FakeGpu(procs=[(4242, 1 << 30)])]
    sampler = _sampler(gpus)
    s = sampler.sample()
    assert s.gpus[0].processes is None and s.gpus[1].processes is not None
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(render(s, sampler.info))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert t("monitor.no_processes") not in out
    assert "4242" in out and "N/A" in out  # the process whose name could not be read
    assert "?" not in out.split("4242")[1].splitlines()[0]

    only_failed = _sampler([FakeGpu(errors={"processes": ErrorKind.NO_PERMISSION})])
    console = Console(file=io.StringIO(), width=100, color_system=None)
    s = only_failed.sample()
    console.print(render(s, only_failed.info))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert t("monitor.processes_na") in out.replace("\n", " ").replace("  ", " ") or "N/A" in out
    assert t("monitor.no_processes") not in out


async def test_the_screen_says_na_for_a_failed_process_read() -> None:
    gpus = fake_gpus()
    for g in gpus:
        g.procs = []
        g.errors["processes"] = ErrorKind.NO_PERMISSION
    app = MonitorApp(
        lambda: MonitorScreen(
            None, sampler_factory=lambda: fake_sampler(gpus), interval=3600, save_results=False
        )
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        note = str(screen.query_one("#processes-note", Static).render())
        assert t("monitor.processes_na") in note and t("monitor.no_processes") not in note


async def test_escape_during_a_benchmark_asks_first() -> None:
    profile = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    app = MonitorApp(
        lambda: MonitorScreen(
            None,
            sampler_factory=lambda: fake_sampler(),
            # Paced so that it is still running when the keys below arrive, however loaded the
            # machine (it is stopped long before it would finish).
            bench_factory=lambda: SimulatedBenchRun(profile, delay=0.5),
            autostart_bench=True,
            interval=3600,
            save_results=False,
        )
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and monitor._run is not None
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmStepModal), "leaving a running benchmark asks first"
        await pilot.press("n")  # stay
        await pilot.pause()
        assert app.screen is monitor and monitor._run is not None
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")  # leave: the benchmark is stopped
        await pilot.pause(0.3)
        assert not isinstance(app.screen, MonitorScreen)
        report = monitor.report
        assert report is not None and not report.ok


async def test_escape_without_a_benchmark_just_goes_back() -> None:
    app = MonitorApp(lambda: MonitorScreen(None, sampler_factory=lambda: fake_sampler(), interval=3600))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, (MonitorScreen, ConfirmStepModal))
