"""A simulated runner whose chosen steps fail the first time, like a flaky mirror would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wizard.plan.model import Step
from wizard.run.runner import Runner

FAILURE_LINES = [
    "ERROR: Could not find a version that satisfies the requirement tensorflow[and-cuda]==2.21.0",
    "ERROR: No matching distribution found for tensorflow[and-cuda]==2.21.0",
]


class FlakyRunner(Runner):
    def __init__(
        self, *args: Any, fail_once: Sequence[str] = (), match: str | None = "install", **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fail_once = set(fail_once)
        self.match = match  # fail the step's command holding this word (None: its first command)

    def _execute(self, step: Step, argv: Sequence[str]) -> int:
        if step.id in self.fail_once and (self.match is None or self.match in argv):
            self.fail_once.discard(step.id)
            for line in FAILURE_LINES:
                self._emit(step, line, False)
            return 1
        return super()._execute(step, argv)
