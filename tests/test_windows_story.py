"""Native Windows tells one story (WSL2 with the newest TF, native 2.10 the alternative), with
Windows paths and PowerShell quoting; WSL2 with an old Windows driver gets a step that says
which driver, where to get it, and how it is checked from inside WSL."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from wizard.choose.resolver import recommend, required_driver
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Plan
from wizard.plan.view import format_plan
from wizard.plan.wsl import WSL_NVIDIA_SMI
from wizard.plan.wsl_setup import DISTRO, WSL_DISTRO_PY, wsl_path
from wizard.profile import DriverInfo

WINDOWS = "windows11-rtx3070"


def _plan(profile_name: str, method: str | None = None) -> Plan:
    profile = load_demo(profile_name)
    rec = recommend(profile, prefer_method=method)
    assert rec.recommended is not None
    return build_plan(profile, rec.recommended)


def test_windows_recommends_wsl2_with_the_newest_tf_and_keeps_native_2_10() -> None:
    rec = recommend(load_demo(WINDOWS))
    best = rec.recommended
    assert best is not None and best.set.tensorflow.startswith("2.21")
    assert "WSL2" in best.reasons[0]
    native = [c for c in rec.candidates if c.ok and c.set.method == "conda"]
    assert native and native[0].set.tensorflow.startswith("2.10")
    assert rec.unlock_hint is None  # nothing left to unlock: the recommendation is the newest


def test_the_windows_plan_sets_up_wsl2_and_says_what_to_type() -> None:
    plan = _plan(WINDOWS)
    ids = [s.id for s in plan.steps]
    assert ids == ["windows-driver", "wsl-install", "wsl-first-start", "wsl-wizard"]
    assert all(s.where == "windows-host" for s in plan.steps)
    install = plan.step("wsl-install")
    assert install.command_lines() == [f"wsl --install -d {DISTRO}"]
    assert install.restart == "reboot"
    wizard = plan.step("wsl-wizard").command_lines()
    # The wizard's real Windows folder, filled in; wslpath turns it into a Linux path inside Ubuntu.
    folder = "C:\\Users\\alex\\tf-gpu-wizard"
    assert wizard[0] == (
        f"wsl -d {DISTRO} --cd {folder} --exec sh assets/programs/wsl_take_wizard.sh {folder}"
    )
    assert wizard[1] == f"wsl -d {DISTRO} --cd '~' --exec sh tf-gpu-wizard/install.sh"
    text = format_plan(plan)
    assert "tf-gpu-wizard plan --method conda" in text  # the alternative is named
    assert "/root" not in text and str(Path.home()) not in text


def test_native_windows_alternative_uses_windows_paths_and_powershell() -> None:
    plan = _plan(WINDOWS, method="conda")
    assert plan.set.tensorflow.startswith("2.10")
    text = format_plan(plan)
    assert "C:\\Users\\alex\\miniforge3" in text
    assert "/root/" not in text and f"{Path.home()}/" not in text
    lines = [line for s in plan.steps for line in s.command_lines()]
    assert lines and not any("'\"'\"'" in line for line in lines)  # no POSIX quote splicing
    assert all(line.startswith("PS> ") is False for line in lines)
    # The environment comes from the explicit conda lock (condalock.py), run by the Windows Python
    # and driving the Windows conda.exe: one whole PowerShell line.
    python = "C:\\Users\\alex\\AppData\\Local\\Programs\\Python\\Python312\\python.exe"
    condalock = "C:\\Users\\alex\\AppData\\Local\\tf-gpu-wizard\\programs\\condalock.py"
    conda = "C:\\Users\\alex\\miniforge3\\Scripts\\conda.exe"
    prefix = "C:\\Users\\alex\\.venvs\\tf-gpu"
    assert (
        f"    PS> {python} {condalock} create {conda} {prefix} {prefix}.conda-lock.txt python=3.10 " in text
    )


def test_wsl_distro_check_reads_wsls_utf16_listing(tmp_path: Path) -> None:
    """The check runs `wsl --list --verbose` (UTF-16, as wsl.exe prints it)."""
    fake = tmp_path / "wsl"
    listing = "  NAME            STATE           VERSION\r\n* {name}    Stopped         {version}\r\n"

    def check(name: str, version: str) -> int:
        data = listing.format(name=name, version=version).encode("utf-16-le")
        fake.write_bytes(b"#!/bin/sh\nprintf '%b' '" + "".join(f"\\{b:03o}" for b in data).encode() + b"'\n")
        fake.chmod(0o755)
        env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}")
        return subprocess.run([sys.executable, "-c", WSL_DISTRO_PY, DISTRO], env=env).returncode

    assert check(DISTRO, "2") == 0
    assert check(DISTRO, "1") == 1  # WSL1 has no GPU
    assert check("Debian", "2") == 1


def test_wsl_path() -> None:
    from pathlib import PureWindowsPath

    assert wsl_path(PureWindowsPath("C:\\Users\\alex\\tf-gpu-wizard")) == "/mnt/c/Users/alex/tf-gpu-wizard"


def _old_driver() -> tuple[Plan, str]:
    profile = load_demo("wsl2-rtx4060-laptop")
    old = replace(profile, driver=DriverInfo(version="512.78", cuda="12.0", source="windows-host"))
    rec = recommend(old)
    assert rec.recommended is not None
    floor = required_driver(rec.recommended, "wsl2")
    assert floor
    return build_plan(old, rec.recommended), floor


@pytest.fixture
def old_driver_plan() -> Plan:
    return _old_driver()[0]


def test_old_windows_driver_gets_a_step_that_says_which_where_and_how_checked() -> None:
    plan, floor = _old_driver()
    step = plan.step("windows-driver")
    assert floor in step.title  # the version to get is the resolver's
    assert not step.presumed_done and step.where == "windows-host"
    manual = step.manual or ""
    assert "RTX 4060" in manual and floor in manual
    assert "NVIDIA app" in manual and "maker's support page" in manual
    assert "/usr/lib/wsl/lib/nvidia-smi" in manual and "libcuda" in manual
    assert "://" not in manual  # where to get it, in words: no download host
    assert step.restart == "wsl-shutdown"  # WSL maps the new driver when it starts again
    assert step.check.argv[-2:] == (WSL_NVIDIA_SMI, floor)


def test_the_driver_check_reads_wsls_nvidia_smi(old_driver_plan: Plan, tmp_path: Path) -> None:
    """The step's check, with nvidia-smi answering the old and then a new driver."""
    step = old_driver_plan.step("windows-driver")
    fake = tmp_path / "nvidia-smi"
    argv = [a if a != WSL_NVIDIA_SMI else str(fake) for a in step.check.argv]
    for version, expected in (("512.78", 1), ("566.36", 0)):
        fake.write_text(f"#!/bin/sh\necho {version}\n")
        fake.chmod(0o755)
        assert subprocess.run(argv).returncode == expected, version


