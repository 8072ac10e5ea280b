"""The benchmark for real: TensorFlow (CPU) in a venv, every JSON line validated.

The venv is cached under ~/.cache/tf-gpu-wizard-tests/ keyed by Python version
(TensorFlow is hundreds of MB); a `.complete` marker is written only after the
install succeeded, so an interrupted install is rebuilt, not trusted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from wizard.bench.events import parse_event
from wizard.bench.runner import BenchRun, script_path

CACHE = Path(os.environ.get("TF_GPU_WIZARD_TEST_CACHE", Path.home() / ".cache" / "tf-gpu-wizard-tests"))


def _bin(env: Path) -> Path:
    return env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def tensorflow_venv() -> Path:
    """The cached venv's Python, building it the first time (several minutes)."""
    key = f"tf-cpu-py{sys.version_info.major}.{sys.version_info.minor}"
    CACHE.mkdir(parents=True, exist_ok=True)
    # Two xdist workers may ask at once: without the lock the second deleted the first's half-built
    # venv, whose tensorflow-cpu install then failed and fell back to the CUDA build beside it.
    with (CACHE / f"{key}.lock").open("w") as lock:
        if os.name != "nt":
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        return _built(CACHE / key)


def _built(env: Path) -> Path:
    if (env / ".complete").exists() and _bin(env).exists():
        return _bin(env)
    shutil.rmtree(env, ignore_errors=True)
    env.parent.mkdir(parents=True, exist_ok=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(env)
    py = str(_bin(env))
    # tensorflow-cpu is the smaller wheel where it exists (Linux/Windows x86_64);
    # elsewhere plain tensorflow is the CPU build anyway.
    for package in ("tensorflow-cpu", "tensorflow"):
        done = subprocess.run([py, "-m", "pip", "install", "-q", package], check=False, timeout=1800)
        if done.returncode == 0:
            break
    else:
        pytest.fail("could not pip install tensorflow-cpu or tensorflow into the test venv")
    (env / ".complete").write_text(package + "\n")
    return _bin(env)


@pytest.fixture(scope="module")
def tf_python() -> Path:
    return tensorflow_venv()


@pytest.mark.slow
def test_script_output_is_all_valid_events(tf_python: Path) -> None:
    with script_path() as script:
        done = subprocess.run(
            [str(tf_python), str(script), "--quick"],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
        )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    events = [parse_event(line) for line in lines]  # raises on the first invalid line
    assert events[0].event == "start" and events[-1].event == "done", done.stderr[-2000:]
    assert events[-1].raw["ok"] is True, [e.raw for e in events if e.event == "error"]
    assert done.returncode == 0
    phases = {e.phase: e.raw["status"] for e in events if e.event == "phase_end"}
    assert phases == {"environment": "ok", "sanity": "ok", "matmul": "ok", "train": "ok", "xla": "ok"}


@pytest.mark.slow
def test_tensorflow_matmul_is_in_numpys_league(tf_python: Path) -> None:
    run = BenchRun(tf_python, quick=True, xla=False, timeout=900)
    events = list(run.events())
    report = run.report
    assert report.ok, (report.errors, list(run.stderr_tail)[-20:])
    assert report.invalid_lines == []
    env = report.environment or {}
    rows = [(r.device, r.dtype, r.n, round(r.tflops * 1e3, 1)) for r in report.matmul]
    ratio = report.tf_vs_numpy()
    summary = {
        "tensorflow": env.get("tf_version"),
        "numpy": env.get("numpy_version"),
        "devices": env.get("devices"),
        "matmul_gflops": rows,
        "tf_over_numpy": ratio,
        "cnn_cpu_images_per_s": report.train_rate("CPU"),
        "events": len(events),
        "seconds": report.seconds,
    }
    print("\nreal benchmark:", json.dumps(summary, indent=1))
    # Within 3x on a quiet machine; the phases run one after another, so the other test workers of
    # a loaded CI machine can slow one and not the other (0.33 seen; 6.6 with numpy's phase slowed):
    # a broken TensorFlow is 10x slower, and a timing that does not wait for the result 100x faster.
    assert ratio is not None and 1 / 5 <= ratio <= 10
    assert report.sanity and all(s["ok"] for s in report.sanity)
    assert report.train_rate("CPU")
