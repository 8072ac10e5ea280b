"""Run the benchmark (assets/bench/tf_bench.py) in the target Python and read it live.

TensorFlow is never imported by the wizard: the script runs as a separate
process with the environment's own interpreter and prints one JSON event per
line. Here each line is validated (`parse_event`), folded into a `BenchReport`
(phases, results, TFLOP/s as a percentage of the GPU's published peak), and
the report is saved as JSON under `wizard.paths.data_dir()`.

    run = BenchRun(python, quick=True)       # or SimulatedBenchRun(profile) for demos
    for event in run.events():               # live; run.report fills as they come
        ...
    path = save_report(run.report)

"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wizard import paths
from wizard.bench.events import BenchEvent, BenchEventError, parse_event, validate_event
from wizard.bench.phase_summary import done_fields
from wizard.bench.report import DTYPES, BenchReport, published_peak
from wizard.bench.sim import mark_xla_limit, simulated_events
from wizard.demo import gpu_only_simulated
from wizard.profile import MachineProfile
from wizard.text import t

if TYPE_CHECKING:
    from wizard.choose.choice import Candidate

# ---- running it -----------------------------------------------------------------------


class BenchPythonMissing(Exception):
    """The Python to benchmark in does not exist; the message says what to do."""


def default_python() -> Path:
    venv = paths.default_venv()
    return venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def resolve_python(arg: str | None) -> Path:
    path = Path(arg).expanduser() if arg else default_python()
    if not path.exists():
        key = "bench.python_missing" if arg else "bench.default_python_missing"
        raise BenchPythonMissing(t(key, path=str(path)))
    return path


def script_path() -> AbstractContextManager[Path]:
    """The benchmark script as a real file (it may live inside a wheel)."""
    return resources.as_file(resources.files("assets").joinpath("bench").joinpath("tf_bench.py"))


class BenchRun:
    """One run of tf_bench.py; iterate `events()` to drive it."""

    def __init__(
        self,
        python: Path,
        *,
        quick: bool = False,
        xla: bool = True,
        extra_args: Sequence[str] = (),
        gpu_name: str | None = None,
        timeout: float | None = None,
    ) -> None:
        self.python = python
        self.args = [*(["--quick"] if quick else []), *([] if xla else ["--no-xla"]), *extra_args]
        self.report = BenchReport(gpu_name=gpu_name)
        self.stderr_tail: deque[str] = deque(maxlen=200)
        self.returncode: int | None = None
        self.timeout = timeout
        self._proc: subprocess.Popen[str] | None = None
        self._stopping = False

    def command(self, script: Path) -> list[str]:
        return [str(self.python), "-u", str(script), *self.args]

    def events(self) -> Iterator[BenchEvent]:
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
        self.report.begin()  # the total is the wall time from here, TensorFlow's import included
        with script_path() as script:
            try:
                self._proc = subprocess.Popen(  # an argument list, never a shell
                    self.command(script),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    stdin=subprocess.DEVNULL,
                    text=True,
                    encoding="utf-8",
                    errors="replace",
                    bufsize=1,
                    env=env,
                )
            except OSError as exc:
                yield self._synthetic_error(t("bench.cannot_start", python=str(self.python), detail=str(exc)))
                return
            proc = self._proc
            assert proc.stdout is not None and proc.stderr is not None
            drain = threading.Thread(target=self._drain, args=(proc.stderr,), daemon=True)
            drain.start()
            killer = self._watchdog() if self.timeout else None
            for line in proc.stdout:
                line = line.strip()
                if not line:
                    continue
                try:
                    ev = parse_event(line)
                except BenchEventError as exc:
                    self.report.invalid_lines.append(f"{exc}: {line[:200]}")
                    continue
                self.report.apply(ev)
                yield ev
            self.returncode = proc.wait()
            drain.join(timeout=5)
            if killer is not None:
                killer.cancel()
        if self._stopping and not self.report.stopped:
            self.report.stop()  # stopped before the script could say where it was
            return
        if not self.report.done:
            # The process died (crash, kill, OOM) without saying goodbye: say it for it.
            last = self.stderr_tail[-1] if self.stderr_tail else ""
            key = "bench.stopped" if self._stopping else "bench.died"
            yield self._synthetic_error(t(key, code=self.returncode, detail=last))

    def _synthetic_error(self, message: str) -> BenchEvent:
        error = validate_event({"event": "error", "phase": None, "message": message, "fatal": True})
        done = validate_event({"event": "done", "ok": False, "seconds": 0.0})
        self.report.apply(error)
        self.report.apply(done)
        return error

    def _drain(self, stream: Any) -> None:
        for line in stream:
            self.stderr_tail.append(line.rstrip("\n"))

    def _watchdog(self) -> threading.Timer:
        timer = threading.Timer(self.timeout or 0, self.stop)
        timer.daemon = True
        timer.start()
        return timer

    def stop(self, grace: float = 10.0) -> None:
        """Ask the script to stop (Ctrl-C: it reports where it was), then insist."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        self._stopping = True
        try:
            proc.send_signal(signal.SIGINT if sys.platform != "win32" else signal.SIGTERM)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
        except OSError:
            pass


