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
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from wizard import paths
from wizard.profile import MachineProfile
from wizard.text import t

SCHEMA = 1
PHASES = ("environment", "sanity", "matmul", "train", "xla")
STATUSES = ("ok", "skipped", "failed")
_NUM = (int, float)

# ---- events ----------------------------------------------------------------------


class BenchEventError(ValueError):
    """A line from the script that is not a valid event."""


@dataclass
class BenchEvent:
    event: str
    phase: str | None
    raw: dict[str, Any]

    @property
    def data(self) -> dict[str, Any]:
        value = self.raw.get("data")
        return value if isinstance(value, dict) else {}


# event -> required fields and their types
_REQUIRED: dict[str, dict[str, type | tuple[type, ...]]] = {
    "start": {"schema": int},
    "phase_start": {"phase": str, "title": str},
    "progress": {"phase": str, "done": int, "total": int},
    "result": {"phase": str, "kind": str, "data": dict},
    "phase_end": {"phase": str, "status": str, "seconds": _NUM},
    "error": {"message": str, "fatal": bool},
    "done": {"ok": bool, "seconds": _NUM},
}
_RESULT_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "environment": {"tf_version": str, "devices": list, "gpus": list},
    "sanity": {"device": str, "max_abs_error": _NUM, "ok": bool},
    "matmul": {"device": str, "dtype": str, "n": int, "seconds": _NUM, "tflops": _NUM},
    "train": {"device": str, "xla": bool, "batch": int, "images_per_s": _NUM},
    "speedup": {"xla": bool, "gpu_vs_cpu": _NUM},
}


def _check(obj: dict[str, Any], spec: dict[str, type | tuple[type, ...]], what: str) -> None:
    for name, typ in spec.items():
        if name not in obj:
            raise BenchEventError(f"{what}: missing {name!r}")
        value = obj[name]
        # bool is an int in Python; a flag where a count belongs is still wrong.
        if isinstance(value, bool) and typ is not bool:
            raise BenchEventError(f"{what}: {name!r} should be {typ}, not a boolean")
        if not isinstance(value, typ):
            raise BenchEventError(f"{what}: {name!r} has the wrong type ({type(value).__name__})")


def validate_event(obj: Any) -> BenchEvent:
    """A parsed JSON value -> a BenchEvent, or BenchEventError saying what is wrong."""
    if not isinstance(obj, dict):
        raise BenchEventError("an event must be a JSON object")
    kind = obj.get("event")
    if kind not in _REQUIRED:
        raise BenchEventError(f"unknown event {kind!r}")
    _check(obj, _REQUIRED[kind], kind)
    phase = obj.get("phase")
    if phase is not None and phase not in PHASES:
        raise BenchEventError(f"{kind}: unknown phase {phase!r}")
    if kind == "phase_end" and obj["status"] not in STATUSES:
        raise BenchEventError(f"phase_end: unknown status {obj['status']!r}")
    if kind == "progress" and not 0 <= obj["done"] <= obj["total"]:
        raise BenchEventError("progress: done is outside 0..total")
    if kind == "start" and obj["schema"] != SCHEMA:
        raise BenchEventError(f"start: schema {obj['schema']} (this wizard reads {SCHEMA})")
    if kind == "result":
        spec = _RESULT_FIELDS.get(obj["kind"])
        if spec is None:
            raise BenchEventError(f"result: unknown kind {obj['kind']!r}")
        _check(obj["data"], spec, f"result {obj['kind']}")
        data = obj["data"]
        if obj["kind"] == "matmul" and (data["seconds"] <= 0 or data["tflops"] < 0):
            raise BenchEventError("result matmul: time and throughput must be positive")
    return BenchEvent(kind, phase, obj)


def parse_event(line: str) -> BenchEvent:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BenchEventError(f"not JSON ({exc.msg})") from None
    return validate_event(obj)


# ---- the report ---------------------------------------------------------------------


