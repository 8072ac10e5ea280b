"""Words that explain something (issue 18, point 8): the Driver line, the stop after a cancelled
password, the restart hint on a demo, `monitor`'s way out, the Jupyter kernel's name, and the
mirror tip for a student at home."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button

from screens.password_modal import PasswordModal
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, run_screen, to_password, wait_until
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.next_steps import next_steps
from wizard.profile_view import part_rows
from wizard.text import set_language, t

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language("en")


def _squeezed(text: str) -> str:
    """The screen's text without spaces, line ends and the notice's border."""
    return re.sub(r"[\s█▌│]", "", text)


def _driver_row(profile: Any) -> str:
    return next(value for label, value in part_rows("nvidia", profile) if label == t("profile.field.driver"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_driver_line_says_where_the_cuda_figure_came_from_or_nothing(lang: str) -> None:
    set_language(lang)
    try:
        base = load_demo("debian-12-gtx1060-laptop")
        assert base.driver is not None
        unknown = replace(base, driver=replace(base.driver, source="unknown"))
        row = _driver_row(unknown)
        assert "unknown" not in row and not row.rstrip("）)").endswith(("；", ";", "; "))
        assert "13.0" in row
        known = _driver_row(base)
        assert "NVML" in known
        no_cuda = replace(base, driver=replace(base.driver, cuda="unknown", source="unknown"))
        assert "unknown" not in _driver_row(no_cuda)
    finally:
        set_language("en")


async def test_cancelling_the_password_says_what_retry_does_and_keeps_profile() -> None:
    demo = "ubuntu-24.04-rtx4090-fresh"
    app = build_app(demo, profile_ref=demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_password(pilot)
        assert isinstance(app.screen, PasswordModal)
        await pilot.press("escape")
        run = run_screen(app)
        await wait_until(pilot, lambda: run.state == "cancelled")
        seen = " ".join(screen_text(app).split())
        assert "Stopped: Stopped" not in seen
        assert "Start the wizard again" not in seen
        assert run.query_one("#retry", Button).display
        assert "Retry" in seen and f"--profile{demo}" in _squeezed(seen)  # wrapped anywhere


async def test_the_restart_hint_on_a_demo_keeps_its_profile() -> None:
    demo = "ubuntu-24.04-rtx4090-fresh"
    app = build_app(demo, profile_ref=demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_password(pilot)
        await pilot.press(*"pw", "enter")
        run = run_screen(app)
        await wait_until(pilot, lambda: run.state == "restart")
        assert f"--profile{demo}" in _squeezed(screen_text(app))  # wrapped anywhere


async def test_the_restart_hint_keeps_a_language_chosen_by_lang() -> None:
    from wizard.text import set_language

    demo = "ubuntu-24.04-rtx4090-fresh"
    set_language("zh")  # as `--lang zh` does; the environment says English
    app = build_app(demo, profile_ref=demo)
    assert app.start_hint().endswith(f"--profile {demo} --lang zh")
    set_language(None)
    assert "--lang" not in app.start_hint()  # the environment's own language needs no flag


def test_finish_and_plan_name_the_jupyter_kernel_the_same_way() -> None:
    profile = load_demo("debian-12-gtx1060-laptop")
    plan = build_plan(profile, recommend(profile).recommended)  # type: ignore[arg-type]
    plan = plan.with_enabled("jupyter", True)
    step = plan.step("jupyter")
    registered = step.commands[-1][step.commands[-1].index("--display-name") + 1]
    (line,) = [line for line in next_steps(plan) if "Jupyter" in line]
    assert f'"{registered}"' in line


def test_the_mirror_tip_tells_a_student_how_to_find_one(zh: None) -> None:
    tip = t("mirror.suggest.no_catalogue")
    assert "向实验室要" not in tip  # not "ask your lab": a student at home has none
    assert "/simple" in tip and "mirror add" in tip and "搜索" in tip
    assert not re.search(r"[a-z0-9-]+\.(com|cn|org|net|edu)\b", tip)  # no mirror host named
    set_language("en")
    tip = t("mirror.suggest.no_catalogue")
    assert "Ask your lab" not in tip and "/simple" in tip
    assert not re.search(r"[a-z0-9-]+\.(com|cn|org|net|edu)\b", tip)


def test_monitor_in_a_terminal_says_how_to_stop_and_stops_on_q() -> None:
    main_fd, child_fd = pty.openpty()
    env = dict(os.environ, COLUMNS="100", LINES="30", TF_GPU_WIZARD_LANG="en")
    proc = subprocess.Popen(
        [sys.executable, "-m", "wizard", "monitor", "--profile", "wsl2-rtx4060-laptop", "--interval", "0.2"],
        stdin=child_fd,
        stdout=child_fd,
        stderr=child_fd,
        cwd=ROOT,
        env=env,
        close_fds=True,
    )
    os.close(child_fd)
    out = b""
    try:
        deadline = time.monotonic() + 30
        while b"to stop" not in out and time.monotonic() < deadline:
            ready, _, _ = select.select([main_fd], [], [], 0.5)
            if ready:
                out += os.read(main_fd, 65536)
        assert b"Ctrl+C" in out and b"q" in out, out[-500:]
        os.write(main_fd, b"q")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main_fd)


def test_the_exported_script_names_the_method_in_words() -> None:
    from wizard.choose.choice import method_words
    from wizard.plan.script import render_script

    profile = load_demo("ubuntu-24.04-rtx4090-fresh")
    plan = build_plan(profile, recommend(profile).recommended)  # type: ignore[arg-type]
    header = render_script(plan).splitlines()[1]
    assert f"({method_words(plan.set.method)})" in header and plan.set.method not in header
