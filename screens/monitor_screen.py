"""The proof-of-work screen: live GPU monitor beside the benchmark.

How the app shows it:

    MonitorScreen(profile)                      # real NVML, or simulated if profile.simulated
    MonitorScreen(profile, venv=Path(...))      # benchmark in that venv's Python
    MonitorScreen(
        profile,
        sampler_factory=lambda: Sampler(NvmlSource(FakeNvml(...)), FixedHost()),   # tests
        bench_factory=lambda: SimulatedBenchRun(profile, delay=0),
        interval=1.0, autostart_bench=False, save_results=True,
    )

The host app must load assets/styles/monitor.tcss (WizardApp does, via its
STYLE_FILES); the screen uses the app's -narrow / -wide width classes.

Keys: b runs the benchmark, s stops it, escape goes back.

Sampling: a thread worker takes one sample, posts it, the screen redraws and
only then schedules the next one, so ticks never overlap however slow NVML is.
The benchmark runs in another thread worker and posts each event. Both
factories are injected, so tests drive the screen with FakeNvml and canned events.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Static
from textual.worker import Worker, WorkerState

from screens.widgets.bench_panel import BenchPanel
from screens.widgets.fit import fit_words
from screens.widgets.gpu_panel import GpuPanel
from screens.widgets.host_panel import HostPanel
from screens.widgets.table_widths import set_widths, widest
from wizard.bench.events import BenchEvent
from wizard.bench.report import BenchReport
from wizard.bench.runner import BenchPythonMissing, BenchRun, SimulatedBenchRun, resolve_python, save_report
from wizard.bench.sim import mark_xla_limit
from wizard.choose.choice import Candidate
from wizard.monitor.model import Sample
from wizard.monitor.sampler import Sampler, make_sampler
from wizard.monitor.sim import PhaseSignal
from wizard.profile import MachineProfile
from wizard.safe.display import safe
from wizard.text import t

HISTORY_SECONDS = 120.0  # what the graph shows; the sampler keeps 5 minutes
AnyBenchRun = BenchRun | SimulatedBenchRun


# The process table's columns: the name last, so a long command line gives way, never the memory.
PROCESS_COLUMNS = ("gpu", "pid", "gpu_mem", "process")


class SampleTaken(Message):
    def __init__(self, sample: Sample) -> None:
        super().__init__()
        self.sample = sample


class SamplerReady(Message):
    def __init__(self, sampler: Sampler) -> None:
        super().__init__()
        self.sampler = sampler


class BenchUpdate(Message):
    def __init__(self, event: BenchEvent, report: BenchReport) -> None:
        super().__init__()
        self.event = event
        self.report = report


class BenchFinished(Message):
    def __init__(self, report: BenchReport, saved: Path | None, problem: str | None = None) -> None:
        super().__init__()
        self.report = report
        self.saved = saved
        self.problem = problem


class MonitorScreen(Screen[None]):
    BINDINGS = [
        Binding("b", "run_bench", t("monitor.key.bench")),
        Binding("s", "stop_bench", t("monitor.key.stop")),
        Binding("escape", "back", t("monitor.key.back")),
    ]

    def __init__(
        self,
        profile: MachineProfile | None = None,
        *,
        sampler_factory: Callable[[], Sampler] | None = None,
        bench_factory: Callable[[], AnyBenchRun] | None = None,
        bench_python: Path | None = None,
        venv: Path | None = None,
        interval: float = 1.0,
        autostart_bench: bool = False,
        save_results: bool = True,
        candidate: Candidate | None = None,
    ) -> None:
        super().__init__()
        self.profile = profile
        self.candidate = candidate  # the set the plan installed: its XLA may not target the GPU
        self.simulated = bool(profile is not None and profile.simulated)
        self.signal = PhaseSignal()  # drives the simulated source from the benchmark's events
        self.sampler_factory = sampler_factory or (lambda: make_sampler(profile, signal=self.signal))
        if bench_python is None and venv is not None:
            bench_python = venv / "bin" / "python"
        self.bench_python = bench_python
        self.bench_factory = bench_factory
        self.interval = interval
        self.autostart_bench = autostart_bench
        self.save_results = save_results
        self.sampler: Sampler | None = None
        self.samples_taken = 0
        self.report: BenchReport | None = None
        self.saved: Path | None = None
        self._run: AnyBenchRun | None = None
        self._bench_started_at: float | None = None
        self._timer: Timer | None = None
        self._closing = False
        self._shown_notes: list[str] = []

    # ---- layout
    def compose(self) -> ComposeResult:
        from screens.widgets.simulated_banner import SimulatedBanner

        banner = SimulatedBanner(id="simulated-banner")
        banner.show_for(
            (self.profile.label or self.profile.platform) if self.simulated and self.profile else None
        )
        yield banner
        with Horizontal(id="monitor-body"):
            with VerticalScroll(id="monitor-left"):
                yield Static(id="monitor-notes")
                # CPU and RAM first, two lines: in sight on 80x24 however many GPUs follow.
                yield HostPanel(id="host-panel")
                yield Vertical(id="gpu-panels")
                yield Static(t("monitor.field.processes"), classes="section-title", id="processes-title")
                yield Static(id="processes-note")
                table: DataTable[str] = DataTable(id="processes", cursor_type="none", show_cursor=False)
                yield table
            yield BenchPanel(id="bench-panel")
        yield Footer(show_command_palette=False)  # its "palette" label is English-only

    def on_mount(self) -> None:
        # A machine with no NVIDIA GPU gets no GPU panel: the title says what is shown.
        no_gpu = self.profile is not None and not self.profile.has_nvidia_gpu
        self.query_one("#monitor-left").border_title = t("monitor.title_host" if no_gpu else "monitor.title")
        table = self.query_one("#processes", DataTable)
        # The name last: a long command line gives way (between words), never the memory figure.
        for key in PROCESS_COLUMNS:
            table.add_column(t(f"monitor.col.{key}"), key=key)
        if self.simulated:
            self.query_one(BenchPanel).set_status(
                t("bench.simulated_short") + "\n" + t("bench.not_started"), "warn"
            )
        self._open_sampler()
        if self.autostart_bench:
            self.action_run_bench()

    def on_unmount(self) -> None:
        self._closing = True
        if self._timer is not None:
            self._timer.stop()
        if self._run is not None:
            # stop() waits for the script to wind down: not on the UI thread.
            threading.Thread(target=self._run.stop, name="bench-stop", daemon=True).start()
        if self.sampler is not None:
            self.sampler.close()

    # ---- sampling: open, then sample -> redraw -> schedule, one at a time
    @work(thread=True, exclusive=True, exit_on_error=False, group="sampler")
    def _open_sampler(self) -> None:
        # Building the real source loads libnvidia-ml: not on the UI thread.
        self.post_message(SamplerReady(self.sampler_factory()))

    def on_sampler_ready(self, message: SamplerReady) -> None:
        self.sampler = message.sampler
        info = self.sampler.info
        notes = list(info.notes)
        if info.no_gpu_reason:
            notes.append(info.no_gpu_reason)
        self._notes(notes)
        self._poll()

    @work(thread=True, exclusive=True, exit_on_error=False, group="sampler")
    def _poll(self) -> None:
        sampler = self.sampler
        if sampler is not None and not self._closing:
            self.post_message(SampleTaken(sampler.sample()))

    async def on_sample_taken(self, message: SampleTaken) -> None:
        self.samples_taken += 1
        await self._draw(message.sample)
        if not self._closing:
            self._timer = self.set_timer(self.interval, self._poll)

    def _notes(self, notes: list[str]) -> None:
        self._shown_notes = list(notes)
        # Said elsewhere on this screen: the banner says simulated, the process section WSL2.
        said = {t("monitor.note.wsl2_processes")}
        if self.simulated and self.profile is not None:
            said.add(t("monitor.sim.label", name=self.profile.label or "demo"))
        notes = [n for n in notes if n not in said]
        widget = self.query_one("#monitor-notes", Static)
        widget.update(Content(safe("\n".join(notes), 4000, multiline=True)))
        widget.display = bool(notes)

    async def _draw(self, s: Sample) -> None:
        sampler = self.sampler
        assert sampler is not None
        panels = self.query_one("#gpu-panels", Vertical)
        have = {p.index: p for p in panels.query(GpuPanel)}
        new = [GpuPanel(g.index) for g in s.gpus if g.index not in have]
        if new:
            await panels.mount_all(new)  # composed once awaited, so show() finds its gauges
            have.update((p.index, p) for p in new)
        for g in s.gpus:
            have[g.index].show(g, sampler.series(g.index, "util_gpu", HISTORY_SECONDS))
        if not s.gpus and have:
            await panels.remove_children()
        if s.no_gpu_reason and s.no_gpu_reason not in self._shown_notes:
            self._notes([*sampler.info.notes, s.no_gpu_reason])
        self.query_one(HostPanel).show(s.host)
        self._processes(s)

    def _processes(self, s: Sample) -> None:
        assert self.sampler is not None
        note = self.query_one("#processes-note", Static)
        table = self.query_one("#processes", DataTable)
        rows = [(g.index, p) for g in s.gpus for p in g.processes or []]
        if not s.gpus:
            message = ""
        elif not self.sampler.info.processes_available:
            message = t("monitor.processes_wsl2")
        elif not rows:
            # None is a failed read, not an idle GPU.
            unread = any(g.processes is None and not g.lost for g in s.gpus)
            message = t("monitor.processes_na") if unread else t("monitor.no_processes")
        else:
            message = ""
        note.update(message)
        note.display = bool(message)
        table.display = bool(rows) and self.sampler.info.processes_available
        self.query_one("#processes-title").display = bool(s.gpus)
        cells = [
            (
                str(index),
                str(p.pid),
                t("monitor.na") if p.gpu_memory is None else f"{p.gpu_memory / 1024**2:.0f} MiB",
            )
            for index, p in rows
        ]
        labels = [t(f"monitor.col.{key}") for key in PROCESS_COLUMNS]
        widths = [widest(labels[i], [c[i] for c in cells]) for i in range(3)]
        room = max(8, table.size.width - sum(widths) - 2 * table.cell_padding * 4 - 1)
        names = [
            fit_words(safe(p.name, 60) if p.name is not None else t("monitor.na"), room) for _, p in rows
        ]
        table.clear()
        set_widths(table, [*widths, widest(labels[3], names)])  # with the rows: never re-measured
        for (index, pid, mem), name in zip(cells, names, strict=True):
            table.add_row(index, pid, mem, Text(name))

    # ---- the benchmark
    def action_run_bench(self) -> None:
        panel = self.query_one(BenchPanel)
        if self._run is not None:
            return  # one at a time
        try:
            run = self._make_run()
        except BenchPythonMissing as exc:
            panel.set_status(str(exc), "error")
            return
        self._run = run
        self.report = run.report
        self.saved = None
        self._bench_started_at = self.sampler.clock() if self.sampler is not None else None
        label = t("bench.simulated_short") + "\n" if isinstance(run, SimulatedBenchRun) else ""
        panel.set_status(label + t("bench.running_hint"), "warn" if label else "ok")
        panel.set_footer("")
        panel.show(run.report)
        self._bench(run)

    def _make_run(self) -> AnyBenchRun:
        if self.bench_factory is not None:
            return self.bench_factory()
        if self.simulated and self.profile is not None:
            return SimulatedBenchRun(self.profile, candidate=self.candidate)
        python = resolve_python(str(self.bench_python)) if self.bench_python else resolve_python(None)
        gpu = self.profile.gpus[0].name if self.profile is not None and self.profile.gpus else None
        limit = self.candidate.xla_limit if self.candidate is not None and gpu is not None else None
        # An XLA the resolver says cannot target this GPU aborts the whole benchmark: not run.
        run = BenchRun(python, gpu_name=gpu, xla=limit is None)
        if limit is not None:
            mark_xla_limit(run.report, limit)
        return run

    @work(thread=True, exclusive=True, exit_on_error=False, group="bench")
    def _bench(self, run: AnyBenchRun) -> None:
        for ev in run.events():
            self.signal.feed(ev.raw)
            self.post_message(BenchUpdate(ev, run.report))
        report = run.report
        if self.sampler is not None and self._bench_started_at is not None:
            report.monitor = self.sampler.summary_dict(since=self._bench_started_at)
        saved, problem = None, None
        if self.save_results:
            try:
                saved = save_report(report)
            except OSError as exc:
                from wizard.safe.atomic import WriteError
                from wizard.safe.error_words import os_error

                # WriteError is our own sentence; any other OSError is the C library's English.
                problem = str(exc) if isinstance(exc, WriteError) else os_error(exc)
        self.post_message(BenchFinished(report, saved, problem))

    def on_bench_update(self, message: BenchUpdate) -> None:
        self.query_one(BenchPanel).show(message.report)

    def on_bench_finished(self, message: BenchFinished) -> None:
        self._run = None
        self.saved = message.saved
        report = message.report
        panel = self.query_one(BenchPanel)
        panel.show(report)
        # On top: the simulated tag and any error; the verdict follows. At the end: time and file.
        lines = [t("bench.simulated_short")] if report.simulated else []
        if report.errors:
            lines.append(t("bench.done_failed", errors="; ".join(report.errors)))
        panel.set_status("\n".join(lines), "error" if report.errors else "warn")
        if report.stopped:  # the user's stop: how long it ran and how far it got, not "done"
            finished = sum(1 for p in report.phases.values() if p.status in ("ok", "skipped"))
            total = len(report.phases)
            footer = [t("story.bench.stopped", seconds=report.seconds or 0.0, done=finished, total=total)]
        else:
            footer = [t("bench.done_ok", seconds=report.seconds)] if report.seconds is not None else []
        if message.saved is not None:
            footer.append(t("bench.saved", path=message.saved))
        if message.problem:
            footer.append(message.problem)
        panel.set_footer("\n".join(footer))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # exit_on_error=False: a worker that fails says so here instead of killing the app.
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            if event.worker.group == "bench":
                self._run = None
                self.query_one(BenchPanel).set_status(f"{type(error).__name__}: {error}", "error")
            else:
                self._notes([f"{type(error).__name__}: {error}"])

    def action_stop_bench(self) -> None:
        if self._run is not None:
            threading.Thread(target=self._run.stop, name="bench-stop", daemon=True).start()

    def action_back(self) -> None:
        if self._run is None:
            self._leave()
            return
        # A running benchmark is minutes of work: leaving would throw it away, so ask first.
        from screens.confirm_step_modal import ConfirmStepModal

        def answered(leave: bool | None) -> None:
            if leave:
                self.action_stop_bench()
                self._leave()

        self.app.push_screen(
            ConfirmStepModal(t("monitor.leave_bench.title"), t("monitor.leave_bench.question")), answered
        )

    def _leave(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
