"""The monitor screen alone, made deterministic for pilot and snapshot tests.

Fixed fake GPUs (FakeNvml) with a pre-filled history, a fixed host, a clock that
only moves when sampled, a poll interval long enough that no second tick lands
during a snapshot, and the benchmark as canned events with no delay.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable

from screens.monitor_screen import MonitorScreen
from tests.apps.wizard_app import wait_still, wait_until
from wizard.assets import asset
from wizard.bench.runner import SimulatedBenchRun
from wizard.demo import load_demo
from wizard.monitor.host import FixedHost
from wizard.monitor.nvml_source import NvmlSource
from wizard.monitor.sampler import Sampler
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeGpu, FakeNvml

BENCH_PROFILE = "ubuntu-22.04-rtx3090-cuda11.8"


def still_clock() -> float:
    """A benchmark clock that never moves: a snapshot says "(0 s)" however loaded the machine."""
    return 0.0


class MonitorApp(App[None]):
    CSS_PATH = [str(asset("styles/app.tcss")), str(asset("styles/monitor.tcss"))]  # type: ignore[assignment]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    def __init__(self, make_screen: Callable[[], MonitorScreen]) -> None:
        super().__init__()
        self.make_screen = make_screen

    def on_mount(self) -> None:
        self.push_screen(self.make_screen())


def fake_gpus() -> list[FakeGpu]:
    busy = FakeGpu(
        name="NVIDIA GeForce RTX 3090",
        memory_total=24 * 1024**3,
        memory_used=20 * 1024**3,
        util=(97, 61),
        temperature=79,
        power_mw=338_000,
        power_limit_mw=350_000,
        clocks={"sm": 1860, "mem": 9751},
        max_clocks={"sm": 2100, "mem": 9751},
        fan=72,
        pstate=2,
        pcie=(14_000, 3_000),
        throttle=0x4,
        procs=[(4242, 19 * 1024**3), (5151, None)],
    )
    spare = FakeGpu(
        name="NVIDIA GeForce RTX 3060",
        uuid="GPU-1",
        errors={"fan_speed": ErrorKind.NOT_SUPPORTED, "pcie_throughput": ErrorKind.NO_PERMISSION},
    )
    return [busy, spare]


def fake_sampler(
    gpus: list[FakeGpu] | None = None, history: int = 60, wsl2: bool = False, **nvml: Any
) -> Sampler:
    fake = FakeNvml(fake_gpus() if gpus is None else gpus, **nvml)
    ticks = itertools.count()
    sampler = Sampler(
        NvmlSource(
            fake,
            wsl2=wsl2,
            process_name=lambda pid: {4242: "python3"}.get(pid),
            clock=lambda: 0.0,
            shadow_check=lambda: None,  # the machine running the tests may have pynvml
        ),
        FixedHost(),
        clock=lambda: float(next(ticks)),
    )
    # A deterministic history: a benchmark-like ramp on GPU 0, so the graph has a shape.
    target = fake.gpus[0].util if fake.gpus else (0, 0)
    for i in range(history):
        if fake.gpus:
            fake.gpus[0].util = (min(100, (i * 7) % 110), target[1])
        sampler.sample()
    if fake.gpus:
        fake.gpus[0].util = target
    return sampler


def build(
    *,
    gpus: list[FakeGpu] | None = None,
    bench: bool = True,
    profile: str | None = None,
    history: int = 60,
    wsl2: bool = False,
    **nvml: Any,
) -> MonitorApp:
    bench_profile = load_demo(BENCH_PROFILE)

    def make() -> MonitorScreen:
        return MonitorScreen(
            load_demo(profile) if profile else None,
            sampler_factory=None if profile else (lambda: fake_sampler(gpus, history, wsl2, **nvml)),
            bench_factory=(lambda: SimulatedBenchRun(bench_profile, delay=0, clock=still_clock))
            if bench
            else None,
            interval=3600.0,
            autostart_bench=bench,
            save_results=False,
        )

    return MonitorApp(make)


def drawn_and_done(app: App[Any]) -> bool:
    """The monitor shows its first sample and any benchmark has finished."""
    screen = app.screen
    if not isinstance(screen, MonitorScreen):
        return False
    bench_done = screen.report is None or (screen.report.done and screen._run is None)
    return screen.samples_taken >= 1 and bench_done


async def settle(pilot: Pilot[Any]) -> None:
    """Until the first sample is drawn and any benchmark has finished. Waited for, not counted: the
    first sample is drawn only after two worker threads (open the sampler, then sample), and a loaded
    CI machine once took longer than a fixed number of pauses."""
    await wait_until(pilot, lambda: drawn_and_done(pilot.app))
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await wait_until(pilot, lambda: tables_laid_out(pilot.app.screen))
    await wait_still(pilot)


def tables_laid_out(screen: Screen[Any]) -> bool:
    """Every DataTable has measured its rows: it widens its columns on its next idle, so a snapshot
    taken before that shows the headers at their label widths (a flaky 120x40 snapshot)."""
    return all(not (t._require_update_dimensions or t._new_rows) for t in screen.query(DataTable))


async def settle_then_sample(pilot: Pilot[Any]) -> None:
    """settle(), then one more sample once the benchmark is over: a demo's simulated readings follow
    the benchmark's phase, so the first sample may land before or during it by timing alone."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MonitorScreen)
    taken = screen.samples_taken
    screen._poll()
    await wait_until(pilot, lambda: screen.samples_taken > taken and tables_laid_out(screen))
    await wait_still(pilot)
