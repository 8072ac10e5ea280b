"""tf-gpu-wizard's GPU check: can this TensorFlow train on this GPU, right now?

Standalone on purpose: standard library + TensorFlow (+ NumPy, which TensorFlow
depends on). The wizard never imports it; the plan's last step runs it once with
the new environment's Python. It:

1. compares the compute capabilities the wheel was built for
   (tf.sysconfig.get_build_info()["cuda_compute_capabilities"]) with each GPU's:
   machine code sm_XY runs on the same major with an equal or higher minor;
   otherwise PTX compute_XY (XY <= the GPU's) runs only if the driver's CUDA is at
   least the CUDA of that PTX's ISA (given with --ptx-isa compute_90=8.3);
2. lists every GPU the driver has (libcuda through ctypes: /usr/lib/wsl/lib/libcuda.so.1 in
   WSL2, else libcuda.so.1; nvidia-smi when it does not load) beside the ones TensorFlow uses:
   a GPU TensorFlow leaves out (it skips GPUs it has no code for) fails the check;
3. on every GPU, runs a matmul and a small Conv2D forward and backward pass, each compared with
   the CPU's result (an op TensorFlow silently ran on the CPU fails, and says so); then trains a
   small Keras model with jit_compile=False, and runs an XLA-compiled function in a child process
   (tf_train_probe.py beside this file: an XLA that cannot target the GPU aborts the process).
   Where the wizard predicts that abort (--xla-limit 12.0=8.5<8.7: XLA writes PTX 8.5, sm_120
   needs 8.7), that abort is a named limit ("use jit_compile=False") and the check passes on the
   rest; any other XLA failure fails the check, and an XLA that works says so.
The driver's CUDA version is read from libcuda (or nvidia-smi) when --driver-cuda is not given.
Where a GPU runs only PTX, the first start compiles it: a line says so, a heartbeat follows, and
--time-limit bounds it.

Output: one JSON object per line on stdout, each with a human `message`:

    {"event": "start", "check": "tf_gpu_check", "schema": 1, ...}
    {"event": "tensorflow", "version": "2.21.0", "compute_capabilities": [...], ...}
    {"event": "gpu", "index": 0, "name": "...", "compute_capability": "8.6"}
    {"event": "arch", "gpu": 0, "runs": "sass", "via": "sm_80", "ok": true, ...}
    {"event": "driver", "cuda": "12.6", "from": "libcuda", "gpus": [...]}
    {"event": "op", "op": "conv2d_input_grad", "device": "...GPU:0", "rel_error": 1e-06, "ok": true}
    {"event": "jit", "gpu": 0, "via": "compute_90", "limit_s": 1800, "message": "compiling ..."}
    {"event": "fit", "device": "...GPU:0", "loss": [...], "ok": true, "jit_compile": false}
    {"event": "limit", "code": "xla-sm", "gpu": 0, "message": "XLA cannot compile ... jit_compile=False"}
    {"event": "fail", "code": "ptx-driver", "message": "..."}
    {"event": "done", "ok": true, "seconds": 12.3}

A failure also ends with one plain line on stderr, `tf_gpu_check FAILED [code]: ...`,
which the wizard's doctor recognises; an op that fails on a GPU names the GPUs and the driver's
CUDA at its end, since a CUDA error alone (CUDA_ERROR_INVALID_PTX) has more than one cause.
Exit status: 0 passed, 1 failed, 2 bad usage.

Usage: python tf_gpu_check.py [--driver-cuda 12.2] [--ptx-isa compute_90=8.3 ...] [--expect-gpus N]
                              [--time-limit SECONDS] [--xla-limit 12.0=8.5<8.7 ...]
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
from typing import Any, TextIO

SCHEMA = 1
NAME = "tf_gpu_check"
# TF32 (on by default from Ampere) keeps 10 mantissa bits: results agree with the CPU's
# to about 1e-3 of their magnitude. A wrong kernel is off by far more.
TOLERANCE = 2e-2
_ARCH = re.compile(r"^(sm|compute)_([0-9]+)([0-9])([a-z]?)$")
# WSL2: the Windows driver's libcuda; a Linux libcuda inside WSL2 would be the wrong one.
WSL_LIBCUDA = "/usr/lib/wsl/lib/libcuda.so.1"
WSL_NVIDIA_SMI = "/usr/lib/wsl/lib/nvidia-smi"
# The first start of a PTX-only GPU can compile for many minutes; past this, it is a failure.
TIME_LIMIT = 1800
HEARTBEAT = 30


class CheckFailed(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.context = ""  # the GPUs and the driver, for the stderr line of an op's failure


class Out:
    """JSON lines on the real stdout; TensorFlow's own chatter is moved to stderr."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()  # the watchdog writes too

    def emit(self, event: str, message: str, **fields: Any) -> None:
        record = {"event": event, "check": NAME, "message": message, **fields}
        with self.lock:
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
    flatten = beside("tf_train_probe").flatten  # one flatten, shared with the training proofs
    a, b = flatten(got), flatten(want)
    if len(a) != len(b) or not all(math.isfinite(x) for x in a):
        return float("inf")
    scale = max((abs(v) for v in b), default=0.0) or 1.0
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0) / scale  # noqa: B905