@dataclass
class PhaseState:
    name: str
    status: str = "pending"  # pending | running | ok | skipped | failed
    title: str = ""
    done: int = 0
    total: int = 0
    detail: str = ""
    seconds: float | None = None
    reason: str | None = None


@dataclass
class MatmulResult:
    device: str  # GPU | CPU | numpy
    dtype: str
    n: int
    seconds: float
    tflops: float
    percent_of_peak: float | None = None


@dataclass
class TrainResult:
    device: str  # CPU | GPU
    xla: bool
    batch: int
    images_per_s: float


@dataclass
class BenchReport:
    phases: dict[str, PhaseState] = field(default_factory=lambda: {p: PhaseState(p) for p in PHASES})
    environment: dict[str, Any] | None = None
    sanity: list[dict[str, Any]] = field(default_factory=list)
    matmul: list[MatmulResult] = field(default_factory=list)
    train: list[TrainResult] = field(default_factory=list)
    speedup: dict[str, float] = field(default_factory=dict)  # "plain" | "xla" -> GPU/CPU
    errors: list[str] = field(default_factory=list)
    invalid_lines: list[str] = field(default_factory=list)
    started: bool = False
    done: bool = False
    ok: bool | None = None
    seconds: float | None = None
    simulated: bool = False
    gpu_name: str | None = None  # from the profile or TF's device details
    peaks: dict[str, float] = field(default_factory=dict)  # dtype -> published TFLOP/s
    monitor: dict[str, Any] | None = None  # min/mean/max over the run, if a sampler watched

    @property
    def current(self) -> PhaseState | None:
        running = [p for p in self.phases.values() if p.status == "running"]
        return running[-1] if running else None

    def apply(self, ev: BenchEvent) -> None:
        raw = ev.raw
        state = self.phases.get(ev.phase) if ev.phase else None
        if ev.event == "start":
            self.started = True
            self.simulated = bool(raw.get("simulated", self.simulated))
        elif ev.event == "phase_start" and state:
            state.status, state.title = "running", raw["title"]
        elif ev.event == "progress" and state:
            state.done, state.total, state.detail = raw["done"], raw["total"], str(raw.get("detail", ""))
        elif ev.event == "phase_end" and state:
            state.status, state.seconds, state.reason = (
                raw["status"],
                float(raw["seconds"]),
                raw.get("reason"),
            )
        elif ev.event == "error":
            where = f"{ev.phase}: " if ev.phase else ""
            self.errors.append(where + raw["message"])
        elif ev.event == "done":
            self.done, self.ok, self.seconds = True, raw["ok"], float(raw["seconds"])
        elif ev.event == "result":
            self._result(raw["kind"], ev.data)

    def _result(self, kind: str, d: dict[str, Any]) -> None:
        if kind == "environment":
            self.environment = d
            gpus = d.get("gpus") or []
            if gpus and not self.gpu_name and isinstance(gpus[0], dict):
                self.gpu_name = gpus[0].get("device_name") or None
        elif kind == "sanity":
            self.sanity.append(d)
        elif kind == "matmul":
            r = MatmulResult(
                str(d["device"]), str(d["dtype"]), int(d["n"]), float(d["seconds"]), float(d["tflops"])
            )
            if r.device == "GPU":
                peak = self.peak_for(r.dtype)
                r.percent_of_peak = 100.0 * r.tflops / peak if peak else None
            self.matmul.append(r)
        elif kind == "train":
            self.train.append(
                TrainResult(str(d["device"]), bool(d["xla"]), int(d["batch"]), float(d["images_per_s"]))
            )
        elif kind == "speedup":
            self.speedup["xla" if d["xla"] else "plain"] = float(d["gpu_vs_cpu"])

    def peak_for(self, dtype: str) -> float | None:
        if dtype not in self.peaks and self.gpu_name:
            peak = published_peak(self.gpu_name, dtype)
            if peak:
                self.peaks[dtype] = peak
        return self.peaks.get(dtype)

    # ---- what people want to know
    def best(self, device: str, dtype: str = "float32") -> MatmulResult | None:
        rows = [r for r in self.matmul if r.device == device and r.dtype == dtype]
        return max(rows, key=lambda r: r.tflops) if rows else None

    def tf_vs_numpy(self) -> float | None:
        """TF CPU / NumPy GFLOP/s, best of each over the sizes both ran: is the benchmark sound?

        Best-of, not one size: on a shared machine a single timing can be hit by
        another process, and both libraries reach their best at large sizes.
        """
        tf_rows = {r.n: r.tflops for r in self.matmul if r.device == "CPU" and r.dtype == "float32"}
        np_rows = {r.n: r.tflops for r in self.matmul if r.device == "numpy"}
        common = set(tf_rows) & set(np_rows)
        if not common:
            return None
        best_np = max(np_rows[n] for n in common)
        return max(tf_rows[n] for n in common) / best_np if best_np else None

    def train_rate(self, device: str, xla: bool = False) -> float | None:
        rows = [r.images_per_s for r in self.train if r.device == device and r.xla == xla]
        return rows[-1] if rows else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---- the published peak (assets/knowledge/gpus.toml via wizard.knowledge) ---------

