"""`tf-gpu-wizard recommend [--profile F] [--json]`: which TensorFlow setup fits, and why."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from wizard.choose.choice import METHODS, Candidate, Recommendation, method_words
from wizard.choose.driver_view import first_step_line
from wizard.choose.resolver import useful_candidates
from wizard.cli.common import add_profile_option, error_line
from wizard.plan.lock_view import install_summary
from wizard.plan.routes import Route, ranked_lines, routes_for
from wizard.text import t

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from wizard.profile import MachineProfile


# Reasons a row shows by default: the first few lead lines; the rest, in full, with --explain.
SHOWN_REASONS = 2


def _first_reasons(lines: list[str]) -> list[str]:
    if len(lines) <= SHOWN_REASONS:
        return lines
    return [*lines[:SHOWN_REASONS], t("keys.findings.more_reasons", count=len(lines) - SHOWN_REASONS)]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:

    parser = subparsers.add_parser(
        "recommend",
        help=t("recommend.cli.help"),
        description=t("recommend.cli.description"),
    )
    add_profile_option(parser)
    parser.add_argument("--json", action="store_true", help=t("recommend.cli.json_help"))
    parser.add_argument("--method", choices=METHODS, default=None, help=t("recommend.cli.method_help"))
    parser.add_argument("--tf", metavar="X.Y", default=None, help=t("recommend.cli.tf_help"))
    parser.add_argument("--python", metavar="3.N", default=None, help=t("recommend.cli.python_help"))
    parser.add_argument("--all", action="store_true", help=t("recommend.cli.all_help"))
    parser.add_argument("--pre", action="store_true", help=t("recommend.preview.pre_help"))
    parser.add_argument("--explain", action="store_true", help=t("keys.findings.explain_help"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from wizard.choose.resolver import recommend
    from wizard.cli.common import load_profile_arg, print_json
    from wizard.cli.plan import check_selectors
    from wizard.plan.model import PlanError

    profile = load_profile_arg(args)
    try:
        check_selectors(args)  # --tf 9.9 is an error, as it is for plan, not a note under a table
    except PlanError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    selectors = {
        "prefer_method": getattr(args, "method", None),
        "tf": getattr(args, "tf", None),
        "python": getattr(args, "python", None),
    }
    if getattr(args, "pre", False):  # pre-releases too, labelled preview (wizard/choose/preview.py)
        from wizard.choose.preview import recommend_with_previews

        rec = recommend_with_previews(profile, **selectors)
    else:
        rec = recommend(profile, **selectors)
    if getattr(args, "json", False):
        print_json({**rec.to_dict(), "routes": [asdict(r) for r in _routes(rec, profile)]})
        return 0 if rec.recommended else 1
    from rich.console import Console

    render(
        rec,
        Console(),
        simulated=profile.simulated,
        show_all=getattr(args, "all", False),
        profile=profile,
        explain=getattr(args, "explain", False),
    )
    return 0 if rec.recommended else 1


# Below this width the reasons column would be squeezed to a few letters a line;
# the reasons then go under the table, numbered like the rows.
WIDE_ENOUGH = 110


def _shown(value: str, style: str = "") -> Text:
    """Data as text: control characters visible, never markup, never run through Rich's highlighter
    (which took minutes on a 100,000-character GPU name); long text is cut."""
    from wizard.safe.display import text

    return text(value, style, limit=4000, multiline=True)


def _filled(value: str, width: int) -> Text:
    """A reason as lines of at most `width` cells, made safe first (so what is measured is shown)."""
    from rich.text import Text

    from wizard.cjk.wrap import wrap
    from wizard.safe.display import safe

    shown = safe(value, 4000, multiline=True)
    lines = [line for para in shown.split("\n") for line in wrap(para, width)]
    return Text("\n".join(lines), overflow="fold", no_wrap=False)


def render(
    rec: Recommendation,
    console: Console,
    *,
    simulated: bool = False,
    show_all: bool = False,
    profile: MachineProfile | None = None,
    explain: bool = False,
) -> None:
    from rich.table import Table

    from wizard.doctor.finding_view import has_more, lead

    wide = console.width >= WIDE_ENOUGH
    table = Table(title=t("recommend.title_simulated" if simulated else "recommend.title"), show_lines=False)
    keys = ["col_tensorflow", "col_method", "col_python", "col_cuda", "col_cudnn", "col_status"]
    if wide:
        keys.append("col_why")
    else:
        table.add_column("#", justify="right", style="dim")
    for key in keys:
        table.add_column(t(f"recommend.{key}"), overflow="fold")
    rows = useful_candidates(rec, show_all)
    said = said_once(rows)
    # Each reason leads with one line (its evidence and sources with --explain): a 60-line cell
    # is read by nobody.
    more = not explain and any(has_more(reason) for lines in said for reason in lines)
    if not explain:
        said = [[lead(reason) for reason in lines] for lines in said]
    if not explain and wide:  # a table cell holds a few; the list under a narrow table holds each
        more = more or any(len(lines) > SHOWN_REASONS for lines in said)
        said = [_first_reasons(lines) for lines in said]
    for number, cand in enumerate(rows, 1):
        is_best = cand is rec.recommended
        status = (
            t("recommend.recommended") if is_best else t("recommend.fits" if cand.ok else "recommend.no_fit")
        )
        if cand.ok and cand.driver is not None and cand.driver.step:
            restart = cand.driver.restart_only
            status += t("recommend.with_restart_step" if restart else "recommend.with_driver_step")
        if cand.ok and cand.linux_driver:
            status += t("recommend.with_linux_driver_step")
        cells: list[str | Text] = [
            cand.set.tensorflow,
            method_words(cand.set.method),
            cand.set.python or "-",
            cand.set.cuda or "-",
            cand.set.cudnn or "-",
            status,
        ]
        cells = [*cells, _shown("\n".join(said[number - 1]))] if wide else [str(number), *cells]
        table.add_row(*cells, style="bold green" if is_best else (None if cand.ok else "dim"))
    console.print(table)
    if not wide:
        reasons = Table.grid(padding=(0, 2))
        reasons.add_column(justify="right", style="dim")
        reasons.add_column()
        # Filled here by cells with the CJK break rules (Rich breaks only at spaces and cut a run of
        # Chinese with "…" mid-sentence); a unit wider than the line is folded, never cut.
        room = max(20, console.width - len(str(len(rows))) - 2)
        for number, cand in enumerate(rows, 1):
            for reason in said[number - 1]:
                reasons.add_row(str(number), _filled(reason, room), style=None if cand.ok else "dim")
        console.print(reasons)
    hidden = len(rec.candidates) - len(rows)
    if hidden > 0 and not show_all:
        console.print(t("recommend.more", count=hidden), style="dim")
    if more:
        console.print(t("keys.findings.more_recommend"), style="dim")
    _render_summary(rec, console, profile)


def said_once(rows: list[Candidate]) -> list[list[str]]:
    """Each row's reasons, a reason an earlier row already gave said once: the later rows get
    one line pointing back to it (a 15-line Blackwell paragraph is not printed four times)."""
    first: dict[str, int] = {}
    out: list[list[str]] = []
    for number, cand in enumerate(rows, 1):
        lines: list[str] = []
        again: list[int] = []
        for reason in cand.reasons:
            if reason in first:
                again.append(first[reason])
            else:
                first[reason] = number
                lines.append(reason)
        if again:
            where = ", ".join(str(n) for n in sorted(set(again)))
            key = "recommend.same_z18.one" if len(again) == 1 else "recommend.same_z18.many"
            row_word = "recommend.same_z18.row" if len(set(again)) == 1 else "recommend.same_z18.rows"
            lines.append(t(key, count=len(again), rows=t(row_word, rows=where)))
        out.append(lines)
    return out


def _render_summary(rec: Recommendation, console: Console, profile: MachineProfile | None = None) -> None:
    best = rec.recommended
    if best is None:
        console.print(t("recommend.nothing_fits"), style="bold red")
    else:
        line = t(
            "recommend.best",
            tensorflow=best.set.tensorflow,
            python=best.set.python,
            method=method_words(best.set.method),
        )
        if best.set.cuda:
            line += t("recommend.best_cuda", cuda=best.set.cuda, cudnn=best.set.cudnn)
        console.print(_shown(line, "bold green"))
        if best.driver is not None and best.driver.step:  # the plan's first step, said with the set
            console.print(_shown(first_step_line(best.driver), "yellow"))
        if best.python_change:
            console.print(_shown(t("recommend.python_change", how=best.python_change)))
        if best.constraints:
            console.print(t("recommend.constraints"))
            for line, why in zip(best.constraints, best.constraint_reasons, strict=False):
                console.print(_shown(f"  {line}"))
                console.print(_shown(f"    {why}", "dim"))
        # What the plan installs, said as the plan says it (wizard/plan/lock_view.py).
        summary = install_summary(best, profile)
        if summary:
            console.print(_shown(summary))
        if best.pins:  # the one nvidia-* set pinned with == for this GPU and driver
            console.print(t("plan.lock_view.nvidia_pins" if summary else "recommend.pins"))
            console.print(_shown("  " + " ".join(best.pins), "dim"))
    if rec.unlock_hint:
        console.print(_shown(t("recommend.hint", hint=rec.unlock_hint), "yellow"))
    for note in rec.notes:
        console.print(_shown(f"  {note}", "dim"))
    routes = _routes(rec, profile)
    if routes:  # a GPU the wheels serve only in part: the other routes, ranked (wizard/plan/routes.py)
        console.print(t("gpuroute.ranked_title"))
        for line in ranked_lines(routes):
            console.print(_shown(line))


def _routes(rec: Recommendation, profile: MachineProfile | None) -> list[Route]:
    """The ranked routes where some go beyond the wizard's own sets (a cited build serves this GPU)."""
    if profile is None:
        return []
    from wizard.plan.build import machine_home

    routes = routes_for(profile, rec, machine_home(profile))
    return routes if any(r.source for r in routes) else []


# ---- the README table ---------------------------------------------------------------


def demo_markdown() -> str:
    """The recommendation for every bundled demo profile, as a Markdown table
    (the README's table; tests/test_resolver_demos.py keeps it current)."""
    from wizard.choose.resolver import recommend
    from wizard.demo import demo_names, load_demo

    lines = [
        "| profile | recommended TF | method | python | cuda | cudnn | why / hint |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in demo_names():
        rec = recommend(load_demo(name))
        best = rec.recommended
        why = [*(best.reasons if best else []), *(best.constraints if best else [])]
        if best and best.python_change:
            why.append(best.python_change)
        if rec.unlock_hint:
            why.append(f"hint: {rec.unlock_hint}")
        cells = (
            [
                best.set.tensorflow,
                best.set.method,
                best.set.python,
                best.set.cuda or "-",
                best.set.cudnn or "-",
            ]
            if best
            else ["none", "-", "-", "-", "-"]
        )
        text = "<br>".join(_md(w) for w in why) or "-"
        lines.append(f"| `{name}` | " + " | ".join(cells) + f" | {text} |")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