def beside(name: str) -> Any:
    """Our program `name` (tf_train_probe, tf_cuda_libs) imported from beside this file, where
    plan.programs.NEEDS ships it; ImportError where it is not there."""
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module(name)


def load_libcuda() -> Any:
    """The driver's libcuda: WSL2's own first (a Linux one inside WSL2 would be the wrong one)."""
    names = [WSL_LIBCUDA] if os.path.exists(WSL_LIBCUDA) else []
    for name in [*names, "libcuda.so.1", "libcuda.so", "nvcuda.dll"]:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def libcuda_facts(lib: Any) -> tuple[tuple[int, int] | None, list[tuple[str, tuple[int, int]]] | None]:
    """(the CUDA version the driver supports, [(GPU name, compute capability)]) from libcuda."""
    cuda = None
    value = ctypes.c_int(0)
    try:
        if lib.cuDriverGetVersion(ctypes.byref(value)) == 0 and value.value > 0:
            cuda = (value.value // 1000, (value.value % 1000) // 10)
        if lib.cuInit(0) != 0:
            return cuda, None
        count = ctypes.c_int(0)
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return cuda, None
        gpus = []
        for index in range(count.value):
            dev, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
            name = ctypes.create_string_buffer(256)
            if lib.cuDeviceGet(ctypes.byref(dev), index) != 0:
                return cuda, None
            lib.cuDeviceGetName(name, 256, dev)
            lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # COMPUTE_CAPABILITY_MAJOR
            lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)  # COMPUTE_CAPABILITY_MINOR
            gpus.append((name.value.decode("utf-8", "replace"), (major.value, minor.value)))
        return cuda, gpus
    except (AttributeError, OSError, ValueError):
        return cuda, None


