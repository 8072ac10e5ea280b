"""The simulated benchmark: the event stream a run on a demo profile's machine would plausibly print,
in the same schema as assets/bench/tf_bench.py.

The numbers follow the machine: the GPU's FP32 speed (NVIDIA's published peak, or a rough
figure for its class: wizard.monitor.gpu_class) sets its matmul and CNN rates, and the CPU
core count sets the CPU's. Deterministic: the same profile always gives the same run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wizard.bench.peak import achievable_tflops, flop_per_clock
from wizard.monitor.gpu_class import board, gpu_class
from wizard.profile import MachineProfile
from wizard.text import t

if TYPE_CHECKING:
    from wizard.bench.report import BenchReport
    from wizard.choose.choice import Candidate, XlaLimit

# The small CNN does not scale with raw FLOPs: an RTX 3090 (35.6 TFLOP/s) trains about
# 11,800 images/s, a GTX 1080 (8.9) about 5,200; rate = GPU_RATE * TFLOP/s ** GPU_EXPONENT.
GPU_RATE, GPU_EXPONENT = 1400.0, 0.6
XLA_GAIN = 1.25  # fused kernels: the XLA run is this much faster on the GPU
CPU_RATE_16 = 900.0  # images/s on a 16-core CPU; other core counts scale as cores ** 0.6
CPU_MATMUL_16 = 0.16  # NumPy float32 TFLOP/s on 16 cores at n=2048


def cpu_scale(profile: MachineProfile) -> float:
    cores = profile.resources.cpu_count or 8
    return (max(1, cores) / 16) ** 0.6


def gpu_images_per_s(profile: MachineProfile) -> float | None:
    """What the simulated CNN trains on this profile's first GPU (None: no GPU)."""
    if not profile.gpus:
        return None
    g = profile.gpus[0]
    return round(GPU_RATE * gpu_class(g.name, g.compute_capability).fp32_tflops ** GPU_EXPONENT, -1)


def simulated_events(
    profile: MachineProfile,
    peak_tflops: dict[str, float] | None = None,
    *,
    quick: bool = False,
    candidate: Candidate | None = None,
) -> list[dict[str, Any]]:
    """The event stream a benchmark run on this profile's machine would plausibly print; `quick`:
    what `tf_bench.py --quick` runs (its sizes, batch and steps). `candidate`: the set the plan
    installs, so the run is in its TensorFlow, and an XLA its resolver says cannot target the GPU
    is not run (a real run of that XLA aborts the process)."""
    gpu = profile.gpus[0] if profile.gpus else None
    try:
        major = int(gpu.compute_capability.split(".")[0]) if gpu else 0
    except ValueError:
        major = 0
    peak = peak_tflops or {}
    ev: list[dict[str, Any]] = [{"event": "start", "schema": 1, "quick": quick, "simulated": True}]

    def phase(name: str, title: str, results: list[dict[str, Any]], status: str = "ok", **end: Any) -> None:
        ev.append({"event": "phase_start", "phase": name, "title": title})
        steps = [r for r in results if r["kind"] != "speedup"]
        done = 0
        for data in results:
            kind = data.pop("kind")
            ev.append({"event": "result", "phase": name, "kind": kind, "data": data})
            if kind != "speedup":
                done += 1
                ev.append(
                    {"event": "progress", "phase": name, "done": done, "total": len(steps), "detail": ""}
                )
        ev.append({"event": "phase_end", "phase": name, "status": status, "seconds": 2.0, **end})

    tf_version = profile.tensorflow.version if profile.tensorflow else "2.21.0"
    if candidate is not None:  # the environment the plan builds, not the one it replaces
        tf_version = candidate.set.tensorflow
    no_xla = candidate.xla_limit if candidate is not None and gpu is not None else None
    phase(
        "environment",
        "TensorFlow, its build and the devices it sees",
        [
            {
                "kind": "environment",
                "tf_version": tf_version,
                "build_info": {"is_cuda_build": bool(gpu), "cuda_version": "12.5.1", "cudnn_version": "9"},
                "devices": [{"name": "/physical_device:CPU:0", "type": "CPU"}]
                + ([{"name": "/physical_device:GPU:0", "type": "GPU"}] if gpu else []),
                "gpus": [
                    {
                        "name": "/physical_device:GPU:0",
                        "device_name": gpu.name,
                        "compute_capability": gpu.compute_capability,
                    }
                ]
                if gpu
                else [],
                "memory_growth": True if gpu else None,
            }
        ],
    )
    sanity = [{"kind": "sanity", "device": "/CPU:0", "max_abs_error": 4e-5, "ok": True}]
    if gpu:
        sanity.append({"kind": "sanity", "device": "/GPU:0", "max_abs_error": 2e-3, "ok": True})
    phase("sanity", "A matmul on each device, checked against NumPy", sanity)

    cpu = cpu_scale(profile)
    matmul: list[dict[str, Any]] = []
    for n in (512, 1024) if quick else (512, 1024, 2048):
        for device, share in (("numpy", 1.0), ("CPU", 15 / 16)):
            matmul.append(_mm(device, "float32", n, CPU_MATMUL_16 * cpu * share * min(1.0, n / 2048)))
    if gpu:
        matmul += _gpu_matmul(gpu.name, gpu.compute_capability, major, peak, quick)
    phase("matmul", "Matrix multiply throughput (TFLOP/s)", matmul)

    for name, xla, title in (
        ("train", False, "A small Keras CNN: images per second, CPU vs GPU"),
        ("xla", True, "The same CNN compiled with XLA (jit_compile=True)"),
    ):
        if xla and no_xla is not None:  # tf_bench.py --no-xla: the phase starts and is skipped
            phase(name, title, [], status="skipped", reason=xla_skipped(no_xla), seconds=0.0)
            continue
        cpu_rate = round(CPU_RATE_16 * cpu * (0.95 if xla else 1.0), -1)
        gpu_rate = (gpu_images_per_s(profile) or 0.0) * (XLA_GAIN if xla else 1.0)
        results = [
            {
                "kind": "train",
                "device": "CPU",
                "xla": xla,
                "batch": 32 if quick else 128,
                "steps": 8 if quick else 50,
                "images_per_s": cpu_rate,
            }
        ]
        if gpu:
            results.append(
                {
                    "kind": "train",
                    "device": "GPU",
                    "xla": xla,
                    "batch": 32 if quick else 128,
                    "steps": 8 if quick else 50,
                    "images_per_s": gpu_rate,
                }
            )
            results.append({"kind": "speedup", "xla": xla, "gpu_vs_cpu": gpu_rate / cpu_rate})
        phase(name, title, results)
    ev.append({"event": "done", "ok": True, "seconds": 10.0, "failed": [], "simulated": True})
    return ev


