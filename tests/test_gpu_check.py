"""The GPU check (assets/checks/tf_gpu_check.py): its rules, its output, and that the plan runs it once.

Without a GPU here, the check meets the faults through tests/fake_tf, a stand-in TensorFlow
that plays a machine (a GPU, a build, a wrong kernel) set by environment variables: the
check's own code runs unchanged in a subprocess, as the plan runs it. With the cached
CPU TensorFlow (tests/test_bench_real.py builds it) the real library runs too (slow).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_runner_helpers import Recorder, make_plan
from wizard.choose.choice import Candidate, VersionSet
from wizard.doctor.diagnose import match_output
from wizard.plan.common import verify_step
from wizard.plan.gpucheck import check_args, check_script
from wizard.plan.model import PlanInputs
from wizard.run.runner import Runner

FAKE_TF = Path(__file__).resolve().parent / "fake_tf"
CAPS_2_21 = "sm_60,sm_70,sm_80,sm_89,compute_90"


def load_check():
    spec = importlib.util.spec_from_file_location("tf_gpu_check", check_script())
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = load_check()


def run_check(*args: str, caps: str = CAPS_2_21, gpus: str = "", fault: str = "", **env: str):
    environ = dict(
        os.environ,
        PYTHONPATH=str(FAKE_TF),
        FAKE_TF_CAPS=caps,
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
    events = [json.loads(line) for line in done.stdout.splitlines()]  # every stdout line is JSON
    return done, events


# ---- the rules, as the check applies them --------------------------------------------------


@pytest.mark.parametrize(
    ("cc", "driver", "runs"),
    [
        ((8, 6), (12, 2), "sass"),  # sm_80 code on 8.6
        ((6, 1), (12, 2), "sass"),
        ((5, 2), (13, 0), "none"),  # no sm_50 in 2.21
        ((9, 0), (12, 2), "ptx-driver"),  # compute_90 at ISA 8.5 needs CUDA 12.5
        ((9, 0), (12, 5), "ptx"),
        ((12, 0), (12, 8), "ptx"),
    ],
)
def test_arch_verdict_follows_the_rules(cc, driver, runs):
    verdict = CHECK.arch_verdict(CAPS_2_21.split(","), cc, {"compute_90": (8, 5)}, driver)
    assert verdict["runs"] == runs
    assert verdict["ok"] is (runs in ("sass", "ptx"))


def test_arch_specific_ptx_is_required_of_gpus_without_machine_code():
    isas = {"compute_90": (8, 3), "compute_90a": (8, 5)}  # TF 2.19 / 2.20
    hopper = CHECK.arch_verdict(CAPS_2_21.split(","), (9, 0), isas, (12, 5))
    assert hopper["ok"] and hopper["isa"] == "8.5"
    blackwell = CHECK.arch_verdict(CAPS_2_21.split(","), (12, 0), isas, (12, 8))
    assert not blackwell["ok"] and blackwell["missing"] == "compute_90a"


def test_relative_error_catches_nan_and_shape():
    assert CHECK.rel_error([1.0, 2.0], [1.0, 2.0]) == 0
    assert CHECK.rel_error([1.0, float("nan")], [1.0, 2.0]) == float("inf")
    assert CHECK.rel_error([1.0], [1.0, 2.0]) == float("inf")
    assert abs(CHECK.rel_error([[1.0, 2.1]], [[1.0, 2.0]]) - 0.05) < 1e-9


def test_bad_arguments_get_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, check_script(), "--ptx-isa", "ninety"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "expected like compute_90=8.3" in done.stderr
    assert "Traceback" not in done.stderr


# ---- the check against machines ------------------------------------------------------------


def test_a_working_gpu_passes_with_every_op_checked():
    done, events = run_check("--driver-cuda", "12.2", gpus="NVIDIA GeForce RTX 3060=8.6")
    assert done.returncode == 0, done.stderr
    ops = {e["op"]: e for e in events if e["event"] == "op"}
    assert set(ops) == {"matmul", "conv2d_forward", "conv2d_input_grad", "conv2d_filter_grad", "xla_dense"}
    assert all(e["ok"] and "GPU:0" in e["device"] and e["rel_error"] <= CHECK.TOLERANCE for e in ops.values())
    arch = next(e for e in events if e["event"] == "arch")
    assert (arch["runs"], arch["via"]) == ("sass", "sm_80")
    assert next(e["event"] for e in events) == "start" and events[-1] == {
        **events[-1],
        "event": "done",
        "ok": True,
    }
    assert "FAILED" not in done.stderr


def test_h100_on_a_535_driver_fails_on_ptx_and_the_doctor_says_why():
    args = check_args(Candidate(VersionSet("2.21.0", "3.10", "12.5", "9.3", "pip-and-cuda"), True), "12.2")
    assert args == ("--ptx-isa", "compute_90=8.5", "--driver-cuda", "12.2")
    done, events = run_check(*args, gpus="NVIDIA H100 80GB HBM3=9.0")
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert (
        fail["code"] == "ptx-driver" and "CUDA >= 12.5" in fail["message"] and "CUDA 12.2" in fail["message"]
    )
    assert not any(e["event"] == "op" for e in events)  # no minutes of JIT before saying so
    assert next(d.id for d in match_output(done.stdout + done.stderr)) == "ptx-too-new-for-driver"


def test_blackwell_on_2_20_is_refused_for_its_sm_90a_only_kernels():
    cand = Candidate(VersionSet("2.20.0", "3.12", "12.9", "9.28", "pip-and-cuda"), True)
    done, _events = run_check(*check_args(cand, "12.8"), gpus="NVIDIA GeForce RTX 5090=12.0")
    assert done.returncode == 1
    assert "tf_gpu_check FAILED [arch]" in done.stderr and "compute_90a" in done.stderr
    assert match_output(done.stderr)[0].id == "unsupported-cc"


def test_a_wrong_convolution_gradient_fails_the_check():
    done, events = run_check(
        "--driver-cuda", "12.4", gpus="NVIDIA GeForce GTX 1060 6GB=6.1", fault="wrong-conv"
    )
    assert done.returncode == 1
    bad = [e for e in events if e["event"] == "op" and not e["ok"]]
    assert bad and bad[0]["op"] == "conv2d_input_grad" and bad[0]["rel_error"] > CHECK.TOLERANCE
    assert match_output(done.stderr)[0].id == "gpu-check-wrong-result"


def test_a_kernel_that_will_not_load_fails_with_the_cuda_error_for_the_doctor():
    done, _ = run_check("--driver-cuda", "12.8", gpus="NVIDIA GeForce RTX 5090=12.0", fault="raise-matmul")
    assert done.returncode == 1
    assert "tf_gpu_check FAILED [matmul]" in done.stderr and "CUDA_ERROR_INVALID_PTX" in done.stderr
    # The line names the GPU and the driver: CUDA_ERROR_INVALID_PTX alone has two causes, and the
    # doctor tells them apart by them (a GPU newer than the build; PTX newer than an old driver).
    assert (
        "(on GPU 0: NVIDIA GeForce RTX 5090, compute capability 12.0; the driver supports CUDA 12.8)"
        in done.stderr
    )
    assert [d.id for d in match_output(done.stderr)] == ["gpu-too-new"]
    old, _ = run_check("--driver-cuda", "12.2", gpus="NVIDIA GeForce GTX 1060 6GB=6.1", fault="raise-matmul")
    assert "compute capability 6.1; the driver supports CUDA 12.2)" in old.stderr
    assert [d.id for d in match_output(old.stderr)] == ["ptx-too-new-for-driver"]
    # A failure the doctor does not know is still recognised as the check's.
    unknown = "tf_gpu_check FAILED [conv2d]: conv2d on /GPU:0 failed: InternalError: something new"
    assert [d.id for d in match_output(unknown)] == ["gpu-check-op-failed"]


@pytest.mark.parametrize(
    ("caps", "gpus", "code", "diagnosis"),
    [("", "", "cpu-build", "cpu-only-wheel"), (CAPS_2_21, "", "no-gpu", "gpu-list-empty")],
)
def test_no_gpu_in_tensorflow_is_a_clear_failure(caps, gpus, code, diagnosis):
    done, events = run_check(caps=caps, gpus=gpus)
    assert done.returncode == 1 and events[-1]["ok"] is False
    assert f"tf_gpu_check FAILED [{code}]" in done.stderr
    assert match_output(done.stderr)[0].id == diagnosis


# ---- the plan runs it, once -------------------------------------------------------------------


def test_the_verify_step_runs_the_check_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = tmp_path / "imports"
    for key, value in {
        "PYTHONPATH": str(FAKE_TF),
        "FAKE_TF_CAPS": CAPS_2_21,
        "FAKE_TF_GPUS": "NVIDIA GeForce RTX 3090=8.6",
        "FAKE_TF_CALLS": str(calls),
    }.items():
        monkeypatch.setenv(key, value)
    cand = Candidate(VersionSet("2.21.0", "3.11", "12.5", "9.3", "pip-and-cuda"), True)
    inputs = PlanInputs(candidate=cand, venv=tmp_path / "venv", home=tmp_path)
    step = verify_step(inputs, gpu=True, python=sys.executable, driver_cuda="12.2")
    # A file, not a `python -c` program, run by the kept proof's program (env_proof.py prove gpu).
    assert step.commands[0][2:4] == ("prove", "gpu") and step.commands[0][6:8] == (
        check_script(),
        "--ptx-isa",
    )
    assert step.check_is_last_command and step.recheck is not None
    # No NVML or nvidia-smi here: nothing is kept, and the check before runs nothing of TensorFlow.
    monkeypatch.setenv("TF_GPU_WIZARD_PROOF_NVML", "0")
    monkeypatch.setenv("PATH", str(tmp_path / "no-nvidia-smi"))
    rec = Recorder()
    result = Runner(make_plan(step), rec, simulate=False).run()
    assert result.outcome == "finished", (result.message, rec.lines[-5:])
    assert rec.statuses() == {"verify": "done"}
    # One run of the check: TensorFlow starts in it and once in its XLA child (one GPU).
    assert calls.read_text().count("import") == 2
    # The check's JSON "done" event, worded for the Run screen (the log keeps the JSON).
    assert any("The GPU check passed" in line for line in rec.lines)


# ---- the real TensorFlow (CPU build), when the test cache has it ---------------------------------


@pytest.mark.slow
def test_real_tensorflow_cpu_build_is_reported_as_such() -> None:
    from tests.test_bench_real import tensorflow_venv

    py = tensorflow_venv()
    done = subprocess.run(
        [str(py), check_script(), "--ptx-isa", "compute_90=8.5"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1
    assert next(e for e in events if e["event"] == "tensorflow")["cuda_build"] is False
    assert "tf_gpu_check FAILED [cpu-build]" in done.stderr


@pytest.mark.slow
def test_real_tensorflow_runs_the_matmul_and_conv_comparison_on_the_cpu(tmp_path: Path) -> None:
    from tests.test_bench_real import tensorflow_venv

    driver = tmp_path / "ops.py"
    driver.write_text(
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('c', sys.argv[1])\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "import tensorflow as tf\n"
        "out = m.Out(sys.stdout)\n"
        "m.run_ops(out, tf, '/CPU:0')\n"
        "m.train_proofs(out, tf, '/CPU:0', None, m.parse_args([]))\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(tensorflow_venv()), str(driver), check_script()],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    ops = [e for e in events if e["event"] == "op"]
    names = ["matmul", "conv2d_forward", "conv2d_input_grad", "conv2d_filter_grad", "xla_dense"]
    assert [e["op"] for e in ops] == names  # XLA (jit_compile=True) compiled and ran for real, in a child
    assert all(e["ok"] and e["rel_error"] == 0 for e in ops)
    fit = next(e for e in events if e["event"] == "fit")  # a real Keras model trained without XLA
    assert fit["ok"] and fit["jit_compile"] is False and fit["loss"][-1] < fit["loss"][0]


# ---- every GPU, XLA, the driver read here, the first-start compile (issue 20 point 3) ----------

FAKE_LIBCUDA_C = r"""
#include <stdlib.h>
#include <string.h>
/* A driver for the check's ctypes calls: FAKE_CUDA_VERSION (12060) and FAKE_CUDA_GPUS
   ("name=8.9;name=3.0"), read from the environment as the real libcuda reads the machine. */
