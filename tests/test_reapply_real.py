"""The real thing on this machine: a re-apply of a finished CPU plan with nothing changed is quick and
still honest (issue 37 point 3).

The CPU plan applied for real into a temp dir with the wizard's own uv (its locked install,
tensorflow-cpu), then applied again: every step's check passes, and the verify keeps its proof
(env_proof.py) so TensorFlow is not started again. A same-size overwrite of one of TensorFlow's files
with its mtime set back (as a bad sector or a careless tool would leave it) is found by its digest,
repaired, and TensorFlow is started again to prove the result. `apply --verify` proves it all from
scratch. Slow (a 260 MB wheel): run with `pytest -m slow`; every apply is bounded by the runner's own
time limits.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.test_install_repair import _overwrite_same_size
from wizard.cli import main
from wizard.run.journal import Journal

REAPPLY_BOUND_S = 15.0  # 2 to 6 s measured on a loaded 2-core box; the figure is printed


def _apply(capsys: pytest.CaptureFixture[str], venv: Path, *extra: str) -> tuple[str, dict[str, str], float]:
    started = time.monotonic()
    rc = main(["apply", "--method", "cpu", "--venv", str(venv), "--yes", *extra])
    took = time.monotonic() - started
    out = capsys.readouterr().out
    assert rc == 0, out[-3000:]
    state = Journal().load()
    assert state is not None and state.finished
    return out, {k: v.status for k, v in state.steps.items()}, took


@pytest.mark.slow
def test_a_reapply_starts_no_tensorflow_until_something_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    venv = tmp_path / "venv"
    out, statuses, first_s = _apply(capsys, venv)
    assert statuses["verify"] == "done" and "matmul on" in out
    assert (venv / ".tf-gpu-wizard-proof.json").is_file()

    out, statuses, again_s = _apply(capsys, venv)
    assert set(statuses.values()) <= {"satisfied", "skipped"}, statuses
    assert statuses["verify"] == "satisfied" and "matmul on" not in out  # TensorFlow not started
    assert again_s <= REAPPLY_BOUND_S, f"a re-apply with nothing changed took {again_s:.1f} s"

    site = next(venv.glob("lib/python*/site-packages"))
    target = site / "tensorflow" / "python" / "ops" / "math_ops.py"
    good = target.read_bytes()
    _overwrite_same_size(target)
    out, statuses, repair_s = _apply(capsys, venv)
    assert "tensorflow-cpu: damaged (1 of" in out, out[-3000:]
    assert statuses["tensorflow"] == "done" and statuses["verify"] == "done" and "matmul on" in out
    assert target.read_bytes() == good

    out, statuses, after_s = _apply(capsys, venv)
    assert statuses["verify"] == "satisfied" and "matmul on" not in out

    out, statuses, full_s = _apply(capsys, venv, "--verify")
    assert statuses["verify"] == "done" and "matmul on" in out  # the full proof, asked for
    print(
        f"\ncpu plan: first apply {first_s:.1f} s; again, nothing changed {again_s:.1f} s; a same-size "
        f"overwrite found, repaired and proven again {repair_s:.1f} s; then {after_s:.1f} s; "
        f"apply --verify {full_s:.1f} s"
    )
