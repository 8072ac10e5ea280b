"""Small plans of test steps for the runner tests: fast, touching only a temp dir."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from wizard.choose.choice import VersionSet
from wizard.plan.model import Check, Plan, Step
from wizard.run.runner import RunnerEvents, StepResult

PY = sys.executable
TOUCH = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('x')"
EXISTS = "import pathlib, sys; sys.exit(0 if pathlib.Path(sys.argv[1]).exists() else 1)"
COUNT = (
    "import pathlib, sys; p = pathlib.Path(sys.argv[1]); "
    "p.write_text(str(int(p.read_text()) + 1) if p.exists() else '1')"
)


def touch_step(step_id: str, target: Path, *, where: str = "user", **kw: object) -> Step:
    """A step that creates `target`; its check is that `target` exists."""
    counter = target.with_suffix(".runs")
    return Step(
        id=step_id,
        title=f"make {target.name}",
        why="test",
        where=where,
        commands=((PY, "-c", COUNT, str(counter)), (PY, "-c", TOUCH, str(target))),
        check=Check((PY, "-c", EXISTS, str(target)), f"{target.name} exists"),
        **kw,  # type: ignore[arg-type]
    )


def make_plan(*steps: Step, simulated: bool = False) -> Plan:
    return Plan(
        set=VersionSet("2.21.0", "3.12", None, None, "cpu"),
        platform="linux",
        venv="/nonexistent",
        python="/nonexistent/bin/python",
        steps=tuple(steps),
        simulated=simulated,
        label="test machine",
    )


def runs(target: Path) -> int:
    counter = target.with_suffix(".runs")
    return int(counter.read_text()) if counter.exists() else 0


@dataclass
class Recorder(RunnerEvents):
    password: str | None = None
    answer: bool = True
    windows_ok: bool = True
    events: list[tuple[str, str, str]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    asked_password: int = 0
    restarts: list[str] = field(default_factory=list)
    windows_texts: list[str] = field(default_factory=list)
    on_wait: object = None

    def step_started(self, step: Step, index: int, total: int) -> None:
        self.events.append(("started", step.id, ""))

    def output_line(self, step: Step, line: str, progress: bool = False) -> None:
        self.lines.append(line)

    def step_finished(self, step: Step, result: StepResult) -> None:
        self.events.append(("finished", step.id, result.status))

    def needs_password(self, step: Step, attempt: int) -> str | None:
        self.asked_password += 1
        return self.password

    def confirm(self, step: Step, question: str) -> bool:
        self.events.append(("confirm", step.id, question))
        return self.answer

    def wait_for_windows_host(self, step: Step, text: str) -> bool:
        self.windows_texts.append(text)
        if callable(self.on_wait):
            self.on_wait()
        return self.windows_ok

    def needs_restart(self, step: Step, kind: str, message: str) -> None:
        self.restarts.append(kind)

    def statuses(self) -> dict[str, str]:
        return {sid: status for kind, sid, status in self.events if kind == "finished"}
