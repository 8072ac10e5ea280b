"""Two proofs for tf_gpu_check.py, kept apart from it: a Keras fit without XLA, and XLA in a child.

Standalone (standard library + TensorFlow), like the check that imports it from beside itself.

- `keras_fit(tf, device)`: a small Keras model trained on `device` with `jit_compile=False`
  (Keras 3 compiles with XLA by default on a GPU; without XLA every op is one of TensorFlow's own
  kernels, so this is what trains where XLA cannot compile). The weights must be on the device
  and the loss must fall.
- `probe_xla(device, time_limit)`: an XLA-compiled function (tf.function(jit_compile=True)) run in
  a CHILD process, since an XLA that cannot target the GPU aborts the whole process (LLVM: "PTX
  version 8.5 does not support target 'sm_120'", tensorflow/tensorflow#111958): no exception to
  catch. The result says what happened: it ran (and agreed with the CPU), it raised, or the
  process died (its signal and the LLVM line, when stderr has one).

Run as a program, it is that child: `python tf_train_probe.py xla DEVICE` prints one JSON line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

# "LLVM ERROR: PTX version 8.5 does not support target 'sm_120' (or 'sm_120a'). Minimum required
# PTX version is 8.7" (LLVM 20+); older LLVM: "ptx87 is required for target sm_120".
LLVM_PTX = re.compile(
    r"PTX version ([0-9]+)\.([0-9]+) does not support target 'sm_([0-9]+)[a-z]?'.*?"
    r"Minimum required PTX version is ([0-9]+)\.([0-9]+)"
)
LLVM_ERROR = re.compile(r"LLVM ERROR:[^\n]*")


def keras_fit(tf: Any, device: str) -> dict[str, Any]:
    """Train ten epochs on `device` without XLA; the facts a check needs to judge it. The weights
    start from a fixed seed and the easy problem gets enough steps: three epochs from a random start
    once ended below the bar (accuracy 0.67) on a TensorFlow that trains fine."""
    keras = tf.keras
    tf.random.set_seed(0)
    seed_all = getattr(getattr(keras, "utils", None), "set_random_seed", None)
    if seed_all is not None:
        seed_all(0)
    with tf.device(device):
        x = tf.random.stateless_normal((2048, 16), seed=(13, 14))
        w = tf.random.stateless_normal((16, 1), seed=(15, 16))
        y = tf.cast(tf.matmul(x, w) > 0, tf.float32)
        model = keras.Sequential(
            [
                keras.Input(shape=(16,)),
                keras.layers.Dense(32, activation="relu"),
                keras.layers.Dense(1, activation="sigmoid"),
            ]
        )
        model.compile(
            optimizer=_adam(tf), loss="binary_crossentropy", metrics=["accuracy"], jit_compile=False
        )
        history = model.fit(x, y, epochs=10, batch_size=128, verbose=0)
    kernel = model.layers[0].kernel  # Keras 3 wraps the tf.Variable (.value); Keras 2 does not
    where = str(getattr(getattr(kernel, "value", kernel), "device", "") or "")
    losses = [float(v) for v in history.history.get("loss", [])]
    accuracy = [float(v) for v in history.history.get("accuracy", [])]
    return {"device": where, "loss": losses, "accuracy": accuracy[-1] if accuracy else None}


def _adam(tf: Any) -> Any:
    """Adam without XLA: Keras 2 (TF 2.15 and older) compiles its optimizers with XLA on a GPU
    unless told; Keras 3 takes no such argument (the model's jit_compile decides)."""
    try:
        return tf.keras.optimizers.Adam(jit_compile=False)
    except (TypeError, ValueError):
        return tf.keras.optimizers.Adam()


def fit_verdict(result: dict[str, Any], device: str) -> tuple[bool, str]:
    """(ok, why): on the device asked for, the loss fell, and it learned (the problem is easy)."""
    where, losses, accuracy = result.get("device", ""), result.get("loss", []), result.get("accuracy")
    if device.upper().startswith("/GPU") and "GPU" not in where.upper():
        return False, f"the model's weights are on {where or '?'}, not on {device}"
    if len(losses) < 2 or not all(v == v for v in losses) or losses[-1] >= losses[0]:
        return False, f"the loss did not fall ({', '.join(f'{v:.3f}' for v in losses) or 'none'})"
    if accuracy is None or accuracy < 0.7:
        return False, f"it did not learn (accuracy {accuracy})"
    return True, f"loss {losses[0]:.3f} -> {losses[-1]:.3f}, accuracy {accuracy:.2f}"


def probe_xla(device: str, time_limit: float) -> dict[str, Any]:
    """Run the XLA probe in a child; never raises. `outcome`: ran | raised | died | timeout."""
    argv = [sys.executable, os.path.abspath(__file__), "xla", device]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=time_limit, check=False)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "seconds": time_limit}
    except OSError as exc:
        return {"outcome": "died", "returncode": None, "llvm": None, "error": str(exc)}
    result = None
    for line in reversed(done.stdout.splitlines()):
        try:
            result = json.loads(line)
            break
        except ValueError:
            continue
    if done.returncode == 0 and isinstance(result, dict):
        return {"outcome": "ran", **result}
    if isinstance(result, dict) and result.get("error"):
        return {"outcome": "raised", **result}
    llvm = LLVM_ERROR.search(done.stderr)
    tail = [line for line in done.stderr.splitlines() if line.strip()][-3:]
    return {
        "outcome": "died",
        "returncode": done.returncode,
        "llvm": llvm.group(0).strip() if llvm else None,
        "ptx": llvm_ptx(done.stderr),
        "stderr_tail": tail,
    }


def llvm_ptx(text: str) -> dict[str, str] | None:
    """The LLVM refusal's facts: the PTX XLA wrote, the target and the PTX that target needs."""
    m = LLVM_PTX.search(text)
    if not m:
        return None
    return {"isa": f"{m.group(1)}.{m.group(2)}", "sm": m.group(3), "needs": f"{m.group(4)}.{m.group(5)}"}


def _child(device: str) -> int:
    """The child: an XLA-compiled dense layer on `device` and on the CPU, one JSON line."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # TensorFlow's chatter to stderr; the result alone on stdout
    import tensorflow as tf

    @tf.function(jit_compile=True)
    def dense(x: Any, w: Any) -> Any:
        return tf.nn.relu(tf.matmul(x, w)) + 1.0

    def run(dev: str) -> Any:
        with tf.device(dev):
            x = tf.random.stateless_uniform((256, 128), seed=(9, 10), minval=-1.0, maxval=1.0)
            w = tf.random.stateless_uniform((128, 64), seed=(11, 12), minval=-1.0, maxval=1.0)
            return dense(x, w)

    try:
        got = run(device)
        want = run("/CPU:0")
        record = {
            "device": str(getattr(got, "device", "")),
            "got": flatten(got.numpy()),
            "want": flatten(want.numpy()),
        }
    except Exception as exc:  # the error text is what the check reports
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        out.write(json.dumps({"error": f"{type(exc).__name__}: {first[:400]}"}) + "\n")
        return 1
    out.write(json.dumps(record) + "\n")
    return 0


def flatten(value: Any) -> list[float]:
    """A NumPy array (or nested lists) as a flat list of floats; NaN stays NaN (tf_gpu_check.py's too)."""
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


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "xla":
        print("usage: python tf_train_probe.py xla DEVICE", file=sys.stderr)
        sys.exit(2)
    sys.exit(_child(sys.argv[2]))
