"""A non-editable install works from any directory: the wheel carries assets/ and the app's styles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob("tf_gpu_wizard-*.whl")
    return found


def test_wheel_carries_the_data_the_wizard_reads(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for must in (
        "assets/knowledge/tensorflow.toml",
        "assets/knowledge/SOURCES.md",
        "assets/profiles/wsl2-rtx4060-laptop.json",
        "assets/text/en/probe.toml",
        "assets/doctor/patterns.toml",
        "assets/bench/tf_bench.py",
        "assets/programs/tf_gpu_check.py",
        "assets/programs/shellblock.sh",
        "assets/knowledge/harvest.json",
        "assets/text/zh/app.toml",
        "assets/styles/monitor.tcss",
        "screens/app.py",
        "wizard/cli/__init__.py",
    ):
        assert must in names, must
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "tf-gpu-wizard = wizard.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_wheel_runs_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    code = (
        "import json, sys, wizard; from wizard.cli import main; "
        "assert wizard.__file__.startswith(sys.argv[1]), wizard.__file__; "
        "sys.exit(main(['--profile', 'wsl2-rtx4060-laptop', 'plan', '--json']))"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run(
        [sys.executable, "-c", code, str(site)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    # The locked install: the wheel carries the harvest (its hashes) and the GPU check. A demo plan
    # names the check where the demo user's wizard keeps it (their data folder); the file itself is
    # written into this machine's data folder, from the installed wheel, for the exported script.
    assert any("--require-hashes" in json.dumps(step) for step in plan["steps"])
    verify = next(step for step in plan["steps"] if step["id"] == "verify")
    # Run by env_proof.py, which keeps its proof with what it proved (a re-apply starts no TF).
    runner, shown = Path(verify["commands"][0][1]), Path(verify["commands"][0][6])
    assert runner.name == "env_proof.py" and runner.parent.name == "programs"
    assert shown.name == "tf_gpu_check.py" and shown.parent.name == "programs"
    written = Path(os.environ["TF_GPU_WIZARD_HOME"]) / "data" / "programs" / "tf_gpu_check.py"
    assert written.read_bytes() == (site / "assets" / "programs" / "tf_gpu_check.py").read_bytes()
