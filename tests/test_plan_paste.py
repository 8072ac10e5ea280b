"""Commands copied from `plan` must paste and run.

`tf-gpu-wizard plan` prints each command on one line after `$ `. A program passed with
`-c` that spans several lines cannot survive that: the view indents its continuation
lines, and pasted into a shell the indented Python fails with IndentationError. So no
command or check of any plan (every working method of every demo profile) may carry a
newline inside a `-c` program; longer programs are script files (shipped in assets or
written by a step). Every printed command parses with `bash -n`, and every `-c` program
compiles in its own language.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Plan
from wizard.plan.view import format_plan

HOME = "/home/student"


def _plans() -> list[tuple[str, Plan]]:
    out = []
    for name in demo_names():
        profile = load_demo(name)
        seen: set[str] = set()
        for cand in recommend(profile).candidates:
            if cand.ok and cand.set.method not in seen:
                seen.add(cand.set.method)
                plan = build_plan(profile, cand, home=HOME)
                # Optional steps too: a student may switch them on.
                for step in plan.steps:
                    if step.optional:
                        plan = plan.with_enabled(step.id, True)
                out.append((f"{name}:{cand.set.method}", plan))
    return out


PLANS = _plans()


def _argvs(plan: Plan) -> list[tuple[str, str, tuple[str, ...]]]:
    """(step id, where, argv) for every command and every check of the plan."""
    out = []
    for step in plan.steps:
        out += [(step.id, step.where, argv) for argv in step.commands]
        out.append((step.id + " (check)", step.where, step.check.argv))
    return out


def _programs(argv: tuple[str, ...]) -> list[tuple[str, str]]:
    """(interpreter, program) for every `-c PROGRAM` in argv (uv's `-c FILE` is a constraints file)."""
    found = []
    if argv and argv[0].rsplit("/", 1)[-1] == "uv":
        return found
    for i, word in enumerate(argv[:-1]):
        if word == "-c":
            found.append((argv[i - 1] if i else "", argv[i + 1]))
    return found


@pytest.mark.parametrize(("label", "plan"), PLANS, ids=[label for label, _ in PLANS])
def test_no_program_spans_lines(label: str, plan: Plan) -> None:
    bad = [
        f"{step}: {interp} -c {program[:60]!r}..."
        for step, _, argv in _argvs(plan)
        for interp, program in _programs(argv)
        if "\n" in program
    ]
    assert not bad, "multi-line -c programs (make them script files):\n" + "\n".join(bad)


@pytest.mark.parametrize(("label", "plan"), PLANS, ids=[label for label, _ in PLANS])
def test_every_program_compiles(label: str, plan: Plan) -> None:
    for step, _, argv in _argvs(plan):
        for interp, program in _programs(argv):
            name = interp.rsplit("/", 1)[-1].lower()
            if name.startswith("python") or name in ("py", "python.exe"):
                compile(program, f"<{step}>", "exec")
            elif name == "bash":
                out = subprocess.run(["bash", "-n", "-c", program], capture_output=True, text=True)
                assert out.returncode == 0, f"{step}: {out.stderr}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("label", "plan"), PLANS, ids=[label for label, _ in PLANS])
def test_printed_commands_parse(label: str, plan: Plan) -> None:
    """What `plan` prints after `$ `, pasted as it is, is valid bash, one command a line: each
    step's commands, and its check's command under its sentence (a WSL2 plan's Windows steps are
    checked inside WSL, so their checks are bash too)."""
    if plan.platform == "windows":
        pytest.skip("native Windows plans are PowerShell")
    text = format_plan(plan)
    commands = [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("$ ")]
    assert commands, "the plan printed no command"
    checks = sum(1 for s in plan.steps if s.check_console == "posix")
    assert len(commands) == sum(len(s.commands) for s in plan.steps if s.where != "windows-host") + checks
    for command in commands:
        out = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
        assert out.returncode == 0, f"{command[:120]}: {out.stderr}"
    # One line each: nothing continues on the next line, where the view's indent would join it.
    shown = [line for s in plan.steps if s.where != "windows-host" for line in s.command_lines()]
    assert not [line[:100] for line in shown if "\n" in line], "commands that span lines"