def nvidia_smi_facts() -> tuple[tuple[int, int] | None, list[tuple[str, tuple[int, int]]] | None]:
    """The same from nvidia-smi's header and --query-gpu (a driver whose libcuda did not load)."""
    exe = WSL_NVIDIA_SMI if os.path.exists(WSL_NVIDIA_SMI) else "nvidia-smi"
    try:
        head = subprocess.run([exe], capture_output=True, text=True, timeout=20).stdout
        rows = subprocess.run(
            [exe, "--query-gpu=name,compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    m = re.search(r"CUDA Version:\s*([0-9]+)\.([0-9]+)", head)
    cuda = (int(m.group(1)), int(m.group(2))) if m else None
    gpus = []
    for row in rows.splitlines():
        name, _, cap = row.rpartition(",")
        parsed = parse_version(cap)
        if not name.strip() or parsed is None:
            gpus = []
            break
        gpus.append((name.strip(), parsed))
    return cuda, gpus or None


def driver_facts() -> dict[str, Any]:
    """What the driver says: its CUDA version and every GPU, and where each came from."""
    cuda, gpus, source = None, None, None
    lib = load_libcuda()
    if lib is not None:
        cuda, gpus = libcuda_facts(lib)
        source = "libcuda" if cuda or gpus else None
    if cuda is None or gpus is None:
        smi_cuda, smi_gpus = nvidia_smi_facts()
        if cuda is None and smi_cuda is not None:
            cuda, source = smi_cuda, source or "nvidia-smi"
        if gpus is None and smi_gpus is not None:
            gpus, source = smi_gpus, source or "nvidia-smi"
    return {"cuda": cuda, "gpus": gpus, "source": source}


def driver_cuda_version() -> tuple[int, int] | None:
    """The CUDA version the loaded driver supports (libcuda's cuDriverGetVersion, else nvidia-smi)."""
    return driver_facts()["cuda"]


def left_out(
    driver_gpus: list[tuple[str, tuple[int, int]]], tf_gpus: list[tuple[str, tuple[int, int]]]
) -> list[int]:
    """Indexes of the driver's GPUs TensorFlow does not list (matched by name and capability)."""
    unmatched = list(tf_gpus)
    out = []
    for index, gpu in enumerate(driver_gpus):
        if gpu in unmatched:
            unmatched.remove(gpu)
        else:
            out.append(index)
    # Names can differ in form between the driver and TensorFlow: then only the count tells.
    return out if len(driver_gpus) - len(out) == len(tf_gpus) else list(range(len(tf_gpus), len(driver_gpus)))


class Watchdog:
    """A heartbeat while the ops run (the first start of a PTX-only GPU compiles for minutes), and
    a failure at the time limit: a compile that does not end must not hang the plan."""

    def __init__(self, out: Out, limit: float, compiling: bool) -> None:
        self.out, self.limit, self.compiling = out, limit, compiling
        self.started = time.monotonic()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def __enter__(self) -> Watchdog:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()

    def watch(self) -> None:
        while not self.done.wait(min(HEARTBEAT, self.limit)):
            waited = time.monotonic() - self.started
            if waited >= self.limit:
                what = "compiling PTX" if self.compiling else "running the GPU ops"
                message = f"still {what} after {waited:.0f} s (limit {self.limit:g} s): stopped"
                self.out.emit("fail", message, code="time-limit")
                self.out.emit("done", "the GPU check FAILED", ok=False, seconds=round(waited, 1))
                print(f"{NAME} FAILED [time-limit]: {message}", file=sys.stderr, flush=True)
                os._exit(1)
            if self.compiling:
                message = f"compiling for your GPU, expect 10-30 min, once: {waited / 60:.1f} min so far"
            else:
                message = f"still running ({waited:.0f} s)"
            self.out.emit("heartbeat", message, seconds=round(waited))


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
    p.add_argument("--device", help="test only this device (default: every GPU)")
    _wheel_fact_args(p)
    p.add_argument("--expect-gpus", type=int, help="GPUs the machine has (when the driver cannot say)")
    p.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT,
        help="seconds the ops may take, a first-start PTX compile included (default %(default)s)",
    )
    p.add_argument(
        "--xla-limit",
        action="append",
        default=[],
        metavar="CC=ISA<NEED",
        help="the wizard predicts that this TensorFlow's XLA, which writes PTX ISA ISA, cannot compile"
        " for compute capability CC (whose target needs PTX NEED)",
    )
    args = p.parse_args(argv)
    args.xla_limits = parse_xla_limits(p, args.xla_limit)
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


def parse_xla_limits(p: argparse.ArgumentParser, items: list[str]) -> dict[tuple[int, int], tuple[str, str]]:
    limits = {}
    for item in items:
        m = re.fullmatch(r"\s*([0-9]+\.[0-9]+)=([0-9]+\.[0-9]+)<([0-9]+\.[0-9]+)\s*", item)
        cc = parse_version(m.group(1)) if m else None
        if not m or cc is None:
            p.error(f"--xla-limit {item!r}: expected like 12.0=8.5<8.7")
        limits[cc] = (m.group(2), m.group(3))
    return limits


def check(out: Out, args: argparse.Namespace) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    try:
        import tensorflow as tf
    except Exception as exc:  # any import failure is the finding
        raise CheckFailed("import", f"TensorFlow does not import: {type(exc).__name__}: {exc}") from None
    info = dict(tf.sysconfig.get_build_info())
    built, facts_from = wheel_facts(info, args)
    out.emit(
        "tensorflow",
        f"TensorFlow {tf.__version__}, built for {', '.join(built) or 'no GPU'}"
        + (" (from the wizard's harvest of the wheel: its build info does not say)" if facts_from else ""),
        version=tf.__version__,
        cuda_build=bool(info.get("is_cuda_build")),
        cuda_version=info.get("cuda_version") or args.wheel_cuda,
        cudnn_version=info.get("cudnn_version"),
        compute_capabilities=built,
        facts_from=facts_from or "build_info",
    )
    if not tf.test.is_built_with_cuda():
        raise CheckFailed("cpu-build", f"TensorFlow {tf.__version__} here is a CPU-only build")
    gpus = tf.config.list_physical_devices("GPU")
    cuda_libs_load(out, args)  # a library that does not load is named before "no GPU" is said
    if not gpus:
        raise CheckFailed("no-gpu", "TensorFlow sees no GPU (its import log above says which library failed)")
    facts = driver_facts()
    given = parse_version(args.driver_cuda)
    # The driver itself is the truth; the plan's figure is for when it cannot be read here.
    driver = facts["cuda"] or given
    source = facts["source"] if facts["cuda"] else "--driver-cuda" if given else "unknown"
    out.emit(
        "driver",
        f"the driver supports CUDA {fmt(driver)} ({source})"
        + (f"; it has {len(facts['gpus'])} GPU(s)" if facts["gpus"] is not None else ""),
        cuda=fmt(driver) if driver else None,
        cuda_from=source,
        gpus=[{"name": n, "compute_capability": fmt(c)} for n, c in facts["gpus"] or []],
    )
    failures = []
    seen: list[tuple[str, tuple[int, int]]] = []
    compiling = []
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
        seen.append((name, (int(cc[0]), int(cc[1]))))
        verdict = arch_verdict(built, (int(cc[0]), int(cc[1])), args.isas, driver)
        verdict.update(
            gpu=index, compute_capability=fmt(cc), driver_cuda=fmt(driver), driver_cuda_from=source
        )
        out.emit("arch", _arch_message(name, cc, verdict, driver), **verdict)
        if not verdict["ok"]:
            failures.append((index, name, cc, verdict))
        elif verdict["runs"] == "ptx":
            compiling.append((index, name, verdict["via"]))
    if failures:
        index, name, cc, verdict = failures[0]
        code = "ptx-driver" if verdict["runs"] == "ptx-driver" else "arch"
        raise CheckFailed(code, f"GPU {index}: " + _arch_message(name, cc, verdict, driver))
    _every_gpu_used(out, facts["gpus"], seen, built, args, driver)
    tf.config.set_soft_device_placement(False)  # an op that cannot run on the GPU must fail, not move
    for index, name, via in compiling:
        out.emit(
            "jit",
            f"compiling for your GPU, expect 10-30 min, once: GPU {index} ({name}) runs PTX {via}, which"
            f" the driver compiles into its cache on this first start (limit {args.time_limit:g} s);"
            " later starts take seconds",
            gpu=index,
            via=via,
            limit_s=args.time_limit,
        )
    devices = [args.device] if args.device else [f"/GPU:{i}" for i in range(len(gpus))]
    context = "; ".join(f"GPU {i}: {name}, compute capability {fmt(cc)}" for i, (name, cc) in enumerate(seen))
    context += f"; the driver supports CUDA {fmt(driver) if driver else '?'}"
    try:
        with Watchdog(out, args.time_limit, bool(compiling)):
            for dev in devices:
                run_ops(out, tf, dev)
            for dev in devices:
                train_proofs(out, tf, dev, _device_cc(dev, seen), args)
    except CheckFailed as failed:
        failed.context = context
        raise


def _every_gpu_used(
    out: Out,
    driver_gpus: list[tuple[str, tuple[int, int]]] | None,
    seen: list[tuple[str, tuple[int, int]]],
    built: list[str],
    args: argparse.Namespace,
    driver: tuple[int, int] | None,
) -> None:
    """A GPU the machine has and TensorFlow leaves out (no code for it) fails the check."""
    if driver_gpus is not None and len(driver_gpus) > len(seen):
        index = left_out(driver_gpus, seen)[0]
        name, cc = driver_gpus[index]
        verdict = arch_verdict(built, cc, args.isas, driver)
        why = _arch_message(name, cc, verdict, driver) if not verdict["ok"] else f"{name} ({fmt(cc)})"
        raise CheckFailed(
            "gpu-left-out",
            f"the driver has {len(driver_gpus)} GPUs, TensorFlow uses {len(seen)}: GPU {index}, {why}",
        )
    if driver_gpus is None and args.expect_gpus and args.expect_gpus > len(seen):
        raise CheckFailed(
            "gpu-left-out",
            f"this machine has {args.expect_gpus} GPUs, TensorFlow uses {len(seen)}: the others have no code"
            " in this TensorFlow, or are hidden (CUDA_VISIBLE_DEVICES)",
        )


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


# ---- i37a: the wheel's facts from the harvest, the CUDA libraries from the environment ------


def _wheel_fact_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--built-for",
        default="",
        metavar="sm_60,...,compute_90",
        help="the wheel's compute capabilities (the wizard's harvest), used when its build info names none",
    )
    p.add_argument(
        "--wheel-cuda", help="the wheel's CUDA version from the harvest (its build info may not say)"
    )
    p.add_argument(
        "--cuda-lib",
        action="append",
        default=[],
        metavar="PACKAGE/LIBRARY",
        help="a library to prove, in site-packages/nvidia/PACKAGE/lib (cusolver/libcusolver); default:"
        " those of the installed nvidia-* wheels TensorFlow asks for",
    )


