"""What the plan installs is said the same way by recommend, Choose and the doctor: the locked
environment's package count and the plan's installer (uv or pip), never "pip installs exactly"
the 12 nvidia-* wheels while the plan installs a 44-package lock with uv."""

from __future__ import annotations

import io
import re
from dataclasses import replace

from rich.console import Console

from screens.choose_screen import detail_text
from wizard.choose.resolver import recommend
from wizard.cli.recommend import render
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.view import format_plan


def _recommend_text(name: str) -> str:
    profile = load_demo(name)
    out = io.StringIO()
    render(recommend(profile), Console(file=out, width=200, color_system=None), profile=profile)
    return out.getvalue()


def _plan_lock(name: str) -> tuple[int, str]:
    profile = load_demo(name)
    best = recommend(profile).recommended
    assert best is not None
    plan = build_plan(profile, best, home="/home/student")
    text = format_plan(plan)
    found = re.search(r"Install the locked environment: TensorFlow [\d.]+, (\d+) packages", text)
    assert found, text
    uv = "uv pip install" in text and "--require-hashes" in text
    return int(found.group(1)), "uv" if uv else "pip"


def _choose_text(name: str) -> str:
    profile = load_demo(name)
    best = recommend(profile).recommended
    assert best is not None
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(detail_text(best, profile))
    return out.getvalue()


def test_recommend_says_the_plans_lock_and_installer() -> None:
    count, installer = _plan_lock("wsl2-rtx4060-laptop")
    text = _recommend_text("wsl2-rtx4060-laptop")
    assert f"Installs the locked environment with {installer}: {count} packages, 12 of them NVIDIA" in text
    assert "pip installs exactly" not in text


def test_choose_says_the_plans_lock_and_installer() -> None:
    count, installer = _plan_lock("wsl2-rtx4060-laptop")
    text = _choose_text("wsl2-rtx4060-laptop")
    assert f"Installs the locked environment with {installer}: {count} packages, 12 of them NVIDIA" in text
    assert "How: pip installs" not in text
    assert "Installs 12 NVIDIA libraries" not in text


def test_native_windows_choose_lists_no_wheels_as_installed_there() -> None:
    text = _choose_text("windows11-rtx3070")
    assert "Nothing is installed on Windows" in text
    assert "nvidia-cublas" not in text
    assert "How: pip installs" not in text


# ---- the venv module: only a problem where the plan makes the environment with python -m venv ----


def test_no_venv_warning_when_the_plan_makes_the_env_with_uv(monkeypatch) -> None:
    from wizard.doctor.findings import find_problems
    from wizard.plan.installer import INSTALLER_ENV, choose_installer

    monkeypatch.delenv(INSTALLER_ENV, raising=False)
    demo = load_demo("wsl2-rtx4060-laptop")
    # The machine as detect sees it where the wizard runs: its own uv (the demo carries none).
    profile = replace(demo, python=replace(demo.python, uv="/home/student/.local/bin/uv", uv_version="0.9.0"))
    assert profile.python.venv_module is False and choose_installer(profile).is_uv
    assert "no-venv" not in [f.key for f in find_problems(profile)]
    best = recommend(profile).recommended
    assert best is not None
    plan = format_plan(build_plan(profile, best, home="/home/student"))
    assert "uv venv" in plan and "python3.10-venv" not in plan  # the plan has no venv-module step
    # With pip, `python -m venv` needs the module: then the warning stands.
    monkeypatch.setenv(INSTALLER_ENV, "pip")
    assert "no-venv" in [f.key for f in find_problems(profile)]


# ---- WSL1: the doctor and the plan give the command as detect does, with the distro's name -------


def test_wsl1_doctor_fix_names_the_distro_as_detect_does() -> None:
    from wizard.doctor.diagnose import diagnose
    from wizard.profile_view import wsl1_command
    from wizard.text import set_language

    profile = load_demo("wsl1-ubuntu-22.04")
    for lang in ("en", "zh"):
        set_language(lang)
        try:
            wsl1 = next(d for d in diagnose(profile) if d.id == "wsl1")
            command = wsl1_command(profile.os.wsl_distro)
        finally:
            set_language(None)
        assert "wsl --set-version Ubuntu-22.04 2" in command
        assert command in wsl1.fix
        assert "<" not in wsl1.fix and "‹" not in wsl1.fix  # no placeholder left for the student


def test_wsl1_plan_says_first_that_the_gpu_needs_wsl2(capsys) -> None:
    from wizard.cli import main

    assert main(["plan", "--profile", "wsl1-ubuntu-22.04"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("The GPU needs WSL2")
    assert "wsl --set-version Ubuntu-22.04 2" in first
