"""`tf-gpu-wizard apply [--yes] [--dry-run] [--new] [selectors]`: run the plan in the terminal.

An unfinished run (stopped for a reboot, by Ctrl-C, or killed) is resumed with
the exact plan it started with, unless a selector or --new asks for another.
One run at a time: a second `apply` while one runs (here or in the app) says
which process holds it and changes nothing. A demo profile resumes only its
own runs. Text from commands and profiles is printed with control characters
made visible (wizard.safe.display).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from wizard.cli.common import add_profile_option, error_line
from wizard.cli.plan import add_selectors, plan_from_args
from wizard.plan.model import FINISHED, Plan, PlanError, Step, first_unfinished, status_word
from wizard.profile import MachineProfile
from wizard.run.runner import FAILED, PENDING, RESTART_PENDING, Runner, RunnerEvents, StepResult
from wizard.safe.display import safe
from wizard.text import t


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:

    parser = subparsers.add_parser("apply", help=t("runner.cli.help"), description=t("runner.cli.help"))
    add_profile_option(parser)
    add_selectors(parser)
    parser.add_argument("--yes", "-y", action="store_true", help=t("runner.cli.yes_help"))
    parser.add_argument("--dry-run", action="store_true", help=t("runner.cli.dry_run_help"))
    parser.add_argument("--new", action="store_true", help=t("runner.cli.new_help"))
    parser.add_argument("--verify", action="store_true", help=t("runner.proof.verify_help"))
    parser.add_argument(
        "--answers", type=Path, default=None, metavar="FILE", help=t("fleet.cli.apply_answers_help")
    )
    parser.set_defaults(func=run)


class TerminalEvents(RunnerEvents):
    """The runner's callbacks for a terminal: print, ask with input() / getpass()."""

    def __init__(self, simulated: bool = False) -> None:
        self.simulated = simulated
        self.tty = sys.stdout.isatty()
        self._progress_shown = False
        self._current = ""  # the step whose header was printed last
        self._numbers: dict[str, int] = {}
        self.failed_output: list[str] = []  # a failed step's last lines (the next route reads them)

    def _end_progress(self) -> None:
        if self._progress_shown:
            sys.stdout.write("\n")
            self._progress_shown = False

    def step_started(self, step: Step, index: int, total: int) -> None:
        self._end_progress()
        where = {"root": "runner.cli.where_root", "windows-host": "runner.cli.where_windows"}.get(step.where)
        line = t(
            "runner.cli.step",
            number=index + 1,
            total=total,
            title=safe(step.title, 400),
            where=t(where) if where else "",
        )
        print("\n" + line, flush=True)
        self._current, self._numbers[step.id] = step.id, index + 1

    def output_line(self, step: Step, line: str, progress: bool = False) -> None:
        if progress:
            if self.tty:  # overwrite in place, like the command itself would
                sys.stdout.write("\r" + safe(line, 200) + "\x1b[K")
                sys.stdout.flush()
                self._progress_shown = True
            return
        self._end_progress()
        print("    " + safe(line, 4000, multiline=True).replace("\n", "\n      "), flush=True)

    def step_finished(self, step: Step, result: StepResult) -> None:
        self._end_progress()
        if result.status == FAILED:
            self.failed_output = list(result.output)
        # The plan model's words for the status (FAILED shouted, as before); a stop is "stopped".
        if result.status == PENDING:
            mark = t("runner.cli.mark.stopped")
        elif result.status == FAILED:
            mark = t("runner.cli.mark.failed")
        else:
            mark = status_word(result.status)
        # A restart's message is the run's last message: the step's line only marks it.
        message = "" if result.status == RESTART_PENDING else safe(result.message, 4000, multiline=True)
        if step.id != self._current and step.id in self._numbers:
            # An earlier step's proof that ran alongside this one (the install's digests beside
            # the verify): say whose it is, under the current step's header.
            message = (
                t("runner.cli.earlier_step", number=self._numbers[step.id], title=safe(step.title, 400))
                + message
            )
        print(f"    [{mark}] {message}", flush=True)

    def needs_password(self, step: Step, attempt: int) -> str | None:
        if self.simulated:
            print("    " + t("runner.cli.simulated_password"))
            return ""
        try:
            return getpass.getpass(t("runner.password_prompt"))
        except (EOFError, OSError):
            return None

    def confirm(self, step: Step, question: str) -> bool:
        try:
            answer = input(t("runner.cli.yes_no", question=question))
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    def wait_for_windows_host(self, step: Step, text: str) -> bool:
        print(safe(text, None, multiline=True))
        try:
            answer = input(t("runner.cli.ran_it"))
        except EOFError:
            return False
        return answer.strip().lower() not in ("q", "quit")

    def needs_restart(self, step: Step, kind: str, message: str) -> None:
        pass  # said once, as the run's last message (below), not also here