def wheel_facts(info: dict[str, Any], args: argparse.Namespace) -> tuple[list[str], str]:
    """The compute capabilities the wheel was built for: build info's, else the harvest's (2.22.0rc0's
    build info lists none); and "harvest" when they came from there."""
    built = [str(c) for c in info.get("cuda_compute_capabilities") or []]
    if built or not args.built_for:
        return built, ""
    return [c.strip() for c in args.built_for.split(",") if c.strip()], "harvest"


def cuda_libs_load(out: Out, args: argparse.Namespace) -> None:
    """Every CUDA library the plan installed loads from the environment (tf_cuda_libs.py, beside
    this file); the one that does not is named, with the folders searched for it."""
    if sys.platform != "linux":
        return  # the nvidia-* wheels and their RUNPATHs are Linux's
    try:
        tf_cuda_libs = beside("tf_cuda_libs")
    except ImportError:
        raise CheckFailed("cuda-lib", "tf_cuda_libs.py is missing beside this program: copy both") from None

    try:
        tf_cuda_libs.probe(args.cuda_lib or None, out.emit)
    except tf_cuda_libs.LibFailed as failed:
        looked = "; ".join(failed.looked[:12])
        out.emit("lib", failed.message, name=failed.library, looked=failed.looked, ok=False)
        raise CheckFailed("cuda-lib", f"{failed.message} (looked in: {looked})") from None


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
            on_gpu = "GPU" in placed.upper() or not device.upper().startswith("/GPU")
            where = placed or device
            if not on_gpu:
                # The same CPU on both sides agrees with itself: an error of 0 would prove nothing.
                message = f"{name} ran on the CPU ({where}), not on {device}: TensorFlow moved it there"
                out.emit("op", message, op=name, device=placed, on_gpu=False, ok=False, seconds=seconds)
                raise CheckFailed("cpu-placement", message)
            ok = err <= TOLERANCE
            message = f"{name} on {where}: relative error {err:.2e} against the CPU (limit {TOLERANCE:g})"
            out.emit("op", message, op=name, device=placed, rel_error=err, ok=ok, seconds=seconds)
            if not ok:
                raise CheckFailed("wrong-result", message)


