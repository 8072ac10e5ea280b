"""`tf-gpu-wizard bench [--python PATH] [--json] [--quick]`: the benchmark, live.

Runs assets/bench/tf_bench.py with the target environment's Python (default:
the venv the wizard creates) and shows its phases as they happen; `--json`
passes the validated events through, one per line. The result is saved under
the data directory either way. With `--profile` the run is a simulated replay.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from wizard.bench.events import BenchEvent
from wizard.bench.phase_summary import done_fields, phases_line
from wizard.bench.report import BenchReport
from wizard.bench.runner import (
    BenchPythonMissing,
    BenchRun,
    SimulatedBenchRun,
    resolve_python,
    save_report,
)
from wizard.bench.sim import mark_xla_limit, xla_skipped
from wizard.bench.verdict import clock_note, matmul_cells, matmul_columns, matmul_header, peak_note, verdict
from wizard.bench.xla_gate import installed_tensorflow, limit_for, probed_gpus
from wizard.choose.choice import XlaLimit
from wizard.cli.common import add_profile_option, error_line
from wizard.monitor.sampler import make_sampler
from wizard.monitor.sim import PhaseSignal
from wizard.probe.context import ProbeContext
from wizard.text import has, t

# The machine the real run reads its GPUs from (tests give one with a fake NVML).
PROBE_CONTEXT: Callable[[], ProbeContext] = ProbeContext

# None: the simulated run's own pace (SIM_PACE_S), the app's too, so the same demo benchmark
# takes the same time in both; tests set 0.
DEMO_PACE: float | None = None
VERDICT_STYLE = {"ok": "bold green", "warn": "bold yellow", "error": "bold red"}


def register(sub: argparse._SubParsersAction) -> None:

    helptext = t("bench.cli.help")
    parser = sub.add_parser("bench", help=helptext, description=helptext)
    add_profile_option(parser)
    parser.add_argument("--python", metavar="PATH", help=t("bench.cli.python_help"))
    parser.add_argument("--json", action="store_true", help=t("bench.cli.json_help"))
    parser.add_argument("--quick", action="store_true", help=t("bench.cli.quick_help"))
    xla = parser.add_mutually_exclusive_group()
    xla.add_argument("--no-xla", action="store_true", help=t("bench.cli.no_xla_help"))
    xla.add_argument("--xla", action="store_true", help=t("bench.xla_gate.force_help"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=args.json)  # with --json, stdout is for events only
    run_: BenchRun | SimulatedBenchRun
    profile = None
    signal = PhaseSignal()
    if getattr(args, "profile", None):
        from wizard.cli.common import load_profile_arg

        profile = load_profile_arg(args)
        # --json is for a machine: no pace, and the seconds it reports are that (the replay's own).
        run_ = SimulatedBenchRun(profile, delay=0.0 if args.json else DEMO_PACE, quick=args.quick)
        console.print(t("bench.simulated"), style="bold magenta")
    else:
        try:
            python = resolve_python(args.python)
        except BenchPythonMissing as exc:
            print(error_line(exc), file=sys.stderr)
            return 2
        limit = None if args.no_xla or args.xla else real_xla_limit(python)
        run_ = BenchRun(python, quick=args.quick, xla=not args.no_xla and limit is None)
        if args.no_xla:
            run_.report.skip_why["xla"] = t("bench.not_run.asked", flag="--no-xla")
        console.print(t("bench.running", python=python), style="dim")
        if limit is not None:  # XLA would abort the whole run: not started, and the reason said first
            mark_xla_limit(run_.report, limit)
            console.print(Text(t("bench.xla_gate.not_run", reason=xla_skipped(limit)), style="yellow"))
    # The monitor watches the run from its own thread, for the min/mean/max in the result.
    sampler = make_sampler(profile, signal=signal)
    started = sampler.clock()
    sampler.start(interval=0.5)
    printer = ProgressPrinter(console)
    try:
        for ev in run_.events():
            signal.feed(ev.raw)
            if args.json:
                # The done event also says what ran: the phases passed, and each not run with why.
                raw = {**ev.raw, **done_fields(run_.report)} if ev.event == "done" else ev.raw
                sys.stdout.write(json.dumps(raw) + "\n")
                sys.stdout.flush()
            else:
                printer.show(ev)
    except KeyboardInterrupt:
        run_.stop()
        console.print(t("bench.stopped"))
        return 130
    finally:
        sampler.close()
    report = run_.report
    report.monitor = sampler.summary_dict(since=started)
    path = save_report(report)
    if not args.json:
        console.print(results_table(report))
        for note in (peak_note(report), clock_note(report)):
            if note:  # its own line under the table, not a caption folded to the table's width
                console.print(Text(note, style="dim"))
        console.print(train_table(report))
        found = verdict(report)
        if found is not None:  # the one line to read, after the tables so it is the last thing seen
            console.print(Text(found.text, style=VERDICT_STYLE[found.level]))
        for line in summary_lines(report):
            console.print(Text(line))
        if report.invalid_lines:
            console.print(t("bench.invalid_lines", count=len(report.invalid_lines)), style="yellow")
    console.print(Text(t("bench.saved", path=path), style="dim"), soft_wrap=True)  # a path stays whole
    return 0 if report.ok else 1


def real_xla_limit(python: Path) -> XlaLimit | None:
    """Whether this machine's XLA would abort the run: the probed GPUs and the TensorFlow the
    benchmark's Python has installed, through the resolver's rule (wizard.bench.xla_gate)."""
    return limit_for(probed_gpus(PROBE_CONTEXT()), installed_tensorflow(python))


class ProgressPrinter:
    """Prints the live run one line per step, each result on its own counter line.

    The script reports a result and then its progress ("3/14"); printed as they come, every
    counter would sit under the result before it, and a detail-less counter would be a bare
    "3/14" in a log file. Here the result waits for its counter and they print together.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        self.pending: str | None = None

    def show(self, ev: BenchEvent) -> None:
        raw = ev.raw
        if ev.event == "phase_start":
            self._flush()
            # The script's own title is English; a known phase reads in the user's language.
            about = t(f"bench.about.{ev.phase}") if has(f"bench.about.{ev.phase}") else str(raw["title"])
            line = Text.assemble((f"▶ {t('bench.phase.' + str(ev.phase))}", "bold"), "  ", (about, "dim"))
            self.console.print(line)
        elif ev.event == "result":
            text = result_text(str(raw["kind"]), ev.data)
            if raw["kind"] == "speedup":  # a summary of the phase, with no counter of its own
                self._flush()
                self._line(f"  {text}", "bold")
            elif text:
                self._flush()
                self.pending = text
        elif ev.event == "progress":
            what = self.pending or str(raw.get("detail") or "") or t(f"bench.phase.{ev.phase}")
            width = len(str(raw["total"]))
            self._line(f"  [{raw['done']:>{width}}/{raw['total']}] {what}")
            self.pending = None
        elif ev.event == "phase_end":
            self._flush()
            mark = t(f"bench.status.{raw['status']}")
            reason = f"  {raw['reason']}" if raw.get("reason") else ""
            self._line(f"  {mark} {raw['seconds']:.1f} s{reason}")
        elif ev.event == "error":
            self._flush()
            self._line(f"  ✗ {raw['message']}", "red")

    def _flush(self) -> None:
        if self.pending is not None:
            self._line(f"  {self.pending}")
            self.pending = None

    def _line(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style))  # data (GPU names, errors): never markup


