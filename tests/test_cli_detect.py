"""`tf-gpu-wizard detect` as a user runs it: a real process on this machine (no GPU)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "wizard"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, check=False)


def test_detect_on_this_machine_says_no_driver_and_is_fast() -> None:
    start = time.monotonic()
    result = run("detect")
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    assert "no NVIDIA" in result.stdout or "No NVIDIA" in result.stdout
    assert elapsed < 3.0  # measured ~0.4 s; generous for a loaded CI machine


def test_detect_json_is_a_profile() -> None:
    result = run("detect", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["schema"] == 1 and data["platform"] == "linux"
    assert data["driver"] is None and data["gpus"] == []
    # a note is a code and its fields, with its text for a reader
    assert "no NVIDIA driver found" in [n["text"] for n in data["notes"]]
    assert "probe.no_driver" in [n["code"] for n in data["notes"]]


def test_save_then_load_as_profile(tmp_path: Path) -> None:
    out = tmp_path / "me.json"
    assert run("detect", "--save", str(out)).returncode == 0
    result = run("detect", "--profile", str(out))
    assert result.returncode == 0
    assert "SIMULATED" in result.stdout


def test_demo_profile_shows_simulated_and_problems() -> None:
    result = run("--profile", "wsl2-linux-driver-inside", "detect")
    assert result.returncode == 0
    assert "SIMULATED" in result.stdout
    assert "A Linux NVIDIA driver is installed inside WSL" in result.stdout


def test_bad_profiles_exit_nonzero_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"schema": 7}')
    for ref, expect in (
        (str(bad), "not valid JSON"),
        (str(wrong), "schema 7"),
        ("no-such-demo", "no demo profile"),
    ):
        result = run("detect", "--profile", ref)
        assert result.returncode == 2
        assert expect in result.stderr
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_detect_loads_only_what_it_needs() -> None:
    # Start-up time is most of `detect`'s 0.5 s budget: other commands' heavy modules stay unloaded.
    code = (
        "import sys, io, contextlib\n"
        "from wizard.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['detect', '--json'])\n"
        "heavy = [m for m in ('wizard.run', 'wizard.monitor', 'wizard.plan', 'wizard.bench', 'textual') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_help_lists_every_command() -> None:
    result = run("--help")
    assert result.returncode == 0
    for command in ("detect", "recommend", "plan", "apply", "monitor", "bench", "doctor"):
        assert command in result.stdout
