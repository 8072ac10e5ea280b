"""The resume journal: which step of which plan got how far, kept in the user state dir.

One JSON file holds the exact plan a run started with and one record per step.
It is rewritten after every change through a temp file and `os.replace`, so a
reboot, Ctrl-C or kill -9 leaves either the old or the new version, never half
of one. A file that cannot be read back (truncated by a full disk, edited by
hand) is renamed aside with a clear notice and the run starts fresh: the
steps' checks, not the journal, decide what is already done, so nothing is
lost. Passwords are never given to this module.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.paths import ensure, state_dir
from wizard.plan.model import Plan, PlanError
from wizard.text import t

JOURNAL_SCHEMA = 1
STATUSES = ("pending", "running", "skipped", "done", "failed", "restart-pending")


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


@dataclass
class StepRecord:
    status: str = "pending"
    message: str = ""
    updated: str = ""
    # The command running right now (its process group) and a fingerprint of its argv, so a
    # start after kill -9 can stop a leftover command instead of racing it.
    pid: int | None = None
    argv_sha: str | None = None


@dataclass
class Restart:
    step: str
    kind: str  # "reboot" | "wsl-shutdown"
    boot_id: str  # the boot the step ran in; a different one means the restart happened


@dataclass
class RunState:
    plan: Plan
    steps: dict[str, StepRecord] = field(default_factory=dict)
    restart: Restart | None = None
    started: str = field(default_factory=now)
    updated: str = field(default_factory=now)
    finished: bool = False

    def record(self, step_id: str) -> StepRecord:
        return self.steps.setdefault(step_id, StepRecord())

    @property
    def position(self) -> tuple[int, int]:
        """(steps finished, steps in the plan), for "resume at step 3 of 6"."""
        active = self.plan.active_steps
        finished = sum(1 for s in active if self.record(s.id).status in ("done", "skipped"))
        return finished, len(active)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": JOURNAL_SCHEMA,
            "plan": self.plan.to_dict(),
            "steps": {k: vars(v) for k, v in self.steps.items()},
            "restart": vars(self.restart) if self.restart else None,
            "started": self.started,
            "updated": self.updated,
            "finished": self.finished,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunState:
        if not isinstance(d, dict) or d.get("schema") != JOURNAL_SCHEMA:
            raise ValueError("unknown journal schema")
        steps = {str(k): StepRecord(**v) for k, v in d["steps"].items()}
        for rec in steps.values():
            if rec.status not in STATUSES:
                raise ValueError(f"unknown step status {rec.status!r}")
        restart = Restart(**d["restart"]) if d.get("restart") else None
        return cls(
            plan=Plan.from_dict(d["plan"]),
            steps=steps,
            restart=restart,
            started=str(d.get("started", "")),
            updated=str(d.get("updated", "")),
            finished=bool(d.get("finished", False)),
        )


class Journal:
    """The journal file: `load()` what is there, `save()` after every change."""

    def __init__(self, path: Path | None = None, *, simulated: bool = False) -> None:
        # Demo runs get their own file so they never disturb a real run waiting for a reboot.
        name = "run-simulated.json" if simulated else "run.json"
        self.path = path or state_dir() / name
        self.notice: str | None = None  # set when a corrupt file was set aside

    def load(self) -> RunState | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._set_aside(str(exc))
            return None
        try:
            return RunState.from_dict(json.loads(text))
        except (ValueError, KeyError, TypeError, PlanError) as exc:
            self._set_aside(str(exc) or type(exc).__name__)
            return None

    def save(self, state: RunState) -> None:
        state.updated = now()
        ensure(self.path.parent)
        tmp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(state.to_dict(), fh, indent=1, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())  # survive a power cut at the reboot, not only kill -9
        os.replace(tmp, self.path)

    def set_aside(self, reason: str) -> Path | None:
        """Rename the file out of the way (kept for a bug report); returns the new name."""
        if not self.path.exists():
            return None
        target = self.path.with_name(f"{self.path.stem}.{reason}-{time.strftime('%Y%m%d-%H%M%S')}.json")
        os.replace(self.path, target)
        return target

    def _set_aside(self, why: str) -> None:
        target = self.set_aside("corrupt")
        self.notice = t("runner.journal_corrupt", path=str(self.path), moved=str(target), why=why)


def unfinished(simulated: bool = False) -> tuple[RunState | None, str | None]:
    """The run to offer to resume (None when there is none) and a notice for the user, if any."""
    journal = Journal(simulated=simulated)
    state = journal.load()
    if state is not None and state.finished:
        state = None
    return state, journal.notice