static const char *gpu(int i, int *major, int *minor, char *name, int len) {
    const char *all = getenv("FAKE_CUDA_GPUS"); if (!all) return 0;
    char buf[1024]; strncpy(buf, all, sizeof buf - 1); buf[sizeof buf - 1] = 0;
    char *save = 0; char *item = strtok_r(buf, ";", &save);
    for (int k = 0; item; k++, item = strtok_r(0, ";", &save)) {
        if (k != i) continue;
        char *eq = strrchr(item, '='); if (!eq) return 0; *eq = 0;
        if (name) { strncpy(name, item, len - 1); name[len - 1] = 0; }
        *major = atoi(eq + 1); *minor = atoi(strchr(eq + 1, '.') + 1); return "ok";
    }
    return 0;
}
int cuDriverGetVersion(int *v) { const char *s = getenv("FAKE_CUDA_VERSION"); *v = s ? atoi(s) : 0; return s ? 0 : 1; }
int cuInit(unsigned flags) { return 0; }
int cuDeviceGetCount(int *n) { int a, b; *n = 0; while (gpu(*n, &a, &b, 0, 0)) (*n)++; return 0; }
int cuDeviceGet(int *dev, int i) { *dev = i; return 0; }
int cuDeviceGetName(char *name, int len, int dev) { int a, b; return gpu(dev, &a, &b, name, len) ? 0 : 1; }
int cuDeviceGetAttribute(int *v, int attr, int dev) {
    int a = 0, b = 0; gpu(dev, &a, &b, 0, 0); *v = attr == 75 ? a : b; return 0;
}
"""


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a libcuda.so.1 built here from the C above (a real shared library for ctypes)."""
    import shutil

    if not shutil.which("cc"):
        pytest.skip("no C compiler to build the stand-in libcuda")
    folder = tmp_path_factory.mktemp("libcuda")
    (folder / "libcuda.c").write_text(FAKE_LIBCUDA_C, encoding="utf-8")
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", str(folder / "libcuda.so.1"), str(folder / "libcuda.c")],
        check=True,
        timeout=120,
    )
    return folder


