"""Trial 3: every command the doctor shows is whole on one line at 80 columns (en, zh)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from wizard.cli.main import main
from wizard.text import set_language

DEMO = "wsl2-rtx5060-laptop"
CUDNN_LOG = (
    "2026-01-01 10:00:00.000000: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:522] "
    "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs "
    "to have matching major version and equal or higher minor version.\n"
)
# A flag or the program name alone at the end of a line: a command cut in two.
CUT = re.compile(r"(?:tf-gpu-wizard|--[\w-]+|\bpython -m|\|)\s*$")


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language(None)


def _doctor(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lang: str,
    *args: str,
    stdin: str = "",
) -> list[str]:
    import io

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    main(["--lang", lang, "--profile", DEMO, "doctor", *args])
    return capsys.readouterr().out.splitlines()


def _whole(lines: list[str], command: str) -> None:
    assert any(command in line for line in lines), f"{command!r} is not whole on one line:\n" + "\n".join(
        lines
    )


def _nothing_cut(lines: list[str]) -> None:
    cut = [line for line in lines if CUT.search(line)]
    assert not cut, cut


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_doctor_fix_commands_are_whole_at_80_columns(
    lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    set_language(lang)
    try:
        lines = _doctor(monkeypatch, capsys, lang)
    finally:
        set_language(None)
    # The trial's line: "tf-gpu-wizard plan --profile" / "wsl2-rtx5060-laptop --method cpu".
    _whole(lines, f"tf-gpu-wizard plan --profile {DEMO} --method cpu")
    _whole(lines, f"tf-gpu-wizard apply --profile {DEMO}")
    _nothing_cut(lines)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_doctor_log_fix_commands_are_whole_at_80_columns(
    lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    set_language(lang)
    try:
        lines = _doctor(monkeypatch, capsys, lang, "--log", "-", stdin=CUDNN_LOG)
    finally:
        set_language(None)
    _whole(lines, f"`tf-gpu-wizard apply --profile {DEMO}`")
    _whole(lines, "~/.venvs/tf-gpu/bin/python -m pip list | grep cudnn")
    _nothing_cut(lines)
    assert all(len(line) <= 80 for line in lines if "tf-gpu-wizard" in line)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_next_step_for_an_unknown_text_is_whole(
    lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    set_language(lang)
    try:
        lines = _doctor(monkeypatch, capsys, lang, "--log", "-", stdin="Segmentation fault (core dumped)\n")
    finally:
        set_language(None)
    _whole(lines, f"tf-gpu-wizard doctor --profile {DEMO} --log -")
    _whole(lines, f"tf-gpu-wizard detect --profile {DEMO}")


def test_a_command_wider_than_the_line_keeps_a_line_of_its_own() -> None:
    from wizard.cjk.wrap import command_lines

    command = (
        "tf-gpu-wizard plan --profile /home/student/profiles/a-very-long-saved-profile-name.json --method cpu"
    )
    lines = command_lines(f"If it fails, the CPU set trains correctly: {command}", 60)
    assert any(line.strip() == command for line in lines), lines
    assert all(len(line) <= 60 for line in lines if command not in line)
