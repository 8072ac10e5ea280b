"""tf-gpu-wizard's benchmark: does TensorFlow use the GPU, and how fast?

Standalone on purpose: standard library + TensorFlow (+ NumPy, which TensorFlow
depends on). The wizard never imports it; it runs it with the target
environment's Python and reads one JSON event per line from stdout:

    {"event": "start", "schema": 1, "quick": false, ...}
    {"event": "phase_start", "phase": "matmul", "title": "..."}
    {"event": "progress", "phase": "matmul", "done": 3, "total": 12, "detail": "..."}
    {"event": "result", "phase": "matmul", "kind": "matmul", "data": {...}}
    {"event": "phase_end", "phase": "matmul", "status": "ok", "seconds": 4.2}
    {"event": "error", "phase": "train", "message": "...", "type": "...", "fatal": false}
    {"event": "done", "ok": true, "seconds": 31.0}

Anything else that writes to stdout (TensorFlow's C++ logging, a stray print)
is moved to stderr so the event stream stays clean.

Usage: python tf_bench.py [--quick] [--no-xla] [--no-gpu]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

SCHEMA = 1
PHASES = ("environment", "sanity", "matmul", "train", "xla")
ENV_TITLE = "TensorFlow, its build and the devices it sees"


class Emitter:
    """Writes events as JSON lines to the saved real stdout, flushed at once."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.phase: str | None = None
        self.failed: list[str] = []

    def emit(self, event: str, **fields: Any) -> None:
        record = {"event": event, "t": round(time.time(), 3), **fields}
        self.stream.write(json.dumps(record, default=str) + "\n")
        self.stream.flush()

    def progress(self, done: int, total: int, detail: str = "") -> None:
        self.emit("progress", phase=self.phase, done=done, total=total, detail=detail)

    def result(self, kind: str, **data: Any) -> None:
        self.emit("result", phase=self.phase, kind=kind, data=data)


class PhaseSkipped(Exception):
    """A phase that cannot run here (no GPU); not an error."""


def _take_stdout() -> TextIO:
    # Keep the real stdout for events; point fd 1 (and sys.stdout) at stderr so
    # C++ logging or a library's print() cannot corrupt the JSON stream.
    stream: TextIO
    try:
        fd = os.dup(1)
        os.dup2(2, 1)
        stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    except OSError:
        stream = sys.stdout
    sys.stdout = sys.stderr
    return stream


@contextmanager
def phase(
    em: Emitter, name: str, title: str, announce: bool = True, started: float | None = None
) -> Iterator[None]:
    em.phase = name
    if announce:
        em.emit("phase_start", phase=name, title=title)
    started = time.perf_counter() if started is None else started
    end: dict[str, Any] = {"phase": name, "status": "ok"}
    try:
        yield
    except PhaseSkipped as exc:
        end.update(status="skipped", reason=str(exc))
    except Exception as exc:  # one phase failing must not stop the others
        em.failed.append(name)
        end.update(status="failed", reason=f"{type(exc).__name__}: {exc}")
        em.emit(
            "error",
            phase=name,
            message=str(exc) or type(exc).__name__,
            type=type(exc).__name__,
            fatal=False,
            traceback=traceback.format_exc(limit=6),
        )
    # KeyboardInterrupt passes through: main() reports it and no phase_end follows.
    em.emit("phase_end", seconds=_secs(started), **end)
    em.phase = None


def _secs(started: float) -> float:
    return round(time.perf_counter() - started, 4)


@contextmanager
def _device(tf: Any, name: str) -> Iterator[None]:
    with tf.device(name):
        yield


