"""`tf-gpu-wizard doctor [--log FILE|-] [--run CMD...] [--venv DIR] [--json]`: known failures, fixed.

Without --log/--run the doctor reports what `detect` finds on this machine (or on --profile), with
the fix. --log reads a bounded view of a log (wizard.doctor.logread); --run runs a command in the
target environment and diagnoses its output as it comes (wizard.doctor.live).

Exit status: 0 nothing harmful found, 1 a harmful problem found (or the --run command failed),
2 bad input (a log that cannot be read, a command that cannot start, --log with --run).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wizard.cli.common import add_profile_option, load_profile_arg, print_json
from wizard.safe.error_words import os_error
from wizard.text import t

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from wizard.doctor.diagnose import Diagnosis
    from wizard.profile import MachineProfile

EXIT_OK, EXIT_HARMFUL, EXIT_BAD_INPUT = 0, 1, 2
RUN_FACT_LINES = 20_000  # lines of a --run command's output kept for reading its facts
STYLE = {"error": "bold red", "warning": "yellow", "info": "blue", "harmless": "dim"}


def register(sub: argparse._SubParsersAction) -> None:
    from wizard.paths import default_venv, shown

    parser = sub.add_parser(
        "doctor",
        help=t("doctor.help"),
        description=t("doctor.help"),
        epilog=t("doctor.exit_codes"),
    )
    add_profile_option(parser)
    parser.add_argument("--log", metavar="FILE", help=t("doctor.log_help"))
    parser.add_argument("--venv", metavar="DIR", help=t("doctor.venv_help", venv=shown(default_venv())))
    parser.add_argument("--json", action="store_true", help=t("doctor.json_help"))
    # Last, and taking the rest of the line: `doctor --run python train.py --epochs 3`.
    parser.add_argument("--run", nargs=argparse.REMAINDER, metavar="CMD", help=t("doctor.run_help"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from wizard.doctor.diagnose import diagnose_lines, from_hits

    console = Console(stderr=bool(args.json))  # with --json, stdout is for the JSON only
    if args.log and args.run is not None:
        print(t("doctor.log_and_run"), file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.run is not None:
        return _run_command(args, console)
    profile = None
    if not args.log:
        profile = load_profile_arg(args)
        found = from_hits((), profile)
    else:
        from wizard.doctor.logread import read_log, size_text
        from wizard.safe.display import safe

        try:
            log = read_log(args.log)
        except OSError as exc:
            print(t("cli.cannot_read", path=safe(args.log), error=os_error(exc)), file=sys.stderr)
            return EXIT_BAD_INPUT
        if log.truncated and not args.json:
            console.print(_plain(t("doctor.log_tail_note", size=size_text(log.tail_bytes)), "dim"))
        if log.stopped and not args.json:
            console.print(_plain(t("doctor.log_stopped_note", size=size_text(log.scanned)), "dim"))
        profile = load_profile_arg(args)
        found = diagnose_lines(log.lines, profile)
    _report(args, found, console, output_given=bool(args.log), profile=profile)
    return EXIT_HARMFUL if any(d.harmful for d in found) else EXIT_OK


def _report(
    args: argparse.Namespace,
    found: list[Diagnosis],
    console: Console,
    *,
    output_given: bool,
    profile: MachineProfile | None,
    extra: dict[str, object] | None = None,
) -> None:
    if args.json:
        items = [d.to_dict() for d in found]
        print_json(items if extra is None else {**extra, "diagnoses": items})
    else:
        render(console, found, output_given=output_given, profile=profile)


def _run_command(args: argparse.Namespace, console: Console) -> int:
    from wizard.doctor.catalogue import LineMatcher
    from wizard.doctor.live import CannotStart, WatchedRun, target_env
    from wizard.safe.display import safe

    if not args.run:
        print(t("doctor.run_missing"), file=sys.stderr)
        return EXIT_BAD_INPUT
    venv = Path(args.venv).expanduser() if args.venv else _default_venv(args)
    env = target_env(venv)
    try:
        watched = WatchedRun(args.run, env)
    except CannotStart as exc:
        print(t("doctor.run_cannot_start", command=safe(args.run[0]), error=safe(str(exc))), file=sys.stderr)
        return EXIT_BAD_INPUT
    # Shown before it starts: the exact program and arguments, and where it runs.
    console.print(_plain(t("doctor.running", command=safe(shlex.join(watched.argv), limit=500)), "bold"))
    if env.get("VIRTUAL_ENV"):
        console.print(_plain(t("doctor.running_in", venv=safe(venv)), "dim"))
    else:
        console.print(_plain(t("doctor.run_no_venv", venv=safe(venv)), "dim"))
    from collections import deque

    from wizard.doctor.facts import read_facts

    matcher = LineMatcher()
    tail: deque[str] = deque(maxlen=RUN_FACT_LINES)  # the facts are read from the output's tail
    interrupted = False
    try:
        for number, line in watched.lines():
            console.print(_plain(safe(line, limit=None), "dim"))
            tail.append(line)
            hit = matcher.feed(line, number)
            if hit is not None and hit.pattern.harmful:
                console.print(
                    _plain(t("doctor.live_hit", title=t(f"doctor.{hit.pattern.id}.title")), "bold red")
                )
    except CannotStart as exc:
        print(t("doctor.run_cannot_start", command=safe(args.run[0]), error=safe(str(exc))), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        interrupted = True
        watched.stop()
        console.print(_plain(t("doctor.run_interrupted"), "yellow"))
    code = watched.returncode
    console.print()
    console.print(_plain(t("doctor.run_exit", code=code), "bold" if code == 0 else "bold red"))
    extra: dict[str, object] = {"command": watched.argv, "exit_status": code, "interrupted": interrupted}
    from wizard.doctor.diagnose import fact_text, from_hits

    profile = load_profile_arg(args)
    # The command ran here: this machine's platform is the text's, a demo's is not.
    facts = read_facts(fact_text(list(tail)))
    found = from_hits(matcher.hits.values(), profile, facts, written_there=not profile.simulated)
    _report(args, found, console, output_given=True, profile=profile, extra=extra)
    failed = code != 0 or interrupted
    return EXIT_HARMFUL if failed or any(d.harmful for d in found) else EXIT_OK


def _default_venv(args: argparse.Namespace) -> Path:
    """The environment --run uses unless --venv names one: the wizard's, in this user's home; under
    --profile the one that machine's plan names (a demo's is in the demo user's home, never this
    user's real environment: it is not there, and the command runs with the plain PATH)."""
    from wizard.paths import default_venv

    if not getattr(args, "profile", None):
        return default_venv()
    from wizard.plan.build import default_venv_for

    return Path(default_venv_for(load_profile_arg(args)))


