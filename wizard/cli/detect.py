"""`tf-gpu-wizard detect [--json] [--save FILE]`: what this machine is."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wizard.cli.common import add_profile_option, load_profile_arg, print_json
from wizard.profile import MachineProfile
from wizard.safe.error_words import os_error
from wizard.text import t


def register(sub: argparse._SubParsersAction) -> None:

    parser = sub.add_parser("detect", help=t("detect.help"), description=t("detect.help"))
    add_profile_option(parser)
    parser.add_argument("--json", action="store_true", help=t("detect.json_help"))
    parser.add_argument("--save", metavar="FILE", type=Path, help=t("detect.save_help"))
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--dump", metavar="DIR", type=Path, help=t("detect.dump_help"))
    source.add_argument("--from", dest="from_dump", metavar="DIR", type=Path, help=t("detect.from_help"))
    parser.set_defaults(func=run)


def _profile(args: argparse.Namespace) -> MachineProfile:
    from wizard.probe.dump import detect_and_dump, detect_dump

    if args.from_dump is not None:
        return detect_dump(args.from_dump)
    if args.dump is not None:
        profile = detect_and_dump(args.dump)
        print(t("detect.dumped", path=args.dump), file=sys.stderr)
        return profile
    return load_profile_arg(args)


def run(args: argparse.Namespace) -> int:
    from wizard.probe.dump import DumpError

    try:
        profile = _profile(args)
    except DumpError as exc:
        from wizard.cli.common import error_line

        print(error_line(exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(t("detect.dump_failed", path=args.dump or args.from_dump, error=os_error(exc)), file=sys.stderr)
        return 1
    if args.save:
        try:
            profile.save(args.save)
        except OSError as exc:
            print(t("detect.save_failed", path=args.save, error=os_error(exc)), file=sys.stderr)
            return 1
    if args.json:
        print_json(profile.to_dict())
    else:
        render(profile)
        if args.save:
            print(t("detect.saved", path=args.save))
    return 0


def render(p: MachineProfile) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from wizard.doctor.findings import find_problems
    from wizard.safe.display import safe
    from wizard.safe.display import text as safe_text

    console = Console()
    title = t("detect.title_simulated", label=p.label or "") if p.simulated else t("detect.title")
    table = Table(
        title=safe_text(title, limit=400), show_header=False, box=None, pad_edge=False, title_justify="left"
    )
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    from wizard.probe import PARTS
    from wizard.profile_view import part_rows

    for name, _ in PARTS:
        for label, value in part_rows(name, p):
            # Data, not markup: a venv under "x[/b]" or an escape sequence in a GPU name is shown as is.
            table.add_row(Text(label), safe_text(value, limit=400))
    console.print(table)
    problems = find_problems(p)
    console.print()
    if not problems:
        console.print(Text(t("detect.no_problems"), style="green"))
    style = {"error": "bold red", "warning": "yellow", "info": "blue"}
    for f in problems:
        line = Text()
        line.append(f"{t('detect.severity.' + f.severity)}: {safe(f.title, 400)}", style=style[f.severity])
        line.append(f"\n    {safe(f.why, 2000)}", style="dim")  # the Blackwell paragraph is ~1,100
        for seen in f.evidence:
            line.append(f"\n      {t('detect.evidence', line=safe(seen, 600))}", style="dim italic")
        console.print(line)
    known = {f.title for f in problems}
    extra = [n for n in p.notes if n not in known]
    if extra:
        console.print()
        console.print(Text(t("detect.notes"), style="bold"))
        for note in extra:
            console.print(Text(f"  · {safe(note, 1000)}", style="dim"))