def median_time(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


# ---- the GPU's clocks while a result is measured ------------------------------------------------
# A result is compared with what this GPU can reach at the clock it ran at (SM count x FLOP/clock/SM
# x SM clock): the SM count and maximum clock come from the driver (libcuda), the clocks, power and
# temperature from NVML, sampled while the measured runs go on (not during the warm-up). Any of it
# may fail: that field is then None and the wizard gives no percentage for it.

CU_ATTR_MULTIPROCESSOR_COUNT, CU_ATTR_CLOCK_RATE = 16, 13  # CUdevice_attribute
NVML_CLOCK_SM, NVML_TEMPERATURE_GPU = 1, 0


class GpuWatch:
    """TF's /GPU:0 (CUDA device 0) as the driver and NVML see it; `sample()` while a result runs."""

    def __init__(self) -> None:
        import ctypes

        self.ctypes = ctypes
        self.sms: int | None = None
        self.max_clock_mhz: float | None = None
        self.nvml: Any = None
        self.handle: Any = None
        bus = None
        try:
            cuda = ctypes.CDLL("libcuda.so.1")
            dev, value = ctypes.c_int(0), ctypes.c_int(0)
            if cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0:
                if cuda.cuDeviceGetAttribute(ctypes.byref(value), CU_ATTR_MULTIPROCESSOR_COUNT, dev) == 0:
                    self.sms = value.value
                if cuda.cuDeviceGetAttribute(ctypes.byref(value), CU_ATTR_CLOCK_RATE, dev) == 0:
                    self.max_clock_mhz = value.value / 1000.0  # kHz
                buf = ctypes.create_string_buffer(32)
                if cuda.cuDeviceGetPCIBusId(buf, 32, dev) == 0:
                    bus = buf.value
        except (OSError, AttributeError):
            pass
        try:
            nvml = ctypes.CDLL("libnvidia-ml.so.1")
            handle = ctypes.c_void_p()
            if (
                nvml.nvmlInit_v2() == 0
                and bus
                and nvml.nvmlDeviceGetHandleByPciBusId_v2(bus, ctypes.byref(handle)) == 0
            ):
                self.nvml, self.handle = nvml, handle
                mhz = ctypes.c_uint(0)
                if (
                    nvml.nvmlDeviceGetMaxClockInfo(handle, NVML_CLOCK_SM, ctypes.byref(mhz)) == 0
                    and mhz.value
                ):
                    self.max_clock_mhz = float(mhz.value)
        except (OSError, AttributeError):
            pass

    def _read(self) -> tuple[float | None, float | None, float | None]:
        c = self.ctypes
        clock, power, temp = c.c_uint(0), c.c_uint(0), c.c_uint(0)
        nv, h = self.nvml, self.handle
        got_clock = nv.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, c.byref(clock)) == 0
        got_power = nv.nvmlDeviceGetPowerUsage(h, c.byref(power)) == 0
        got_temp = nv.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, c.byref(temp)) == 0
        return (
            float(clock.value) if got_clock else None,
            power.value / 1000.0 if got_power else None,
            float(temp.value) if got_temp else None,
        )

    @contextmanager
    def sample(self, readings: dict[str, Any]) -> Iterator[None]:
        """Fills `readings` with the SM clock (mean, min), power (mean) and temperature (max) read
        every 20 ms while the block runs."""
        import threading

        seen: list[tuple[float | None, float | None, float | None]] = []
        stop = threading.Event()

        def loop() -> None:
            while True:
                try:
                    seen.append(self._read())
                except Exception:
                    return
                if stop.wait(0.02):
                    return

        worker = threading.Thread(target=loop, daemon=True) if self.nvml is not None else None
        if worker is not None:
            worker.start()
        try:
            yield
        finally:
            stop.set()
            if worker is not None:
                worker.join(2.0)
            clocks = [r[0] for r in seen if r[0]]
            powers = [r[1] for r in seen if r[1] is not None]
            temps = [r[2] for r in seen if r[2] is not None]
            readings.update(
                sm_count=self.sms,
                max_clock_mhz=self.max_clock_mhz,
                clock_mhz=round(statistics.mean(clocks), 1) if clocks else None,
                clock_min_mhz=min(clocks) if clocks else None,
                power_w=round(statistics.mean(powers), 1) if powers else None,
                temperature_c=max(temps) if temps else None,
                samples=len(seen),
            )


# ---- phases -----------------------------------------------------------------