def test_every_gpu_runs_every_op_including_xla():
    done, events = run_check("--driver-cuda", "12.4", gpus="NVIDIA GeForce RTX 4090=8.9;NVIDIA RTX A4000=8.6")
    assert done.returncode == 0, done.stderr
    ops = [(e["op"], e["device"].rsplit("device:", 1)[-1]) for e in events if e["event"] == "op"]
    for dev in ("GPU:0", "GPU:1"):
        assert [op for op, d in ops if d == dev] == [
            "matmul",
            "conv2d_forward",
            "conv2d_input_grad",
            "conv2d_filter_grad",
            "xla_dense",
        ]


def test_a_second_gpu_without_code_fails_the_check():
    done, events = run_check(
        "--driver-cuda", "12.4", gpus="NVIDIA GeForce RTX 4060=8.9;NVIDIA GeForce GTX 770=3.0"
    )
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "arch" and fail["message"].startswith("GPU 1: NVIDIA GeForce GTX 770")
    assert not any(e["event"] == "op" for e in events)


def test_a_fault_on_the_second_gpu_only_is_found():
    done, events = run_check(
        "--driver-cuda", "12.4", gpus="NVIDIA GeForce RTX 4090=8.9;NVIDIA RTX A4000=8.6", fault="wrong-conv@1"
    )
    assert done.returncode == 1
    bad = next(e for e in events if e["event"] == "op" and not e["ok"])
    assert bad["device"].endswith("GPU:1") and bad["op"] == "conv2d_input_grad"
    assert all(e["ok"] for e in events if e["event"] == "op" and e["device"].endswith("GPU:0"))


