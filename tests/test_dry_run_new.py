"""`apply --dry-run --new` on a demo previews what starting over does: the whole plan from step 1,
and it forgets nothing (a dry run changes nothing; the remembered run still resumes after it)."""

from __future__ import annotations

from typing import Any

from tests.test_demo_journal import DEMO, _english, apply, would  # noqa: F401  (_english: a fixture)
from wizard.demo import load_demo
from wizard.run.journal import Journal, journal_for


def stop_after_two(capsys: Any) -> Journal:
    """A run of the demo that stopped after its first two steps (as Ctrl-C after step 2 leaves it)."""
    apply(capsys, "--yes")
    journal = journal_for(True, load_demo(DEMO))
    state = journal.load()
    assert state is not None
    state.finished = False
    for step in state.plan.active_steps[2:]:
        state.record(step.id).status = "pending"
    journal.save(state)
    return journal


def test_dry_run_new_previews_the_whole_plan_and_forgets_nothing(capsys: Any) -> None:
    journal = stop_after_two(capsys)
    before = journal.path.read_bytes()
    resumed = apply(capsys, "--dry-run")
    assert would(resumed, "story.status.would_done") == 2 and would(resumed, "runner.cli.would_run") == 2
    fresh = apply(capsys, "--dry-run", "--new")
    # Start over: every step from step 1 would run, and it says the remembered run stays.
    assert would(fresh, "story.status.would_done") == 0 and would(fresh, "story.status.would_satisfied") == 0
    assert would(fresh, "runner.cli.would_run") == 4
    assert "starts over on a fresh demo machine" in fresh and "keeps the remembered run" in fresh
    assert "Resuming" not in fresh
    # A dry run changes nothing: the remembered run is there as it was, and still resumes.
    assert journal.path.read_bytes() == before
    assert would(apply(capsys, "--dry-run"), "story.status.would_done") == 2


def test_dry_run_new_in_chinese(capsys: Any) -> None:
    stop_after_two(capsys)
    fresh = apply(capsys, "--dry-run", "--new", "--lang", "zh")
    assert would(fresh, "runner.cli.would_run", "zh") == 4
    assert would(fresh, "story.status.would_done", "zh") == 0
    assert "加上 --new，运行会在全新的演示机上从头开始" in fresh


def test_dry_run_new_after_a_finished_run_is_fresh_too(capsys: Any) -> None:
    apply(capsys, "--yes")
    # remembered, the verify too (its proof kept while nothing changed: env_proof.py)
    assert would(apply(capsys, "--dry-run"), "story.status.would_satisfied") == 4
    fresh = apply(capsys, "--dry-run", "--new")
    assert would(fresh, "runner.cli.would_run") == 4 and would(fresh, "story.status.would_satisfied") == 0
