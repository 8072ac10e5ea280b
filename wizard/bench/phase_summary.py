"""What ran: the one line for a finished benchmark whose phases all passed or were not run.

"All 5 phases passed" was shown when the XLA phase had been skipped; the screen, the CLI and
--json now read the same lists from here: the phases that passed, and each one not run with
its reason (the wizard's own where it decided, else the script's).
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.bench.events import PHASES
from wizard.bench.report import BenchReport
from wizard.text import t


@dataclass(frozen=True)
class NotRun:
    phase: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"phase": self.phase, "reason": self.reason}


def passed_phases(report: BenchReport) -> list[str]:
    return [name for name in PHASES if report.phases[name].status == "ok"]


def skipped_phases(report: BenchReport) -> list[NotRun]:
    found = []
    for name in PHASES:
        state = report.phases[name]
        if state.status == "skipped":
            found.append(NotRun(name, report.skip_why.get(name) or state.reason or ""))
    return found


def phases_line(report: BenchReport) -> str | None:
    """'✓ all 5 phases passed (N s)', or '✓ 4 phases passed; CNN with XLA not run: <why> (N s)';
    None unless the run is done with every phase passed or not run."""
    states = [report.phases[name] for name in PHASES]
    if not report.done or not all(s.status in ("ok", "skipped") for s in states):
        return None
    # The run's measured wall time (start-up included), not a sum of the phases' own figures.
    seconds = report.seconds if report.seconds is not None else sum(s.seconds or 0.0 for s in states)
    skipped = skipped_phases(report)
    if not skipped:
        return t("bench.all_phases_ok", count=len(states), seconds=seconds)
    parts = [
        t(
            "bench.not_run.reason" if s.reason else "bench.not_run.bare",
            phase=t(f"bench.phase.{s.phase}"),
            reason=s.reason,
        )
        for s in skipped
    ]
    return t(
        "bench.not_run.passed",
        count=len(passed_phases(report)),
        skipped=t("bench.not_run.joiner").join(parts),
        seconds=seconds,
    )


def done_fields(report: BenchReport) -> dict[str, object]:
    """What --json adds to its `done` event and the saved result: the phases passed and not run."""
    return {"passed": passed_phases(report), "skipped": [s.as_dict() for s in skipped_phases(report)]}
