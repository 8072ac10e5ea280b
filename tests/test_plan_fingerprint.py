"""The plan's fingerprint covers every field that decides what runs. A real, unfinished journal
whose plan was edited (here: `simulated` flipped to true, the id left as it was) no longer matches
its fingerprint: it is set aside as damage, and the run never walks a real plan as a demo."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.test_runner_helpers import PY, Recorder, make_plan, touch_step
from wizard.choose.choice import VersionSet
from wizard.plan.model import Check, Plan, Step
from wizard.run.journal import Journal
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)


def _plan(tmp_path: Path) -> Plan:
    failing = Step(
        id="fails",
        title="fails",
        why="test",
        where="user",
        commands=((PY, "-c", "import sys; sys.exit(3)"),),
        check=Check((PY, "-c", "import sys; sys.exit(1)"), "never"),
    )
    return make_plan(touch_step("one", tmp_path / "one"), failing, touch_step("two", tmp_path / "two"))


@pytest.mark.parametrize(
    "change",
    [
        {"simulated": True},
        {"set": VersionSet("2.20.0", "3.12", None, None, "cpu")},
        {"venv": "/elsewhere"},
        {"python": "/elsewhere/bin/python"},
        {"label": "another machine"},
        {"platform": "windows"},
    ],
    ids=lambda c: next(iter(c)),
)
def test_every_field_that_decides_what_runs_changes_the_fingerprint(tmp_path: Path, change: dict) -> None:
    plan = _plan(tmp_path)
    assert replace(plan, **change).id != plan.id
    assert Plan.from_dict(plan.to_dict()).id == plan.id  # and a round trip keeps it


def test_a_flipped_simulated_in_a_real_unfinished_journal_is_set_aside(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    journal = Journal(path=tmp_path / "state" / "run.json")
    result = Runner(plan, Recorder(), sudo=NOT_ROOT, journal=journal).run()
    assert result.outcome != "finished"  # the real run stopped at the failing step
    data = json.loads(journal.path.read_text())
    assert data["plan"]["simulated"] is False and data["finished"] is False
    data["plan"]["simulated"] = True  # the edit; the id is left as it was
    journal.path.write_text(json.dumps(data))

    assert journal.load() is None
    assert journal.notice and "fingerprint" in journal.notice
    assert not journal.path.exists()  # set aside, kept for a report
    # The edited plan, run as it now says, is not the real run resumed: nothing is "done" from
    # the real run's records, and the real plan run again stops at the same failing step.
    again = Runner(plan, Recorder(), sudo=NOT_ROOT, journal=Journal(path=journal.path)).run()
    assert again.outcome != "finished"
