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
@pytest.mark.parametrize("args", [["plan"], ["plan", "--script"], ["plan", "--json"], ["recommend"], ["detect"]])
def test_a_5000_character_gpu_name_is_bounded_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], demo: str, args: list[str]
) -> None:
    profile = _long_name_profile(tmp_path, demo)
    assert main([*args, "--profile", str(profile)]) == 0
    out = capsys.readouterr().out
    runs = [len(m) for m in re.findall(r"X{20,}", out)]
    assert max(runs, default=0) <= 200, args
    assert sum(runs) <= 2000, args  # the name is not repeated until it floods either
