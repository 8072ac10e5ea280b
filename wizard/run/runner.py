"""Runs a Plan step by step, safely, resumably; the same engine for the CLI and the app.

API (for `tf-gpu-wizard apply` and the Textual app's Run screen)
------------------------------------------------------------------
    runner = Runner(plan, events, simulate=plan.simulated, assume_yes=False)
    result = runner.run()          # blocking: call it in a worker thread in the app
    runner.cancel()                # from any thread: stops the current command (SIGTERM,
                                   # then SIGKILL) and returns RunResult(outcome="cancelled")

`events` is a `RunnerEvents` (subclass it; every method has a safe default). All
methods are called from the thread that called `run()`; the app forwards them with
`app.call_from_thread`. Blocking ones return the user's answer:

    step_started(step, index, total)           status is now "running"
    output_line(step, line, progress)          one decoded line; progress=True for a
                                               `\\r` progress update that replaces the last one
    step_finished(step, result: StepResult)    result.status: skipped | done | failed |
                                               restart-pending | pending (cancelled)
    needs_password(step, attempt) -> str|None  sudo password, asked once per run; None = cancel
    confirm(step, question) -> bool            before a destructive step, and before each root
                                               step unless assume_yes / confirm_root=False
    wait_for_windows_host(step, text) -> bool  show `text` (PowerShell commands or what to do
                                               by hand) with "I ran it"; True = run the check now
    needs_restart(step, kind, message)         "reboot" or "wsl-shutdown"; the run then stops
                                               with outcome "restart" and resumes on the next run

`run()` returns a `RunResult`: outcome finished | failed | restart | cancelled | locked,
the failed step, a message saying what failed and what to do, the log path. "locked":
another process is running a plan (one run at a time); nothing was touched. Statuses
of every step are in `runner.statuses`, the plan model's (wizard.plan.model.STATUSES):
pending | running | done | satisfied (its check passed before: nothing ran) | skipped (the
user left it out) | failed | restart-pending. `preview()` says what a run would do now.
To retry after a failure call `run()` again (on a new Runner or
the same one); `run(skip={"step-id"})` leaves out steps the user chose to skip
(only offer that for optional steps or when `Step.optional`).

Behaviour
---------
- Each step's check runs first: satisfied -> "satisfied" (or "done" when the run this one
  resumes finished it). After the
  commands the check runs again: not satisfied -> the step failed, output kept.
- A check that does not answer within `check_timeout_s` (CHECK_TIMEOUT_S) is stopped, with what
  it started (its own process group), and proves nothing either way, and says so: before the
  commands, the step runs (its commands are safe to run again and the check after them proves
  the result); after them, the step fails as "not proven in time", never as "did not pass".
- A step that needs a reboot / `wsl --shutdown` records the boot id in the journal;
  the next run, in a new boot, runs its check and goes on.
- Output (stdout and stderr merged) is decoded as UTF-8 with replacement, ANSI
  escapes dropped, `\\r` progress folded; it goes to the callback and to a log
  file in wizard.paths.log_dir(). The sudo password never does (see wizard.sudo).
- The journal (wizard.run.journal) is saved after every change: kill -9, Ctrl-C or a
  reboot resume where it stopped; re-running a finished plan only runs checks.
- One run at a time: `run()` holds an flock beside the journal (wizard.safe.lock); a
  second run, in this or another process, returns outcome "locked" naming the pid
  and touches nothing (not the journal, not the first run's commands).
- A command left running by a killed run (it has its own session) is stopped before
  anything else: SIGTERM, up to LEFTOVER_GRACE_S to finish, then SIGKILL. Its step is
  then checked like any other, never presumed done; one that cannot be stopped (it
  belongs to root) stops the run with a message.
- A read-only or full state dir stops the run with one line (wizard.safe.atomic.WriteError),
  never a traceback; the journal on disk stays as it was.
- simulate=True (demo profiles): nothing is executed; commands are shown and the
  output is made up, every line prefixed "SIMULATED".
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NoReturn

from wizard.paths import create_new, ensure, log_dir
from wizard.plan import model
from wizard.plan.model import Plan, Step
from wizard.profile import MachineProfile
from wizard.run import sim as runner_sim
from wizard.run.check_words import worded
from wizard.run.journal import Journal, Restart, RunState, StepRecord, journal_for
from wizard.run.progress import InstallProgress, install_progress, wait_readable
from wizard.run.sudo import SudoSession
from wizard.safe.atomic import WriteError
from wizard.safe.lock import LockBusy, RunLock
from wizard.text import t

# The statuses are the plan model's (one model for Plan, Run, apply and the script).
PENDING, RUNNING, SATISFIED, SKIPPED, DONE, FAILED = (
    model.PENDING,
    model.RUNNING,
    model.SATISFIED,
    model.SKIPPED,
    model.DONE,
    model.FAILED,
)
RESTART_PENDING = model.RESTART_PENDING
CHECK_TIMEOUT_S = 300.0
LEFTOVER_GRACE_S = 15.0  # pip finishing the file it unpacks, apt releasing its lock
INTERRUPT_GRACE_S = 5.0  # Ctrl-C: a command gets this long to stop on SIGTERM before SIGKILL
SIM = "SIMULATED"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


# A worded line under the check's JSON event in the log (the raw event stays above it, as evidence).
LOG_WORDED = "  = "


@dataclass
class StepResult:
    status: str
    message: str = ""
    returncode: int | None = None
    output: list[str] = field(default_factory=list)  # the last lines, kept for a failed step


@dataclass
class RunResult:
    outcome: str  # finished | failed | restart | cancelled
    message: str = ""
    failed_step: str | None = None
    log_path: Path | None = None
    statuses: dict[str, str] = field(default_factory=dict)


class RunnerEvents:
    """Callbacks; the defaults print nothing and refuse everything that needs a person."""

    def step_started(self, step: Step, index: int, total: int) -> None:
        pass

    def output_line(self, step: Step, line: str, progress: bool = False) -> None:
        pass

    def step_finished(self, step: Step, result: StepResult) -> None:
        pass

    def needs_password(self, step: Step, attempt: int) -> str | None:
        return None

    def confirm(self, step: Step, question: str) -> bool:
        return False

    def wait_for_windows_host(self, step: Step, text: str) -> bool:
        return False

    def needs_restart(self, step: Step, kind: str, message: str) -> None:
        pass


class LineSplitter:
    """Bytes in, lines out: UTF-8 with replacement, ANSI dropped, `\\r` progress folded.

    "50%\\r60%\\r100%\\n" gives progress updates "50%", "60%" and the final line "100%";
    "\\r\\n" is a plain line end.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buf = ""

    def feed(self, data: bytes) -> list[tuple[str, bool]]:
        self._buf += self._decoder.decode(data)
        return self._drain(final=False)

    def close(self) -> list[tuple[str, bool]]:
        self._buf += self._decoder.decode(b"", final=True)
        return self._drain(final=True)

    def _drain(self, final: bool) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        while True:
            m = re.search(r"\r\n|\n|\r", self._buf)
            if m is None:
                break
            if m.group() == "\r" and m.end() == len(self._buf) and not final:
                break  # a lone \r at the end may be the first half of \r\n
            piece, self._buf = self._buf[: m.start()], self._buf[m.end() :]
            clean = _ANSI.sub("", piece).rstrip()
            if m.group() == "\r":
                if clean:
                    out.append((clean, True))
            else:
                out.append((clean, False))
        if final and self._buf:
            out.append((_ANSI.sub("", self._buf).rstrip(), False))
            self._buf = ""
        return out