def xla_skipped(limit: XlaLimit) -> str:
    """Why the XLA phase was not run, as the phase's reason."""
    return t("bench.xla_limit.skipped", tf=limit.tf, cc=limit.cc, isa=limit.isa, needs=limit.needs)


def xla_reason(limit: XlaLimit) -> str:
    """Why the XLA phase was not run, as a reason after 'not run:' (BenchReport.skip_why)."""
    return t("bench.xla_limit.reason", tf=limit.tf, cc=limit.cc, isa=limit.isa, needs=limit.needs)


def mark_xla_limit(report: BenchReport, limit: XlaLimit) -> None:
    """A run whose XLA phase is not started: the verdict's tail and the phase's reason."""
    report.xla_why = xla_verdict(limit)
    report.skip_why["xla"] = xla_reason(limit)


def xla_verdict(limit: XlaLimit) -> str:
    """The verdict's tail for a run without its XLA phase (BenchReport.xla_why)."""
    return t("bench.xla_limit.verdict", tf=limit.tf, cc=limit.cc, isa=limit.isa, needs=limit.needs)


# What a good matmul reaches of the GPU's own peak at its clock (the sizes that fill it): fp16 and
# bf16 about 95-107% on RTX 30/40, 80-84% on H100 (issue 37's measured figures); FP32 on the CUDA
# cores less, TF32 between.
EFFICIENCY = {"fp32": 0.68, "tf32": 0.85, "fp16": 0.97, "bf16": 0.97}
HOPPER_TENSOR = 0.82


def _gpu_matmul(name: str, cc: str, major: int, peak: dict[str, float], quick: bool) -> list[dict[str, Any]]:
    """The GPU rows, by the arithmetic the report applies to a real run: SM count x FLOP/clock/SM x
    the clock it ran at (a laptop's held well under its boost clock), times a plausible efficiency."""
    precisions = [("float32", "fp32")] + ([("float32", "tf32")] if major >= 8 else [])
    if major >= 6:
        precisions.append(("float16", "fp16"))
    if major >= 8:
        precisions.append(("bfloat16", "bf16"))
    known = board(name)
    rows: list[dict[str, Any]] = []
    for dtype, precision in precisions:
        rate = flop_per_clock(cc, name, precision)
        readings: dict[str, Any] = {"precision": precision}
        if known is not None and rate is not None:
            clock = known.busy_clock_mhz  # what the simulated monitor shows meanwhile
            share = HOPPER_TENSOR if major == 9 and precision != "fp32" else EFFICIENCY[precision]
            best = share * achievable_tflops(known.sms, clock, rate.flop_per_clock)
            board_w = gpu_class(name, cc).watts
            readings.update(
                sm_count=known.sms,
                clock_mhz=float(clock),
                max_clock_mhz=float(known.boost_mhz),
                power_w=round(board_w * (0.98 if known.laptop else 0.9), 1),
                temperature_c=87.0 if known.laptop else 71.0,
            )
        else:  # a board not in the table: the old rough figures, and no percentage
            fp32 = 0.75 * peak.get("float32", gpu_class(name, cc).fp32_tflops)
            best = {
                "fp32": fp32,
                "tf32": 2 * fp32,
                "fp16": 0.6 * peak.get("float16", 4 * fp32 if major >= 7 else 2 * fp32),
                "bf16": 0.6 * peak.get("bfloat16", 4 * fp32),
            }[precision]
        for i, n in enumerate((512, 1024) if quick else (1024, 2048, 4096, 8192)):
            # small sizes cannot fill a GPU; the first run of each compiles and is not measured
            row = _mm("GPU", dtype, n, best * n**3 / (n**3 + 1024**3))
            rows.append({**row, **readings, "warmup_seconds": 0.4 if i == 0 else 0.05})
    return rows


def _mm(device: str, dtype: str, n: int, tflops: float) -> dict[str, Any]:
    seconds = 2.0 * n**3 / (tflops * 1e12)
    return {
        "kind": "matmul",
        "device": device,
        "dtype": dtype,
        "n": n,
        "seconds": seconds,
        "tflops": tflops,
        "gflops": tflops * 1e3,
        "runs": 7,
    }