class AnswersEvents(TerminalEvents):
    """Unattended (`apply --answers FILE`): no question waits for a person. Root steps go ahead;
    a destructive step only where the file says `confirm = true`; a step on Windows, or a sudo
    that needs a password, stops the run (resumable) instead of waiting."""

    def __init__(self, confirm: bool, simulated: bool = False) -> None:
        super().__init__(simulated=simulated)
        self.confirm_destructive = confirm

    def confirm(self, step: Step, question: str) -> bool:
        answer = self.confirm_destructive if question == step.confirm else True
        print(f"    {safe(question, 400)} -> {'yes' if answer else 'no'}", flush=True)
        return answer

    def needs_password(self, step: Step, attempt: int) -> str | None:
        return "" if self.simulated else None

    def wait_for_windows_host(self, step: Step, text: str) -> bool:
        print(safe(text, None, multiline=True))
        return False


def _take_answers(args: argparse.Namespace) -> bool:
    """Fill the selectors from `--answers FILE` (options given on the command line win).
    False, with one line said, when the file cannot be used."""
    from wizard.fleet.answers import AnswersError, load_answers

    try:
        answers = load_answers(args.answers)
    except AnswersError as exc:
        print(t("cli.error", error=exc), file=sys.stderr)
        return False
    for attr, value in (("tf", answers.tensorflow), ("method", answers.method), ("python", answers.python)):
        if value and not getattr(args, attr, None):
            setattr(args, attr, value)
    if answers.environment and not getattr(args, "venv", None):
        args.venv = Path(answers.environment)
    if answers.mirror and getattr(args, "mirror", None) is None:
        args.mirror = answers.mirror
    if answers.optional and not getattr(args, "enable", None):
        args.enable = list(answers.optional)
    args.answers_confirm = answers.confirm
    return True


def _choose_plan(args: argparse.Namespace, profile: MachineProfile | None = None) -> Plan:
    from wizard.run.journal import unfinished

    simulated = bool(getattr(args, "profile", None))
    selectors = any(getattr(args, k, None) for k in ("tf", "method", "python", "venv", "mirror", "enable"))
    if not args.new and not selectors:
        state, notice = unfinished(simulated=simulated, profile=profile)
        if notice:
            print(notice, file=sys.stderr)
        if state is not None:
            statuses = {step_id: rec.status for step_id, rec in state.steps.items()}
            plan = state.plan
            done = sum(1 for s in plan.active_steps if statuses.get(s.id) in FINISHED)
            first = first_unfinished(plan, statuses)
            if first is None:
                total = len(plan.active_steps)
                print(t("runner.resume", started=safe(state.started, 40), done=done, total=total))
            else:
                print(
                    t(
                        "story.status.resume_cli",
                        started=safe(state.started, 40),
                        done=done,
                        total=len(plan.active_steps),
                        step=first[0],
                        title=safe(first[1].title, 200),
                    )
                )
            return plan
    return plan_from_args(args)[1]


def _demo_memory(args: argparse.Namespace, profile: MachineProfile | None) -> bool:
    """A demo machine keeps what its earlier simulated runs finished (they count as there
    already): say so and how to start over, or, with --new, start over on a fresh one. False
    (said in one line) when a run of this demo is going on, whose journal stays."""
    from wizard.run.journal import demo_memory, forget_demo, memory_fields
    from wizard.safe.lock import LockBusy

    memory = demo_memory(profile)
    if memory is None:
        return True
    if args.new:
        if args.dry_run:  # a dry run changes nothing: the preview is fresh, the journal stays
            print(t("runner.cli.demo_fresh_dry", **memory_fields(*memory)))
            return True
        try:
            forget_demo(profile)
        except LockBusy as exc:
            print(error_line(exc), file=sys.stderr)
            return False
        print(t("runner.cli.demo_fresh"))
        return True
    print(t("runner.cli.demo_remembers", **memory_fields(*memory)))
    return True


