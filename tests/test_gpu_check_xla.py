"""The verify on an RTX 50 (issue 33): XLA probed in a child that really aborts, a Keras fit
without XLA, and kernel failures that stay failures.

tests/fake_tf plays the machine: with FAKE_TF_FAULT=xla-abort its XLA writes the LLVM line of
tensorflow/tensorflow#111958 to stderr and calls os.abort() (SIGABRT, the process dies: nothing
to catch); with invalid-handle every GPU op raises CUDA_ERROR_INVALID_HANDLE (TF 2.16-2.20's
kernel_gen kernels on Blackwell). The plan's own arguments come from the resolver.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.doctor.diagnose import match_output
from wizard.plan.gpucheck import check_args, check_script

FAKE_TF = Path(__file__).resolve().parent / "fake_tf"
CAPS_2_21 = "sm_60,sm_70,sm_80,sm_89,compute_90"
RTX_5090 = "NVIDIA GeForce RTX 5090=12.0"


def run_check(*args: str, gpus: str = RTX_5090, fault: str = "", **env: str):
    environ = dict(
        os.environ,
        PYTHONPATH=str(FAKE_TF),
        FAKE_TF_CAPS=CAPS_2_21,
        FAKE_TF_GPUS=gpus,
        FAKE_TF_FAULT=fault,
        **env,
    )
    done = subprocess.run(
        [sys.executable, check_script(), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        check=False,
    )
    return done, [json.loads(line) for line in done.stdout.splitlines()]


def rtx5090_args() -> tuple[str, ...]:
    rec = recommend(load_demo("ubuntu-24.04-rtx5090"))
    assert rec.recommended is not None
    return check_args(rec.recommended, "12.8")


def test_the_plan_tells_the_check_that_xla_cannot_compile_for_sm_120() -> None:
    args = rtx5090_args()
    assert args[args.index("--xla-limit") + 1] == "12.0=8.5<8.7"


def test_the_stand_in_xla_really_aborts_its_process() -> None:
    """The fault is the real one: the child dies by SIGABRT after LLVM's line, no exception."""
    probe = Path(check_script()).with_name("tf_train_probe.py")
    env = dict(os.environ, PYTHONPATH=str(FAKE_TF), FAKE_TF_CAPS=CAPS_2_21, FAKE_TF_GPUS=RTX_5090)
    done = subprocess.run(
        [sys.executable, str(probe), "xla", "/GPU:0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(env, FAKE_TF_FAULT="xla-abort"),
        check=False,
    )
    assert done.returncode == -signal.SIGABRT
    assert "LLVM ERROR: PTX version 8.5 does not support target 'sm_120'" in done.stderr
    assert done.stdout == ""


def test_a_predicted_xla_abort_is_a_named_limit_and_the_check_passes() -> None:
    done, events = run_check(*rtx5090_args(), fault="xla-abort")
    assert done.returncode == 0, done.stderr[-1500:]
    limit = next(e for e in events if e["event"] == "limit")
    assert limit["code"] == "xla-sm" and "jit_compile=False" in limit["message"]
    assert "TensorFlow 2.21" in limit["message"] and "PTX 8.7" in limit["message"]
    assert limit["llvm"].startswith("LLVM ERROR: PTX version 8.5")
    fit = next(e for e in events if e["event"] == "fit")  # what trains, proved on the GPU
    assert fit["ok"] and fit["jit_compile"] is False and "GPU:0" in fit["device"]
    assert {e["op"] for e in events if e["event"] == "op"} == {
        "matmul",
        "conv2d_forward",
        "conv2d_input_grad",
        "conv2d_filter_grad",
    }
    assert events[-1]["event"] == "done" and events[-1]["ok"] is True
    assert "FAILED" not in done.stderr


def test_an_xla_abort_nobody_predicted_fails() -> None:
    """The same abort without the plan's prediction (another GPU, a future build): a failure."""
    done, events = run_check("--ptx-isa", "compute_90=8.5", "--driver-cuda", "12.8", fault="xla-abort")
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "xla" and "LLVM ERROR" in fail["message"]
    assert not any(e["event"] == "limit" for e in events)


def test_another_xla_failure_on_the_predicted_gpu_still_fails() -> None:
    done, events = run_check(*rtx5090_args(), fault="xla")  # ptxas refuses: not the known abort
    assert done.returncode == 1
    assert next(e for e in events if e["event"] == "fail")["code"] == "xla"


def test_a_later_xla_that_compiles_there_says_so() -> None:
    """A TensorFlow whose XLA writes PTX 8.7: the same probe runs it, and the check says so."""
    done, events = run_check(*rtx5090_args(), fault="xla-abort", FAKE_TF_XLA_PTX="8.7")
    assert done.returncode == 0, done.stderr[-1500:]
    xla = next(e for e in events if e["event"] == "op" and e["op"] == "xla_dense")
    assert xla["ok"] and "compiles for compute capability 12.0" in xla["message"]
    assert not any(e["event"] == "limit" for e in events)


def test_invalid_handle_is_a_failure_even_where_xla_is_predicted_to_abort() -> None:
    done, events = run_check(*rtx5090_args(), fault="invalid-handle")
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "matmul" and "CUDA_ERROR_INVALID_HANDLE" in fail["message"]
    assert not any(e["event"] in ("limit", "fit") for e in events)  # no minutes after the failure
    assert "tf_gpu_check FAILED [matmul]" in done.stderr
    assert match_output(done.stdout + done.stderr)  # the doctor has something to say about it


def test_a_keras_fit_that_does_not_learn_fails() -> None:
    done, events = run_check(*rtx5090_args(), fault="wrong-fit")
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "keras-fit" and "loss did not fall" in fail["message"]


def test_the_first_start_says_compiling_for_your_gpu_with_the_time_so_far() -> None:
    done, events = run_check(*rtx5090_args(), FAKE_TF_SLOW="0.3")
    assert done.returncode == 0
    jit = next(e for e in events if e["event"] == "jit")
    assert jit["message"].startswith("compiling for your GPU, expect 10-30 min, once")


def test_bad_xla_limit_gets_one_line() -> None:
    done = subprocess.run(
        [sys.executable, check_script(), "--xla-limit", "sm_120"], capture_output=True, text=True, check=False
    )
    assert (
        done.returncode == 2
        and "expected like 12.0=8.5<8.7" in done.stderr
        and "Traceback" not in done.stderr
    )


def test_the_check_carries_its_probe_beside_it_in_the_exported_script() -> None:
    from wizard.plan.programs import embedded

    shipped = embedded([("python", check_script())])
    assert "tf_train_probe.py" in shipped and shipped[-1] == "tf_gpu_check.py"
