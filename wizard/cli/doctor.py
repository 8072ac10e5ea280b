"""`tf-gpu-wizard doctor [--log FILE|-] [--json]`: known failures and their fixes."""

from __future__ import annotations

import argparse
import sys

from wizard.cli.common import add_profile_option, load_profile_arg, print_json
from wizard.text import t


def register(sub: argparse._SubParsersAction) -> None:

    parser = sub.add_parser("doctor", help=t("doctor.help"), description=t("doctor.help"))
    add_profile_option(parser)
    parser.add_argument("--log", metavar="FILE", help=t("doctor.log_help"))
    parser.add_argument("--json", action="store_true", help=t("doctor.json_help"))
    parser.set_defaults(func=run)


def _read_log(ref: str) -> str:
    if ref == "-":
        return sys.stdin.read()
    with open(ref, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def run(args: argparse.Namespace) -> int:
    from wizard.doctor.diagnose import diagnose

    output = None
    if args.log:
        try:
            output = _read_log(args.log)
        except OSError as exc:
            print(f"tf-gpu-wizard: cannot read {args.log}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    found = diagnose(load_profile_arg(args), output)
    if args.json:
        print_json([d.to_dict() for d in found])
        return 0
    from rich.console import Console
    from rich.text import Text

    console = Console()
    if not found:
        console.print(Text(t("doctor.none_found"), style="green"))
    for d in found:
        console.print(Text(d.title, style="bold red"))
        console.print(Text(f"  {d.why}", style="dim"))
        console.print(Text(f"  {d.evidence}", style="dim italic"))
        console.print(Text(f"  {t('doctor.fix')}: {d.fix}", style="cyan"))
        console.print()
    return 0
