"""tf-gpu-wizard's GPU check: can this TensorFlow train on this GPU, right now?

Standalone on purpose: standard library + TensorFlow (+ NumPy, which TensorFlow
depends on). The wizard never imports it; the plan's last step runs it once with
the new environment's Python. It:

1. compares the compute capabilities the wheel was built for
   (tf.sysconfig.get_build_info()["cuda_compute_capabilities"]) with each GPU's:
   machine code sm_XY runs on the same major with an equal or higher minor;
   otherwise PTX compute_XY (XY <= the GPU's) runs only if the driver's CUDA is at
   least the CUDA of that PTX's ISA (given with --ptx-isa compute_90=8.3);
2. lists the GPUs;
3. runs a matmul and a small Conv2D forward and backward pass on /GPU:0 and
   compares each result with the CPU's.

Output: one JSON object per line on stdout, each with a human `message`:

    {"event": "start", "check": "tf_gpu_check", "schema": 1, ...}
    {"event": "tensorflow", "version": "2.21.0", "compute_capabilities": [...], ...}
    {"event": "gpu", "index": 0, "name": "...", "compute_capability": "8.6"}
    {"event": "arch", "gpu": 0, "runs": "sass", "via": "sm_80", "ok": true, ...}
    {"event": "op", "op": "conv2d_backward", "device": "...GPU:0", "rel_error": 1e-06, "ok": true}
    {"event": "fail", "code": "ptx-driver", "message": "..."}
    {"event": "done", "ok": true, "seconds": 12.3}

A failure also ends with one plain line on stderr, `tf_gpu_check FAILED [code]: ...`,
which the wizard's doctor recognises. Exit status: 0 passed, 1 failed, 2 bad usage.

Usage: python tf_gpu_check.py [--driver-cuda 12.2] [--ptx-isa compute_90=8.3 ...]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import re
import sys
import time
from typing import Any, TextIO

SCHEMA = 1
NAME = "tf_gpu_check"
# TF32 (on by default from Ampere) keeps 10 mantissa bits: results agree with the CPU's
# to about 1e-3 of their magnitude. A wrong kernel is off by far more.
TOLERANCE = 2e-2
_ARCH = re.compile(r"^(sm|compute)_([0-9]+)([0-9])([a-z]?)$")


class CheckFailed(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Out:
    """JSON lines on the real stdout; TensorFlow's own chatter is moved to stderr."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def emit(self, event: str, message: str, **fields: Any) -> None:
        record = {"event": event, "check": NAME, "message": message, **fields}
        self.stream.write(json.dumps(record, default=str) + "\n")
        self.stream.flush()


def take_stdout() -> TextIO:
    stream: TextIO
    try:
        fd = os.dup(1)
        os.dup2(2, 1)
        stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    except OSError:
        stream = sys.stdout
    sys.stdout = sys.stderr
    return stream


# ---- the rules (pure functions; the tests call them without TensorFlow) --------------------


