"""The benchmark's verdict: the one sentence a student reads first (CLI, monitor screen, report).

On a GPU, how many times the CPU's speed it trains the CNN (and with XLA); on the CPU
alone, that TensorFlow works and how its matmul compares with NumPy's on the same CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.bench.report import DTYPES, BenchReport, MatmulResult
from wizard.text import t


@dataclass(frozen=True)
class Verdict:
    level: str  # "ok" | "warn" | "error"
    text: str


def gpu_speedup(report: BenchReport, xla: bool = False) -> float | None:
    """GPU images/s over CPU images/s on the CNN, from the speedup event or the two rates."""
    given = report.speedup.get("xla" if xla else "plain")
    if given:
        return given
    gpu, cpu = report.train_rate("GPU", xla), report.train_rate("CPU", xla)
    return gpu / cpu if gpu and cpu else None


def best_gflops(report: BenchReport, device: str) -> float | None:
    """The best float32 matmul on `device` ("CPU" is TensorFlow's, "numpy" NumPy's), in GFLOP/s."""
    rows = [r.tflops for r in report.matmul if r.device == device and r.dtype == "float32"]
    return 1000.0 * max(rows) if rows else None


def peak_note(report: BenchReport) -> str | None:
    """The one line about the published peak under the matmul table, or None (CLI and screen).

    The %peak column is there only when some GPU row has a peak (`BenchReport.has_peak`); a CPU
    or NumPy row never has one and shows nothing. So a note is needed only where a GPU ran
    without a figure: none at all (no column), or none for some of its types (named)."""
    gpu = [r for r in report.matmul if r.device == "GPU"]
    if not gpu:
        return None
    if report.has_achievable():  # the column is "% at its clock": name what has none
        missing = sorted({(r.precision or r.dtype).upper() for r in gpu if r.percent_of_achievable is None})
        return t("bench.clock.none_for", precisions=", ".join(missing)) if missing else None
    if not report.has_peak():
        return t("bench.no_peak")
    missing = sorted({r.dtype for r in gpu if r.percent_of_peak is None}, key=_dtype_order)
    return t("bench.no_peak_for", dtypes=", ".join(missing)) if missing else None


def _dtype_order(dtype: str) -> int:
    return DTYPES.index(dtype) if dtype in DTYPES else len(DTYPES)


def verdict(report: BenchReport) -> Verdict | None:
    """What the run proved so far; None until there is something to say."""
    plain, xla = gpu_speedup(report), gpu_speedup(report, xla=True)
    if plain is not None:
        key = "bench.verdict.gpu" if plain >= 1.0 else "bench.verdict.gpu_slower"
        text = t(key, x=plain)
        if xla is not None:
            text += t("bench.verdict.with_xla", x=xla)
        elif report.xla_why:
            text += report.xla_why
        return Verdict("ok" if plain >= 1.0 else "warn", text)
    gpu = report.best("GPU")
    tf_cpu, numpy = best_gflops(report, "CPU"), best_gflops(report, "numpy")
    if not report.done:
        return None
    # Stopped by the user: say what was measured before the stop, and claim nothing about
    # the phases it did not reach (the GPU may simply not have had its turn yet).
    stopped = report.stopped
    if gpu is not None:  # the GPU multiplied matrices, but the CNN did not finish
        key = "bench.verdict.gpu_matmul_stopped" if stopped else "bench.verdict.gpu_matmul_only"
        return Verdict("warn", t(key, tflops=gpu.tflops))
    if tf_cpu is not None:
        numbers = (
            t("bench.verdict.cpu", tf=tf_cpu, numpy=numpy)
            if numpy
            else t("bench.verdict.cpu_no_numpy", tf=tf_cpu)
        )
        if stopped:
            return Verdict("warn", numbers + t("bench.verdict.stopped_rest"))
        if report.gpu_name:  # this machine has a GPU, and TensorFlow did not use it
            return Verdict("warn", numbers + t("bench.verdict.gpu_unseen"))
        if report.cpu_why:  # a GPU plan's machine whose GPU TensorFlow cannot see: not a success
            return Verdict("warn", numbers + report.cpu_why)
        return Verdict("ok", numbers)
    if numpy is not None:  # NumPy's reference matmul ran, TensorFlow's own did not
        key = "bench.verdict.numpy_only_stopped" if stopped else "bench.verdict.numpy_only"
        return Verdict("warn" if stopped else "error", t(key, numpy=numpy))
    if stopped:
        return Verdict("warn", t("bench.verdict.stopped_nothing"))
    return Verdict("error", t("bench.verdict.failed"))


# ---- the matmul table: one set of columns and cells for the CLI and the monitor screen ----------


def matmul_columns(report: BenchReport) -> tuple[str, ...]:
    """Column keys (bench.col.*): a GPU row's figure is its % of what this GPU reaches at the clock
    it ran at ("at_clock", with that clock) where the run read them, else of the datasheet peak."""
    if report.has_achievable():  # the clock it ran at is in clock_note, under the table
        return ("device", "dtype", "n", "tflops", "at_clock")
    return ("device", "dtype", "n", "tflops") + (("peak",) if report.has_peak() else ())


def matmul_cells(report: BenchReport, r: MatmulResult) -> list[str]:
    """One row: the precision it ran in is named (TF32 is not FP32), its figure and its clock."""
    kind = (r.precision or SHORT_DTYPE.get(r.dtype, r.dtype)).upper()  # a CPU's float32 is FP32
    cells = [r.device, kind, str(r.n), f"{r.tflops:.2f}"]
    if report.has_achievable():
        cells.append("" if r.percent_of_achievable is None else f"{r.percent_of_achievable:.0f}%")
    elif report.has_peak():
        cells.append("" if r.percent_of_peak is None else f"{r.percent_of_peak:.0f}%")
    return cells


def clock_note(report: BenchReport) -> str | None:
    """Under the table: what the % means, the clocks, power and temperature the GPU ran at, and
    whether it was held back (a laptop on its power limit, a hot one)."""
    rows = [r for r in report.matmul if r.device == "GPU" and r.percent_of_achievable is not None]
    if not rows:
        return None
    clocks = [r.clock_mhz for r in rows if r.clock_mhz]
    powers = [r.power_w for r in rows if r.power_w]
    temps = [r.temperature_c for r in rows if r.temperature_c]
    lines = [
        t(
            "bench.clock.meaning",
            sms=rows[0].sm_count or 0,
            clocks=f"{min(clocks):.0f}"
            if min(clocks) == max(clocks)
            else f"{min(clocks):.0f}-{max(clocks):.0f}",
            power=t("bench.clock.watts", watts=max(powers)) if powers else t("bench.clock.na"),
            temp=t("bench.clock.celsius", celsius=max(temps)) if temps else t("bench.clock.na"),
        )
    ]
    held = report.throttled()
    if held is not None and held.clock_mhz and held.max_clock_mhz:
        lines.append(
            t(
                "bench.clock.throttled",
                clock=held.clock_mhz,
                share=100.0 * (held.clock_share or 0.0),
                max=held.max_clock_mhz,
            )
        )
    return "\n".join(lines)


SHORT_DTYPE = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def matmul_header(key: str) -> str:
    return t("bench.clock.col_at_clock") if key == "at_clock" else t(f"bench.col.{key}")