# Seconds between the replayed events of a simulated run (a result waits three): one pace for the
# app and the CLI, so the same demo benchmark takes the same time in both (about 12 s); a quick run
# (fewer, smaller steps) goes at twice the pace (about 4 s).
SIM_PACE_S = 0.1


def recommended_set(profile: MachineProfile) -> Candidate | None:
    """The set the resolver recommends for this profile (None where it recommends none)."""
    from wizard.choose.resolver import recommend

    return recommend(profile).recommended


class SimulatedBenchRun:
    """A demo profile's benchmark: the events it would print, replayed at a pace.

    `quick` replays what `tf_bench.py --quick` runs (its start event says so). The seconds a phase
    and the whole run report are the replay's own, on `clock`, in the events (--json) as in the
    report: one clock, one duration, wherever it is shown."""

    def __init__(
        self,
        profile: MachineProfile,
        *,
        delay: float | None = None,
        clock: Callable[[], float] | None = None,
        quick: bool = False,
        candidate: Candidate | None = None,
    ) -> None:
        self.profile = profile
        self.quick = quick
        self._clock = clock  # a test's fixed clock keeps a snapshot's durations still
        gpu = profile.gpus[0].name if profile.gpus else None
        self.report = BenchReport(simulated=True, gpu_name=gpu)
        if gpu_only_simulated(profile):
            # An NVIDIA card the driver does not reach (its plan's driver steps: in simulation only).
            self.report.cpu_why = t("bench.demo_driver.cpu_only")
        peaks = {d: p for d in DTYPES if gpu and (p := published_peak(gpu, d))}
        # The run happens in the environment the plan builds: the chosen set, else the recommended.
        candidate = candidate if candidate is not None else recommended_set(profile)
        if gpu is not None and candidate is not None and candidate.xla_limit is not None:
            mark_xla_limit(self.report, candidate.xla_limit)
        self._events = simulated_events(profile, peaks, quick=quick, candidate=candidate)
        self.delay = (SIM_PACE_S / 2 if quick else SIM_PACE_S) if delay is None else delay
        self._stop = threading.Event()
        self.returncode: int | None = None
        self.stderr_tail: deque[str] = deque()

    @property
    def planned_seconds(self) -> float:
        """How long the replay takes at its pace (the app's and the CLI's are the same)."""
        return sum(self.delay * (3 if raw["event"] == "result" else 1) for raw in self._events)

    def events(self) -> Iterator[BenchEvent]:
        clock = self._clock or time.monotonic
        self.report.begin(clock)
        started = phase_started = clock()
        for raw in self._events:
            # The work happens before a result, so that is where the time goes.
            pause = self.delay * (3 if raw["event"] == "result" else 1)
            if self._stop.wait(pause):
                yield self._interrupt()
                return
            if raw["event"] == "phase_start":
                phase_started = clock()
            elif raw["event"] in ("phase_end", "done"):  # the replay's own time, not a made-up one
                since = phase_started if raw["event"] == "phase_end" else started
                raw = {**raw, "seconds": round(max(0.0, clock() - since), 3)}
            ev = validate_event(raw)
            self.report.apply(ev)
            yield ev
        self.returncode = 0

    def _interrupt(self) -> BenchEvent:
        """Stopped by the user: the report says so (the phase that ran is "stopped")."""
        self.report.stop()
        self.returncode = 130
        return validate_event({"event": "done", "ok": False, "seconds": self.report.seconds or 0.0})

    def stop(self, grace: float = 10.0) -> None:
        self._stop.set()


def save_report(report: BenchReport, directory: Path | None = None) -> Path:
    """Write the report as JSON in the data directory; returns the file."""
    folder = paths.ensure(directory or paths.data_dir() / "bench")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    suffix = "-simulated" if report.simulated else ""
    path = folder / f"bench-{stamp}{suffix}.json"
    n = 1
    while path.exists():  # two runs in one second (tests) must not overwrite each other
        n += 1
        path = folder / f"bench-{stamp}{suffix}-{n}.json"
    from wizard.safe.atomic import write_text_atomic

    # Whole or not at all: a full disk raises WriteError (an OSError, one line) and leaves nothing.
    # The saved result says what ran (passed, skipped with why), as --json's done event does.
    saved = {**report.to_dict(), **done_fields(report)}
    write_text_atomic(path, json.dumps(saved, indent=2, default=str) + "\n")
    return path