def test_xla_that_cannot_compile_for_the_gpu_fails_with_ptxas_words():
    done, events = run_check("--driver-cuda", "12.8", gpus="NVIDIA GeForce RTX 3060=8.6", fault="xla")
    assert done.returncode == 1
    assert "tf_gpu_check FAILED [xla]" in done.stderr and "ptxas" in done.stderr
    assert match_output(done.stderr)[0].id in ("ptxas-too-old", "xla-ptxas-problem")  # the doctor names ptxas
    assert [e["op"] for e in events if e["event"] == "op"][
        -1
    ] == "conv2d_filter_grad"  # all before XLA passed


def test_an_op_silently_on_the_cpu_says_so():
    done, events = run_check(
        "--driver-cuda", "12.4", gpus="NVIDIA GeForce RTX 3060=8.6", fault="cpu-placement"
    )
    assert done.returncode == 1
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "cpu-placement" and "ran on the CPU" in fail["message"]
    assert "relative error" not in done.stdout + done.stderr


def test_a_gpu_tensorflow_leaves_out_fails_when_the_plan_says_how_many():
    done, events = run_check(
        "--driver-cuda", "12.4", "--expect-gpus", "2", gpus="NVIDIA GeForce RTX 3060=8.6"
    )
    assert done.returncode == 1
    assert next(e for e in events if e["event"] == "fail")["code"] == "gpu-left-out"


