"""Every output bounds data from machines and profiles (issue 36, point 7): a profile whose GPU is
named with 5,000 characters gives a plan, a JSON plan and a script that carry at most 200 of them,
as detect and recommend already do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wizard.assets import asset_text
from wizard.cli.main import main


def _long_name_profile(tmp_path: Path, demo: str) -> Path:
    data = json.loads(asset_text(f"profiles/{demo}.json"))
    data["gpus"][0]["name"] = "NVIDIA " + "X" * 5000
    path = tmp_path / "long-gpu.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("demo", ["wsl2-rtx4060-laptop", "ubuntu-24.04-rtx5090"])
@pytest.mark.parametrize(
    "args", [["plan"], ["plan", "--script"], ["plan", "--json"], ["recommend"], ["detect"]]
)
def test_a_5000_character_gpu_name_is_bounded_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], demo: str, args: list[str]
) -> None:
    profile = _long_name_profile(tmp_path, demo)
    assert main([*args, "--profile", str(profile)]) == 0
    out = capsys.readouterr().out
    runs = [len(m) for m in re.findall(r"X{20,}", out)]
    assert max(runs, default=0) <= 200, args
    assert sum(runs) <= 2000, args  # the name is not repeated until it floods either


def _script_and_plan(capsys: pytest.CaptureFixture[str], ref: str) -> tuple[str, str]:
    assert main(["plan", "--profile", ref, "--script"]) == 0
    script = capsys.readouterr().out
    assert main(["plan", "--profile", ref]) == 0
    return script, capsys.readouterr().out


@pytest.mark.parametrize(
    "ref", ["wsl2-rtx4060-laptop", "wsl2-rtx3080-laptop-driver527", "debian-12-gtx1060-laptop"]
)
def test_the_script_counts_the_steps_the_plan_runs(capsys: pytest.CaptureFixture[str], ref: str) -> None:
    """Point 10: one count of steps. The plan numbers the steps that will run; the script says
    "N/total" with the same total, and a switched-off optional step is named but not counted."""
    script, plan = _script_and_plan(capsys, ref)
    numbered = [int(n) for n in re.findall(r"^ *(\d+)\. ", plan, flags=re.M)]
    heads = re.findall(r"^# ---- (\d+)/(\d+) ", script, flags=re.M)
    assert numbered == list(range(1, len(numbered) + 1))
    assert [int(n) for n, _ in heads] == numbered
    assert {int(total) for _, total in heads} == {len(numbered)}


def test_powershell_heads_only_commands_in_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    """Point 10: "Run this in Windows PowerShell:" is followed by commands, never by a sentence."""
    script, _ = _script_and_plan(capsys, "wsl2-rtx3080-laptop-driver527")
    lines = script.splitlines()
    heads = [i for i, line in enumerate(lines) if "Run this in Windows PowerShell:" in line]
    assert heads
    for i in heads:
        shown = re.match(r"\s*printf '%s\\n' '    (.*)'$", lines[i + 1])
        assert shown, lines[i + 1]
        first_word = shown.group(1).split()[0]
        assert first_word in ("wsl", "bash", "powershell", "&", "winget") or first_word.endswith(".exe"), (
            lines[i + 1]
        )
    assert "Do this in Windows (not inside WSL):" in script


def test_the_monitor_of_a_profile_file_imitates_that_machine_and_says_na(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Point 12: a saved profile that gives no RAM or cores: the simulated monitor says N/A for
    them (as Detect says unknown) and names the profile's machine, never one called "demo"."""
    profile = tmp_path / "saved.json"
    profile.write_text(json.dumps({"platform": "linux", "os": {"name": "Ubuntu 24.04 LTS"}}))
    assert main(["monitor", "--profile", str(profile), "--count", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert '"Ubuntu 24.04 LTS"' in out and '"demo"' not in out
    assert "CPU N/A" in out and "RAM N/A" in out


def test_wsl1_monitor_and_finish_say_wsl2_gives_the_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    """Point 16: WSL1 cannot see the GPU; the monitor never says the machine has none, and the
    finish says WSL2 gives it, with the command."""
    from wizard.text import t

    assert main(["monitor", "--profile", "wsl1-ubuntu-22.04", "--count", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "has no NVIDIA GPU" not in out and "WSL2 reaches it" in out
    assert main(["apply", "--profile", "wsl1-ubuntu-22.04", "--yes"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert " ".join(t("keys.next.wsl1_gpu", command=t("profile.wsl1.command_unknown")).split()) in out


def test_a_profile_files_driver_line_says_where_its_cuda_figure_comes_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Point 19: a saved profile whose driver names no source: the CUDA figure is the file's."""
    data = json.loads(asset_text("profiles/wsl2-rtx3080-laptop-driver527.json"))
    del data["driver"]["source"]
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(data))
    assert main(["detect", "--profile", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "527.41 (supports CUDA up to 12.0; as the profile file says; not read on this computer)" in out


def test_the_zh_log_words_the_checks_json_events(capsys: pytest.CaptureFixture[str]) -> None:
    """Point 19: the log keeps the check's JSON events (evidence) and, under each, its words in the
    reader's language."""
    from wizard.paths import log_dir
    from wizard.text import set_language

    try:
        assert main(["--lang", "zh", "apply", "--profile", "debian-12-gtx1060-laptop", "--yes"]) == 0
    finally:
        set_language(None)
    log = "\n".join(p.read_text(encoding="utf-8") for p in log_dir().glob("apply-*.log"))
    lines = log.splitlines()
    events = [i for i, line in enumerate(lines) if '"event": "gpu"' in line]
    assert events
    for i in events:
        assert lines[i + 1].startswith("  = ") and "算力 6.1" in lines[i + 1]
