"""`tf-gpu-wizard monitor [--interval S] [--count N] [--json]`: the live monitor alone.

Like nvitop / nvidia-smi: a refreshed table (a Rich live view on a terminal,
one table per sample otherwise), or `--json` for one sample per line. With
`--profile` the readings are simulated and say so.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from wizard.cli.common import add_profile_option
from wizard.monitor.model import GpuSample, Sample, SourceInfo
from wizard.monitor.sampler import Sampler, make_sampler
from wizard.monitor.view import bar, gpu_rows, level, memory_text, pct, power_text, unit
from wizard.safe.display import safe
from wizard.text import t

STYLES = {"ok": "green", "warn": "yellow", "hot": "bold red", "na": "dim"}


def register(sub: argparse._SubParsersAction) -> None:

    helptext = t("monitor.cli.help")
    parser = sub.add_parser("monitor", help=helptext, description=helptext)
    add_profile_option(parser)
    parser.add_argument(
        "--interval", type=_positive, default=1.0, metavar="S", help=t("monitor.cli.interval_help")
    )
    parser.add_argument("--count", type=int, default=None, metavar="N", help=t("monitor.cli.count_help"))
    parser.add_argument("--json", action="store_true", help=t("monitor.cli.json_help"))
    parser.set_defaults(func=run)


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(t("monitor.cli.not_positive"))
    return value


def run(args: argparse.Namespace) -> int:
    profile = None
    if getattr(args, "profile", None):
        from wizard.cli.common import load_profile_arg

        profile = load_profile_arg(args)
    sampler = make_sampler(profile)
    try:
        if args.json:
            return _run_json(sampler, args.interval, args.count)
        return _run_human(sampler, args.interval, args.count)
    except KeyboardInterrupt:
        return 0  # Ctrl-C is how a monitor is meant to stop
    finally:
        sampler.close()


def _ticks(
    sampler: Sampler, interval: float, count: int | None, wait: Callable[[float], bool] | None = None
) -> Iterator[Sample]:
    """Samples every `interval` s; `wait(s)` sleeps and says True when the user asked to stop."""
    n = 0
    while count is None or n < count:
        yield sampler.sample()
        n += 1
        if count is None or n < count:
            # after the tick ended: ticks never overlap
            if wait is None:
                time.sleep(interval)
            elif wait(interval):
                return


class QuitKey:
    """`q` stops the live view, as in nvitop and top: stdin in cbreak mode while it runs (a
    terminal only; restored on the way out, Ctrl+C included). Elsewhere it just sleeps."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.saved: Any = None

    def __enter__(self) -> QuitKey:
        try:
            import termios
            import tty

            if sys.stdin.isatty():
                fd = sys.stdin.fileno()
                self.saved = termios.tcgetattr(fd)
                tty.setcbreak(fd)
                self.fd = fd
        except (ImportError, OSError, ValueError):  # Windows, a closed or odd stdin
            self.fd = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            import termios

            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
            except OSError:
                pass

    def wait(self, seconds: float) -> bool:
        if self.fd is None:
            time.sleep(seconds)
            return False
        import os
        import select

        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                break
            key = os.read(self.fd, 32)
            if not key:  # end of input: nothing more will come, keep sampling
                time.sleep(max(0.0, deadline - time.monotonic()))
                break
            if b"q" in key.lower():
                return True
        return False


def _run_json(sampler: Sampler, interval: float, count: int | None) -> int:
    from wizard.monitor.jsonlines import sample_line, source_header

    header: dict[str, Any] | None = source_header(sampler.info)
    for s in _ticks(sampler, interval, count):
        sys.stdout.write(sample_line(s, header))  # the first line carries what the monitor says up front
        header = None
        sys.stdout.flush()
    return 0


def _run_human(sampler: Sampler, interval: float, count: int | None) -> int:
    console = Console()
    n, cost = 0, 0.0
    started = time.monotonic()
    if console.is_terminal:
        from rich.live import Live

        hint = Text(t("story.monitor.stop_hint"), style="dim")
        with QuitKey() as keys, Live(console=console, auto_refresh=False, screen=False) as live:
            for s in _ticks(sampler, interval, count, keys.wait):
                n, cost = n + 1, cost + s.cost_s
                live.update(Group(render(s, sampler.info), hint), refresh=True)
    else:
        # Printed one after another: the source's notes (simulated, WSL2) once, before the first.
        for s in _ticks(sampler, interval, count):
            n, cost = n + 1, cost + s.cost_s
            console.print(render(s, sampler.info, notes=n == 1))
    elapsed = max(time.monotonic() - started, interval)
    console.print(t("monitor.stopped", count=n) + "  " + t("monitor.cost", percent=100.0 * cost / elapsed))
    return 0


