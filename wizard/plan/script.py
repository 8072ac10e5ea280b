"""Export a Plan as a self-contained bash script (`tf-gpu-wizard plan --script`).

The script does what the runner does: each step's check first (done -> skip),
the commands, the check again; it stops for a reboot / `wsl --shutdown` and is
simply run again afterwards. Every word of every command goes through
`shlex.quote`, so values from the machine (paths with spaces or quotes) stay
single words. Windows-host steps are printed for PowerShell and the script
waits for Enter. It passes `bash -n` and `shellcheck` (tested).
"""

from __future__ import annotations

import re
import shlex

from wizard import __version__
from wizard.choose.choice import method_words
from wizard.plan.model import Plan, PlanError, Step, step_numbers
from wizard.plan.next_steps import next_steps
from wizard.plan.programs import LOCKS, embedded, program_bytes, program_name
from wizard.safe.display import RAW_CHARS, visible
from wizard.text import t

_PRELUDE = """\
set -euo pipefail

say() { printf '\\n==> %s\\n' "$*"; }
fail() { printf '%s\\n' "$*" >&2; exit 1; }
confirm() {
  local answer
  read -r -p "$1" answer || answer=""
  case "$answer" in y | Y | yes | YES) return 0 ;; *) return 1 ;; esac
}
"""


# The plan view's words for where a step runs and what it needs afterwards.
_WHERE = {
    "user": "plan.view.where_user",
    "root": "plan.view.where_root",
    "windows-host": "plan.view.where_windows",
}
_RESTART = {"reboot": "plan.view.restart_reboot", "wsl-shutdown": "plan.view.restart_wsl"}


_END = "TF_GPU_WIZARD_PROGRAM"  # the here-document delimiter of an embedded program


# What a terminal must never get raw (wizard.safe.display's set, plus every C0 but tab): a word
# holding one is written in bash's $'...' quoting, its bytes as \xHH, the same word to bash.
_RAW = re.compile(f"[{RAW_CHARS}]")


def _ansi_c(text: str) -> str:
    """$'...' with every byte outside printable ASCII as \\xHH: locale-proof, and inert on a terminal."""
    try:
        data = text.encode("utf-8", "surrogateescape")  # a path's undecodable bytes, as they were
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    out = []
    for byte in data:
        ch = chr(byte)
        if ch in "\\'":
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{byte:02x}")
    return "$'" + "".join(out) + "'"


def _q(text: str) -> str:
    return _ansi_c(text) if _RAW.search(text) else shlex.quote(text)


def _join(argv: tuple[str, ...]) -> str:
    """A command line; our programs (assets/programs) are named in the script's own copy of them."""
    words = []
    for arg in argv:
        name = program_name(arg)
        words.append(f'"$WIZARD_PROGRAMS"/{name}' if name else _q(arg))
    return " ".join(words)


def _programs(plan: Plan) -> list[str]:
    """The script carries the programs its steps run, so it needs no wizard installed to run."""
    argvs = [argv for step in plan.steps if step.enabled for argv in (*step.commands, step.check.argv)]
    used = embedded(argvs)
    if not used:
        return []
    lines = [
        "",
        _comment(t("plan.script.programs"))[0],
        "WIZARD_PROGRAMS=$(mktemp -d)",
        "trap 'rm -rf -- \"$WIZARD_PROGRAMS\"' EXIT",
    ]
    if any("/" in name for name in used):  # the plan's lock files (wizard.plan.programs.LOCKS)
        lines.append(f'mkdir "$WIZARD_PROGRAMS/{LOCKS}"')
    for name in used:
        text = program_bytes(name).decode("utf-8")
        lines.append(f"cat > \"$WIZARD_PROGRAMS/{name}\" <<'{_END}'")
        lines += text.rstrip("\n").split("\n")
        lines.append(_END)
    return lines


def _comment(text: str) -> list[str]:
    # Comments are for reading only, but keep them on their own lines whatever the text holds,
    # and keep terminal escapes from a GPU name out of them (they would reach `cat script.sh`).
    return ["# " + line for line in visible(text, multiline=True).splitlines()]


def _echo(text: str, indent: str = "  ") -> str:
    return f"{indent}printf '%s\\n' {_q(visible(text, multiline=True))}"


