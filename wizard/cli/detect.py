"""`tf-gpu-wizard detect [--json] [--save FILE]`: what this machine is."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wizard.cli.common import load_profile_arg, print_json
from wizard.profile import MachineProfile
from wizard.text import t


def register(sub: argparse._SubParsersAction) -> None:
    from wizard.cli import add_profile_option

    parser = sub.add_parser("detect", help=t("detect.help"), description=t("detect.help"))
    add_profile_option(parser)
    parser.add_argument("--json", action="store_true", help=t("detect.json_help"))
    parser.add_argument("--save", metavar="FILE", type=Path, help=t("detect.save_help"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    profile = load_profile_arg(args)
    if args.save:
        try:
            profile.save(args.save)
        except OSError as exc:
            print(t("detect.save_failed", path=args.save, error=exc.strerror or exc), file=sys.stderr)
            return 1
    if args.json:
        print_json(profile.to_dict())
    else:
        render(profile)
        if args.save:
            print(t("detect.saved", path=args.save))
    return 0


def _value(x: object) -> str:
    return "unknown" if x in (None, "", "unknown") else str(x)


def summary_rows(p: MachineProfile) -> list[tuple[str, str]]:
    """(label, value) lines of the human summary; the app's detect screen shows the same."""
    rows = [
        (t("detect.row.platform"), t(f"detect.platform.{p.platform}") + f" ({_value(p.arch)})"),
        (t("detect.row.os"), f"{_value(p.os.name)}  ·  kernel {_value(p.os.kernel)}"),
    ]
    env = p.python.env + (f" '{p.python.env_name}'" if p.python.env_name else "")
    rows.append(
        (t("detect.row.python"), f"{_value(p.python.version)}  {env}  ({_value(p.python.executable)})")
    )
    if p.driver:
        rows.append(
            (
                t("detect.row.driver"),
                t(
                    "detect.driver_value",
                    version=p.driver.version,
                    cuda=_value(p.driver.cuda),
                    source=p.driver.source,
                ),
            )
        )
    else:
        rows.append((t("detect.row.driver"), t("detect.none")))
    for g in p.gpus:
        mem = f"{g.memory_mib} MiB" if g.memory_mib else "memory unknown"
        rows.append(
            (
                t("detect.row.gpu", index=g.index),
                f"{g.name}  ·  compute {_value(g.compute_capability)}  ·  {mem}",
            )
        )
    if not p.gpus and p.nvidia_pci_devices:
        rows.append((t("detect.row.gpus"), t("detect.pci_only", count=p.nvidia_pci_devices)))
    elif not p.gpus:
        rows.append((t("detect.row.gpus"), t("detect.none")))
    toolkits = ", ".join(
        f"{tk.version} ({tk.path}{', default' if tk.default else ''})" for tk in p.cuda_toolkits
    )
    rows.append((t("detect.row.cuda"), toolkits or t("detect.none_needed")))
    rows.append(
        (
            t("detect.row.cudnn"),
            ", ".join(f"{c.version} ({c.path})" for c in p.cudnn) or t("detect.none_needed"),
        )
    )
    tf = p.tensorflow
    rows.append(
        (t("detect.row.tensorflow"), f"{tf.version} ({tf.distribution})" if tf else t("detect.not_installed"))
    )
    r = p.resources
    if r.ram_mib is not None:
        free = f"{r.home_free_mib / 1024:.0f} GiB free in home" if r.home_free_mib is not None else ""
        rows.append(
            (t("detect.row.resources"), f"{r.ram_mib / 1024:.0f} GiB RAM  ·  {r.cpu_count} CPUs  ·  {free}")
        )
    return rows


def render(p: MachineProfile) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from wizard.findings import find_problems

    console = Console()
    title = t("detect.title_simulated", label=p.label or "") if p.simulated else t("detect.title")
    table = Table(title=title, show_header=False, box=None, pad_edge=False, title_justify="left")
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for label, value in summary_rows(p):
        table.add_row(label, value)
    console.print(table)
    problems = find_problems(p)
    console.print()
    if not problems:
        console.print(Text(t("detect.no_problems"), style="green"))
    style = {"error": "bold red", "warning": "yellow", "info": "blue"}
    for f in problems:
        line = Text()
        line.append(f"{t('detect.severity.' + f.severity)}: {f.title}", style=style[f.severity])
        line.append(f"\n    {f.why}", style="dim")
        console.print(line)
    known = {f.title for f in problems}
    extra = [n for n in p.notes if n not in known]
    if extra:
        console.print()
        console.print(Text(t("detect.notes"), style="bold"))
        for note in extra:
            console.print(Text(f"  · {note}", style="dim"))