def parse_version(text: str | None) -> tuple[int, int] | None:
    m = re.match(r"^\s*([0-9]+)\.([0-9]+)", str(text or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_arch(text: str) -> tuple[str, tuple[int, int], bool] | None:
    """'sm_86' -> ('sm', (8, 6), False); 'compute_90a' -> ('compute', (9, 0), True); '8.0' -> both kinds."""
    text = text.strip()
    m = _ARCH.match(text)
    if m:
        return m.group(1), (int(m.group(2)), int(m.group(3))), bool(m.group(4))
    plain = parse_version(text)
    return ("both", plain, False) if plain else None


def isa_cuda(isa: tuple[int, int]) -> tuple[int, int] | None:
    """PTX ISA 7.x came with CUDA 11.x, 8.x with 12.x, 9.x with 13.x."""
    return (isa[0] + 4, isa[1]) if 7 <= isa[0] <= 9 else None


def fmt(v: tuple[int, int] | None) -> str:
    return "?" if v is None else f"{v[0]}.{v[1]}"


def arch_verdict(
    built: list[str],
    cc: tuple[int, int],
    ptx_isa: dict[str, tuple[int, int]],
    driver_cuda: tuple[int, int] | None,
) -> dict[str, Any]:
    """How a GPU of compute capability `cc` runs a wheel built for `built`:
    runs = "sass" | "ptx" (driver compiles) | "ptx-driver" (driver too old) | "none"."""
    sass, ptx = [], []
    for item in built:
        parsed = parse_arch(item)
        if parsed is None:
            continue
        kind, arch, specific = parsed
        if kind in ("sm", "both"):
            sass.append((arch, specific))
        if kind in ("compute", "both"):
            ptx.append((arch, specific))
    machine = [a for a, spec in sass if (a == cc if spec else a[0] == cc[0] and a[1] <= cc[1])]
    if machine:
        best = max(machine)
        return {"runs": "sass", "via": f"sm_{best[0]}{best[1]}", "ok": True}
    usable = [a for a, spec in ptx if (a == cc if spec else a <= cc)]
    if not usable:
        return {"runs": "none", "ok": False}
    # Each PTX arch the wizard names is the only PTX of some kernels (2.16-2.20: ~1150
    # generated kernels have sm_90a PTX only): a GPU it does not apply to cannot run them.
    missing = sorted(name for name in ptx_isa if not _applies(name, cc))
    if missing:
        return {"runs": "none", "ok": False, "missing": missing[0]}
    arch = max(usable)
    via = f"compute_{arch[0]}{arch[1]}"
    isas = [isa for name, isa in ptx_isa.items() if _applies(name, cc)]
    isa = max(isas) if isas else None
    needs = isa_cuda(isa) if isa else None
    verdict: dict[str, Any] = {"runs": "ptx", "via": via, "isa": fmt(isa), "needs_cuda": fmt(needs)}
    if needs is None or driver_cuda is None:
        verdict["ok"] = True
        verdict["unverified"] = True
    elif driver_cuda >= needs:
        verdict["ok"] = True
    else:
        verdict.update(runs="ptx-driver", ok=False)
    return verdict


def _applies(name: str, cc: tuple[int, int]) -> bool:
    parsed = parse_arch(name)
    if parsed is None:
        return False
    _, arch, specific = parsed
    return arch == cc if specific else arch <= cc


def rel_error(got: Any, want: Any) -> float:
    """max |got - want| / max |want| over two arrays of the same shape (1.0 scale for all zeros)."""
    a, b = flatten(got), flatten(want)
    if len(a) != len(b) or not all(math.isfinite(x) for x in a):
        return float("inf")
    scale = max((abs(v) for v in b), default=0.0) or 1.0
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0) / scale  # noqa: B905


def flatten(value: Any) -> list[float]:
    """A NumPy array (or nested lists) as a flat list of floats; NaN stays NaN."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    out: list[float] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            out.append(float(item))
    return out


def driver_cuda_version() -> tuple[int, int] | None:
    """The CUDA version the loaded driver supports, from libcuda itself (cuDriverGetVersion)."""
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        value = ctypes.c_int(0)
        try:
            if lib.cuDriverGetVersion(ctypes.byref(value)) == 0 and value.value > 0:
                return (value.value // 1000, (value.value % 1000) // 10)
        except (AttributeError, OSError):
            return None
    return None


# ---- the check ----------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Prove that TensorFlow computes correctly on the GPU.")
    p.add_argument("--driver-cuda", help="the driver's CUDA version (read from libcuda when it loads)")
    p.add_argument(
        "--ptx-isa",
        action="append",
        default=[],
        metavar="compute_XY=I.J",
        help="the PTX ISA of the wheel's PTX for an arch (from the wizard's harvest of the wheel)",
    )
    p.add_argument("--device", default="/GPU:0", help="the device to test (default /GPU:0)")
    args = p.parse_args(argv)
    isas = {}
    for item in args.ptx_isa:
        name, _, isa = item.partition("=")
        parsed = parse_version(isa)
        if parse_arch(name) is None or parsed is None:
            p.error(f"--ptx-isa {item!r}: expected like compute_90=8.3")
        isas[name.strip()] = parsed
    args.isas = isas
    if args.driver_cuda is not None and parse_version(args.driver_cuda) is None:
        p.error(f"--driver-cuda {args.driver_cuda!r}: expected like 12.2")
    return args


def check(out: Out, args: argparse.Namespace) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    try:
        import tensorflow as tf
    except Exception as exc:  # any import failure is the finding
        raise CheckFailed("import", f"TensorFlow does not import: {type(exc).__name__}: {exc}") from None
    info = dict(tf.sysconfig.get_build_info())
    built = [str(c) for c in info.get("cuda_compute_capabilities") or []]
    out.emit(
        "tensorflow",
        f"TensorFlow {tf.__version__}, built for {', '.join(built) or 'no GPU'}",
        version=tf.__version__,
        cuda_build=bool(info.get("is_cuda_build")),
        cuda_version=info.get("cuda_version"),
        cudnn_version=info.get("cudnn_version"),
        compute_capabilities=built,
    )
    if not tf.test.is_built_with_cuda():
        raise CheckFailed("cpu-build", f"TensorFlow {tf.__version__} here is a CPU-only build")
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        raise CheckFailed("no-gpu", "TensorFlow sees no GPU (its import log above says which library failed)")
    live = driver_cuda_version()
    driver = live or parse_version(args.driver_cuda)
    source = "libcuda" if live else "--driver-cuda" if driver else "unknown"
    failures = []
    for index, gpu in enumerate(gpus):
        details = tf.config.experimental.get_device_details(gpu)
        cc = tuple(details.get("compute_capability") or ())
        name = str(details.get("device_name", gpu.name))
        out.emit(
            "gpu",
            f"GPU {index}: {name}, compute capability {fmt(cc) if cc else '?'}",
            index=index,
            name=name,
            compute_capability=fmt(cc) if cc else None,
        )
        if len(cc) != 2:
            continue
        verdict = arch_verdict(built, (int(cc[0]), int(cc[1])), args.isas, driver)
        verdict.update(
            gpu=index, compute_capability=fmt(cc), driver_cuda=fmt(driver), driver_cuda_from=source
        )
        out.emit("arch", _arch_message(name, cc, verdict, driver), **verdict)
        if not verdict["ok"]:
            failures.append((index, name, cc, verdict))
    if failures and failures[0][0] == 0:
        _, name, cc, verdict = failures[0]
        code = "ptx-driver" if verdict["runs"] == "ptx-driver" else "arch"
        raise CheckFailed(code, _arch_message(name, cc, verdict, driver))
    tf.config.set_soft_device_placement(False)  # an op that cannot run on the GPU must fail, not move
    run_ops(out, tf, args.device)


def _arch_message(
    name: str, cc: tuple[int, ...], verdict: dict[str, Any], driver: tuple[int, int] | None
) -> str:
    cap = fmt((int(cc[0]), int(cc[1])))
    runs = verdict["runs"]
    if runs == "sass":
        return f"{name} (compute capability {cap}) runs the wheel's machine code {verdict['via']}"
    if runs == "none" and verdict.get("missing"):
        return (
            f"{name} (compute capability {cap}): the wheel has no machine code for it, and some of its"
            f" kernels carry only {verdict['missing']} PTX, which this GPU cannot run"
        )
    if runs == "none":
        return f"{name} (compute capability {cap}): the wheel has no machine code or PTX for it"
    base = (
        f"{name} (compute capability {cap}) runs the wheel's PTX {verdict['via']} (PTX ISA {verdict['isa']}),"
        f" which needs a driver for CUDA >= {verdict['needs_cuda']}; the driver supports CUDA {fmt(driver)}"
    )
    if runs == "ptx-driver":
        return base + ": update the driver"
    if verdict.get("unverified"):
        return base + " (not verified); the driver compiles it on the first start"
    return base + "; the driver compiles it on the first start (slow once, cached afterwards)"


def run_ops(out: Out, tf: Any, device: str) -> None:
    """matmul and Conv2D forward + backward on the device, each compared with the CPU's result."""

    def matmul(dev: str) -> list[Any]:
        with tf.device(dev):
            a = tf.random.stateless_uniform((512, 512), seed=(1, 2), minval=-1.0, maxval=1.0)
            b = tf.random.stateless_uniform((512, 512), seed=(3, 4), minval=-1.0, maxval=1.0)
            c = tf.matmul(a, b)
        return [c]

    def conv(dev: str) -> list[Any]:
        with tf.device(dev):
            x = tf.random.stateless_normal((8, 32, 32, 16), seed=(5, 6))
            w = tf.random.stateless_normal((3, 3, 16, 32), seed=(7, 8)) * 0.1
            with tf.GradientTape() as tape:
                tape.watch([x, w])
                y = tf.nn.conv2d(x, w, strides=1, padding="SAME")
                loss = tf.reduce_sum(y * y)
            dx, dw = tape.gradient(loss, [x, w])
        return [y, dx, dw]

    steps = [
        ("matmul", matmul, ["matmul"]),
        ("conv2d", conv, ["conv2d_forward", "conv2d_input_grad", "conv2d_filter_grad"]),
    ]
    for what, fn, names in steps:
        started = time.monotonic()
        try:
            got = fn(device)
            want = fn("/CPU:0")
        except Exception as exc:  # the error text is what the doctor reads
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise CheckFailed(
                what, f"{what} on {device} failed: {type(exc).__name__}: {first[:400]}"
            ) from None
        seconds = round(time.monotonic() - started, 3)
        for name, g, w in zip(names, got, want):  # noqa: B905 (runs on Python 3.7+: no strict=)
            placed = str(getattr(g, "device", ""))
            err = rel_error(g.numpy(), w.numpy())
            ok = "GPU" in placed.upper() or not device.upper().startswith("/GPU")
            ok = ok and err <= TOLERANCE
            where = placed or device
            message = f"{name} on {where}: relative error {err:.2e} against the CPU (limit {TOLERANCE:g})"
            out.emit("op", message, op=name, device=placed, rel_error=err, ok=ok, seconds=seconds)
            if not ok:
                raise CheckFailed("wrong-result", message)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Out(take_stdout())
    started = time.monotonic()
    out.emit("start", "checking TensorFlow on the GPU", schema=SCHEMA, python=sys.version.split()[0])
    try:
        check(out, args)
    except CheckFailed as failed:
        out.emit("fail", failed.message, code=failed.code)
        out.emit("done", "the GPU check FAILED", ok=False, seconds=round(time.monotonic() - started, 1))
        print(f"{NAME} FAILED [{failed.code}]: {failed.message}", file=sys.stderr, flush=True)
        return 1
    out.emit("done", "the GPU check passed", ok=True, seconds=round(time.monotonic() - started, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