def render(s: Sample, info: SourceInfo, notes: bool = True) -> RenderableType:
    """One sample; `notes`: with the source's notes (the live view redraws them in each frame)."""
    parts: list[RenderableType] = []
    if info.simulated:
        parts.append(Text(t("monitor.simulated_tag"), style="bold reverse magenta"))
    for note in info.notes if notes else ():
        parts.append(Text(safe(note, 1000), style="yellow"))
    if s.no_gpu_reason:
        parts.append(Text(safe(s.no_gpu_reason, 1000), style="yellow"))
    if s.gpus:
        parts.extend(_gpu_lines(g) for g in s.gpus)
        # Under WSL2 there is no table to show: the source's note says why, once.
        if info.processes_available:
            parts.append(_process_table(s))
    host = s.host
    cpu = Text(f"{t('monitor.cpu')} {pct(host.cpu_mean)} ", style=STYLES[level("cpu", host.cpu_mean)])
    if len(host.cpu_percent) <= 16:  # per core, while that still fits on a line
        cpu.append(" ".join(f"{c:.0f}" for c in host.cpu_percent), style="dim")
    elif host.cpu_percent:
        busiest = t("monitor.cli.cpu_max", percent=max(host.cpu_percent), cores=len(host.cpu_percent))
        cpu.append(busiest, style="dim")
    ram_text = f"{t('monitor.ram')} {host.ram_used / 1024**3:.1f}/{host.ram_total / 1024**3:.1f} GiB"
    ram = Text(ram_text, style=STYLES[level("ram", host.ram_percent)])
    parts.append(Text.assemble(cpu, "   ", ram))
    return Group(*parts)


NAME_WIDTH = 19  # "RTX 4060 Laptop GPU" whole
DETAIL_WIDTH = 78


def _fit(name: str, width: int) -> str:
    """The GPU's name, or as many whole words of it as fit and "…": never "RTX 4060 Laptop GP"."""
    if len(name) <= width:
        return name
    out = ""
    for word in name.split():
        if len(f"{out} {word}".strip()) + 1 > width:
            break
        out = f"{out} {word}".strip()
    return (out or name[: width - 1]) + "…"


def _gpu_lines(g: GpuSample) -> Text:
    """Two lines per GPU, so eleven fields fit in 80 columns."""
    if g.lost:
        name = safe(g.name, 60) if g.name is not None else t("monitor.na")
        return Text(f"{g.index} {name}  " + t("monitor.lost", index=g.index), style="bold red")
    name = safe(g.name, 60).replace("NVIDIA ", "").replace("GeForce ", "") if g.name else t("monitor.na")
    line = Text(f"{g.index} {_fit(name, NAME_WIDTH):<{NAME_WIDTH}} ", style="bold")
    line.append(f"GPU {pct(g.util_gpu):>4} ", style=STYLES[level("util", g.util_gpu)])
    line.append(bar(g.util_gpu, 10) + "  ", style=STYLES[level("util", g.util_gpu)])
    line.append(f"{memory_text(g)}  ", style=STYLES[level("mem", g.mem_percent)])
    line.append(f"{unit(g.temperature, '°C')}  ", style=STYLES[level("temp", g.temperature)])
    line.append(power_text(g), style=STYLES[level("power", g.power_percent)])
    # The other fields on indented lines of at most DETAIL_WIDTH cells, broken between fields,
    # so that an 80-column terminal never splits "Memory clock" from its value.
    used = DETAIL_WIDTH
    for r in gpu_rows(g):
        cell = cell_len(f"{r.label} {r.value}  ")
        if used + cell > DETAIL_WIDTH:
            line.append("\n  ")
            used = 2
        line.append(f"{r.label} ", style="dim")
        line.append(f"{r.value}  ", style=STYLES.get(r.level, ""))
        used += cell
    return line


def _process_table(s: Sample) -> RenderableType:
    rows = [(g.index, p) for g in s.gpus for p in g.processes or []]
    if not rows:
        # None is a failed read, not an idle GPU: say N/A rather than "no process".
        unread = any(g.processes is None and not g.lost for g in s.gpus)
        return Text(t("monitor.processes_na") if unread else t("monitor.no_processes"), style="dim")
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("GPU", t("monitor.field.pid"), t("monitor.field.process"), t("monitor.field.gpu_mem")):
        table.add_column(col)
    for index, p in rows:
        mem = t("monitor.na") if p.gpu_memory is None else f"{p.gpu_memory / 1024**2:.0f} MiB"
        name = safe(p.name, 60) if p.name is not None else t("monitor.na")
        table.add_row(str(index), str(p.pid), Text(name), mem)
    return table
