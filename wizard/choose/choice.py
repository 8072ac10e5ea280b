"""What the resolver hands to the plan: a version set and why it was (not) chosen."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wizard.probe.state_view import StateWords

METHODS = ("pip-and-cuda", "system-cuda", "conda", "cpu")


def method_words(method: str) -> str:
    """The words a person reads for a method (the app's, the CLI's): one catalogue key each;
    --json and --method keep the bare names."""
    from wizard.text import t

    return t(f"app.method.{method}") if method in METHODS else method


@dataclass(frozen=True)
class VersionSet:
    tensorflow: str  # full release, e.g. "2.21.0"
    python: str  # "3.12": the Python the environment will use
    cuda: str | None  # "12.5"; None for cpu
    cudnn: str | None  # "9.3"; None for cpu
    method: str  # one of METHODS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# Why a set needs its driver floor (DriverNeed.basis).
MINOR, TOOLKIT, PTX_JIT = "minor", "toolkit", "ptx"


@dataclass(frozen=True)
class DriverNeed:
    """The NVIDIA driver a GPU set needs on this machine: computed once by the resolver,
    carried by the candidate, worded by wizard.choose.driver_view for every screen."""

    floor: str  # "528.33": the lowest driver that runs the set here
    side: str  # "windows" (WSL2 and native Windows use the Windows driver) | "linux"
    tf: str  # "2.21"
    cuda: str  # the CUDA the set uses ("12.5")
    basis: str  # MINOR | TOOLKIT | PTX_JIT: what the floor comes from
    basis_cuda: str  # the CUDA the floor belongs to ("12.0" for 12.x minor-version compatibility)
    have: str | None  # the driver now ("527.41"); None when none is seen
    have_cuda: str | None  # the newest CUDA that driver supports ("12.0")
    met: bool  # have >= floor: no driver step
    # A driver of floor or newer is installed but not loaded ("550.120"): the step is a restart,
    # not an install (MachineProfile.driver_awaiting_reboot). None: the step installs one.
    installed: str | None = None
    # A machine state that stops the GPU (MachineProfile.blocking_state), in the one view's words:
    # the driver step is its fix (a restart, the MOK key, --gpus all ...), never an install over an
    # installed driver. None: the driver is only judged by its version.
    fix: StateWords | None = None

    @property
    def step(self) -> bool:
        """The set runs here after a driver update (a plan step), not on today's driver."""
        return not self.met or self.fix is not None

    @property
    def restart_only(self) -> bool:
        """The driver step is a restart that loads the installed driver: nothing to install."""
        return self.step and self.installed is not None and self.fix is None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "step": self.step, "restart_only": self.restart_only}


@dataclass(frozen=True)
class FailureReport:
    """One public report of pip TensorFlow failing on a GPU: the issue is the citation, the rest
    are its facts (worded per language by driver_view.citation_text)."""

    issue: str  # "tensorflow/tensorflow#99592"
    releases: tuple[str, ...] = ()  # the TensorFlow releases it names
    gpu: str = ""
    error: str = ""  # the CUDA error it shows
    where: str = ""  # the part that fails ("kernel_gen"), if the report says
    platform: str = ""  # "WSL2" where the report is about it


@dataclass(frozen=True)
class GpuReport:
    """Public reports that pip TensorFlow fails on this GPU's architecture (Blackwell)."""

    name: str
    cc: str
    arch: str
    reports: tuple[FailureReport, ...]


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
    # The driver this set needs and why (None: cpu, or no floor known). A set whose only
    # obstacle is the driver is ok with driver.step set: the plan's driver step comes first.
    driver: DriverNeed | None = None
    reported: GpuReport | None = None  # reported failures on this GPU (Detect shows them too)
    # WSL2: the Linux driver's files inside WSL that the plan's remove-linux-driver step removes;
    # this GPU set fits only after that step (empty: no such step).
    linux_driver: tuple[str, ...] = ()

    @property
    def driver_step(self) -> bool:
        return self.driver is not None and self.driver.step

    @property
    def first_steps(self) -> list[str]:
        """The plan's steps this set fits only after (their ids), in the plan's order."""
        steps = ["windows-driver" if self.driver and self.driver.side == "windows" else "driver"]
        return (steps if self.driver_step else []) + (["remove-linux-driver"] if self.linux_driver else [])

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
            driver=self.driver.to_dict() if self.driver else None,
            reported=asdict(self.reported) if self.reported else None,
            linux_driver=list(self.linux_driver),
            first_steps=self.first_steps,
        )
        return d


@dataclass
class Recommendation:
    recommended: Candidate | None
    candidates: list[Candidate]
    unlock_hint: str | None = None  # "upgrade the driver to >= 525.60.13 to get TF 2.21 ..."
    notes: list[str] = field(default_factory=list)
    # Native Linux, where a driver upgrade is a real risk: the newer GPU set, with its driver
    # step, offered one key away beside the recommendation that runs on today's driver.
    upgrade: Candidate | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommended": self.recommended.set.to_dict() if self.recommended else None,
            "candidates": [c.to_dict() for c in self.candidates],
            "unlock_hint": self.unlock_hint,
            "notes": list(self.notes),
            "driver": self.recommended.driver.to_dict()
            if self.recommended and self.recommended.driver
            else None,
            "upgrade": self.upgrade.to_dict() if self.upgrade else None,
        }