def render(
    console: Console, found: list[Diagnosis], *, output_given: bool, profile: MachineProfile | None = None
) -> None:
    """The output's own findings first (harmful, then 'not recognised' when the text held nothing
    known, then its harmless messages, labelled); then what detect finds on this machine, under a
    heading that says so. Every line is Rich Text made safe (control characters visible), never
    markup: titles and evidence may carry a GPU name, a path or a log line."""
    from rich.text import Text

    from wizard.cjk.wrap import command_lines, wrap
    from wizard.doctor.report_view import demo_heading, doctor_report, machine_fix_line
    from wizard.safe.display import safe, text

    def show(value: str, style: str, limit: int | None = None) -> None:
        console.print(text(value, style, limit=limit))

    def advice(value: str, style: str, indent: str = "  ") -> None:
        # A fix names commands inside its sentence: wrapped here between words, never inside a
        # command, and printed as laid out (Rich would break it again at the edge).
        for line in command_lines(value, console.width, indent):
            console.print(Text(line, style=style), soft_wrap=True)

    def indented(value: str, style: str, limit: int | None = None, first: str = "  ") -> None:
        # A log line or a source list: wrapped between words under its own indent, so a second
        # line never starts at the margin where it reads as a new entry.
        for line in wrap(safe(value, limit), console.width, first, first + "  ", keep_code=False):
            console.print(Text(line, style=style), soft_wrap=True)

    def full(d: Diagnosis) -> None:
        label = t("doctor.note_label") + ": " if d.severity == "info" else ""
        show(label + d.title, STYLE.get(d.severity, "bold"))
        if d.why:  # a machine state's fix is its why: said once, as the fix
            advice(d.why, "dim")
        indented(d.evidence, "dim italic", limit=400)
        advice(t("doctor.fix_line", fix=d.fix), "cyan")
        if d.for_this_machine:
            advice(machine_fix_line(d.for_this_machine, profile), "cyan")
        indented(t("doctor.source_line", source=d.seen_in), "dim")
        console.print()

    report = doctor_report(found, text_given=output_given)
    if output_given and found:
        show(t("doctor.log_heading"), "bold")
        console.print()
    for d in report.from_text:
        full(d)
    if report.not_recognised:
        show(t("doctor.not_recognised"), "yellow")
        advice(t("doctor.not_recognised_next"), "yellow")
        console.print()
    if report.harmless:
        show(t("doctor.harmless_intro"), "dim")
        for d in report.harmless:
            show(f"  {t('doctor.harmless_label')} · {d.title}", "dim")
            advice(d.why, "dim", "    ")
            indented(d.evidence, "dim italic", limit=400, first="    ")
        console.print()
    if report.nothing_found:
        show(t("doctor.none_found"), "green")
    if report.machine and output_given:
        # What detect finds where the doctor runs: not necessarily the machine that wrote the log.
        # a demo or saved profile is never this computer
        show(demo_heading(profile) or t("doctor.machine_heading"), "bold")
        console.print()
    for d in report.machine:
        full(d)


def _plain(message: str, style: str = "") -> Text:
    """Our own catalogue text as Rich Text: never parsed as markup (it may hold [brackets])."""
    from rich.text import Text

    return Text(message, style=style)
