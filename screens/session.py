"""What the screens share while a student walks the flow: plain state, no logic."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wizard.choose.choice import Candidate, Recommendation
    from wizard.profile import MachineProfile


@dataclass
class Session:
    profile: MachineProfile | None = None
    findings: list[Any] = field(default_factory=list)  # wizard.findings.Finding
    detected: bool = False  # the profile is complete (all probe parts, or a saved one)
    recommendation: Recommendation | None = None
    candidate: Candidate | None = None
    prefer_method: str | None = None
    python: str | None = None
    venv: Path | None = None
    mirror: str | None = None  # --mirror / the plan screen's package source: a catalogue name, a URL, None
    mirror_advised: bool = False  # the mirror suggestion is shown once per session
    plan: Any = None  # wizard.plan.Plan
    resume: Any = None  # a journal the user chose to resume
    step_running: bool = False  # ctrl+q asks first while this is set
    stop_run: Callable[[], None] | None = None  # the run screen's: cancel the runner, release waits
    doctor_text: str = ""  # the doctor screen's pasted text, kept between visits
    doctor_path: str = ""  # and its log file line

    @property
    def simulated(self) -> bool:
        return bool(self.profile is not None and self.profile.simulated)

    @property
    def label(self) -> str:
        if self.profile is None:
            return ""
        return self.profile.label or self.profile.platform

    def reset_choice(self) -> None:
        """A new profile makes every later decision stale."""
        self.findings = []
        self.recommendation = None
        self.candidate = None
        self.plan = None