def run_environment(em: Emitter, tf: Any, np: Any, want_gpu: bool) -> list[Any]:
    gpus = tf.config.list_physical_devices("GPU") if want_gpu else []
    growth = []
    for gpu in gpus:
        # Must happen before the GPU is first used; otherwise TF takes all its memory.
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
            growth.append(bool(tf.config.experimental.get_memory_growth(gpu)))
        except (RuntimeError, ValueError):
            growth.append(False)
    if not want_gpu:
        tf.config.set_visible_devices([], "GPU")
    details = []
    for gpu in gpus:
        try:
            d = tf.config.experimental.get_device_details(gpu)
        except Exception:  # details are a nice-to-have
            d = {}
        cc = d.get("compute_capability")
        details.append(
            {
                "name": gpu.name,
                "device_name": d.get("device_name"),
                "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
            }
        )
    try:
        build = {
            k: v for k, v in dict(tf.sysconfig.get_build_info()).items() if isinstance(v, (str, bool, int))
        }
    except Exception:
        build = {}
    em.result(
        "environment",
        tf_version=tf.__version__,
        numpy_version=np.__version__,
        python=platform.python_version(),
        platform=platform.platform(),
        build_info=build,
        built_with_cuda=bool(tf.test.is_built_with_cuda()),
        devices=[{"name": d.name, "type": d.device_type} for d in tf.config.list_physical_devices()],
        gpus=details,
        memory_growth=all(growth) if growth else None,
        cpu_count=os.cpu_count(),
    )
    return details


def run_sanity(em: Emitter, tf: Any, np: Any, has_gpu: bool) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 256)).astype("float32")
    b = rng.standard_normal((256, 256)).astype("float32")
    expected = a.astype("float64") @ b.astype("float64")
    devices = ["/CPU:0"] + (["/GPU:0"] if has_gpu else [])
    for i, dev in enumerate(devices):
        with _device(tf, dev):
            got = tf.linalg.matmul(tf.constant(a), tf.constant(b))
        placed = got.device
        err = float(np.max(np.abs(got.numpy() - expected)))
        # float32 over 256 terms: TF32 on Ampere+ is allowed, so be generous but not blind.
        ok = err < 0.5 and bool(np.all(np.isfinite(got.numpy())))
        em.result("sanity", device=dev, placed_on=placed, max_abs_error=err, ok=ok)
        em.progress(i + 1, len(devices), dev)
        if not ok:
            raise RuntimeError(f"matmul on {dev} differs from NumPy by {err:.3g}")


def _matmul_tf(
    tf: Any,
    np: Any,
    dev: str,
    n: int,
    dtype: str,
    chain: int,
    runs: int,
    watch: GpuWatch | None = None,
    readings: dict[str, Any] | None = None,
) -> float:
    """Median seconds for `chain` dependent n x n matmuls (so none can be elided)."""
    rng = np.random.default_rng(1)
    scale = (3.0 / n) ** 0.5  # keeps values near unit size along the chain
    a_np = rng.uniform(-1, 1, (n, n)).astype("float32")
    b_np = (rng.uniform(-1, 1, (n, n)) * scale).astype("float32")
    with _device(tf, dev):
        a = tf.cast(tf.constant(a_np), dtype)
        b = tf.cast(tf.constant(b_np), dtype)

        @tf.function
        def step(x: Any, y: Any) -> Any:
            for _ in range(chain):
                x = tf.linalg.matmul(x, y)
            return x[0, 0]  # reading one element back forces the whole chain to finish

        warm = time.perf_counter()
        step(a, b).numpy()  # warm-up: tracing, autotuning, cuBLAS handles; not in the measured time
        if readings is not None:
            readings["warmup_seconds"] = round(time.perf_counter() - warm, 4)
        if watch is None or readings is None:
            return median_time(lambda: step(a, b).numpy(), runs) / chain
        with watch.sample(readings):  # the clocks it ran at, for the measured runs only
            return median_time(lambda: step(a, b).numpy(), runs) / chain


