"""The real thing on this machine: the cpu plan applied into a temp dir, verified, applied again.

Slow (TensorFlow is a 260 MB wheel): pip's own cache in ~/.cache/pip is left on, so
only the first run on a machine downloads it. Run with `pytest -m slow`.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.test_reapply_real import own_files
from tests.test_runner_helpers import Recorder
from wizard.cli import main
from wizard.plan.model import Plan
from wizard.run.journal import Journal
from wizard.run.runner import Runner


def _site_snapshot(venv: Path) -> dict[str, float]:
    """Every installed distribution and when it was written: a re-install would change it."""
    return {
        str(p.relative_to(venv)): p.stat().st_mtime
        for p in venv.glob("lib/python*/site-packages/*.dist-info")
    }


@pytest.mark.slow
def test_cpu_plan_for_real_then_again_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files of its own, not links into uv's shared cache: "nothing changed" holds only if no other
    # process can write them (test_reapply_real's overwrite, run beside this test, once did).
    own_files(monkeypatch)
    # A path with a space and a quote: the plan must carry it as one word everywhere.
    venv = tmp_path / "my venv" / "it's"
    started = time.monotonic()
    rc = main(["apply", "--method", "cpu", "--venv", str(venv), "--yes"])
    first_s = time.monotonic() - started
    out = capsys.readouterr().out
    assert rc == 0, out[-3000:]
    assert "matmul on" in out and "CPU:0 ok" in out
    assert (venv / "bin" / "python").exists()
    state = Journal().load()
    assert state is not None and state.finished
    statuses = {k: v.status for k, v in state.steps.items()}
    assert statuses["tensorflow"] == "done" and statuses["verify"] == "done", statuses
    before = _site_snapshot(venv)
    site = next(venv.glob("lib/python*/site-packages"))
    assert (site / "tensorflow" / "__init__.py").stat().st_nlink == 1, "its own copy, not uv's cache"
    assert any(name.split("/")[-1].startswith("tensorflow") for name in before)

    plan = Plan.from_dict(state.plan.to_dict())
    rec = Recorder()
    started = time.monotonic()
    result = Runner(plan, rec).run()
    second_s = time.monotonic() - started
    assert result.outcome == "finished", result.message
    done = rec.statuses()
    assert all(done[s.id] == "satisfied" for s in plan.active_steps if s.check_before), done
    assert done["verify"] == "satisfied"  # its proof kept, nothing changed: TensorFlow not started
    assert not any(line.startswith("$ ") and " pip install" in line for line in rec.lines)
    assert _site_snapshot(venv) == before
    print(f"\ncpu plan: first apply {first_s:.0f} s, second apply {second_s:.0f} s")

    # A kill during pip's unpack: TensorFlow's metadata stays, most of its files are gone. The next
    # apply must not call that done: the step's check fails, the step reinstalls, the verify passes.
    files = sorted(p for p in (site / "tensorflow").rglob("*") if p.is_file())
    for f in files[: len(files) * 2 // 3]:
        f.unlink()
    assert next(site.glob("tensorflow_cpu-*.dist-info")).is_dir()
    started = time.monotonic()
    rc = main(["apply", "--method", "cpu", "--venv", str(venv), "--yes"])  # the same plan, checked again
    repair_s = time.monotonic() - started
    out = capsys.readouterr().out
    assert rc == 0, out[-3000:]
    assert "damaged" in out and "matmul on" in out
    repaired = Journal().load()
    assert repaired is not None and repaired.finished
    assert repaired.steps["tensorflow"].status == "done" and repaired.steps["verify"].status == "done"
    assert all(f.exists() for f in files)
    print(
        f"cpu plan: damaged TensorFlow ({len(files) * 2 // 3} of {len(files)} files deleted) repaired in {repair_s:.0f} s"
    )
    shutil.rmtree(tmp_path / "my venv")  # 1.2 GB of copies: pytest keeps the last runs' temp folders