def test_the_driver_is_read_through_libcuda_its_gpus_and_its_cuda(fake_libcuda: Path):
    # TensorFlow lists one GPU; the driver has two, the second with no code in the wheel.
    env = {
        "LD_LIBRARY_PATH": str(fake_libcuda),
        "FAKE_CUDA_VERSION": "12060",
        "FAKE_CUDA_GPUS": "NVIDIA GeForce RTX 4060 Laptop GPU=8.9;NVIDIA GeForce GT 730=3.5",
    }
    done, events = run_check(gpus="NVIDIA GeForce RTX 4060 Laptop GPU=8.9", **env)
    assert done.returncode == 1
    driver = next(e for e in events if e["event"] == "driver")
    assert (driver["cuda"], driver["cuda_from"], len(driver["gpus"])) == ("12.6", "libcuda", 2)
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "gpu-left-out" and "GPU 1, NVIDIA GeForce GT 730" in fail["message"]
    # With no --driver-cuda (a WSL plan), the PTX verdict uses libcuda's figure, not "unverified".
    env["FAKE_CUDA_GPUS"] = "NVIDIA H100 80GB HBM3=9.0"
    done, events = run_check("--ptx-isa", "compute_90=8.5", gpus="NVIDIA H100 80GB HBM3=9.0", **env)
    arch = next(e for e in events if e["event"] == "arch")
    assert arch["runs"] == "ptx" and "unverified" not in arch and arch["driver_cuda_from"] == "libcuda"
    assert done.returncode == 0, done.stderr
    env["FAKE_CUDA_VERSION"] = "12020"
    done, events = run_check("--ptx-isa", "compute_90=8.5", gpus="NVIDIA H100 80GB HBM3=9.0", **env)
    assert done.returncode == 1 and next(e for e in events if e["event"] == "fail")["code"] == "ptx-driver"


def test_nvidia_smi_tells_the_cuda_when_libcuda_does_not_load(tmp_path: Path):
    smi = tmp_path / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--query-gpu=name,compute_cap" ]; then echo "NVIDIA H100 80GB HBM3, 9.0"; exit 0; fi\n'
        'echo "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2     |"\n',
        encoding="utf-8",
    )
    smi.chmod(0o755)
    path = f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}"
    done, events = run_check("--ptx-isa", "compute_90=8.5", gpus="NVIDIA H100 80GB HBM3=9.0", PATH=path)
    assert done.returncode == 1
    driver = next(e for e in events if e["event"] == "driver")
    assert (driver["cuda"], driver["cuda_from"]) == ("12.2", "nvidia-smi")
    assert next(e for e in events if e["event"] == "fail")["code"] == "ptx-driver"


def test_a_first_start_compile_says_so_and_is_bounded_in_time():
    done, events = run_check(
        "--ptx-isa",
        "compute_90=8.5",
        "--driver-cuda",
        "12.6",
        "--time-limit",
        "2",
        gpus="NVIDIA H100 80GB HBM3=9.0",
        FAKE_TF_SLOW="20",
    )
    assert done.returncode == 1
    jit = next(e for e in events if e["event"] == "jit")
    assert "compiling" in jit["message"] and jit["limit_s"] == 2
    fail = next(e for e in events if e["event"] == "fail")
    assert fail["code"] == "time-limit" and "compiling PTX" in fail["message"]
    assert events[-1]["event"] == "done" and events[-1]["ok"] is False