DTYPES = ("float32", "float16", "bfloat16")


def published_peak(gpu_name: str, dtype: str) -> float | None:
    """TFLOP/s NVIDIA publishes for this GPU and dtype, or None if unknown.

    float32 compares with the FP32 (non-tensor) peak: the benchmark turns TF32
    off for its float32 runs so that comparison is fair. float16 and bfloat16
    compare with the dense FP16 tensor-core peak (FP32 accumulate), which is
    also the dense BF16 figure on the Ampere and later GPUs that have BF16.
    A missing or broken knowledge table only loses the percentage.
    """
    try:
        from wizard.knowledge import load_knowledge

        gpu = load_knowledge().gpu(gpu_name)
    except Exception:  # no table, or one that does not load: no percentage
        return None
    if gpu is None:
        return None
    peak = gpu.fp32_tflops if dtype == "float32" else gpu.fp16_tensor_tflops if dtype in DTYPES else None
    return float(peak) if peak else None


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


class SimulatedBenchRun:
    """A demo profile's benchmark: the events it would print, replayed at a pace."""

    def __init__(self, profile: MachineProfile, *, delay: float = 0.35) -> None:
        from wizard.monitor_sim import simulated_events

        self.profile = profile
        gpu = profile.gpus[0].name if profile.gpus else None
        self.report = BenchReport(simulated=True, gpu_name=gpu)
        peaks = {d: p for d in DTYPES if gpu and (p := published_peak(gpu, d))}
        self._events = simulated_events(profile, peaks)
        self.delay = delay
        self._stop = threading.Event()
        self.returncode: int | None = None
        self.stderr_tail: deque[str] = deque()

    def events(self) -> Iterator[BenchEvent]:
        for raw in self._events:
            # The work happens before a result, so that is where the time goes.
            pause = self.delay * (3 if raw["event"] == "result" else 1)
            if self._stop.wait(pause):
                yield self._interrupt()
                return
            ev = validate_event(raw)
            self.report.apply(ev)
            yield ev
        self.returncode = 0

    def _interrupt(self) -> BenchEvent:
        phase = self.report.current.name if self.report.current else None
        ev = validate_event(
            {
                "event": "error",
                "phase": phase,
                "message": "interrupted",
                "type": "KeyboardInterrupt",
                "fatal": True,
            }
        )
        self.report.apply(ev)
        self.report.apply(validate_event({"event": "done", "ok": False, "seconds": 0.0}))
        self.returncode = 130
        return ev

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
    path.write_text(json.dumps(report.to_dict(), indent=2, default=str) + "\n", encoding="utf-8")
    return path
