"""The resume journal: which step of which plan got how far, kept in the user state dir.

One JSON file holds the exact plan a run started with and one record per step.
It is rewritten whole after every change (wizard.safe.atomic: temp file, fsync,
rename), so a reboot, Ctrl-C or kill -9 leaves either the old or the new
version, never half of one, and a full or read-only disk leaves the old one and
no temp file. A file that cannot be used (not UTF-8, not JSON, nested too deep,
larger than MAX_BYTES, wrong shapes, a plan whose fingerprint does not match its
steps) is renamed aside with a one-line notice and the run starts fresh: the
steps' checks, not the journal, decide what is already done, so nothing is
lost. Passwords are never given to this module.

Real runs share one journal (run.json). A simulated run keeps one per demo or
saved profile (run-simulated-demo-<name>.json for a bundled demo, in every language;
run-simulated-<label>-<digest>.json for a saved one), so one demo never offers to
resume another's run; `journal_for(simulated, profile)` picks the file (and takes
over a demo's journal from before, kept under its translated label) and
`Journal.discard()` is "Start over". The lock that keeps runs one at a time
sits beside the journal (`Journal.lock_path`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wizard.paths import state_dir
from wizard.plan.model import RESTARTS, Plan
from wizard.safe.atomic import WriteError, read_bytes_limited, write_text_atomic
from wizard.text import t

if TYPE_CHECKING:
    from wizard.profile import MachineProfile

JOURNAL_SCHEMA = 1
STATUSES = ("pending", "running", "skipped", "satisfied", "done", "failed", "restart-pending")
MAX_BYTES = 8 << 20  # a plan with its records is tens of KiB; anything near this is damage


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
        finished = sum(1 for s in active if self.record(s.id).status in ("done", "satisfied", "skipped"))
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
    def from_dict(cls, d: Any) -> RunState:
        """Strict: any wrong shape or type raises (ValueError, TypeError, KeyError, ...)."""
        if not isinstance(d, dict) or d.get("schema") != JOURNAL_SCHEMA:
            raise ValueError("unknown journal schema")
        raw_plan = d["plan"]
        if not isinstance(raw_plan, dict):
            raise ValueError("the plan is not an object")
        plan = Plan.from_dict(raw_plan)
        if raw_plan.get("id") != plan.id:
            raise ValueError("the plan does not match its fingerprint")
        raw_steps = d["steps"]
        if not isinstance(raw_steps, dict):
            raise ValueError("the step records are not an object")
        steps = {_text(k, "step id"): _record(v) for k, v in raw_steps.items()}
        restart = _restart(d["restart"]) if d.get("restart") is not None else None
        return cls(
            plan=plan,
            steps=steps,
            restart=restart,
            started=_stamp(d.get("started", ""), "started"),
            updated=_stamp(d.get("updated", ""), "updated"),
            finished=d.get("finished", False) is True,
        )


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not text")
    return value


# What now() writes ("2026-12-01T08:30:46+0000"); anything else in a time field is damage, and is
# dropped rather than shown: a lone surrogate there cannot even be printed (UnicodeEncodeError).
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[+-][0-9]{4}|Z)?")


def _stamp(value: Any, what: str) -> str:
    text = _text(value, what)
    return text if _STAMP.fullmatch(text) else ""


def _record(v: Any) -> StepRecord:
    if not isinstance(v, dict):
        raise ValueError("a step record is not an object")
    rec = StepRecord(**v)  # unknown keys: TypeError
    if rec.status not in STATUSES:
        raise ValueError(f"unknown step status {rec.status!r}")
    rec.updated = _stamp(rec.updated, "updated")
    _text(rec.message, "message")  # shown through safe(), which makes a lone surrogate visible
    if rec.pid is not None and not (type(rec.pid) is int and 1 < rec.pid < 1 << 22):
        raise ValueError("a process id is not a process id")
    if rec.argv_sha is not None and not re.fullmatch(r"[0-9a-f]{64}", _text(rec.argv_sha, "argv_sha")):
        raise ValueError("a command fingerprint is damaged")
    return rec


def _restart(v: Any) -> Restart:
    if not isinstance(v, dict):
        raise ValueError("the restart record is not an object")
    restart = Restart(**v)
    if restart.kind not in RESTARTS:
        raise ValueError(f"unknown restart {restart.kind!r}")
    _text(restart.step, "restart step")
    _text(restart.boot_id, "boot id")
    return restart


def profile_key(profile: MachineProfile | None) -> str | None:
    """A short, stable, file-name-safe name for a (demo or saved) profile's own journal: a bundled
    demo's name (what --profile takes; the same in every language), else the saved profile's
    label and facts."""
    if profile is None:
        return None
    if profile.demo:
        return "demo-" + re.sub(r"[^A-Za-z0-9._-]+", "-", profile.demo, flags=re.ASCII)[:80]
    return _label_key(profile, profile.label)


def legacy_keys(profile: MachineProfile) -> list[str]:
    """The keys a bundled demo's journal had before it was keyed by the demo's name: by its label,
    which is worded per language (so English and Chinese runs of one demo were kept apart)."""
    from wizard.demo import demo_labels

    return [_label_key(profile, label) for label in demo_labels(profile.demo)] if profile.demo else []


def _label_key(profile: MachineProfile, label: str | None) -> str:
    facts = [
        label or "",
        profile.platform,
        profile.os.id,
        profile.os.version,
        profile.python.version,
        profile.driver.version if profile.driver else "",
        *(g.name for g in profile.gpus),
    ]
    digest = hashlib.sha256("\0".join(facts).encode("utf-8", "backslashreplace")).hexdigest()[:10]
    slug = re.sub(r"[^a-z0-9]+", "-", (label or profile.platform).lower(), flags=re.ASCII).strip("-")
    return f"{slug[:40]}-{digest}" if slug else digest


class Journal:
    """The journal file: `load()` what is there, `save()` after every change."""

    def __init__(self, path: Path | None = None, *, simulated: bool = False, key: str | None = None) -> None:
        # Demo runs get their own file per profile so they never disturb a real run waiting
        # for a reboot, nor each other.
        if path is None:
            name = (f"run-simulated-{key}.json" if key else "run-simulated.json") if simulated else "run.json"
            path = state_dir() / name
        self.path = path
        self.simulated = simulated
        self.notice: str | None = None  # set when a damaged file was set aside

    @property
    def lock_path(self) -> Path:
        """One run at a time per journal: real runs share state/run.lock."""
        return self.path.with_suffix(".lock")

    def load(self) -> RunState | None:
        try:
            raw = read_bytes_limited(self.path, MAX_BYTES)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:  # unreadable, a folder, TooLarge
            self._set_aside(str(exc))
            return None
        try:
            # RecursionError (deep nesting), UnicodeDecodeError, AttributeError, ...: any damage.
            return RunState.from_dict(json.loads(raw.decode("utf-8")))
        except Exception as exc:
            self._set_aside(f"{type(exc).__name__}: {exc}"[:200])
            return None

    def save(self, state: RunState) -> None:
        """WriteError (one line) when the state dir is read-only or full; the old file stays."""
        state.updated = now()
        # ensure_ascii: a lone surrogate from a hostile profile is written as an escape, not a crash.
        text = json.dumps(state.to_dict(), indent=1, ensure_ascii=True)
        # follow_links=False: a symlink planted at run.json is replaced, never written through.
        write_text_atomic(self.path, text + "\n", make_parents=True, mode=0o600, follow_links=False)

    def set_aside(self, reason: str) -> Path | None:
        """Rename the file out of the way (kept for a bug report); returns the new name."""
        if not self.path.exists() and not self.path.is_symlink():
            return None
        target = self.path.with_name(f"{self.path.stem}.{reason}-{time.strftime('%Y%m%d-%H%M%S')}.json")
        n = 1
        while target.exists():
            n += 1
            target = target.with_name(f"{self.path.stem}.{reason}-{time.strftime('%Y%m%d-%H%M%S')}-{n}.json")
        try:
            os.replace(self.path, target)
        except OSError as exc:
            raise WriteError(target, exc) from None
        return target

    def discard(self) -> None:
        """Start over: the next run begins fresh (a real run's file is kept aside, a demo's goes)."""
        try:
            if self.simulated:
                self.path.unlink(missing_ok=True)
            else:
                self.set_aside("discarded")
        except (OSError, WriteError):
            pass  # the next run sets aside what it cannot use anyway

    def _set_aside(self, why: str) -> None:
        from wizard.safe.display import safe

        try:
            moved = str(self.set_aside("corrupt"))
        except WriteError as exc:
            moved = exc.message
        self.notice = t("runner.journal_corrupt", path=str(self.path), moved=moved, why=safe(why, 200))


def journal_for(simulated: bool, profile: MachineProfile | None = None) -> Journal:
    """The journal a run of this kind uses: run.json, or the demo profile's own."""
    journal = Journal(simulated=simulated, key=profile_key(profile) if simulated else None)
    if simulated and profile is not None and profile.demo:
        _take_legacy(journal, profile)
    return journal


