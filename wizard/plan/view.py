"""A Plan as plain text for people (`tf-gpu-wizard plan`, golden files, the app's export)."""

from __future__ import annotations

from wizard.choose.choice import method_words
from wizard.cjk.wrap import wrap
from wizard.plan.model import DONE, SATISFIED, Plan, Step, status_word, step_numbers
from wizard.text import t


def size_text(mib: int) -> str:
    if mib >= 1024:
        return f"{mib / 1024:.1f} GB"
    return f"{mib} MB"


def _where(step: Step) -> str:
    return {
        "root": t("plan.view.where_root"),
        "windows-host": t("plan.view.where_windows"),
    }.get(step.where, t("plan.view.where_user"))


def _there(step: Step, status: str | None) -> bool:
    """Already there by the runner's preview (satisfied, or done by the run this resumes)."""
    return step.enabled and status in (DONE, SATISFIED)


def _tags(step: Step, status: str | None = None) -> list[str]:
    tags = [_where(step)]
    if _there(step, status):
        tags.append(status_word(status or SATISFIED))  # nothing runs: no restart afterwards either
    elif step.restart == "reboot":
        tags.append(t("plan.view.restart_reboot"))
    elif step.restart == "wsl-shutdown":
        tags.append(t("plan.view.restart_wsl"))
    if step.optional:
        tags.append(t("plan.view.optional_on" if step.enabled else "plan.view.optional_off"))
    if step.download_mib:
        tags.append("~" + size_text(step.download_mib))
    return tags


def _wrap(text: str, indent: str, width: int) -> list[str]:
    return wrap(text, width, indent, indent + "  ")


def format_step(step: Step, number: int | None, width: int = 100, status: str | None = None) -> list[str]:
    """`status`: the runner's preview of the step (wizard.plan.model's statuses), when known;
    `number`: its number among the steps that will run (step_numbers), None for one switched off."""
    ind = "    "
    tags = _tags(step, status)
    mark = f"{number:2d}." if number is not None else " -"
    lines = wrap(f"{mark} {step.title}  [" + "] [".join(tags) + "]", width, "", "    ")
    lines += _wrap(t("plan.view.why", text=step.why), ind, width)
    # Already there: nothing to do by hand (Run shows the instructions should its check fail).
    if step.manual and not _there(step, status):
        lines += _wrap(t("plan.view.manual", text=step.manual), ind, width)
    prompt = "PS> " if step.where == "windows-host" or step.console == "powershell" else "$ "
    for command in step.command_lines():
        first, *rest = command.split("\n")
        lines.append(f"{ind}{prompt}{first}")
        lines += [f"{ind}    {more}" for more in rest]
    if step.confirm:
        lines += _wrap(t("plan.view.confirm", text=step.confirm), ind, width)
    lines += _wrap(t("plan.view.check", proves=step.check.proves), ind, width)
    # The check's exact command on a line of its own, never wrapped: a terminal copies it whole.
    lines.append(f"{ind}  {'PS> ' if step.check_console == 'powershell' else '$ '}{step.check_line()}")
    return lines


def format_plan(plan: Plan, width: int = 100, statuses: dict[str, str] | None = None) -> str:
    """`statuses`: the runner's preview (Runner.preview), as the Plan screen and the dry run show it."""
    s = plan.set
    head = [t("plan.view.header", tensorflow=s.tensorflow, method=method_words(s.method), python=s.python)]
    head.append(t("plan.view.machine", label=plan.label))
    head.append(t("plan.view.env", venv=plan.venv))
    head.append(t("plan.view.download", size=size_text(plan.download_mib)))
    if plan.simulated:
        head.append(t("plan.view.simulated"))
    lines = [line for text in head for line in wrap(text, width, "", "  ")]
    numbers = step_numbers(plan)
    for step in plan.steps:
        lines.append("")
        lines += format_step(step, numbers.get(step.id), width, (statuses or {}).get(step.id))
    if plan.notes:
        lines.append("")
        for note in plan.notes:
            lines += _wrap(note, "* ", width)
    return "\n".join(lines) + "\n"


def plan_json(plan: Plan) -> dict[str, object]:
    """`plan --json`: the plan's own dict (its id unchanged) and each step's check as one line,
    whole, as the Plan screen and `plan` show it."""
    data = plan.to_dict()
    for step, step_data in zip(plan.steps, data["steps"], strict=True):
        step_data["check_line"] = step.check_line()
    return data