def result_text(kind: str, d: dict[str, Any]) -> str:
    """One result as the live run prints it; "" for a kind with nothing to say on its own.

    The fields were checked by wizard.bench.events (numbers are numbers) before they get here."""
    if kind == "environment":
        gpus = d.get("gpus")
        return t(
            "bench.line.environment",
            tf=d.get("tf_version", "?"),
            gpus=len(gpus) if isinstance(gpus, list) else 0,
        )
    if kind == "sanity":
        key = "bench.line.sanity_ok" if d.get("ok") else "bench.line.sanity_bad"
        return t(key, device=d.get("device", "?"), error=float(d.get("max_abs_error") or 0.0))
    if kind == "matmul":
        return f"{d['device']:>5} {d['dtype']:<8} {d['n']:>5}  {float(d['tflops']):8.2f} TFLOP/s"
    if kind == "train":
        key = "bench.line.train_xla" if d.get("xla") else "bench.line.train"
        return t(key, device=d.get("device", "?"), rate=float(d.get("images_per_s") or 0.0))
    if kind == "speedup":
        return t("bench.line.speedup", x=float(d.get("gpu_vs_cpu") or 0.0))
    return ""


def results_table(report: BenchReport) -> Table:
    table = Table(title=t("bench.phase.matmul"), box=None, header_style="bold")
    # The screen's columns and cells (wizard.bench.verdict): % of this GPU at its clock, else of
    # the published peak, only where some row has one; a row without leaves its cell empty.
    for key in matmul_columns(report):
        table.add_column(matmul_header(key), justify="left" if key in ("device", "dtype") else "right")
    for r in report.matmul:
        table.add_row(*matmul_cells(report, r))
    return table


def train_table(report: BenchReport) -> Table:
    """Images per second of the CNN on each device, without and with XLA."""
    table = Table(title=t("bench.bar_chart"), box=None, header_style="bold")
    table.add_column(t("bench.col.device"))
    table.add_column(t("bench.col.plain"), justify="right")
    table.add_column(t("bench.col.xla"), justify="right")
    for device in ("CPU", "GPU"):
        plain, xla = report.train_rate(device), report.train_rate(device, xla=True)
        if plain is None and xla is None:
            continue
        table.add_row(device, *("–" if v is None else f"{v:,.0f}" for v in (plain, xla)))
    return table


def summary_lines(report: BenchReport) -> list[str]:
    """The few sentences a student should read: speed-up, soundness, problems."""
    lines = []
    best = report.best("GPU")
    if best is not None and best.percent_of_peak is not None and not report.has_achievable():
        lines.append(
            f"GPU float32 {best.tflops:.1f} TFLOP/s: " + t("bench.peak", percent=best.percent_of_peak)
        )
    if not any(r.device == "GPU" for r in report.matmul) and report.done:
        lines.append(t("bench.no_gpu_results"))
    ratio = report.tf_vs_numpy()
    if ratio is not None:
        lines.append(t("bench.tf_vs_numpy", ratio=ratio))
    for index, fields in (report.monitor or {}).items():
        util = fields.get("util_gpu")
        if util:
            lines.append(t("bench.gpu_busy", index=index, mean=util["mean"], max=util["max"]))
    if report.errors:
        lines.append(t("bench.done_failed", errors="; ".join(report.errors)))
    elif (what_ran := phases_line(report)) is not None:
        lines.append(what_ran)  # "✓ 4 phases passed; CNN with XLA not run: <why>", as the screen says
    elif report.done and report.seconds is not None:
        lines.append(t("bench.done_ok", seconds=report.seconds))
    return lines