def _take_legacy(journal: Journal, profile: MachineProfile) -> None:
    """A demo journal kept under its old key (its label in English or Chinese) is renamed to the
    demo's own, once, so a run from before is still remembered (the newest where both exist; the
    other stays where it was, unread). Nothing happens when the new one exists or none is there."""
    if journal.path.exists() or journal.path.is_symlink():
        return
    found = []
    for key in legacy_keys(profile):
        old = journal.path.with_name(f"run-simulated-{key}.json")
        try:
            found.append((old.stat().st_mtime, str(old)))
        except OSError:
            continue
    if not found:
        return
    try:
        os.replace(max(found)[1], journal.path)
    except OSError:
        pass  # another process took it first, or the folder is read-only: the next start tries again


def demo_memory(profile: MachineProfile | None) -> tuple[RunState, int] | None:
    """What a demo's earlier simulated runs left, with how many steps they finished; None when
    nothing. A simulated run counts those steps as there already (a demo has no machine to check):
    the Welcome screen and `apply` say so and how to start over (`forget_demo`)."""
    journal = journal_for(True, profile)
    state = journal.load()
    if state is None:
        return None
    done = sum(1 for rec in state.steps.values() if rec.status in ("done", "satisfied"))
    return (state, done) if done else None


def memory_fields(state: RunState, done: int) -> dict[str, Any]:
    """The remembered run as the Welcome line and `apply` word it: when it started, steps done of all."""
    from wizard.safe.display import safe

    started = safe(state.started[:16].replace("T", " "), 40)
    return {"started": started, "done": done, "total": len(state.plan.active_steps)}


def forget_demo(profile: MachineProfile | None) -> None:
    """Start over on a fresh demo machine: the demo's journal goes (n on Welcome, `apply --new`).
    Raises LockBusy while another process runs this demo: its journal is left alone (`apply`
    holds the lock itself when it starts over)."""
    from wizard.safe.lock import LockBusy, holder

    journal = journal_for(True, profile)
    busy = holder(journal.lock_path)
    if busy is not None and busy != os.getpid():
        raise LockBusy(journal.lock_path, busy or None)
    journal.discard()


def unfinished(
    simulated: bool = False, profile: MachineProfile | None = None
) -> tuple[RunState | None, str | None]:
    """The run to offer to resume (None when there is none) and a notice for the user, if any."""
    journal = journal_for(simulated, profile)
    state = journal.load()
    if state is not None and state.finished:
        state = None
    return state, journal.notice
