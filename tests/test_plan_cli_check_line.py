"""`tf-gpu-wizard plan` prints each check's exact command under its sentence, whole on one line
(copyable: it splits back into the argv the runner runs), PowerShell's quoting on a native Windows
plan; `plan --json` carries it as `check_line`, and the plan's id is what it was (journals match)."""

from __future__ import annotations

import json
import shlex

import pytest

from wizard.cli import main
from wizard.plan.model import Plan


def _plan(name: str, capsys: pytest.CaptureFixture[str]) -> Plan:
    assert main(["plan", "--profile", name, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    return Plan.from_dict(data)


@pytest.mark.parametrize(
    "name", ["ubuntu-24.04-rtx4090-fresh", "wsl2-rtx4070-shadowing-library", "windows11-rtx3070"]
)
def test_plan_prints_every_checks_command_whole(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    plan = _plan(name, capsys)
    assert main(["plan", "--profile", name]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.split("\n")]
    for step in plan.steps:
        prompt = "PS> " if plan.platform == "windows" else "$ "
        assert prompt + step.check_line() in lines, step.id  # one line, never wrapped
        if plan.platform != "windows":
            assert shlex.split(step.check_line()) == list(step.before_check.argv)
    if plan.platform == "windows":
        assert all(s.check_line().split(" ", 1)[0].endswith("python.exe") for s in plan.steps)


def test_plan_json_has_each_checks_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--profile", "ubuntu-22.04-rtx3060-secure-boot", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    plan = Plan.from_dict(data)
    assert data["id"] == plan.id  # the line is shown, not part of what the journal matches on
    for step, step_data in zip(plan.steps, data["steps"], strict=True):
        assert shlex.split(step_data["check_line"]) == list(step.before_check.argv)
