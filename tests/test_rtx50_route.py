"""Route 1 on an RTX 50 (issue 33): pip TF 2.21 without XLA, said everywhere, trained by the hello
script, the compile cache set for the first start and proved by the second.

The hello script runs for real against tests/fake_tf playing an RTX 5090 whose XLA aborts the
process (FAKE_TF_FAULT=xla-abort) and whose first start is slow (FAKE_TF_SLOW).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from wizard.assets import asset_file
from wizard.choose.driver_view import xla_limit_text
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.common import CUDA_CACHE_BYTES

FAKE_TF = Path(__file__).resolve().parent / "fake_tf"
RTX_5090 = "NVIDIA GeForce RTX 5090=12.0"


def hello(tmp_path: Path, source: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "hello_gpu.py"
    script.write_text(
        source or asset_file("programs/hello_gpu.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    environ = dict(
        os.environ,
        PYTHONPATH=str(FAKE_TF),
        FAKE_TF_CAPS="sm_60,sm_70,sm_80,sm_89,compute_90",
        FAKE_TF_GPUS=RTX_5090,
        FAKE_TF_FAULT="xla-abort",
        **env,
    )
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environ, timeout=120
    )


def test_the_hello_script_trains_where_xla_aborts(tmp_path: Path) -> None:
    done = hello(tmp_path)
    assert done.returncode == 0, done.stderr[-800:]
    assert "Hello, GPU!" in done.stdout and "GPU:0" in done.stdout


def test_the_same_script_with_keras_defaults_dies_there(tmp_path: Path) -> None:
    """The fault is real: Keras' default (XLA on a GPU) kills the process, so the line matters."""
    source = asset_file("programs/hello_gpu.py").read_text(encoding="utf-8")
    source = source.replace(", jit_compile=False)", ")").replace("Adam(jit_compile=False)", "Adam()")
    done = hello(tmp_path, source)
    assert done.returncode == -signal.SIGABRT
    assert "LLVM ERROR: PTX version 8.5 does not support target 'sm_120'" in done.stderr


def test_a_second_start_that_compiles_again_fails_and_one_from_the_cache_passes(tmp_path: Path) -> None:
    slow = hello(tmp_path, FAKE_TF_SLOW="2", TF_GPU_WIZARD_SECOND_START="1")
    assert slow.returncode == 1 and "its cache did not keep them" in slow.stderr
    fast = hello(tmp_path, TF_GPU_WIZARD_SECOND_START="60")
    assert fast.returncode == 0 and "compile cache held" in fast.stdout


def test_the_first_start_says_it_is_compiling_with_the_time_so_far(tmp_path: Path) -> None:
    source = (
        asset_file("programs/hello_gpu.py")
        .read_text(encoding="utf-8")
        .replace("done.wait(30)", "done.wait(0.5)")
    )
    done = hello(tmp_path, source, FAKE_TF_SLOW="1.2")
    assert done.returncode == 0, done.stderr[-800:]
    assert "compiling for your GPU, expect 10-30 min, once: 0.0 min so far" in done.stdout


def test_the_plan_sets_the_cache_for_the_first_start_and_proves_it_on_the_second() -> None:
    profile = load_demo("ubuntu-24.04-rtx5090")
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended, home="/home/student")
    cache = ("env", f"CUDA_CACHE_MAXSIZE={CUDA_CACHE_BYTES}")
    verify, hello_step = plan.step("verify"), plan.step("hello")
    argv = verify.commands[0]
    at = argv.index("env")  # the verify's program runs under the cache size, behind its kept proof
    assert argv[at : at + 2] == cache
    assert hello_step.check.argv[:3] == (*cache, "TF_GPU_WIZARD_SECOND_START=300")
    ids = [s.id for s in plan.steps]
    assert ids.index("verify") < ids.index("hello") < ids.index("cuda-cache")