def test_the_windows_plan_ends_by_handing_over_to_the_wizard_in_ubuntu() -> None:
    from wizard.plan.next_steps import next_steps

    lines = next_steps(_plan(WINDOWS))
    assert "Ubuntu" in lines[0]
    assert "PowerShell" in lines[1]
    assert lines[2] == f"    wsl -d {DISTRO} --cd '~' --exec .local/bin/tf-gpu-wizard"


def test_a_native_windows_plan_has_no_bash_step_even_when_the_gpu_needs_ptx() -> None:
    # A GPU newer than the wheel's machine code (jit_ptx) asks for the CUDA cache block in a
    # POSIX venv's bin/activate; native Windows has neither bash nor bin/activate.
    profile = load_demo(WINDOWS)
    cand = next(c for c in recommend(profile, prefer_method="system-cuda").candidates if c.ok)
    plan = build_plan(profile, replace(cand, jit_ptx="compute_80"), home="C:\\Users\\alex")
    assert plan.steps and not [s.id for s in plan.steps for c in s.commands if c and c[0] == "bash"]


def test_the_windows_finish_says_tensorflow_comes_next_inside_ubuntu() -> None:
    from screens.run_screen import RunScreen
    from wizard.text import t

    text = RunScreen(_plan(WINDOWS))._finished_text()
    assert text.startswith(t("app.run.finished_wsl")) and t("app.run.finished") not in text
    assert "Ubuntu" in text
    linux = RunScreen(
        build_plan(load_demo("no-nvidia-gpu"), recommend(load_demo("no-nvidia-gpu")).recommended)
    )
    # A Linux machine's finish is not the WSL hand-off (on this CPU-only demo: the CPU benchmark next).
    assert linux._finished_text().startswith(t("app.run.finished_cpu"))
    assert t("app.run.finished_wsl") not in linux._finished_text()


def test_the_restart_hint_of_a_windows_plan_is_the_wizards_windows_command(tmp_path: Path) -> None:
    """`apply` on the Windows demo: after `wsl --install` the restart hint names the wizard's own
    .exe in its Windows folder (PowerShell's words), not this machine's Linux launcher."""
    from wizard.plan.wsl_setup import start_line
    from wizard.run.runner import Runner, RunnerEvents

    class RanIt(RunnerEvents):
        def wait_for_windows_host(self, step, text):  # type: ignore[no-untyped-def]
            return True

    profile = load_demo(WINDOWS)
    plan = _plan(WINDOWS)
    assert plan.hands_over  # the plan ends in Ubuntu: nothing here to monitor or benchmark
    result = Runner(plan, RanIt(), simulate=True, profile=profile, log_path=tmp_path / "log").run()
    assert result.outcome == "restart"
    exe = "C:\\Users\\alex\\tf-gpu-wizard\\.venv\\Scripts\\tf-gpu-wizard.exe"
    # The command alone on the message's last line (copied whole), never the launcher of Linux.
    assert result.message.splitlines()[-1].strip() == exe and "/bin/tf-gpu-wizard" not in result.message
    assert start_line(profile, ("--profile", "x y")) == f"{exe} --profile 'x y'"
    # A Linux machine's plan keeps the launcher (conftest fixes it for every checkout).
    assert start_line(load_demo("wsl2-rtx4060-laptop")) == "~/.local/bin/tf-gpu-wizard"
    assert not _plan("wsl2-rtx4060-laptop").hands_over
