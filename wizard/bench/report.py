"""The benchmark report: phases, results and TFLOP/s against the GPU's published peak."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from wizard.bench.events import PHASES, BenchEvent
from wizard.bench.peak import THROTTLED_BELOW, achievable_tflops, flop_per_clock, precision_of
from wizard.choose.knowledge import load_knowledge

# ---- the report ---------------------------------------------------------------------


@dataclass
class PhaseState:
    name: str
    status: str = "pending"  # pending | running | ok | skipped | failed | stopped (by the user)
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
    percent_of_peak: float | None = None  # of the datasheet peak (boost clock, fp32 or fp16 tensor)
    # A GPU row: what it ran as, and what this GPU could reach at the clock it ran at
    # (wizard.bench.peak): SM count x FLOP/clock/SM of its precision x the SM clock NVML read.
    precision: str | None = None  # fp32 | tf32 | fp16 | bf16
    sm_count: int | None = None
    clock_mhz: float | None = None  # mean SM clock over the measured runs
    max_clock_mhz: float | None = None
    power_w: float | None = None
    temperature_c: float | None = None
    warmup_seconds: float | None = None  # the first run (tracing, autotuning), not measured
    achievable_tflops: float | None = None
    percent_of_achievable: float | None = None

    @property
    def clock_share(self) -> float | None:
        """The clock it ran at, as a share of its maximum SM clock."""
        if self.clock_mhz is None or not self.max_clock_mhz:
            return None
        return self.clock_mhz / self.max_clock_mhz

    @property
    def throttled(self) -> bool:
        share = self.clock_share
        return share is not None and share < THROTTLED_BELOW


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
    cpu_why: str | None = None  # why a run meant for a GPU can only use the CPU (a sentence tail)
    xla_why: str | None = None  # why the XLA phase was not run: the set's XLA cannot target the GPU
    # phase -> why the wizard did not start it (the user's language; the script only says "--no-xla")
    skip_why: dict[str, str] = field(default_factory=dict)
    peaks: dict[str, float] = field(default_factory=dict)  # dtype -> published TFLOP/s
    monitor: dict[str, Any] | None = None  # min/mean/max over the run, if a sampler watched
    stopped: bool = False  # the user stopped it (s, Ctrl-C): the phases not reached stay pending

    def __post_init__(self) -> None:
        # Durations are the wall time measured here, as events arrive: the script's own figures
        # leave out its start-up and a replayed (simulated) run has none of its own.
        self._clock: Callable[[], float] = time.monotonic
        self._t0: float | None = None
        self._phase_t0: dict[str, float] = {}

    def begin(self, clock: Callable[[], float] | None = None) -> None:
        """The run starts now (before the process is launched): the total is measured from here."""
        if clock is not None:
            self._clock = clock
        self._t0 = self._clock()

    def _elapsed(self, since: float | None) -> float | None:
        return None if since is None else max(0.0, self._clock() - since)

    def stop(self) -> None:
        """The user stopped the run: the phase that was running is "stopped" after the time it
        ran, the total is the time so far; nothing is reported as an error."""
        for state in self.phases.values():
            if state.status == "running":
                state.status = "stopped"
                state.seconds = self._elapsed(self._phase_t0.get(state.name))
        self.stopped = True
        self.done, self.ok = True, False
        self.seconds = self._elapsed(self._t0)

    @property
    def current(self) -> PhaseState | None:
        running = [p for p in self.phases.values() if p.status == "running"]
        return running[-1] if running else None

    def apply(self, ev: BenchEvent) -> None:
        raw = ev.raw
        state = self.phases.get(ev.phase) if ev.phase else None
        if self._t0 is None:
            self._t0 = self._clock()
        if ev.event == "start":
            self.started = True
            self.simulated = bool(raw.get("simulated", self.simulated))
        elif ev.event == "phase_start" and state:
            state.status, state.title = "running", raw["title"]
            self._phase_t0[state.name] = self._clock()
        elif ev.event == "progress" and state:
            state.done, state.total, state.detail = raw["done"], raw["total"], str(raw.get("detail", ""))
        elif ev.event == "phase_end" and state:
            measured = self._elapsed(self._phase_t0.get(state.name))
            state.status, state.seconds, state.reason = (
                raw["status"],
                float(raw["seconds"]) if measured is None else measured,
                raw.get("reason"),
            )
        elif ev.event == "error" and raw.get("type") == "KeyboardInterrupt":
            self.stop()  # Ctrl-C / s: a stop, not an error to report
        elif ev.event == "error":
            where = f"{ev.phase}: " if ev.phase else ""
            self.errors.append(where + raw["message"])
        elif ev.event == "done" and self.stopped:
            pass  # the stop already said when it ended
        elif ev.event == "done":
            measured = self._elapsed(self._t0)
            self.done, self.ok = True, raw["ok"]
            self.seconds = float(raw["seconds"]) if measured is None else measured
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
                self._achievable(r, d)
                peak = self.peak_for(r.dtype) if r.precision != "tf32" else None  # no TF32 datasheet row
                r.percent_of_peak = 100.0 * r.tflops / peak if peak else None
            self.matmul.append(r)
        elif kind == "train":
            self.train.append(
                TrainResult(str(d["device"]), bool(d["xla"]), int(d["batch"]), float(d["images_per_s"]))
            )
        elif kind == "speedup":
            self.speedup["xla" if d["xla"] else "plain"] = float(d["gpu_vs_cpu"])

    def gpu_cc(self) -> str | None:
        gpus = (self.environment or {}).get("gpus") or []
        first = gpus[0] if gpus and isinstance(gpus[0], dict) else {}
        cc = first.get("compute_capability")
        return str(cc) if cc else None

    def _achievable(self, r: MatmulResult, d: dict[str, Any]) -> None:
        """The GPU's own peak at the clock it ran at, from the readings the run carries."""
        cc = self.gpu_cc()
        given = d.get("precision")
        # An older script names no precision: it ran float32 with TF32 off (it always did).
        r.precision = str(given) if isinstance(given, str) else precision_of(r.dtype, cc, tf32=False)

        def num(key: str) -> float | None:
            v = d.get(key)
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None

        sms = num("sm_count")
        r.sm_count = int(sms) if sms else None
        r.clock_mhz, r.max_clock_mhz = num("clock_mhz"), num("max_clock_mhz")
        r.power_w, r.temperature_c, r.warmup_seconds = (
            num("power_w"),
            num("temperature_c"),
            num("warmup_seconds"),
        )
        rate = flop_per_clock(cc, self.gpu_name, r.precision) if r.precision else None
        if rate is not None and r.sm_count and r.clock_mhz:
            r.achievable_tflops = achievable_tflops(r.sm_count, r.clock_mhz, rate.flop_per_clock)
            r.percent_of_achievable = 100.0 * r.tflops / r.achievable_tflops

    def has_achievable(self) -> bool:
        return any(r.percent_of_achievable is not None for r in self.matmul)

    def throttled(self) -> MatmulResult | None:
        """The GPU row that ran furthest under its maximum clock, when one was held back."""
        rows = [r for r in self.matmul if r.device == "GPU" and r.throttled]
        return min(rows, key=lambda r: r.clock_share or 1.0) if rows else None

    def peak_for(self, dtype: str) -> float | None:
        if dtype not in self.peaks and self.gpu_name:
            peak = published_peak(self.gpu_name, dtype)
            if peak:
                self.peaks[dtype] = peak
        return self.peaks.get(dtype)

    # ---- what people want to know
    def has_peak(self) -> bool:
        """Some row is compared with a published peak: only then is there a %peak column."""
        return any(r.percent_of_peak is not None for r in self.matmul)

    def best(self, device: str, dtype: str = "float32", precision: str | None = None) -> MatmulResult | None:
        """The fastest row of a device and dtype; float32 on a GPU means FP32 unless `precision`
        asks for TF32 (Ampere's default runs, on the tensor cores, are not FP32)."""
        rows = [r for r in self.matmul if r.device == device and r.dtype == dtype]
        if precision is not None:
            rows = [r for r in rows if r.precision == precision]
        elif device == "GPU" and dtype == "float32":
            rows = [r for r in rows if r.precision != "tf32"]
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
        gpu = load_knowledge().gpu(gpu_name)
    except Exception:  # no table, or one that does not load: no percentage
        return None
    if gpu is None:
        return None
    peak = gpu.fp32_tflops if dtype == "float32" else gpu.fp16_tensor_tflops if dtype in DTYPES else None
    return float(peak) if peak else None
