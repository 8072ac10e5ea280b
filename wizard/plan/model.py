"""An install plan: the steps a person reads before anything runs.

A `Plan` is a list of `Step`s built from a `MachineProfile` and the resolver's
chosen `Candidate`. Every step says why it exists, where it runs (`user`,
`root` through sudo, or `windows-host` for a WSL2 user to run in PowerShell),
the exact commands as argument lists, and a `Check`: a command whose exit
status 0 proves the step's result is there. The runner runs the check before
(satisfied -> the step is skipped) and after (not satisfied -> the step failed);
the bash export does the same with `if check; then ...`.

Builders per platform and method live in `linux` and `conda` (the WSL2 host
steps in `wsl`) and share `common`; `build.build_plan` picks one.
Nothing here runs anything: a plan is data, JSON-serialisable so the journal
can keep the exact plan a run started with.

"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePath
from typing import Any

from wizard.choose.choice import Candidate, VersionSet
from wizard.text import t

WHERE = ("user", "root", "windows-host")
RESTARTS = ("reboot", "wsl-shutdown")
HANDOVER_STEP = "wsl-wizard"  # wizard.plan.wsl_setup: the wizard copied into Ubuntu and started there
PLAN_SCHEMA = 1

# ---- a step's status: one model for Plan, Run, `apply` (and --dry-run) and the script ----------
# done: this run (or the run it resumes) carried the step out and its check passed after.
# satisfied: its check passed before anything ran (already there); nothing was run.
# skipped: the user left it out. pending: not reached yet (or stopped before it finished).
PENDING, RUNNING, DONE, SATISFIED, SKIPPED, FAILED, RESTART_PENDING = (
    "pending",
    "running",
    "done",
    "satisfied",
    "skipped",
    "failed",
    "restart-pending",
)
STATUSES = (PENDING, RUNNING, DONE, SATISFIED, SKIPPED, FAILED, RESTART_PENDING)
FINISHED = frozenset({DONE, SATISFIED, SKIPPED})  # a resumed run goes on after these


def status_word(status: str) -> str:
    """The status in the user's words: "done", "already satisfied", "skipped by you", ..."""
    return t(f"story.status.{status.replace('-', '_')}")


def step_numbers(plan: Plan) -> dict[str, int]:
    """Each step's number as Plan (app, `plan`, `apply --dry-run`) and Run show it: counted from 1
    among the steps that will run; an optional step switched off has none (shown unnumbered)."""
    return {step.id: number for number, step in enumerate(plan.active_steps, 1)}


def first_unfinished(plan: Plan, statuses: dict[str, str]) -> tuple[int, Step] | None:
    """(its number, counted from 1 among the active steps, and the step) a resume starts at."""
    for number, step in enumerate(plan.active_steps, 1):
        if statuses.get(step.id, PENDING) not in FINISHED:
            return number, step
    return None


class PlanError(ValueError):
    """No plan can be built for this combination; the message is one line for the user."""


@dataclass(frozen=True)
class Check:
    """A command that exits 0 when the step's result is in place. Never changes anything."""

    argv: tuple[str, ...]
    proves: str  # what a passing check means, for people: "nvidia-smi reports driver >= 525.60.13"

    def shell(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True)
