"""A real "No space left on device" (a write to /dev/full) in a CPU plan's step: the hint names
this plan's own download, never "TensorFlow with CUDA needs about 8 GB"."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.test_runner_helpers import PY, Recorder, make_plan
from wizard.plan.model import Check, Step
from wizard.run.journal import Journal
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession
from wizard.text import set_language

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)
FULL = "import sys; f = open('/dev/full', 'w'); f.write('x' * 100000); f.flush()"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_disk_full_on_a_cpu_plan_names_the_plans_own_size(tmp_path: Path, lang: str) -> None:
    set_language(lang)
    try:
        step = Step(
            id="tensorflow",
            title="install",
            why="test",
            where="user",
            commands=((PY, "-c", FULL),),
            check=Check((sys.executable, "-c", "import sys; sys.exit(1)"), "never"),
            download_mib=262,
        )
        plan = make_plan(step)
        assert plan.set.cuda is None  # a CPU set
        rec = Recorder()
        result = Runner(plan, rec, sudo=NOT_ROOT, journal=Journal(path=tmp_path / "run.json")).run()
        assert result.outcome == "failed"
        text = result.message + "\n".join(rec.lines)
        assert "No space left on device" in text
        assert "CUDA" not in result.message and "8 GB" not in result.message, result.message
        assert "262 MB" in result.message, result.message
        # No figure to give: a plain hint, still without CUDA's.
        none = replace(plan, steps=(replace(step, download_mib=0),))
        bare = Runner(none, Recorder(), sudo=NOT_ROOT, journal=Journal(path=tmp_path / "b.json")).run()
        assert "CUDA" not in bare.message and "8 GB" not in bare.message
    finally:
        set_language("en")
