"""A simulated runner that holds, like a long download, at the first command after `after_done`
steps are done, until it is cancelled. A test that quits half-way then quits a run that cannot
have finished first (with a paced runner, a loaded CI box once let every step finish before the
quit landed, and nothing was left to resume)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from wizard.plan.model import DONE, Step
from wizard.run.runner import Runner

HOLD_S = 60.0  # a bound, so a test that never quits fails instead of hanging


class HoldingRunner(Runner):
    def __init__(self, *args: Any, after_done: int = 1, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.after_done = after_done  # hold once this many steps are done
        self.holding = threading.Event()  # set while it waits: the run is half-way, for certain

    def _execute(self, step: Step, argv: Sequence[str]) -> int:
        done = list(self.statuses.values()).count(DONE)
        if done >= self.after_done and not self.holding.is_set():
            self.holding.set()
            self._cancel.wait(HOLD_S)
            if self.cancelled:
                return 130  # stopped by the quit, as a killed download would be
        return super()._execute(step, argv)


def wait_for_the_lock(name: str, timeout: float = 60.0) -> None:
    """Until the quit demo's worker lets go of its run lock (the next app would see it busy)."""
    from wizard.demo import load_demo
    from wizard.run.journal import journal_for
    from wizard.safe.lock import holder

    lock = journal_for(True, load_demo(name)).lock_path
    deadline = time.monotonic() + timeout
    while holder(lock) is not None:
        assert time.monotonic() < deadline, f"the run lock {lock} was still held after {timeout:.0f} s"
        time.sleep(0.05)