def current_boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


class _Stop(Exception):
    """Ends the run early; carries the outcome."""

    def __init__(self, outcome: str, message: str, step: Step | None = None) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message
        self.step = step


class Runner:
    def __init__(
        self,
        plan: Plan,
        events: RunnerEvents | None = None,
        *,
        journal: Journal | None = None,
        simulate: bool | None = None,
        assume_yes: bool = False,
        confirm_root: bool = True,
        sudo: SudoSession | None = None,
        profile: MachineProfile | None = None,
        env: Mapping[str, str] | None = None,
        log_path: Path | None = None,
        boot_id: Callable[[], str] = current_boot_id,
        sim_delay: float = 0.0,
        start_command: str | None = None,
    ) -> None:
        self.plan = plan
        self.start_command = start_command  # how to come back after a restart (a demo keeps --profile)
        self.events = events or RunnerEvents()
        self.simulate = plan.simulated if simulate is None else simulate
        self.journal = journal or journal_for(self.simulate, profile)
        self.assume_yes = assume_yes
        self.confirm_root = confirm_root
        self.sudo = sudo or SudoSession()
        self.profile = profile
        self.env = dict(env) if env is not None else None
        self.log_path = log_path
        self.boot_id = boot_id
        self.sim_delay = sim_delay
        self.statuses: dict[str, str] = {s.id: PENDING for s in plan.active_steps}
        self.notice: str | None = None  # e.g. a corrupt journal was set aside
        self._cancel = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._log: IO[str] | None = None
        self._state: RunState | None = None
        self._tail: list[str] = []
        # A step's after-check still running while the next step's commands run (see _pending_start).
        self._pending: tuple[Step, subprocess.Popen[bytes]] | None = None
        self._password_asked = False
        self._log_broken = False
        self.leftover_grace_s = LEFTOVER_GRACE_S
        self.check_timeout_s = CHECK_TIMEOUT_S
        self._check_timed_out = False  # the last check did not answer in time (not a "no")

    # ---- public -------------------------------------------------------------
    def cancel(self) -> None:
        """Stop as soon as possible; safe from any thread (the app's quit / Ctrl-C)."""
        self._cancel.set()
        with self._lock:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            _kill_group(proc, signal.SIGTERM)
            timer = threading.Timer(5.0, _kill_group, (proc, signal.SIGKILL))
            timer.daemon = True
            timer.start()

    def check(self, step: Step) -> bool:
        """Run one step's check now (the dry run's "already done?"); changes nothing."""
        return self._check(step, before=True)

    def preview(self, *, fresh: bool = False) -> dict[str, str]:
        """What run() would make of each active step now, running nothing but the checks:
        done (finished by the run this one resumes, and still there), satisfied (already
        there), pending (it would run). The dry run and the Plan screen show this.
        `fresh`: as a run that starts over would (`apply --new`): nothing remembered counts."""
        state = None if fresh else self.journal.load()
        carried: dict[str, str] = {}
        if state is not None and (state.finished or state.plan.id != self.plan.id):
            carried = self._carried(state) if self.simulate else {}  # as _open_state starts anew
            state = None
        out: dict[str, str] = {}
        for step in self.plan.active_steps:
            before = state.record(step.id).status if state is not None else carried.get(step.id, PENDING)
            if self.simulate:  # as _check says for a simulated run; a step that always runs runs
                there = step.check_before and (step.presumed_done or before in (DONE, SATISFIED))
            else:
                there = step.check_before and self._check(step, before=True)
            out[step.id] = (DONE if before == DONE else SATISFIED) if there else PENDING
        return out

    def _carried(self, previous: RunState) -> dict[str, str]:
        """A demo machine keeps what its last simulated run finished, for a new run of this plan
        (that run finished, or was of another plan or in another language): each step the last run
        finished, whose commands and check are this plan's step's (Step.machine_key), counts as
        there already. The same plan's unfinished run is resumed instead (its records as they are)."""
        before = {s.id: s.machine_key for s in previous.plan.steps}
        return {
            step.id: SATISFIED
            for step in self.plan.active_steps
            if before.get(step.id) == step.machine_key
            and step.id in previous.steps
            and previous.steps[step.id].status in (DONE, SATISFIED)
        }

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self, skip: Iterable[str] = ()) -> RunResult:
        self._cancel.clear()
        lock = RunLock(self.journal.lock_path)
        try:
            lock.acquire()
        except LockBusy as busy:
            return RunResult("locked", str(busy), None, None, dict(self.statuses))
        except WriteError as exc:
            return RunResult("failed", str(exc), None, None, dict(self.statuses))
        try:
            return self._run_locked(set(skip))
        except WriteError as exc:  # the state dir is read-only or full: one line, nothing half-written
            self._write_log(str(exc))
            self._close_log()
            return self._result("failed", str(exc))
        finally:
            lock.release()

    def _run_locked(self, skip: set[str]) -> RunResult:
        try:
            state = self._open_state()
        except _Stop as stop:
            return self._result(stop.outcome, stop.message, stop.step)
        self._open_log()
        steps = self.plan.active_steps
        try:
            for index, step in enumerate(steps):
                if self.cancelled:
                    raise _Stop("cancelled", t("runner.cancelled"))
                if step.id in skip:
                    self._finish(step, StepResult(SKIPPED, t("runner.skipped_by_user")))
                    continue
                after = steps[index + 1] if index + 1 < len(steps) else None
                following = after if after is not None and after.id not in skip else None
                self._run_step(step, index, len(steps), state, following)
            self._pending_settle(None)
            state.finished = True
            self._save()
            self._write_log(t("runner.finished"))
            return self._result("finished", t("runner.finished"))
        except _Stop as stop:
            self._write_log(stop.message)
            return self._result(stop.outcome, stop.message, stop.step)
        finally:
            self._pending_drop()  # an exception on the way: no check is left running on its own
            self._close_log()

    # ---- one step -------------------------------------------------------------
    def _run_step(
        self, step: Step, index: int, total: int, state: RunState, following: Step | None = None
    ) -> None:
        self.statuses[step.id] = RUNNING
        self.events.step_started(step, index, total)
        self._tail = []
        self._write_log(f"\n== {index + 1}/{total} {step.id}: {step.title} [{step.where}]")
        if state.restart is not None and state.restart.step == step.id:
            self._after_restart(step, state.restart)
            return
        finished_before = state.record(step.id).status == DONE  # by the run this one resumes
        if step.check_before and self._check(step, before=True):
            if finished_before:
                proves = step.before_check.proves
                self._finish(step, StepResult(DONE, t("story.status.done_before", proves=proves)))
            else:
                self._finish(
                    step,
                    StepResult(
                        SATISFIED, t("story.status.satisfied_because", proves=step.before_check.proves)
                    ),
                )
            return
        if step.confirm and not self.assume_yes and not self.events.confirm(step, step.confirm):
            self._stop_pending(step, t("runner.declined", title=step.title))
        self._record(step.id, RUNNING)
        if step.restart_only:
            pass  # the restart is the whole step: asked for below, proven by the check after it
        elif step.where == "windows-host" or not step.commands:
            if not self.events.wait_for_windows_host(step, self.manual_text(step)):
                self._stop_pending(step, t("runner.cancelled"))
        else:
            if step.needs_root:
                self._prepare_root(step)
            for argv in step.commands:
                rc = self._execute(step, argv)
                if self.cancelled:
                    self._stop_pending(step, t("runner.cancelled"))
                if rc != 0:
                    self._fail(step, t("runner.command_failed", command=self._shown(step, argv), rc=rc), rc)
        if step.restart:
            self._ask_restart(step, state)
        if step.check_is_last_command:
            self._finish(step, StepResult(DONE, t("runner.done", proves=step.check.proves)))
            return
        if self._overlaps(step, following) and self._pending_start(step):
            return  # proven while the next step runs; finished (or failed) before that one counts
        if self._check(step, before=False):
            self._finish(step, StepResult(DONE, t("runner.done", proves=step.check.proves)))
            return
        self._fail(step, self._not_proven(step, "runner.check_failed"), None)

    # ---- a step's after-check alongside the next step's commands -------------------
    def _overlaps(self, step: Step, following: Step | None) -> bool:
        """The next step only reads what this one made (Step.alongside_previous_check), both run
        here as the user, and nothing (a restart, a simulation) orders them otherwise."""
        return (
            following is not None
            and following.alongside_previous_check
            and bool(following.commands)
            and following.where == "user"
            and step.where in ("user", "root")
            and not step.restart
            and not self.simulate
        )

    def _pending_start(self, step: Step) -> bool:
        try:
            proc = subprocess.Popen(
                list(step.check.argv),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,
            )
        except (OSError, ValueError):
            return False  # the plain check that follows says why, as it always has
        self._write_log(f"check after: started alongside the next step: {step.check.shell()}")
        self._pending = (step, proc)
        # In the journal, so that a run killed meanwhile has it stopped by the next (_stop_leftovers).
        self._note_process(step, proc.pid, step.check.argv)
        return True

    def _pending_settle(self, current: Step | None) -> None:
        """Before `current` (the step that ran alongside) is recorded: wait for the check of the
        step before it. Passed: that step is done first. Failed: it is the run's failure, and
        `current` does not count (pending, to be run again after the repair)."""
        if self._pending is None or self._pending[0] is current:
            return
        step, proc = self._pending
        self._pending = None
        try:
            out, _ = proc.communicate(timeout=self.check_timeout_s)
        except subprocess.TimeoutExpired:
            stop_group(proc.pid, INTERRUPT_GRACE_S)
            out, rc = b"", None
        else:
            rc = proc.returncode
        self._note_process(step, None, [])
        ok = self._check_outcome(step, before=False, rc=rc, output=out)
        if ok:
            self._finish(step, StepResult(DONE, t("runner.done", proves=step.check.proves)))
            return
        if current is not None:
            message = t("runner.not_counted", title=step.title)
            self.statuses[current.id] = PENDING
            self._record(current.id, PENDING, message)
            self.events.step_finished(current, StepResult(PENDING, message))
        self._tail = [line for line in out.decode("utf-8", "replace").splitlines()[-20:]]
        self._fail(step, self._not_proven(step, "runner.check_failed"), None)

    def _pending_drop(self) -> None:
        """A run that stops (cancel, an error): the check still running is stopped; its step stays
        unfinished in the journal, so the next run checks it again."""
        if self._pending is None:
            return
        step, proc = self._pending
        self._pending = None
        if proc.poll() is None:
            stop_group(proc.pid, INTERRUPT_GRACE_S)
        try:
            proc.communicate(timeout=INTERRUPT_GRACE_S)
        except (subprocess.TimeoutExpired, ValueError, OSError):
            pass
        try:
            self._note_process(step, None, [])
        except WriteError:
            pass  # already stopping: the journal's own error is the one reported

    def _after_restart(self, step: Step, restart: Restart) -> None:
        assert self._state is not None
        if not self.simulate and restart.boot_id == self.boot_id():
            self.events.needs_restart(step, restart.kind, self._restart_message(restart.kind))
            self.statuses[step.id] = RESTART_PENDING
            raise _Stop("restart", self._restart_message(restart.kind), step)
        self._state.restart = None
        if self._check(step, before=False):
            self._finish(step, StepResult(DONE, t("runner.done", proves=step.check.proves)))
            return
        self._fail(step, self._not_proven(step, "runner.check_failed_after_restart"), None)

    def _not_proven(self, step: Step, key: str) -> str:
        """Why the check after the commands did not prove the step: it said no (`key`), or it
        did not answer in time."""
        if self._check_timed_out:
            seconds = f"{self.check_timeout_s:.0f}"
            return t("runner.check_timeout.after", seconds=seconds, proves=step.check.proves)
        return t(key, proves=step.check.proves)

    def _ask_restart(self, step: Step, state: RunState) -> NoReturn:
        assert step.restart is not None
        state.restart = Restart(step=step.id, kind=step.restart, boot_id=self.boot_id())
        self.statuses[step.id] = RESTART_PENDING
        state.record(step.id).status = RESTART_PENDING
        self._save()
        message = self._restart_message(step.restart)
        self.events.step_finished(step, StepResult(RESTART_PENDING, message))
        self.events.needs_restart(step, step.restart, message)
        raise _Stop("restart", message, step)

    def _restart_message(self, kind: str) -> str:
        key = "runner.restart_wsl" if kind == "wsl-shutdown" else "runner.restart_reboot"
        # The launcher or full path (PATH may not have it), with --profile where the run needs it.
        from wizard.plan.wsl_setup import start_line

        return t(key, command=self.start_command or start_line(self.profile))

    def manual_text(self, step: Step) -> str:
        """What the person does for a windows-host or by-hand step, ready to show or print."""
        lines = []
        if step.manual:
            lines.append(step.manual)
        if step.commands:
            head = "runner.windows_commands" if step.where == "windows-host" else "runner.manual_commands"
            lines.append(t(head))
            lines += ["    " + line for line in step.command_lines()]
        lines.append(t("runner.then_check", proves=step.check.proves))
        return "\n".join(lines)

    # ---- sudo ------------------------------------------------------------------
    def _prepare_root(self, step: Step) -> None:
        if (
            self.confirm_root
            and not self.assume_yes
            and not self.events.confirm(
                step, t("runner.confirm_root", title=step.title, commands="\n".join(step.command_lines()))
            )
        ):
            self._stop_pending(step, t("runner.declined", title=step.title))
        if self.simulate:
            if not self._password_asked:
                if self.events.needs_password(step, 1) is None:
                    # Not given: a retry asks again, as sudo would on a real run.
                    self._stop_pending(step, t("runner.cancelled"))
                self._password_asked = True
            return
        if self.sudo.ready:
            return
        for attempt in (1, 2, 3):
            password = self.events.needs_password(step, attempt)
            if password is None:
                self._stop_pending(step, t("runner.cancelled"))
            if self.sudo.try_password(password):
                return
        self._fail(step, t("runner.sudo_failed"), None)

    # ---- processes ---------------------------------------------------------------
    def _shown(self, step: Step, argv: Sequence[str]) -> str:
        return step.command_lines()[step.commands.index(tuple(argv))] if tuple(argv) in step.commands else ""

    def _execute(self, step: Step, argv: Sequence[str]) -> int:
        shown = self._shown(step, argv)
        if self.simulate:
            sim = t("app.simulated_short")  # the user's word for it; the log keeps SIM
            self._emit(step, f"{sim} $ {shown}", False)
            for line in runner_sim.output_for(argv, self.profile):
                if self.sim_delay:
                    time.sleep(self.sim_delay)
                self._emit(step, f"{sim} {line}", False)
            return runner_sim.exit_status(argv)  # 0, but for the demo's fault switch
        self._emit(step, f"$ {shown}", False)
        wrapped = self.sudo.wrap(argv) if step.needs_root else None
        real_argv = wrapped.argv if wrapped else list(argv)
        stdin_data = wrapped.stdin if wrapped else None
        try:
            proc = subprocess.Popen(
                real_argv,
                stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,  # its own group: cancel() stops it and its children
            )
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in an argument
            self._emit(step, t("runner.cannot_start", command=real_argv[0], error=str(exc)), False)
            return 127
        with self._lock:
            self._proc = proc
        try:
            self._note_process(step, proc.pid, real_argv)
            if stdin_data is not None and proc.stdin is not None:
                try:
                    proc.stdin.write(stdin_data)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            self._pump(step, proc, install_progress(argv, self.plan.venv))
            return proc.wait()
        except BaseException:
            # Ctrl-C in the CLI (or the journal could not be saved): do not leave the command
            # running on its own, and give it a moment to finish the file it writes.
            stop_group(proc.pid, INTERRUPT_GRACE_S)
            raise
        finally:
            with self._lock:
                self._proc = None
            self._note_process(step, None, [])

    def _pump(self, step: Step, proc: subprocess.Popen[bytes], watch: InstallProgress | None = None) -> None:
        assert proc.stdout is not None
        splitter = LineSplitter()
        last_progress = 0.0
        fd = proc.stdout.fileno()
        while True:
            # A silent install gets a heartbeat line (wizard.run.progress) every few seconds.
            if watch is not None and not wait_readable(fd, 1.0):
                if watch.due():
                    self._emit(step, watch.heartbeat(), False)
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            for line, progress in splitter.feed(chunk):
                if watch is not None:
                    watch.saw(line)
                if progress:
                    now = time.monotonic()
                    if now - last_progress < 0.2:
                        continue
                    last_progress = now
                self._emit(step, line, progress)
        for line, progress in splitter.close():
            self._emit(step, line, progress)
        proc.stdout.close()

    def _check(self, step: Step, *, before: bool) -> bool:
        if self.simulate:
            # The simulated machine is what the journal says: a step it finished stays done
            # (so a resumed demo does not redo it); the checks after a step pass.
            self._write_log(f"{SIM} check ({'before' if before else 'after'}): {step.check.shell()}")
            if not before:
                return True
            if step.presumed_done:
                return True
            return self._state is not None and self._state.record(step.id).status in (DONE, SATISFIED)
        check = step.before_check if before else step.check
        self._check_timed_out = False
        try:
            # Its own session: on a timeout the check and what it started (lockfile.py runs
            # installed_ok.py) are stopped together, not left hashing beside the step's commands.
            proc = subprocess.Popen(
                list(check.argv),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            self._write_log(f"check {'before' if before else 'after'}: cannot run ({exc})")
            return False
        try:
            out, err = proc.communicate(timeout=self.check_timeout_s)
        except subprocess.TimeoutExpired:
            stop_group(proc.pid, INTERRUPT_GRACE_S)
            try:
                out, err = proc.communicate(timeout=INTERRUPT_GRACE_S)
            except subprocess.TimeoutExpired:  # a child that left the group holds the pipe
                out, err = b"", b""
            return self._check_outcome(step, before=before, rc=None, output=out + err)
        except BaseException:
            stop_group(proc.pid, INTERRUPT_GRACE_S)  # Ctrl-C: no check left running on its own
            raise
        return self._check_outcome(step, before=before, rc=proc.returncode, output=out + err)

    def _check_outcome(self, step: Step, *, before: bool, rc: int | None, output: bytes) -> bool:
        when = "before" if before else "after"
        self._check_timed_out = rc is None
        if rc is None:
            # No answer is not a "no": nothing is known to have changed, and nothing is proven.
            seconds = f"{self.check_timeout_s:.0f}"
            self._write_log(f"check {when}: no answer (timed out after {seconds} s)")
            if before:
                self._emit(step, t("runner.check_timeout.before", seconds=seconds), False)
            return False
        ok = rc == 0
        check = step.before_check if before else step.check
        self._write_log(
            f"check {when}: {'satisfied' if ok else 'not satisfied'} (exit {rc}): {check.shell()}"
        )
        if not before and not ok:
            for line in output.decode("utf-8", "replace").splitlines()[-20:]:
                self._emit(step, line, False)
        return ok

    # ---- outcomes ----------------------------------------------------------------
    def _emit(self, step: Step, line: str, progress: bool) -> None:
        words = worded(line)
        if not progress:
            self._tail.append(line)
            del self._tail[:-40]
            self._write_log(line)  # the log keeps what the command printed (the check's JSON too)
            if words != line:  # ...and, under a JSON event, what it says in the reader's language
                self._write_log(LOG_WORDED + words)
        self.events.output_line(step, words, progress)

    def _finish(self, step: Step, result: StepResult) -> None:
        self._pending_settle(step)  # the step before is recorded first, or is the failure
        self.statuses[step.id] = result.status
        self._record(step.id, result.status, result.message)
        self._write_log(f"-- {step.id}: {result.status}: {result.message}")
        self.events.step_finished(step, result)

    def _fail(self, step: Step, what: str, rc: int | None) -> NoReturn:
        hint = failure_hint(self._tail, self.plan)
        message = t("runner.failed", title=step.title, what=what, log=str(self.log_path), hint=hint)
        self._finish(step, StepResult(FAILED, what, rc, list(self._tail)))
        raise _Stop("failed", message, step)

    def _stop_pending(self, step: Step, message: str) -> NoReturn:
        self._pending_drop()
        self.statuses[step.id] = PENDING
        self._record(step.id, PENDING, message)
        self.events.step_finished(step, StepResult(PENDING, message))
        raise _Stop("cancelled", message, step)

    def _result(self, outcome: str, message: str, step: Step | None = None) -> RunResult:
        return RunResult(outcome, message, step.id if step else None, self.log_path, dict(self.statuses))

    # ---- journal and log ---------------------------------------------------------------
    def _open_state(self) -> RunState:
        state = self.journal.load()
        self.notice = self.journal.notice
        previous = state
        if state is not None and state.plan.id != self.plan.id:
            self._stop_leftovers(state)  # another plan's command must not run beside this one
            self.journal.set_aside("replaced")
            state = None
        if state is None or state.finished:
            # A finished plan run again starts clean: every check runs, nothing is assumed.
            state = RunState(plan=self.plan)
            if self.simulate and previous is not None:
                # A demo has no machine to check: what the last run finished stays finished, in
                # this plan's words too (a run in English, then in Chinese).
                for step_id, status in self._carried(previous).items():
                    state.record(step_id).status = status  # there already, for this new run
        for step in self.plan.active_steps:
            state.record(step.id)
        self._state = state
        self._stop_leftovers(state)
        self._save()
        return state

    def _note_process(self, step: Step, pid: int | None, argv: Sequence[str]) -> None:
        assert self._state is not None
        rec = self._state.record(step.id)
        rec.pid, rec.argv_sha = (pid, _argv_sha(argv)) if pid is not None else (None, None)
        self._save()

    def _stop_leftovers(self, state: RunState) -> None:
        """A command of a killed run may still be running (it has its own session): stop it,
        wait for it to end, and leave its step to be checked. One that cannot be stopped
        stops this run: two commands must never work on one install at once."""
        for step_id, rec in state.steps.items():
            if rec.pid is None:
                continue
            try:
                cmdline = Path(f"/proc/{rec.pid}/cmdline").read_bytes()
            except OSError:
                cmdline = b""
            if cmdline and _argv_sha(cmdline.decode("utf-8", "replace").split("\0")[:-1]) == rec.argv_sha:
                if not stop_group(rec.pid, self.leftover_grace_s):
                    raise _Stop("failed", t("runner.leftover_running", step=step_id, pid=rec.pid))
                stopped = t("runner.leftover_stopped", step=step_id, pid=rec.pid)
                self.notice = f"{self.notice} {stopped}" if self.notice else stopped
            rec.pid, rec.argv_sha = None, None
            if rec.status == RUNNING:
                rec.status = PENDING  # checked again before anything is assumed

    def _record(self, step_id: str, status: str, message: str = "") -> None:
        assert self._state is not None
        self._state.steps[step_id] = StepRecord(status, message, time.strftime("%Y-%m-%dT%H:%M:%S"))
        self._save()

    def _save(self) -> None:
        if self._state is not None:
            self.journal.save(self._state)

    def _open_log(self) -> None:
        # The log is appended line by line (a stream, not a document); a log that cannot be
        # written costs the log, never the run.
        try:
            if self.log_path is None:
                # Each run its own file, even two started in the same second (O_EXCL, -2, -3...).
                stamp = time.strftime("%Y%m%d-%H%M%S")
                suffix = "-simulated" if self.simulate else ""
                self.log_path, fd = create_new(log_dir(), f"apply-{stamp}{suffix}", ".log")
                self._log = os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")
            else:
                ensure(self.log_path.parent)
                self._log = open(self.log_path, "a", encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            self._log_failed(exc)
            return
        self._write_log(
            f"# tf-gpu-wizard apply {time.strftime('%Y-%m-%d %H:%M:%S')} plan {self.plan.id}"
            f"{' ' + SIM if self.simulate else ''}"
        )

    def _write_log(self, line: str) -> None:
        if self._log is not None:
            try:
                self._log.write(line + "\n")
                self._log.flush()
            except OSError as exc:
                self._log_failed(exc)

    def _log_failed(self, exc: OSError) -> None:
        self._close_log()
        if not self._log_broken:
            self._log_broken = True
            self.notice = WriteError(self.log_path or log_dir(), exc).message
        self.log_path = None

    def _close_log(self) -> None:
        log, self._log = self._log, None
        if log is not None:
            try:
                log.close()
            except OSError:
                pass


def _argv_sha(argv: Sequence[str]) -> str:
    return hashlib.sha256("\0".join(argv).encode("utf-8", "replace")).hexdigest()


def _group_alive(pgid: int) -> bool:
    """Any process of the group still running (zombies waiting for a parent do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # there, and not ours to signal (root through sudo)
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (comm) "; comm may hold spaces
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _wait_gone(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def stop_group(pgid: int, grace: float) -> bool:
    """SIGTERM to a process group, up to `grace` seconds to end, then SIGKILL. True when it is gone."""
    if not hasattr(os, "killpg"):
        return True
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return True
        except PermissionError:
            return not _group_alive(pgid)
        if _wait_gone(pgid, wait):
            return True
    return False


def _kill_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, sig)
        else:  # Windows: no process groups of this kind
            proc.kill()
    except OSError:
        pass


# Known causes, matched against the failed step's last lines: what to do about them.
_HINTS = (
    ("Could not get lock", "runner.hint.apt_lock"),
    ("No space left on device", "runner.hint.disk_full"),
    ("Temporary failure resolving", "runner.hint.network"),
    ("Could not resolve", "runner.hint.network"),
    ("Failed to establish a new connection", "runner.hint.network"),
    ("No matching distribution found", "runner.hint.no_wheel"),
    ("externally-managed-environment", "runner.hint.externally_managed"),
    ("incorrect password", "runner.hint.sudo"),
    ("couldn't communicate with the NVIDIA driver", "runner.hint.driver_not_loaded"),
)


def failure_hint(lines: Sequence[str], plan: Plan | None = None) -> str:
    text = "\n".join(lines)
    for needle, key in _HINTS:
        if needle.lower() in text.lower():
            if key == "runner.hint.disk_full" and plan is not None and plan.download_mib:
                # This plan's own figure (a CPU plan is not TensorFlow with CUDA's 8 GB).
                from wizard.plan.view import size_text

                return t("runner.hint.disk_full_plan", size=size_text(plan.download_mib))
            return t(key)
    return t("runner.hint.generic")
