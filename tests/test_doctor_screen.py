"""The app's doctor screen, walked as a student would: Welcome's `e`, a pasted error (or a log
file's path), Ctrl+R, the answer read with PageDown and `d`, Escape out. It must say what
`tf-gpu-wizard doctor --log` says for the same text and machine, and never lose the text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static, TextArea

from screens.doctor_screen import DoctorScreen
from screens.welcome_screen import WelcomeScreen
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import (
    DOCTOR_TEXT,
    build_app,
    paste,
    to_doctor,
    to_doctor_answer,
    to_finished,
    wait_until,
)
from wizard.doctor.logread import TAIL_BYTES

MISMATCH_DEMO = "ubuntu-22.04-rtx3060-mismatch-after-update"


def answer_text(app: Any) -> str:
    """The answer as a person reads it: its words, whatever the width wrapped."""
    return " ".join(str(app.screen.query_one("#doctor-answer", Static).render()).split())


def flat(words: str) -> str:
    return " ".join(words.split())


def cli(*args: str) -> str:
    """`tf-gpu-wizard doctor ARGS` as a person runs it: what it prints."""
    env = dict(os.environ, TF_GPU_WIZARD_LANG="en", COLUMNS="200")
    done = subprocess.run(
        [sys.executable, "-m", "wizard", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def cli_json(*args: str) -> Any:
    return json.loads(cli(*args, "--json"))


async def test_a_pasted_error_gets_what_the_cli_says_for_the_same_text_and_machine(tmp_path: Path) -> None:
    log = tmp_path / "error.txt"
    log.write_text(DOCTOR_TEXT, encoding="utf-8")
    cli = cli_json("--log", str(log), "--profile", MISMATCH_DEMO)
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor_answer(pilot)
        shown = answer_text(app)
    # Every diagnosis, in the CLI's order, with its title and its fix.
    at = -1
    for d in cli:
        place = shown.find(flat(d["title"]))
        assert place > at, (d["title"], shown)
        assert flat(d["fix"]) in shown
        at = place
    # The text's own answer comes first; the demo machine's second, named as the demo.
    assert shown.index("In the text you gave the doctor") < shown.index("About the demo machine")
    assert "not this computer" in shown and "About this machine" not in shown


async def test_a_log_file_named_on_the_line_is_read_and_a_missing_one_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    log = tmp_path / "train.log"
    log.write_text(
        "2026-12-01 10:00:00.1: I tensorflow/core/platform/cpu_feature_guard.cc:182] started\n"
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
        "cannot open shared object file: No such file or directory\n",
        encoding="utf-8",
    )
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor(pilot)
        await paste(pilot, "kept as it was")
        await pilot.press("tab")  # from the box to the file line
        assert isinstance(app.screen.focused, Input)
        await pilot.press(*str(tmp_path / "missing.log"), "enter")
        await wait_until(pilot, lambda: "Cannot read" in answer_text(app))
        assert "missing.log" in answer_text(app) and "Traceback" not in screen_text(app)
        assert app.screen.query_one("#doctor-text", TextArea).text == "kept as it was"
        file_line = app.screen.query_one("#doctor-file", Input)
        file_line.value = ""
        await pilot.press(*str(log), "enter")
        await wait_until(pilot, lambda: "libcudnn.so.8" in answer_text(app))
        assert "In the text you gave the doctor" in answer_text(app)


async def test_nothing_pasted_asks_for_a_text_and_reads_nothing() -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "Paste an error into the box" in answer_text(app)
        assert "About the demo machine" not in answer_text(app)


async def test_escape_leaves_the_box_keeping_the_text_then_goes_back() -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor(pilot)
        await pilot.press(*"d d")  # typed into the box: text, never the Details key
        box = app.screen.query_one("#doctor-text", TextArea)
        assert box.text == "d d" and app.screen.maximized is None
        await pilot.press("escape")
        assert isinstance(app.screen, DoctorScreen) and app.screen.focused is not box
        assert box.text == "d d"
        await pilot.press("escape")
        assert isinstance(app.screen, WelcomeScreen)


async def test_the_answer_scrolls_and_opens_on_the_whole_screen_at_80x24() -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor_answer(pilot)
        report = app.screen.query_one("#doctor-report")
        assert report.max_scroll_y > 0  # 80x24: the answer is longer than its place
        await pilot.press("pagedown")
        assert report.scroll_y > 0
        await pilot.press("d")
        assert app.screen.maximized is report
        assert "About the demo machine" in screen_text(app) or report.max_scroll_y > 0
        await pilot.press("escape")  # the whole-screen view closes first, the screen stays
        assert app.screen.maximized is None and isinstance(app.screen, DoctorScreen)
        await pilot.press("end")
        assert report.scroll_y == report.max_scroll_y


async def test_control_characters_in_a_pasted_line_are_shown_as_data() -> None:
    # A log line may carry an escape sequence or a bidi override: shown visibly, never obeyed.
    hostile = "Failed to initialize NVML: Driver/library version mismatch \x1b[2J\u202etxt.exe\x9b\n"
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor_answer(pilot, hostile)
        strips = app.screen._compositor.render_strips()
        drawn = "".join(segment.text for strip in strips for segment in strip)
        assert "\x1b" not in drawn and "\u202e" not in drawn and "\x9b" not in drawn
        assert "Driver/library version mismatch" in answer_text(app)


async def test_a_long_paste_is_read_bounded_and_an_error_at_its_start_is_found() -> None:
    # A whole training session pasted: the start (imports, where libraries fail) and the end.
    head = "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: not found\n"
    filler = "Epoch 1/100 - loss: 0.6931 - accuracy: 0.5000 - step 123/456\n" * (TAIL_BYTES // 40)
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor_answer(pilot, head + filler)
        shown = answer_text(app)
        assert "The log is long" in shown
        assert "libcudart.so.11.0" in shown


async def test_a_machine_not_detected_is_not_reported_on() -> None:
    app = build_app(None, detector=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor_answer(pilot)
        shown = answer_text(app)
        assert "has not been detected in this session" in shown
        assert "About this machine," not in shown


async def test_a_finished_run_opens_the_doctor_with_d() -> None:
    app = build_app("ubuntu-20.04-gtx1080-driver470", runner_options={"log_path": Path(os.devnull)})
    async with app.run_test(size=(120, 40)) as pilot:
        await to_finished(pilot)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DoctorScreen))
        await pilot.press("escape", "escape")
        assert type(app.screen).__name__ == "RunScreen"


async def test_the_command_palette_offers_the_doctor_on_every_screen() -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Doctor: read an error" in titles


async def test_a_coloured_terminal_paste_keeps_its_words_and_loses_its_colours() -> None:
    coloured = "\x1b[1;31mFailed to initialize NVML: Driver/library version mismatch\x1b[0m\r\nsleep\x07\r"
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor_answer(pilot, coloured)
        box = app.screen.query_one("#doctor-text", TextArea)
        assert box.text == "Failed to initialize NVML: Driver/library version mismatch\nsleep\\x07\n"
        assert "The NVIDIA driver libraries and the running kernel module differ" in answer_text(app)


async def test_welcome_shows_every_button_whole_at_80_columns() -> None:
    # The doctor's button made the row longer: "Quit" was cut to "Qu" at 80x24.
    from textual.widgets import Button

    app = build_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for button in app.screen.query(Button).results(Button):
            assert button.region.right <= 80 and button.region.width >= len(str(button.label)), button.id


async def test_a_demos_own_fix_is_said_for_the_demo_never_for_this_computer(tmp_path: Path) -> None:
    cuinit = (
        "W external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:1234] failed call to cuInit: "
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    demo = "wsl2-rtx4070-shadowing-library"
    app = build_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor_answer(pilot, cuinit)
        shown = answer_text(app)
    assert "For the demo machine" in shown and "For this machine" not in shown
    log = tmp_path / "cuinit.txt"
    log.write_text(cuinit, encoding="utf-8")
    out = cli("--log", str(log), "--profile", demo)
    assert "For the demo machine" in out and "For this machine" not in out


OOM = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 3.94 GiB total capacity)\n"


async def test_the_input_edited_last_is_read_and_the_answer_says_which(tmp_path: Path) -> None:
    # A walk read a log by its path, then pasted another error: the old path was read again.
    log = tmp_path / "nvml.log"
    log.write_text(DOCTOR_TEXT, encoding="utf-8")
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor(pilot)
        await pilot.press("tab", *str(log), "enter")
        await wait_until(pilot, lambda: "Read: " in answer_text(app))
        assert f"Read: {log}" in answer_text(app)
        await paste(pilot, OOM)  # the answer has the focus: the paste goes to the box, not lost
        assert app.screen.query_one("#doctor-text", TextArea).text == OOM
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "the text in the box" in answer_text(app))
        assert "out of memory" in answer_text(app).lower() and "kernel module differ" not in answer_text(app)
        assert "the text in the box (1 line)." in answer_text(app)  # one line, said as one


async def test_leaving_the_doctor_keeps_what_was_pasted() -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor(pilot)
        await paste(pilot, OOM)
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, WelcomeScreen)
        await to_doctor(pilot)
        assert app.screen.query_one("#doctor-text", TextArea).text == OOM


async def test_an_error_pasted_on_the_file_line_goes_to_the_box(tmp_path: Path) -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor(pilot)
        await pilot.press("tab")
        await paste(pilot, DOCTOR_TEXT)  # two lines: a text, not a path
        assert app.screen.query_one("#doctor-file", Input).value == ""
        assert app.screen.query_one("#doctor-text", TextArea).text == DOCTOR_TEXT


async def test_a_path_with_the_home_sign_or_quotes_is_read(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "run.log").write_text(DOCTOR_TEXT, encoding="utf-8")
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_doctor(pilot)
        await pilot.press("tab", *"~/run.log", "enter")
        await wait_until(pilot, lambda: "Read: ~/run.log" in answer_text(app))
        line = app.screen.query_one("#doctor-file", Input)
        line.value = ""
        line.focus()
        await pilot.press(*f"'{tmp_path / 'run.log'}'", "enter")
        await wait_until(pilot, lambda: f"Read: {tmp_path / 'run.log'}" in answer_text(app))
        assert "kernel module differ" in answer_text(app)


async def test_a_path_pasted_on_the_file_line_is_put_there_once(tmp_path: Path) -> None:
    app = build_app(MISMATCH_DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_doctor(pilot)
        await pilot.press("tab")
        await paste(pilot, "/var/log/train.log")
        assert app.screen.query_one("#doctor-file", Input).value == "/var/log/train.log"


def test_the_cli_names_a_demo_machine_as_the_demo(tmp_path: Path) -> None:
    log = tmp_path / "error.txt"
    log.write_text(DOCTOR_TEXT, encoding="utf-8")
    out = cli("--log", str(log), "--profile", MISMATCH_DEMO)
    assert "About the demo machine" in out and "About this machine" not in out