def _dry_run(plan: Plan, runner: Runner, *, new: bool = False) -> int:
    from wizard.cjk.wrap import terminal_width
    from wizard.plan.model import step_numbers
    from wizard.plan.view import format_step

    # What the run would do, by the runner's own preview: the same statuses it then reports. With
    # --new, what a run that starts over would do: the whole plan from step 1, though the dry run
    # leaves the remembered run where it is (it changes nothing).
    expected = runner.preview(fresh=new)
    words = {
        "done": "story.status.would_done",
        "satisfied": "story.status.would_satisfied",
    }
    numbers = step_numbers(plan)  # the numbers Run then shows
    for step in plan.steps:
        print()
        lines = format_step(step, numbers.get(step.id), terminal_width(), expected.get(step.id))
        print(safe("\n".join(lines), None, multiline=True))
        if not step.enabled:
            state = t("runner.cli.would_leave_out")
        else:
            state = t(words.get(expected.get(step.id, PENDING), "runner.cli.would_run"))
        print(t("runner.cli.would", state=state))
    return 0


def run(args: argparse.Namespace) -> int:
    from wizard.run.journal import journal_for
    from wizard.safe.atomic import WriteError
    from wizard.safe.lock import LockBusy, RunLock

    if getattr(args, "answers", None) and not _take_answers(args):
        return 2
    if not (args.yes or args.dry_run or getattr(args, "answers", None)):
        from wizard.cli.streams import stdin_is_terminal

        if not stdin_is_terminal():  # the questions before root and destructive steps need a person
            print(t("runner.cli.no_terminal"), file=sys.stderr)
            return 2
    profile = None
    if getattr(args, "profile", None):
        from wizard.cli.common import load_profile_arg

        profile = load_profile_arg(args)  # a demo's resume state is its own
    # Taken before the journal is read: a run in progress is neither resumed nor disturbed.
    lock = RunLock(journal_for(profile is not None, profile).lock_path)
    if not args.dry_run:
        try:
            lock.acquire()
        except (LockBusy, WriteError) as exc:
            print(error_line(exc), file=sys.stderr)
            return 1
    try:
        return _apply(args, profile)
    except WriteError as exc:  # the state dir is read-only or full: one line, nothing half-written
        print(error_line(exc), file=sys.stderr)
        return 1
    finally:
        lock.release()


def _apply(args: argparse.Namespace, profile: MachineProfile | None) -> int:
    try:
        plan = _choose_plan(args, profile)
    except PlanError as exc:
        print(error_line(exc), file=sys.stderr)
        return 1
    if plan.simulated:
        print(t("plan.view.simulated"))
        if not _demo_memory(args, profile):
            return 1
    events: TerminalEvents = TerminalEvents(simulated=plan.simulated)
    if getattr(args, "answers", None):
        events = AnswersEvents(bool(getattr(args, "answers_confirm", False)), simulated=plan.simulated)
    runner = Runner(plan, events, assume_yes=args.yes, profile=profile, sim_delay=0.0)
    if args.dry_run:
        return _dry_run(plan, runner, new=args.new)
    if getattr(args, "verify", False):
        from wizard.run.proof import forget

        forget(plan)  # the proof kept from the last run: none; every digest and TensorFlow again
    result = runner.run()
    if runner.notice:
        print(safe(runner.notice, 2000), file=sys.stderr)
    print()
    print(safe(result.message, 4000, multiline=True))
    if result.log_path:
        print(t("runner.cli.log", path=safe(str(result.log_path), 1000)))
    if result.outcome == "finished":
        from wizard.plan.next_steps import next_steps

        # The last lines a student reads: how to use what was just built.
        print()
        lines = next_steps(plan, exists=None if plan.simulated else os.path.exists)
        print("\n".join(safe(line, 2000) for line in lines))  # a HOME path is data, OSC 52 and all
        from wizard.demo import gpu_only_simulated

        if plan.simulated and plan.set.method != "cpu" and gpu_only_simulated(profile):
            print()
            print(t("demogpu.finish_note"))  # what `monitor` and `bench` will show on this demo
    elif result.outcome == "failed" and result.failed_step == "verify":
        _print_next_route(plan, profile, events.failed_output)
    return {"finished": 0, "restart": 0, "cancelled": 130}.get(result.outcome, 1)


def _print_next_route(plan: Plan, profile: MachineProfile | None, output: list[str]) -> None:
    """The verify failed because a GPU kernel does not run here: the next route, whole."""
    from wizard.plan.routes import kernel_failure, next_route_for

    code = kernel_failure(output)
    if code is None:
        return
    route = next_route_for(plan, profile)
    print()
    if route is None:
        print(t("gpuroute.next_none", code=code))
        return
    print(t("gpuroute.next_title", code=code))
    print("\n".join(safe(line, 2000) for line in route.lines()))