def _step_lines(step: Step, number: int, total: int) -> list[str]:
    head = f"{number}/{total} {step.title}"
    lines = [""]
    restart = t(_RESTART[step.restart]) if step.restart in _RESTART else (step.restart or "")
    lines += _comment(
        t(
            "plan.script.step_comment",
            number=number,
            total=total,
            title=step.title,
            where=t(_WHERE[step.where]) if step.where in _WHERE else step.where,
            restart=t("plan.script.restart_suffix", restart=restart) if restart else "",
        )
    )
    lines += _comment(step.why)
    lines.append(f"say {_q(visible(head))}")
    # Each check once, as a function: the step tests it before and after.
    check = f"check_{number}"
    if not step.check_is_last_command or step.check_before:
        lines.append(f"{check}() {{")
        lines.append("  " + _join((step.before_check if step.check_before else step.check).argv))
        lines.append("}")
    after = check
    if step.recheck is not None and not step.check_is_last_command:
        after = f"check_{number}_after"  # the cheaper check before, the step's own after
        lines += [f"{after}() {{", "  " + _join(step.check.argv), "}"]
    body: list[str] = []
    if step.confirm:
        question, declined = t("plan.script.confirm", text=step.confirm), t("plan.script.declined")
        body.append(f"  confirm {_q(visible(question))} || fail {_q(visible(declined))}")
    if step.restart_only:
        pass  # nothing to run: the restart below is the step
    elif step.where == "windows-host" or not step.commands:
        # What to do by hand is prose, said as prose; "Run this in Windows PowerShell:" heads only
        # the commands that follow it (it once headed a sentence, which no shell runs).
        if step.manual:
            key = "keys.script.windows_by_hand" if step.where == "windows-host" else "plan.script.manual"
            body.append(_echo(t(key)))
            body.append(_echo("    " + step.manual))
        lines_to_run = step.command_lines()
        if lines_to_run:
            body.append(
                _echo(t("plan.script.windows") if step.where == "windows-host" else t("plan.script.manual"))
            )
        for line in lines_to_run:
            body.append(_echo("    " + line))
        body.append(f"  read -r -p {_q(t('plan.script.press_enter'))} _")
    else:
        prefix = "sudo " if step.needs_root else ""
        body += ["  " + prefix + _join(argv) for argv in step.commands]
    if step.restart:
        key = "plan.script.wsl_shutdown" if step.restart == "wsl-shutdown" else "plan.script.reboot"
        body.append(_echo(t(key)))
        body.append("  exit 0")
    elif not step.check_is_last_command:
        fail = t("plan.script.failed", title=step.title, proves=step.check.proves)
        body.append(f"  {after} || fail {_q(visible(fail))}")  # a GPU name's controls stay escaped
    if step.check_before:
        lines.append(f"if {check} >/dev/null 2>&1; then")
        lines.append(_echo(t("story.status.script_satisfied", proves=step.before_check.proves)))
        lines.append("else")
        lines += body
        lines.append("fi")
    else:
        lines += [b[2:] for b in body]
    return lines


def render_script(plan: Plan) -> str:
    if plan.platform == "windows":
        raise PlanError(t("plan.script.not_windows"))
    from wizard.safe.profile_hint import profile_for

    # The script runs on the machine it was made for: its own words name that machine's wizard,
    # never a --profile of the session that exported it (in this thread only: see profile_for).
    with profile_for(None):
        return _render_script(plan)


def _render_script(plan: Plan) -> str:
    s = plan.set
    lines = ["#!/usr/bin/env bash"]
    method = method_words(s.method)  # the words the app and `plan` use, not the bare name
    lines += _comment(t("plan.script.header", tensorflow=s.tensorflow, method=method, python=s.python))
    lines += _comment(t("plan.script.machine", label=plan.label))
    lines += _comment(t("plan.script.environment", venv=plan.venv))
    for note in plan.notes:  # the mirror in use, a Python to install first ...
        lines += _comment("* " + note)
    lines += _comment(t("plan.script.usage"))
    if plan.simulated:  # a demo never turns into the real machine without the user's say
        lines += _comment(t("plan.script.simulated", label=plan.label))
    lines += _comment(t("plan.script.generated", version=__version__, plan=plan.id))
    # The checks and helpers are small programs passed to bash -c / python -c in single
    # quotes on purpose: their $1, $2 are the arguments that follow, not this script's.
    lines.append("# shellcheck disable=SC2016")
    lines.append(_PRELUDE)
    if plan.simulated:
        refuse = t("plan.script.refuse_simulated", label=plan.label)
        lines.append('if [ "${TF_GPU_WIZARD_RUN_SIMULATED:-}" != yes ]; then')
        lines.append(f"  fail {_q(visible(refuse))}")
        lines.append("fi")
    lines += _programs(plan)
    # One count of steps: the plan's (step_numbers), the app's and `apply`'s; a step switched off
    # is named, unnumbered, and not counted.
    numbers, total = step_numbers(plan), len(plan.active_steps)
    for step in plan.steps:
        if step.enabled:
            lines += _step_lines(step, numbers[step.id], total)
        else:
            lines += ["", *_comment(t("keys.script.off_comment", title=step.title))]
            lines.append(_echo(t("plan.script.optional_off", title=step.title), ""))
    lines.append("")
    lines.append(f"say {_q(t('plan.script.done'))}")
    # How to use the environment: the same words as the app's finish and `apply`'s last lines.
    lines += [_echo(line, "") for line in next_steps(plan)]
    return "\n".join(lines) + "\n"
