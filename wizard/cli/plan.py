"""`tf-gpu-wizard plan [--profile F] [--tf X] [--method M] [--venv PATH] [--json | --script]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wizard.choose.choice import METHODS, Candidate, Recommendation
from wizard.cli.common import add_profile_option, error_line
from wizard.mirror.catalogue import Mirror
from wizard.plan.mirror import with_mirror
from wizard.plan.model import Plan, PlanError
from wizard.profile import MachineProfile
from wizard.text import t


def add_selectors(parser: argparse.ArgumentParser) -> None:
    """The options that choose the set and the environment; `apply` takes the same."""
    parser.add_argument("--tf", metavar="X.Y", default=None, help=t("plan.cli.tf_help"))
    parser.add_argument("--method", choices=METHODS, default=None, help=t("plan.cli.method_help"))
    parser.add_argument("--python", metavar="3.N", default=None, help=t("plan.cli.python_help"))
    parser.add_argument("--venv", metavar="PATH", type=Path, default=None, help=t("plan.cli.venv_help"))
    parser.add_argument(
        "--mirror", metavar="NAME|URL", default=argparse.SUPPRESS, help=t("mirror.cli.option_help")
    )
    parser.add_argument(
        "--with", dest="enable", metavar="STEP", action="append", default=None, help=t("plan.cli.with_help")
    )
    parser.add_argument("--pre", action="store_true", help=t("recommend.preview.pre_help"))


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:

    parser = subparsers.add_parser("plan", help=t("plan.cli.help"), description=t("plan.cli.help"))
    add_profile_option(parser)
    add_selectors(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help=t("plan.cli.json_help"))
    out.add_argument("--script", action="store_true", help=t("plan.cli.script_help"))
    parser.set_defaults(func=run)


def pick(rec: Recommendation, method: str | None) -> Candidate | None:
    """The recommended set, or the best working one of the asked-for method."""
    if method and (rec.recommended is None or rec.recommended.set.method != method):
        for cand in rec.candidates:
            if cand.ok and cand.set.method == method:
                return cand
        return None
    return rec.recommended


def check_selectors(args: argparse.Namespace) -> None:
    """An asked-for release or Python that does not exist is an error here, not a note:
    the person would otherwise get a plan for something else without noticing."""
    from wizard.choose.knowledge import load_knowledge
    from wizard.choose.resolver import python_series

    tf, python = getattr(args, "tf", None), getattr(args, "python", None)
    kb = load_knowledge()
    if getattr(args, "pre", False):
        kb = kb.with_previews()
    if tf and kb.release(tf) is None:
        known = ", ".join(r.series for r in kb.releases)
        raise PlanError(t("recommend.note_tf_unknown", tf=tf, known=known))
    if python and python_series(python) is None:
        raise PlanError(t("plan.cli.bad_python", value=python))


def plan_from_args(args: argparse.Namespace) -> tuple[MachineProfile, Plan]:
    from wizard.choose.resolver import recommend
    from wizard.cli.common import load_profile_arg
    from wizard.plan.build import build_plan

    profile = load_profile_arg(args)
    check_selectors(args)
    method = getattr(args, "method", None)
    selectors = {
        "prefer_method": method,
        "tf": getattr(args, "tf", None),
        "python": getattr(args, "python", None),
    }
    if getattr(args, "pre", False):  # pre-releases too, labelled preview (wizard/choose/preview.py)
        from wizard.choose.preview import recommend_with_previews

        rec = recommend_with_previews(profile, **selectors)
    else:
        rec = recommend(profile, **selectors)
    cand = pick(rec, method)
    tf = getattr(args, "tf", None)
    if cand is None:
        wanted = [c for c in rec.candidates if tf is None or _same_release(c, tf)]
        reasons = [r for c in wanted[:3] for r in c.reasons[:1]]
        raise PlanError(t("plan.cli.no_set", reasons="; ".join(reasons) or t("plan.view.no_candidate")))
    if tf and method is None and cand.set.method == "cpu" and profile.has_nvidia_gpu:
        # Asked for a release, got its CPU set: say in one line why its GPU set cannot be, never in silence.
        gpu = [c for c in rec.candidates if _same_release(c, tf) and c.set.method == "pip-and-cuda"]
        why = gpu[0].reasons[0] if gpu and gpu[0].reasons else t("plan.view.no_candidate")
        print(t("plan.cli.cpu_instead", tf=cand.set.tensorflow, why=why), file=sys.stderr)
    plan = build_plan(profile, cand, venv=getattr(args, "venv", None))
    for step_id in getattr(args, "enable", None) or ():  # optional steps switched on: --with jupyter
        optional = [s.id for s in plan.steps if s.optional]
        if step_id not in optional:
            raise PlanError(t("plan.cli.not_optional", step=step_id, optional=", ".join(optional) or "-"))
        plan = plan.with_enabled(step_id, True)
    return profile, with_mirror(plan, chosen_mirror(args))


def _same_release(cand: Candidate, tf: str) -> bool:
    from wizard.choose.knowledge import load_knowledge

    rel = load_knowledge().release(tf)
    return rel is not None and cand.set.tensorflow == str(rel.version)


def chosen_mirror(args: argparse.Namespace) -> Mirror | None:
    """The mirror --mirror names (catalogue name, URL, or default -> None)."""
    from wizard.mirror.advice import resolve
    from wizard.mirror.catalogue import MirrorError, load_catalogue

    ref = getattr(args, "mirror", None)
    if ref is None:
        return None
    try:
        return resolve(ref, load_catalogue())
    except MirrorError as exc:
        raise PlanError(str(exc)) from None


def mirror_advice(args: argparse.Namespace) -> str | None:
    """A line suggesting a mirror (zh_CN locale) when none was asked for; never probes the network."""
    if getattr(args, "mirror", None) is not None:
        return None
    from wizard.mirror.advice import suggest
    from wizard.mirror.catalogue import load_catalogue
    from wizard.mirror.configured import read_configured
    from wizard.text import locale_name

    advice = suggest(load_catalogue(), read_configured(), locale=locale_name())
    return advice.message if advice else None


def run(args: argparse.Namespace) -> int:
    try:
        profile, plan = plan_from_args(args)
        if args.script:
            from wizard.plan.script import render_script

            script = render_script(plan)
    except PlanError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    advice = None if args.json else mirror_advice(args)
    if advice:
        print(advice, file=sys.stderr)
    if args.json:
        from wizard.cli.common import print_json
        from wizard.plan.view import plan_json

        print_json(plan_json(plan))
    elif args.script:
        sys.stdout.write(script)
    else:
        from wizard.cjk.wrap import terminal_width
        from wizard.plan.view import format_plan
        from wizard.run.runner import Runner
        from wizard.safe.display import visible

        if profile.platform == "wsl1":  # a CPU plan because of WSL1: say so first, with the command
            from wizard.profile_view import wsl1_command

            print(visible(t("plan.cli.wsl1_gpu", command=wsl1_command(profile.os.wsl_distro))))
        # The runner's own preview, as the Plan screen and `apply --dry-run` show it.
        statuses = Runner(plan, simulate=plan.simulated, profile=profile).preview()
        sys.stdout.write(
            visible(format_plan(plan, terminal_width(), statuses), multiline=True)
        )  # a GPU name may hold escapes
        print()
        # The hint only where a script can be made; else the one line that says why not.
        from wizard.plan.script import render_script

        try:
            render_script(plan)
            # The command on a line of its own, never wrapped: a terminal copies it whole.
            prose, start, command = t("plan.view.script_hint").partition("tf-gpu-wizard ")
            print(prose.rstrip() + "\n  $ " + start + command if start else prose)
        except PlanError as exc:
            print(exc)  # our own sentence (plan.script.not_windows), not data
    return 0