class Step:
    id: str
    title: str
    why: str
    where: str  # one of WHERE
    commands: tuple[tuple[str, ...], ...]
    check: Check
    restart: str | None = None  # one of RESTARTS: needed after the commands, before the check can pass
    download_mib: int = 0  # estimated download, for the plan view's total
    optional: bool = False
    enabled: bool = True  # the app toggles optional steps off and on
    confirm: str | None = None  # destructive: this question must be answered yes first
    manual: str | None = None  # what to do by hand when no command can do it (a download page)
    # The commands the manual part names, each whole: `c` copies them; never run by the runner.
    manual_copy: tuple[str, ...] = ()
    check_before: bool = True  # False: always run (the verify step proves by running)
    # The profile already shows the check passing (the Windows driver is new enough). Only a
    # simulated run uses it, since it has no machine to run the check on; real runs check.
    presumed_done: bool = False
    # The shell a person types the commands in: "powershell" for every step of a native
    # Windows plan (its paths and quoting are PowerShell's), "posix" elsewhere.
    console: str = "posix"
    # Its commands only read the environment (the verify step imports TensorFlow and runs it): the
    # runner may start them while the step before is still proving its result (the locked install's
    # RECORD digests, seconds on one core while TensorFlow's import keeps another busy). This step
    # then counts only once that proof has passed; the journal marks neither done before it.
    alongside_previous_check: bool = False
    # Before the commands only, in place of `check`: a cheaper proof that the step's result still
    # holds (the verify's kept proof, assets/programs/env_proof.py), so that a re-apply with nothing
    # changed does not run the step again. After the commands, `check` (or the last command) proves.
    recheck: Check | None = None

    @property
    def before_check(self) -> Check:
        """The check the runner (and the script) runs before the commands."""
        return self.recheck or self.check

    @property
    def needs_root(self) -> bool:
        return self.where == "root"

    @property
    def restart_only(self) -> bool:
        """Nothing to run or do by hand but the restart itself (a driver installed and not yet
        loaded): the runner asks for the restart at once and the check proves it afterwards."""
        nothing_else = not self.commands and not self.manual and self.where != "windows-host"
        return nothing_else and self.restart is not None

    @property
    def check_is_last_command(self) -> bool:
        """The last command already is the proof, so a success need not run it twice."""
        return bool(self.commands) and self.commands[-1] == self.check.argv

    @property
    def machine_key(self) -> tuple[object, ...]:
        """What the step does to the machine, without its words (title, why, what the check proves
        are worded per language): the same step in an English and a Chinese plan has the same key.
        A simulated run carries a finished step over to a plan of other words by it."""
        key = (self.id, self.where, self.commands, self.check.argv, self.restart, self.console)
        return key if self.recheck is None else (*key, self.recheck.argv)

    @property
    def in_powershell(self) -> bool:
        """Its commands (and those it names to type by hand) are typed in PowerShell."""
        return self.where == "windows-host" or self.console == "powershell"

    def command_lines(self) -> list[str]:
        """Commands as a person would type them (PowerShell quoting for Windows)."""
        if self.in_powershell:
            return [powershell_join(c) for c in self.commands]
        prefix = ("sudo",) if self.where == "root" else ()
        return [shlex.join(prefix + c) for c in self.commands]

    @property
    def check_console(self) -> str:
        """The shell the check runs in: PowerShell on a native Windows plan (its checks run in the
        Windows Python), bash elsewhere (a WSL2 plan's Windows steps are checked inside WSL)."""
        return "powershell" if self.console == "powershell" else "posix"

    def copy_lines(self) -> list[str]:
        """What `c` copies: its commands, or for a step done by hand the commands its text names."""
        return self.command_lines() or list(self.manual_copy)

    def check_line(self) -> str:
        """The check the runner runs first (before_check), whole, as its shell reads it: the one
        line the Plan screen, `plan`, `plan --json` and `apply --dry-run` show and copy."""
        argv = self.before_check.argv
        return powershell_join(argv) if self.check_console == "powershell" else shlex.join(argv)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["commands"] = [list(c) for c in self.commands]
        d["check"] = {"argv": list(self.check.argv), "proves": self.check.proves}
        d["command_lines"] = self.command_lines()
        if not self.manual_copy:
            del d["manual_copy"]  # likewise: a plan with nothing to copy by hand keeps its fingerprint
        else:
            d["manual_copy"] = list(self.manual_copy)
        if self.recheck is None:
            del d["recheck"]  # the fingerprint of a plan without one stays what it was
        else:
            d["recheck"] = {"argv": list(self.recheck.argv), "proves": self.recheck.proves}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Step:
        check = d["check"]
        return cls(
            id=str(d["id"]),
            title=str(d["title"]),
            why=str(d["why"]),
            where=str(d["where"]),
            commands=tuple(tuple(str(a) for a in c) for c in d["commands"]),
            check=Check(tuple(str(a) for a in check["argv"]), str(check["proves"])),
            restart=d.get("restart"),
            download_mib=int(d.get("download_mib", 0)),
            optional=bool(d.get("optional", False)),
            enabled=bool(d.get("enabled", True)),
            confirm=d.get("confirm"),
            manual=d.get("manual"),
            manual_copy=tuple(str(c) for c in d.get("manual_copy", ())),
            check_before=bool(d.get("check_before", True)),
            presumed_done=bool(d.get("presumed_done", False)),
            console=str(d.get("console", "posix")),
            alongside_previous_check=bool(d.get("alongside_previous_check", False)),
            recheck=_check_from(d.get("recheck")),
        )


