"""Smaller findings of the last trial (issue 18): each as a user would check it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wizard.cli.main import main


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p / "nonexist", "no such folder"),
        (lambda p: (p / "f.txt", (p / "f.txt").write_text("x"))[0], "is a file"),
        (lambda p: p, "is not a fleet project"),
    ],
    ids=["missing", "file", "empty-folder"],
)
def test_fleet_report_says_what_the_path_is(
    tmp_path: Path, make: object, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert main(["fleet", "report", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err


def _finding(name: str, code: str) -> str:
    from wizard.demo import load_demo
    from wizard.doctor.findings import find_problems

    profile = load_demo(name)
    return next(f.why for f in find_problems(profile) if f.key == code)


def test_the_driver_fix_shows_the_plan_s_own_driver_commands() -> None:
    """GTX 1080 on 470: Detect's fix and `plan --tf 2.21`'s driver step say the same commands."""
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo
    from wizard.plan.build import build_plan

    profile = load_demo("ubuntu-20.04-gtx1080-driver470")
    rec = recommend(profile)
    assert rec.upgrade is not None
    plan = build_plan(profile, rec.upgrade)
    step = next(s for s in plan.steps if s.id.startswith("driver"))
    why = " ".join(_finding("ubuntu-20.04-gtx1080-driver470", "newest-tf-driver").split())
    assert " && ".join(step.command_lines()) in why
    assert "ubuntu-drivers" not in why and "plan --tf 2.21" in why


def test_the_wsl_driver_fix_says_the_next_key_not_start_again() -> None:
    why = _finding("wsl2-rtx3080-laptop-driver527", "driver-step")
    assert "start the wizard again" not in why
    assert "press n" in why and "tf-gpu-wizard apply" in why


@pytest.mark.parametrize("uv", [None, "/home/student/.local/bin/uv"], ids=["pip", "uv"])
def test_the_python_advice_is_what_the_plan_does(uv: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """GTX 1080 on 470 has Python 3.8 and gets TF 2.14.1 with Python 3.9: the advice names no way
    of installing Python that the plan does not take (deadsnakes vs `uv python install`), with uv
    (the demo's own, as a real run) and with pip picked by the person."""
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo
    from wizard.plan.build import build_plan
    from wizard.plan.installer import INSTALLER_ENV

    profile = load_demo("ubuntu-20.04-gtx1080-driver470")
    if uv:
        profile.python.uv, profile.python.uv_version = uv, "0.9.0"
    else:
        monkeypatch.setenv(INSTALLER_ENV, "pip")
    rec = recommend(profile)
    assert rec.recommended is not None and rec.recommended.python_change
    plan_text = " ".join(" ".join(s.command_lines()) for s in build_plan(profile, rec.recommended).steps)
    advice = rec.recommended.python_change
    for way in ("deadsnakes", "pyenv", "uv python install"):
        assert way not in advice or way in plan_text, (way, advice)
    assert ("uv python install" in plan_text) == bool(uv)


async def test_welcome_s_download_size_is_the_plan_s() -> None:
    from tests.apps.screen_text import screen_text
    from tests.apps.wizard_app import build_app
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo
    from wizard.plan.build import build_plan
    from wizard.plan.view import size_text

    profile = load_demo("wsl2-rtx4060-laptop")
    rec = recommend(profile)
    assert rec.recommended is not None
    install = next(s for s in build_plan(profile, rec.recommended).steps if s.download_mib >= 1024)
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(120, 40)):
        text = " ".join(screen_text(app).split())
        assert f"about {size_text(install.download_mib)})" in text, text


async def test_the_glossary_s_pin_example_is_a_pin_the_plan_makes() -> None:
    """Help after Choose: the pin example is the recommended set's own NVIDIA pin, as the plan
    installs it (not a made-up `<12.8` constraint the wizard never writes)."""
    from tests.apps.screen_text import screen_text
    from tests.apps.wizard_app import build_app, to_choose

    app = build_app("debian-12-gtx1060-laptop")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_choose(pilot)
        rec = app.session.recommendation
        assert rec is not None and rec.recommended is not None
        pin = next(p for p in rec.recommended.pins if p.startswith("nvidia-"))
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        await pilot.press("g")
        await pilot.pause(0.2)
        text = " ".join(screen_text(app).split())
        assert pin in text and "<12.8" not in text, text


def test_monitor_says_the_wsl2_process_fact_once_and_each_sample_stays_labelled(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from wizard.text import t

    argv = ["monitor", "--profile", "wsl2-rtx4060-laptop", "--count", "3", "--interval", "0.01"]
    assert main(argv) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.count(" ".join(t("monitor.note.wsl2_processes").split())) == 1
    assert t("monitor.processes_wsl2") not in out  # the note says it: not a second sentence
    assert out.count(t("monitor.simulated_tag")) == 3  # a demo's every sample says it is one


def test_plan_on_native_windows_offers_no_script_and_says_why_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from wizard.text import t

    assert main(["plan", "--profile", "windows11-rtx3070"]) == 0
    out = capsys.readouterr().out
    assert "plan --script" not in out and out.count(t("plan.script.not_windows")) == 1
    assert main(["plan", "--profile", "windows11-rtx3070", "--script"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and len(said.err.strip().splitlines()) == 1


@pytest.mark.parametrize(("name", "offered"), [("windows11-rtx3070", False), ("wsl2-rtx4060-laptop", True)])
async def test_the_plan_screen_offers_export_only_where_a_script_can_be_made(
    name: str, offered: bool
) -> None:
    from textual.widgets import Button

    from tests.apps.screen_text import screen_text
    from tests.apps.wizard_app import build_app, to_plan
    from wizard.text import t

    app = build_app(name)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_plan(pilot)
        assert app.screen.query_one("#export", Button).display is offered
        footer = screen_text(app).splitlines()[-1]
        assert (t("app.key.export") in footer) is offered, footer
        if offered:
            return  # `e` writes the script into the current folder: tested in the plan screen's tests
        before = len(app._notifications)
        await pilot.press("e")
        await pilot.pause(0.2)
        refused = [n for n in list(app._notifications)[before:] if n.severity == "error"]
        assert not refused  # never offered, then refused


async def test_the_run_clock_does_not_count_the_wait_at_a_simulated_restart() -> None:
    from textual.widgets import Static

    from tests.apps.wizard_app import build_app, run_screen, to_restart
    from wizard.text import t

    now = [1000.0]
    app = build_app("ubuntu-24.04-rtx4090-fresh", clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await to_restart(pilot)
        screen = run_screen(app)
        shown = str(screen.query_one("#run-elapsed", Static).render())
        now[0] += 600  # ten minutes reading the restart notice
        await pilot.click("#continue")
        await pilot.pause(0.5)
        now[0] += 3
        screen._show_elapsed()
        after = str(screen.query_one("#run-elapsed", Static).render())
        assert shown == t("app.run.elapsed", elapsed="0:00")
        assert after == t("app.run.elapsed", elapsed="0:03"), after  # not 10:03