def _device_cc(device: str, seen: list[tuple[str, tuple[int, int]]]) -> tuple[int, int] | None:
    m = re.search(r"GPU:([0-9]+)$", device.upper())
    index = int(m.group(1)) if m else -1
    return seen[index][1] if 0 <= index < len(seen) else None


def train_proofs(
    out: Out, tf: Any, device: str, cc: tuple[int, int] | None, args: argparse.Namespace
) -> None:
    """A Keras fit without XLA, then XLA in a child (tf_train_probe.py): what trains, proved; an
    XLA abort the wizard predicted is a named limit, any other XLA failure fails the check."""
    probe = beside("tf_train_probe")
    started = time.monotonic()
    tf.config.set_soft_device_placement(True)  # Keras keeps its input pipeline on the CPU
    try:
        result = probe.keras_fit(tf, device)
    except Exception as exc:  # the error text is what the doctor reads
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise CheckFailed(
            "keras-fit", f"a Keras fit on {device} failed: {type(exc).__name__}: {first[:400]}"
        ) from None
    finally:
        tf.config.set_soft_device_placement(False)
    ok, why = probe.fit_verdict(result, device)
    message = f"a Keras model trained on {result['device'] or device} with jit_compile=False: {why}"
    out.emit("fit", message, jit_compile=False, ok=ok, seconds=round(time.monotonic() - started, 3), **result)
    if not ok:
        raise CheckFailed("keras-fit", message)
    _xla_proof(out, probe, device, cc, args)


