"""Every real dump of the corpus (outputs posted in public issues) replays through `detect --from`:
the facts the text shows are read, the failure it shows is named, nothing it contradicts is said."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.dump_corpus import cases, held_out, judge, materialize
from wizard.probe.dump import detect_dump

ROOT = Path(__file__).resolve().parent.parent
ALL = cases()


def test_the_corpus_is_split_by_the_projects_rule() -> None:
    assert len(ALL) >= 25 and len({c["source"] for c in ALL}) == len(ALL)
    assert sum(held_out(c) for c in ALL) == 8
    assert all(c["source"].startswith("https://github.com/") for c in ALL)


@pytest.mark.parametrize("case", ALL, ids=[c["slug"] for c in ALL])
def test_a_real_dump_is_read_as_it_is(tmp_path: Path, case: dict) -> None:
    verdict = judge(case, detect_dump(materialize(case, tmp_path)))
    assert not verdict.wrong, verdict.wrong
    assert verdict.right, verdict.missed


def test_detect_from_reads_a_real_dump_on_the_command_line(tmp_path: Path) -> None:
    case = next(c for c in ALL if c["slug"] == "wsl-cuda-err")
    dump = materialize(case, tmp_path)
    env = {**os.environ, "TF_GPU_WIZARD_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "wizard", "detect", "--from", str(dump)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "CUDA Version: ERR!" in done.stdout and "546.80" in done.stdout
