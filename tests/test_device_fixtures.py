"""Fixtures kept from a lent GPU machine (maint/device_fixture.py) replay here: the dump through
`detect --from` gives the profile the machine gave, and the monitor's readings under the load parse.
The script itself runs here (no GPU): it keeps the dump and says in one line that no load ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.probe.dump import detect_dump

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures" / "device").glob("*") if (p / "dump").is_dir())


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.name for p in FIXTURES])
def test_a_lent_machine_replays(fixture: Path) -> None:
    want = json.loads((fixture / "profile.json").read_text())
    got = detect_dump(fixture / "dump").to_dict()
    assert got == want
    readings = [json.loads(line) for line in (fixture / "monitor.jsonl").read_text().splitlines() if line]
    assert readings  # the load ran while the monitor read


def test_the_script_runs_without_a_gpu(tmp_path: Path) -> None:
    out = tmp_path / "fixture"
    env = {**os.environ, "TF_GPU_WIZARD_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    # A Python without PyTorch stands for a machine whose load cannot start.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "maint.device_fixture",
            "--out",
            str(out),
            "--seconds",
            "1",
            "--load-python",
            sys.executable,
        ],
        capture_output=True,
        text=True,
        env={**env, "PYTHONNOUSERSITE": "1"},
        cwd=ROOT,
        timeout=300,
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["replay_equal"] is True  # the dump replays to the profile detect gave
    assert json.loads((out / "profile.json").read_text()) == detect_dump(out / "dump").to_dict()
    try:
        import torch  # noqa: F401

        has_torch = True
    except ImportError:
        has_torch = False
    if not has_torch:
        assert done.returncode == 2 and "no GPU load ran" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