def _xla_proof(
    out: Out, probe: Any, device: str, cc: tuple[int, int] | None, args: argparse.Namespace
) -> None:
    limit = args.xla_limits.get(cc) if cc else None
    started = time.monotonic()
    got = probe.probe_xla(device, args.time_limit)
    seconds = round(time.monotonic() - started, 3)
    outcome = got["outcome"]
    if outcome == "ran":
        err = rel_error(got.get("got", []), got.get("want", []))
        placed = str(got.get("device", ""))
        on_gpu = "GPU" in placed.upper() or not device.upper().startswith("/GPU")
        ok = err <= TOLERANCE and on_gpu
        message = (
            f"xla_dense on {placed or device}: relative error {err:.2e} against the CPU (limit {TOLERANCE:g})"
        )
        if limit:
            message += f"; XLA compiles for compute capability {fmt(cc)} with this TensorFlow after all"
        out.emit("op", message, op="xla_dense", device=placed, rel_error=err, ok=ok, seconds=seconds)
        if not on_gpu:
            raise CheckFailed("cpu-placement", f"xla_dense ran on {placed or '?'}, not on {device}")
        if not ok:
            raise CheckFailed("wrong-result", message)
        return
    if outcome == "raised":
        raise CheckFailed("xla", f"xla on {device} failed: {got.get('error', '?')}")
    if outcome == "timeout":
        raise CheckFailed("time-limit", f"XLA on {device} did not finish in {args.time_limit:g} s")
    llvm, ptx = got.get("llvm"), got.get("ptx")
    sm = f"{cc[0]}{cc[1]}" if cc else None
    if limit and ptx and ptx.get("sm") == sm and ptx.get("isa") == limit[0]:
        tf_version = getattr(sys.modules.get("tensorflow"), "__version__", "?")
        message = (
            f"XLA cannot compile for this GPU (compute capability {fmt(cc)}) with TensorFlow {tf_version}:"
            f" it writes PTX {ptx['isa']} and sm_{sm} needs PTX {ptx['needs']}, so a compile aborts the"
            " program. Everything else trains on the GPU: in Keras use"
            " model.compile(..., jit_compile=False)"
        )
        out.emit(
            "limit",
            message,
            code="xla-sm",
            gpu=device,
            compute_capability=fmt(cc),
            llvm=llvm,
            jit_compile=False,
            seconds=seconds,
        )
        return
    what = llvm or "; ".join(got.get("stderr_tail") or []) or f"exit status {got.get('returncode')}"
    raise CheckFailed(
        "xla", f"XLA on {device} killed its process (exit status {got.get('returncode')}): {what[:400]}"
    )


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
        where = f" (on {failed.context})" if failed.context else ""
        print(f"{NAME} FAILED [{failed.code}]: {failed.message}{where}", file=sys.stderr, flush=True)
        return 1
    out.emit("done", "the GPU check passed", ok=True, seconds=round(time.monotonic() - started, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