def test_recommend_names_jit_compile_false_on_both_rtx_50_machines() -> None:
    for name in ("ubuntu-24.04-rtx5090", "wsl2-rtx5060-laptop"):
        rec = recommend(load_demo(name))
        assert rec.recommended is not None and rec.recommended.set.tensorflow.startswith("2.21")
        limit = rec.recommended.xla_limit
        assert limit is not None and (limit.cc, limit.isa, limit.needs) == ("12.0", "8.5", "8.7")
        assert rec.recommended.reasons[0] == xla_limit_text(limit)
        assert "jit_compile=False" in rec.recommended.reasons[0]


def test_no_xla_limit_where_the_tables_do_not_predict_one() -> None:
    rec = recommend(load_demo("wsl2-rtx4060-laptop"))
    assert rec.recommended is not None and rec.recommended.xla_limit is None


def test_the_doctor_answers_the_llvm_sm_120_abort_with_jit_compile_false(tmp_path: Path, capsys) -> None:
    from wizard.cli import main

    log = tmp_path / "train.log"
    log.write_text(
        "LLVM ERROR: PTX version 8.5 does not support target 'sm_120' (or 'sm_120a'). Minimum required PTX"
        " version is 8.7\nAborted (core dumped)\n",
        encoding="utf-8",
    )
    main(["doctor", "--profile", "ubuntu-24.04-rtx5090", "--log", str(log)])
    out = " ".join(capsys.readouterr().out.split())
    assert "model.compile(..., jit_compile=False)" in out


def test_no_rtx_50_plan_or_script_names_a_floor_below_the_570_branch_nor_a_cuda_before_12_8() -> None:
    import re

    from packaging.version import Version

    from wizard.plan.script import render_script
    from wizard.plan.view import format_plan

    for name in ("ubuntu-24.04-rtx5090", "wsl2-rtx5060-laptop"):
        profile = load_demo(name)
        rec = recommend(profile)
        assert rec.recommended is not None and rec.recommended.driver is not None
        assert Version(rec.recommended.driver.floor).major >= 570, rec.recommended.driver
        for cand in rec.candidates:  # no system-wide CUDA before 12.8 offered for compute capability 12.0
            if (
                cand.set.method == "system-cuda"
                and cand.set.cuda
                and Version(cand.set.cuda) < Version("12.8")
            ):
                assert not cand.ok, (cand.set, cand.reasons[:1])
        plan = build_plan(profile, rec.recommended, home="/home/student")
        text = format_plan(plan) + render_script(plan)
        found = re.findall(r"(?:needs|driver) ([0-9]{3}\.[0-9]+(?:\.[0-9]+)?)(?: or newer|\))", text)
        floors = [Version(v) for v in found]
        assert floors, name  # the plan names its floor
        assert all(v.major >= 570 for v in floors), floors


def test_a_future_gpu_is_reasoned_from_table_rows_alone() -> None:
    """A GPU generation the code has never heard of: one architectures.toml row (its first CUDA and
    the PTX its target needs) gives its driver floor, its system-CUDA floor and the XLA limit."""
    import copy

    from packaging.version import Version

    from wizard.choose.gpu_generation import generation_floor, toolkit_too_old, xla_limit
    from wizard.choose.knowledge import TABLES, build_knowledge, read_table

    raw = {name: copy.deepcopy(read_table(name)) for name in TABLES}
    raw["architectures"]["arch"].append(
        {
            "name": "Next",
            "cc_min": "13.0",
            "cc_max": "13.9",
            "ptxas_cuda": "13.0",
            "ptx_isa_min": [{"cc": "13.0", "isa": "9.0"}],
            "source": "test",
            "confidence": "unverified",
        }
    )
    kb = build_knowledge(raw)
    cc = Version("13.0")
    assert generation_floor(kb, cc, windows=False) == (Version("580.65.06"), Version("13.0"))
    assert toolkit_too_old(kb, cc, Version("12.9")) == Version("13.0")
    rel = kb.release("2.21")
    assert rel is not None
    limit = xla_limit(kb, rel, "Next GPU", cc)
    assert limit is not None and (limit.isa, limit.needs) == ("8.5", "9.0")
