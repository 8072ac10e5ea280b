"""A session on a profile never prints a command that would act on this computer (issue 36,
point 3): every `tf-gpu-wizard COMMAND` hint keeps --profile, in the CLI, the app and the doctor."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.apps.wizard_app import build_app, to_detect, to_finished
from wizard.cli.main import main
from wizard.safe.profile_hint import PROFILE_COMMANDS, keep_profile, set_session_profile
from wizard.text import LANGUAGES, _catalogue, set_language, t

HINT = re.compile(r"tf-gpu-wizard (" + "|".join(PROFILE_COMMANDS) + r")\b(?![-\w])")


@pytest.fixture(autouse=True)
def _no_session_profile() -> Any:
    before = set_session_profile(None)
    yield
    set_session_profile(before)
    set_language("en")


def _bare_hints(text: str, ref: str) -> list[str]:
    """Each `tf-gpu-wizard COMMAND` not followed by --profile REF."""
    flat = " ".join(text.split())
    after = [(m.group(0), flat[m.end() :]) for m in HINT.finditer(flat)]
    # `detect --save FILE` makes a profile on the machine it runs on: it is never about one.
    return [cmd for cmd, rest in after if not rest.startswith((f" --profile {ref}", " --save"))]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_hint_in_the_catalogue_keeps_the_profile(lang: str) -> None:
    set_language(lang)
    set_session_profile("wsl2-rtx4060-laptop")
    hinted = 0
    for key in _catalogue(lang):
        text = t(key)
        if HINT.search(text):
            hinted += 1
        assert not _bare_hints(text, "wsl2-rtx4060-laptop"), key
    assert hinted > 30  # the doctor's fixes, Detect's, the plan's and the finish's hints


def test_a_file_profile_is_quoted_and_this_machine_gets_no_profile() -> None:
    assert keep_profile("run tf-gpu-wizard apply.", "/tmp/my prof.json") == (
        "run tf-gpu-wizard apply --profile '/tmp/my prof.json'."
    )
    assert keep_profile("tf-gpu-wizard apply --profile x --resume", "x").count("--profile") == 1
    assert (
        keep_profile("the wizard's launcher ~/.local/bin/tf-gpu-wizard is installed", "x").count("--profile")
        == 0
    )
    set_session_profile(None)
    assert "--profile" not in t("plan.view.script_hint")


def test_plan_cli_on_a_profile_exports_with_the_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--profile", "wsl2-rtx4060-laptop"]) == 0
    out = capsys.readouterr().out
    assert "  $ tf-gpu-wizard plan --profile wsl2-rtx4060-laptop --script > tf-gpu-wizard-install.sh\n" in out
    assert not _bare_hints(out, "wsl2-rtx4060-laptop")


def test_detect_and_doctor_cli_on_a_profile_keep_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    ref = "wsl2-rtx3080-laptop-driver527"
    assert main(["detect", "--profile", ref, "--explain"]) == 0
    out = capsys.readouterr().out
    assert f"tf-gpu-wizard apply --profile {ref}" in " ".join(out.split())
    assert not _bare_hints(out, ref)
    log = tmp_path / "error.log"
    log.write_text("a text the doctor does not know\n")
    main(["doctor", "--profile", ref, "--log", str(log)])
    out = capsys.readouterr().out
    assert f"tf-gpu-wizard detect --profile {ref}" in " ".join(out.split())
    assert not _bare_hints(out, ref)


async def test_detect_screen_in_a_profile_session_keeps_the_profile() -> None:
    ref = "wsl2-rtx3080-laptop-driver527"
    app = build_app(ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_detect(pilot)
        from textual.widgets import Static

        from screens.widgets.findings_view import FindingsView

        view = app.screen.query_one(FindingsView)
        await pilot.press("w")  # the findings whole: their fixes name the command
        await pilot.pause()
        seen = " ".join(str(s.render()) for s in view.query(Static))
        seen = " ".join(seen.split())
        assert f"tf-gpu-wizard apply --profile {ref}" in seen
        assert not _bare_hints(seen, ref)


async def test_the_finish_keeps_the_profile_in_every_hint() -> None:
    ref = "debian-12-gtx1060-laptop"
    app = build_app(ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_finished(pilot)
        from textual.widgets import Static

        box = app.screen.query_one("#run-notice-box")
        text = " ".join(str(s.content) for s in box.query(Static))
        joined = " ".join(text.split())
        assert f"apply --profile {ref} --tf " in joined and "--with jupyter" in joined  # the chosen set's
        assert not _bare_hints(text, ref)


@pytest.mark.parametrize("command", [["plan"], ["recommend"], ["detect"], []])
def test_an_empty_profile_is_refused_in_one_line(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """Point 17: `{}` names no machine: one clear line, exit 2, never a plan for "Machine: unknown"."""
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    assert main(["--profile", str(empty), *command]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "names no platform, OS, Python, driver or GPU" in lines[0]
    assert "tf-gpu-wizard detect --save FILE" in lines[0]


def test_exporting_the_script_never_drops_another_threads_profile() -> None:
    """The script is written for the machine it names (no --profile in its words), but only in
    the thread that renders it: the app renders it on the main thread (the Plan screen's footer)
    while a run's worker makes its failure notice, whose hints must keep the demo's --profile.
    A real second thread reads the hints all the while the script is rendered, again and again."""
    import threading

    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo
    from wizard.plan.build import build_plan
    from wizard.plan.script import render_script

    ref = "wsl2-rtx4060-laptop"
    profile = load_demo(ref)
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    set_session_profile(ref)
    stop = threading.Event()
    seen: list[str] = []

    def worker() -> None:
        while not stop.is_set():
            seen.append(t("plan.view.script_hint"))

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        scripts = [render_script(plan) for _ in range(10)]
    finally:
        stop.set()
        thread.join()
    assert seen and all(f"tf-gpu-wizard plan --profile {ref} --script" in text for text in seen)
    # The script's own words name its machine's wizard, never the session's --profile.
    assert all("tf-gpu-wizard " in s and f"--profile {ref}" not in s for s in scripts)
    assert f"plan --profile {ref} --script" in t("plan.view.script_hint")  # the session's again after
