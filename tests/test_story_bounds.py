"""Data without bounds (issue 18, point 10): a long GPU name or label, a driver version that is
markup, an empty profile file. Each is what a user would see on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wizard.cli.main import main
from wizard.doctor.findings import find_problems
from wizard.profile import MachineProfile
from wizard.text import set_language

DEMOS = Path(__file__).resolve().parent.parent / "assets" / "profiles"


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    set_language("en")


def _profile(tmp_path: Path, change: dict[str, object]) -> Path:
    data = json.loads((DEMOS / "debian-12-gtx1060-laptop.json").read_text())
    for dotted, value in change.items():
        node = data
        *parents, last = dotted.split(".")
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[last] = value
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    return path


def test_a_5000_character_gpu_name_does_not_flood_recommend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _profile(tmp_path, {"gpus.0.name": "X" * 5000})
    assert main(["recommend", "--profile", str(path)]) == 0
    out = capsys.readouterr().out
    flooded = [line for line in out.splitlines() if "XXXXXXXXXX" in line]
    assert len(flooded) <= 4, f"{len(flooded)} lines of the GPU name"
    assert "…" in out  # cut, and visibly so


def test_a_5000_character_label_does_not_make_a_4000_character_plan_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _profile(tmp_path, {"label": "L" * 5000, "gpus.0.name": "X" * 5000})
    assert main(["plan", "--profile", str(path)]) == 0
    out = capsys.readouterr().out
    machine = [line for line in out.splitlines() if line.startswith("Machine:")]
    assert machine and all(len(line) <= 200 for line in machine)
    assert sum("LLLLLLLLLL" in line for line in out.splitlines()) <= 2


def test_a_driver_version_that_is_markup_is_unreadable_on_every_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _profile(tmp_path, {"driver.version": "[red]560[/red]"})
    profile = MachineProfile.load(path)
    keys = [f.key for f in find_problems(profile)]
    assert "driver-unreadable" in keys
    assert "reboot-needed" not in keys  # "older than" cannot be said of a version nobody can read
    assert main(["detect", "--profile", str(path)]) == 0
    detect_out = capsys.readouterr().out
    assert "No problems found" not in detect_out
    assert "not readable" in detect_out and "[red]560[/red]" in detect_out
    assert main(["recommend", "--profile", str(path)]) == 0
    assert "not readable" in capsys.readouterr().out


def test_an_empty_profile_file_says_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    assert main(["recommend", "--profile", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "empty" in err and "JSON" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_device_given_as_a_profile_is_named_a_device(capsys: pytest.CaptureFixture[str]) -> None:
    """/dev/null is not a file (issue 39: special files are not files): one line that says so."""
    assert main(["recommend", "--profile", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert "device" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_whitespace_only_profile_file_says_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "blank.json"
    path.write_text(" \n\n")
    assert main(["detect", "--profile", str(path)]) == 2
    assert "empty" in capsys.readouterr().err