def _matmul_numpy(np: Any, n: int, runs: int) -> float:
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype("float32")
    b = rng.uniform(-1, 1, (n, n)).astype("float32")
    a @ b  # warm-up
    return median_time(lambda: a @ b, runs)


def run_matmul(em: Emitter, tf: Any, np: Any, gpus: list[dict[str, Any]], quick: bool) -> None:
    cpu_sizes = [512, 1024] if quick else [512, 1024, 2048]
    gpu_sizes = [512, 1024] if quick else [1024, 2048, 4096, 8192]
    runs = 5 if quick else 7  # a median needs a few; a shared CI machine is noisy
    chain = 4 if quick else 10
    jobs: list[tuple[str, str, int, str | None]] = []
    for n in cpu_sizes:
        jobs += [("numpy", "float32", n, None), ("/CPU:0", "float32", n, None)]
    watch = None
    if gpus:
        cc = gpus[0].get("compute_capability") or "0.0"
        major = int(cc.split(".")[0])
        # float32 with TF32 off is FP32 on the CUDA cores; on Ampere (8.0) and later TensorFlow runs
        # a float32 matmul as TF32 by default (tensor cores), measured and named as such too.
        precisions = [("float32", "fp32")] + ([("float32", "tf32")] if major >= 8 else [])
        if major >= 6:  # fast float16 from Pascal (6.x); tensor cores from Volta (7.0)
            precisions.append(("float16", "fp16"))
        if major >= 8:  # bfloat16 tensor cores from Ampere (8.0)
            precisions.append(("bfloat16", "bf16"))
        jobs += [("/GPU:0", dt, n, p) for dt, p in precisions for n in gpu_sizes]
        watch = GpuWatch()
    for i, (dev, dtype, n, precision) in enumerate(jobs):
        readings: dict[str, Any] = {}
        if dev == "numpy":
            seconds = _matmul_numpy(np, n, runs)
        elif dev == "/GPU:0" and dtype == "float32":
            before = tf.config.experimental.tensor_float_32_execution_enabled()
            tf.config.experimental.enable_tensor_float_32_execution(precision == "tf32")
            try:
                seconds = _matmul_tf(tf, np, dev, n, dtype, chain, runs, watch, readings)
            finally:
                tf.config.experimental.enable_tensor_float_32_execution(before)
        elif dev == "/GPU:0":
            seconds = _matmul_tf(tf, np, dev, n, dtype, chain, runs, watch, readings)
        else:
            seconds = _matmul_tf(tf, np, dev, n, dtype, chain, runs)
        flops = 2.0 * n**3
        extra: dict[str, Any] = {"precision": precision, **readings} if precision else {}
        em.result(
            "matmul",
            device="numpy" if dev == "numpy" else ("GPU" if "GPU" in dev else "CPU"),
            dtype=dtype,
            n=n,
            seconds=seconds,
            tflops=flops / seconds / 1e12,
            gflops=flops / seconds / 1e9,
            runs=runs,
            chain=1 if dev == "numpy" else chain,
            **extra,
        )
        em.progress(i + 1, len(jobs), f"{dev} {precision or dtype} {n}")