def _check_from(d: object) -> Check | None:
    if not isinstance(d, dict) or not isinstance(d.get("argv"), list):
        return None
    return Check(tuple(str(a) for a in d["argv"]), str(d.get("proves", "")))


@dataclass(frozen=True)
class Plan:
    set: VersionSet
    platform: str
    venv: str  # the environment's directory (venv or conda prefix)
    python: str  # the environment's interpreter, an absolute path once the plan has run
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    simulated: bool = False  # built from a saved/demo profile: the runner only pretends
    label: str = ""  # the machine, for headers: "Ubuntu 24.04, NVIDIA GeForce RTX 3060"

    @property
    def active_steps(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.enabled)

    @property
    def hands_over(self) -> bool:
        """Native Windows: the plan only sets WSL2 up and hands over to the wizard inside Ubuntu
        (its wsl-wizard step); TensorFlow is not installed here, so nothing here can be monitored
        or benchmarked, and the finish says what to do next inside Ubuntu instead."""
        return any(s.id == HANDOVER_STEP for s in self.active_steps)

    @property
    def download_mib(self) -> int:
        return sum(s.download_mib for s in self.active_steps)

    def step(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    def with_enabled(self, step_id: str, enabled: bool) -> Plan:
        """The same plan with an optional step switched on or off."""
        steps = []
        for s in self.steps:
            if s.id == step_id:
                if not s.optional and not enabled:
                    raise PlanError(f"step {step_id} is not optional")
                s = replace(s, enabled=enabled)
            steps.append(s)
        return replace(self, steps=tuple(steps))

    @property
    def id(self) -> str:
        """Stable fingerprint of everything that decides what runs: the steps that run and their
        commands, and the set, platform, environment, interpreter, label, notes and whether it is
        simulated (the journal matches on it; an edited `simulated` must not walk a real plan as
        a demo). Derived fields (download_mib) and switched-off steps are left out."""
        whole = {**self._fields(), "active_steps": [s.to_dict() for s in self.active_steps]}
        data = json.dumps(whole, sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def _fields(self) -> dict[str, Any]:
        return {
            "schema": PLAN_SCHEMA,
            "set": self.set.to_dict(),
            "platform": self.platform,
            "venv": self.venv,
            "python": self.python,
            "label": self.label,
            "simulated": self.simulated,
            "notes": list(self.notes),
        }

    def to_dict(self) -> dict[str, Any]:
        fields = self._fields()
        return {
            "schema": fields.pop("schema"),
            "id": self.id,
            **fields,
            "download_mib": self.download_mib,
            "steps": [s.to_dict() for s in self.steps],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Plan:
        if d.get("schema") != PLAN_SCHEMA:
            raise PlanError(t("plan.error.schema", schema=str(d.get("schema"))))
        return cls(
            set=VersionSet(**d["set"]),
            platform=str(d["platform"]),
            venv=str(d["venv"]),
            python=str(d["python"]),
            steps=tuple(Step.from_dict(s) for s in d["steps"]),
            notes=tuple(str(n) for n in d.get("notes", [])),
            simulated=bool(d.get("simulated", False)),
            label=str(d.get("label", "")),
        )


@dataclass
class PlanInputs:
    """Everything a builder needs besides the profile; paths are absolute."""

    candidate: Candidate
    venv: PurePath  # a PureWindowsPath for a Windows machine's plan made on another system
    home: PurePath
    extra_notes: list[str] = field(default_factory=list)


def powershell_join(argv: tuple[str, ...] | list[str]) -> str:
    """PowerShell text for an argument list: single quotes, '' inside, where needed.

    `$HOME\\...` stays bare on purpose so PowerShell expands it; nothing detected on
    the machine is ever put in a windows-host command, only constants and numbers.
    """
    out = []
    for arg in argv:
        if arg and all(ch.isalnum() or ch in "-_.:\\/=$,+" for ch in arg):
            out.append(arg)
        else:
            out.append("'" + arg.replace("'", "''") + "'")
    return " ".join(out)
