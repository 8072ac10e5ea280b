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

from rich.console import Console
from rich.table import Table

from wizard.bench.events import BenchEvent
from wizard.bench.report import BenchReport
from wizard.bench.runner import BenchPythonMissing, BenchRun, SimulatedBenchRun, resolve_python, save_report
from wizard.cli.common import add_profile_option
from wizard.monitor.sampler import make_sampler
from wizard.monitor.sim import PhaseSignal
from wizard.text import t

DEMO_PACE = 0.1  # seconds between replayed events of a simulated run, so it reads as live


def register(sub: argparse._SubParsersAction) -> None:

    helptext = "benchmark TensorFlow on the GPU (and CPU) in the target Python, live"
    parser = sub.add_parser("bench", help=helptext, description=helptext)
    add_profile_option(parser)
    parser.add_argument("--python", metavar="PATH", help="the Python whose TensorFlow to benchmark")
    parser.add_argument("--json", action="store_true", help="print the benchmark's events, one JSON per line")
    parser.add_argument("--quick", action="store_true", help="small sizes and few runs (a quick check)")
    parser.add_argument("--no-xla", action="store_true", help="skip the XLA phase")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=args.json)  # with --json, stdout is for events only
    run_: BenchRun | SimulatedBenchRun
    profile = None
    signal = PhaseSignal()
    if getattr(args, "profile", None):
        from wizard.cli.common import load_profile_arg

        profile = load_profile_arg(args)
        run_ = SimulatedBenchRun(profile, delay=0.0 if args.json else DEMO_PACE)
        console.print(t("bench.simulated"), style="bold magenta")
    else:
        try:
            python = resolve_python(args.python)
        except BenchPythonMissing as exc:
            print(f"tf-gpu-wizard: {exc}", file=sys.stderr)
            return 2
        run_ = BenchRun(python, quick=args.quick, xla=not args.no_xla)
        console.print(t("bench.running", python=python), style="dim")
    # The monitor watches the run from its own thread, for the min/mean/max in the result.
    sampler = make_sampler(profile, signal=signal)
    started = sampler.clock()
    sampler.start(interval=0.5)
    try:
        for ev in run_.events():
            signal.feed(ev.raw)
            if args.json:
                sys.stdout.write(json.dumps(ev.raw) + "\n")
                sys.stdout.flush()
            else:
                _show(console, ev)
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
        for line in summary_lines(report):
            console.print(line)
        if report.invalid_lines:
            console.print(t("bench.invalid_lines", count=len(report.invalid_lines)), style="yellow")
    console.print(t("bench.saved", path=path), style="dim")
    return 0 if report.ok else 1


def _show(console: Console, ev: BenchEvent) -> None:
    raw = ev.raw
    if ev.event == "phase_start":
        console.print(f"[bold]▶ {t('bench.phase.' + str(ev.phase))}[/]  [dim]{raw['title']}[/]")
    elif ev.event == "progress":
        console.print(
            f"   {raw['done']}/{raw['total']}  {raw.get('detail', '')}", style="dim", highlight=False
        )
    elif ev.event == "phase_end":
        mark = t(f"bench.status.{raw['status']}")
        reason = f"  {raw['reason']}" if raw.get("reason") else ""
        console.print(f"  {mark} {raw['seconds']:.1f} s{reason}", highlight=False)
    elif ev.event == "error":
        console.print(f"  ✗ {raw['message']}", style="red", highlight=False)
    elif ev.event == "result" and raw["kind"] == "matmul":
        d = ev.data
        console.print(
            f"   {d['device']:>5} {d['dtype']:<8} {d['n']:>5}  {d['tflops']:.2f} TFLOP/s", highlight=False
        )


def results_table(report: BenchReport) -> Table:
    table = Table(title=t("bench.phase.matmul"), box=None, header_style="bold")
    for key in ("device", "dtype", "n", "tflops", "peak"):
        table.add_column(t(f"bench.col.{key}"), justify="right" if key in ("n", "tflops", "peak") else "left")
    for r in report.matmul:
        peak = "" if r.percent_of_peak is None else f"{r.percent_of_peak:.0f}%"
        table.add_row(r.device, r.dtype, str(r.n), f"{r.tflops:.2f}", peak)
    return table


def summary_lines(report: BenchReport) -> list[str]:
    """The few sentences a student should read: speed-up, soundness, problems."""
    lines = []
    if report.speedup.get("plain"):
        lines.append(t("bench.speedup", x=report.speedup["plain"]))
    best = report.best("GPU")
    if best is not None and best.percent_of_peak is not None:
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
    elif report.done and report.seconds is not None:
        lines.append(t("bench.done_ok", seconds=report.seconds))
    return lines