def _cnn(tf: Any) -> Any:
    keras = tf.keras
    model = keras.Sequential(
        [
            keras.Input((32, 32, 3)),
            keras.layers.Conv2D(32, 3, activation="relu", padding="same"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(64, 3, activation="relu", padding="same"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    return model


def _train_rate(tf: Any, np: Any, dev: str, xla: bool, batch: int, steps: int) -> float:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((batch * steps, 32, 32, 3)).astype("float32")
    y = rng.integers(0, 10, batch * steps)
    with _device(tf, dev):
        model = _cnn(tf)
        model.compile(
            optimizer="adam",
            loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            jit_compile=xla,
        )
        warm = max(2, steps // 4)
        model.fit(x[: batch * warm], y[: batch * warm], batch_size=batch, epochs=1, verbose=0)
        started = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        seconds = time.perf_counter() - started
    return batch * steps / seconds


def run_train(em: Emitter, tf: Any, np: Any, has_gpu: bool, quick: bool, xla: bool) -> None:
    batch = 32 if quick else 128
    steps = 8 if quick else 50
    devices = ["/CPU:0"] + (["/GPU:0"] if has_gpu else [])
    rates: dict[str, float] = {}
    for i, dev in enumerate(devices):
        rate = _train_rate(tf, np, dev, xla, batch, steps)
        label = "GPU" if "GPU" in dev else "CPU"
        rates[label] = rate
        em.result("train", device=label, xla=xla, batch=batch, steps=steps, images_per_s=rate)
        em.progress(i + 1, len(devices), dev)
    if "GPU" in rates and rates.get("CPU"):
        em.result("speedup", xla=xla, gpu_vs_cpu=rates["GPU"] / rates["CPU"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="TensorFlow GPU benchmark (JSON lines on stdout)")
    parser.add_argument("--quick", action="store_true", help="small sizes and few runs (tests, CI)")
    parser.add_argument("--no-xla", action="store_true", help="skip the XLA (jit_compile) phase")
    parser.add_argument("--no-gpu", action="store_true", help="hide GPUs from TensorFlow (CPU phases only)")
    args = parser.parse_args(argv)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # The wizard's stop is SIGINT. A Python started with SIGINT ignored (a background job of a
    # non-interactive shell) never raises KeyboardInterrupt, and the stop could not say where.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    em = Emitter(_take_stdout())
    started = time.perf_counter()
    try:
        em.emit("start", schema=SCHEMA, quick=args.quick, phases=list(PHASES), pid=os.getpid())
        # The import is part of the environment phase (it takes seconds) but a
        # failure there ends the run, so it is announced by hand.
        env_started = time.perf_counter()
        em.phase = "environment"
        em.emit("phase_start", phase="environment", title=ENV_TITLE)
        try:
            import numpy as np
            import tensorflow as tf
        except Exception as exc:  # ImportError, or a broken CUDA library inside TF
            em.emit(
                "error",
                phase="environment",
                message=f"cannot import TensorFlow: {exc}",
                type=type(exc).__name__,
                fatal=True,
            )
            em.emit(
                "phase_end",
                phase="environment",
                status="failed",
                seconds=_secs(env_started),
                reason="TensorFlow cannot be imported",
            )
            em.emit("done", ok=False, seconds=_secs(started), failed=["environment"])
            return 2
        gpus: list[dict[str, Any]] = []
        with phase(em, "environment", ENV_TITLE, announce=False, started=env_started):
            gpus = run_environment(em, tf, np, want_gpu=not args.no_gpu)
        has_gpu = bool(gpus)
        with phase(em, "sanity", "A matmul on each device, checked against NumPy"):
            run_sanity(em, tf, np, has_gpu)
        with phase(em, "matmul", "Matrix multiply throughput (TFLOP/s)"):
            run_matmul(em, tf, np, gpus, args.quick)
        with phase(em, "train", "A small Keras CNN: images per second, CPU vs GPU"):
            run_train(em, tf, np, has_gpu, args.quick, xla=False)
        with phase(em, "xla", "The same CNN compiled with XLA (jit_compile=True)"):
            if args.no_xla:
                raise PhaseSkipped("--no-xla")
            run_train(em, tf, np, has_gpu, args.quick, xla=True)
    except KeyboardInterrupt:
        em.emit("error", phase=em.phase, message="interrupted", type="KeyboardInterrupt", fatal=True)
        em.emit("done", ok=False, seconds=_secs(started))
        return 130
    except Exception as exc:  # a bug in this script: still end the stream properly
        em.emit(
            "error",
            phase=em.phase,
            message=str(exc),
            type=type(exc).__name__,
            fatal=True,
            traceback=traceback.format_exc(limit=6),
        )
        em.emit("done", ok=False, seconds=_secs(started))
        return 1
    em.emit("done", ok=not em.failed, seconds=_secs(started), failed=em.failed)
    return 0 if not em.failed else 1


if __name__ == "__main__":
    sys.exit(main())
