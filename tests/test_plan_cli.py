"""`tf-gpu-wizard plan` and `apply` on demo profiles (simulated: nothing runs)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wizard.cli import main
from wizard.demo import load_demo
from wizard.run.journal import journal_for


def test_plan_human_view(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--profile", "ubuntu-24.04-rtx4090-fresh"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA driver 525.60.13 or newer (the 550 branch)" in out and "reboot afterwards" in out
    assert "$ sudo ubuntu-drivers install nvidia:" in out
    assert "SIMULATED" in out and "check:" in out


def test_plan_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--profile", "wsl2-rtx4060-laptop", "--json", "--venv", "/tmp/x y"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["venv"] == "/tmp/x y" and data["set"]["method"] == "pip-and-cuda"
    assert all(s["check"]["argv"] for s in data["steps"])
    assert {s["where"] for s in data["steps"]} >= {"windows-host", "user"}


def test_plan_method_and_tf_selectors(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["plan", "--profile", "ubuntu-22.04-rtx3090-cuda11.8", "--method", "system-cuda", "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["set"]["method"] == "system-cuda"
    assert any(s["id"] == "cuda-toolkit" for s in data["steps"])


def test_plan_with_nothing_that_fits_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--profile", "macos-arm64", "--method", "pip-and-cuda"]) == 2
    assert "no version set fits" in capsys.readouterr().err


def test_apply_dry_run_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apply", "--profile", "ubuntu-24.04-rtx5090", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would run" in out
    assert not journal_for(True, load_demo("ubuntu-24.04-rtx5090")).path.exists()


def test_apply_simulated_stops_for_the_reboot_and_resumes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apply", "--profile", "ubuntu-24.04-rtx4090-fresh", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "SIMULATED $ sudo ubuntu-drivers install" in out.replace("    ", "")
    assert "Restart the computer" in out
    state = journal_for(True, load_demo("ubuntu-24.04-rtx4090-fresh")).load()  # the demo's own journal
    assert state is not None and state.restart is not None and not state.finished
    # Started again (after the "reboot"): the same plan resumes and finishes.
    assert main(["apply", "--profile", "ubuntu-24.04-rtx4090-fresh", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "Resuming" in out and "All steps are done." in out
    assert "matmul on" in out


def test_asked_for_release_or_python_that_does_not_exist_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", "--profile", "wsl2-rtx4060-laptop", "--tf", "9.9"]) == 2
    assert "TensorFlow 9.9 is not in the knowledge base" in capsys.readouterr().err
    assert main(["plan", "--profile", "wsl2-rtx4060-laptop", "--python", "2.7"]) == 2
    assert "--python 2.7 is not a Python 3 version" in capsys.readouterr().err


def test_script_for_native_windows_is_a_plain_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--profile", "windows11-rtx3070", "--script"]) == 2
    err = capsys.readouterr().err
    assert "bash script for Linux and WSL2" in err and "Traceback" not in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_text_fits_the_terminal_in_cells(lang: str, capsys: Any, monkeypatch: Any) -> None:
    # Chinese takes two cells a character: the plan is wrapped by cells at the terminal's width,
    # and only commands (one line each, so they paste) may run past it.
    from rich.cells import cell_len

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["--lang", lang, "--profile", "wsl2-rtx4060-laptop", "plan"]) == 0
    lines = capsys.readouterr().out.splitlines()
    long = [x for x in lines if cell_len(x) > 80 and not x.strip().startswith(("$ ", "PS> "))]
    assert long == []
    assert any("`wsl --shutdown`" in x for x in lines)  # a quoted command is never split


def test_recommend_refuses_an_unknown_release_in_one_line(capsys: Any) -> None:
    assert main(["--profile", "wsl2-rtx4060-laptop", "recommend", "--tf", "9.9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "9.9" in err[0] and "2.21" in err[0]


def _step_block(out: str, number: int) -> str:
    """Step `number`'s lines in a plan/dry-run text (up to the next blank line)."""
    start = out.index(f"\n{number:2d}. ") + 1
    end = out.find("\n\n", start)
    return " ".join(out[start : end if end > 0 else None].split())


def test_plan_says_what_is_already_satisfied_as_the_dry_run_does(capsys: pytest.CaptureFixture[str]) -> None:
    """WSL2 with driver 566.36: the driver step is already there. `plan` says so, as the dry run
    (and the app's Plan) do; no by-hand text to follow and no `wsl --shutdown` for it."""
    assert main(["plan", "--profile", "wsl2-rtx4060-laptop"]) == 0
    plan_out = capsys.readouterr().out
    assert main(["apply", "--profile", "wsl2-rtx4060-laptop", "--dry-run"]) == 0
    dry_out = capsys.readouterr().out
    for out in (plan_out, dry_out):
        driver, wsl_update = _step_block(out, 1), _step_block(out, 2)
        assert "NVIDIA driver 528.33 or newer" in driver and "[already satisfied]" in driver
        assert "by hand:" not in driver and "wsl --shutdown` afterwards" not in driver
        assert "check: nvidia-smi reports driver 528.33" in driver
        # The next step still runs, and still needs its `wsl --shutdown`.
        assert "wsl --update" in wsl_update and "[`wsl --shutdown` afterwards]" in wsl_update
        assert "already satisfied" not in wsl_update
    assert "already satisfied: would not run" in _step_block(dry_out, 1)
    # The old driver (527.41) is not there: its step keeps its instructions and restart.
    assert main(["plan", "--profile", "wsl2-rtx3080-laptop-driver527"]) == 0
    old = _step_block(capsys.readouterr().out, 1)
    assert "by hand:" in old and "already satisfied" not in old and "wsl --shutdown` afterwards" in old
