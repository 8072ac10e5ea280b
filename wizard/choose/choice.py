"""What the resolver hands to the plan: a version set and why it was (not) chosen."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

METHODS = ("pip-and-cuda", "system-cuda", "conda", "cpu")


@dataclass(frozen=True)
class VersionSet:
    tensorflow: str  # full release, e.g. "2.21.0"
    python: str  # "3.12": the Python the environment will use
    cuda: str | None  # "12.5"; None for cpu
    cudnn: str | None  # "9.3"; None for cpu
    method: str  # one of METHODS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Candidate:
    set: VersionSet
    ok: bool
    reasons: list[str] = field(default_factory=list)  # why not (or caveats when ok), in plain words
    constraints: list[str] = field(
        default_factory=list
    )  # pip constraint lines, e.g. "nvidia-cuda-nvcc-cu12<12.5"
    constraint_reasons: list[str] = field(default_factory=list)  # why each constraint is there
    python_change: str | None = (
        None  # "install Python 3.12 (deadsnakes / pyenv / conda)" when not the current one
    )
    rank: int = 0  # 0 = best
    # pip-and-cuda: every nvidia-* wheel as "name==version", the one set chosen for this GPU
    # and driver; what Choose and Plan show and what the lock installs.
    pins: list[str] = field(default_factory=list)
    min_driver: str | None = None  # the driver this set needs here ("545.23.06"); None for cpu
    # "compute_90" when a GPU here runs this set only through PTX the driver compiles on the
    # first start (the plan then sizes the CUDA cache); None when machine code fits.
    jit_ptx: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = self.set.to_dict()
        d.update(
            ok=self.ok,
            reasons=list(self.reasons),
            constraints=list(self.constraints),
            constraint_reasons=list(self.constraint_reasons),
            python_change=self.python_change,
            rank=self.rank,
            pins=list(self.pins),
            min_driver=self.min_driver,
            jit_ptx=self.jit_ptx,
        )
        return d


@dataclass
class Recommendation:
    recommended: Candidate | None
    candidates: list[Candidate]
    unlock_hint: str | None = None  # "upgrade the driver to >= 525.60.13 to get TF 2.21 ..."
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommended": self.recommended.set.to_dict() if self.recommended else None,
            "candidates": [c.to_dict() for c in self.candidates],
            "unlock_hint": self.unlock_hint,
            "notes": list(self.notes),
        }
