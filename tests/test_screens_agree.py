"""Detect, Choose and `recommend` read the same data (issue 18 point 5); reasons as exact as the
harvest's facts (issue 20 point 5); an old Python without a GPU gets today's TensorFlow (issue 20
point 2); `plan --tf X` never turns into a CPU plan without a word (issue 17)."""

from __future__ import annotations

import io
import re
import subprocess
import sys

from rich.console import Console

from wizard.choose.resolver import recommend
from wizard.cli.recommend import render
from wizard.demo import load_demo
from wizard.doctor.findings import find_problems
from wizard.plan.build import build_plan
from wizard.profile import MachineProfile, OsInfo, PythonInfo, Resources

BLACKWELL = "ubuntu-24.04-rtx5090"


def test_detect_warns_where_choose_warns_on_a_blackwell_gpu() -> None:
    profile = load_demo(BLACKWELL)
    best = recommend(profile).recommended
    assert best is not None and best.reported is not None
    found = {f.key: f for f in find_problems(profile)}
    assert "reported-fail" in found and found["reported-fail"].severity == "warning"
    # The same words: the paragraph Choose shows is the finding's why.
    assert found["reported-fail"].why in best.reasons


def test_recommend_at_80_columns_says_each_reason_once_and_the_pins_once() -> None:
    rec = recommend(load_demo(BLACKWELL))
    out = io.StringIO()
    render(rec, Console(file=out, width=80, color_system=None))
    flat = " ".join(out.getvalue().split())
    assert flat.count("pip TensorFlow is reported to fail") == 1
    # said plainly; the three: the XLA line (jit_compile=False), the slow first start, the reports
    assert "also 3 reasons row 1 gives above (not repeated here)" in flat
    assert flat.count("No XLA in TF 2.21 on CC 12.0") == 1
    best = rec.recommended
    assert best is not None and best.pins
    for pin in best.pins:  # the pinned list once, every package of it
        assert flat.count(pin) == 1, pin


def test_blackwell_reasons_name_what_the_wheels_really_lack() -> None:
    best = recommend(load_demo(BLACKWELL)).recommended
    assert best is not None
    why = " ".join(best.reasons)
    # Not "the tested ones do not reach this GPU": they do, through PTX; ptxas is what is missing.
    assert "do not reach this GPU" not in why
    assert "ptxas 12.5 has no sm_120 target" in why
    assert re.search(
        r"cuBLAS 12\.5, cuDNN 9\.3 (and \S+ \S+ )?reach compute capability 12\.0 only through compute_90 PTX|cuBLAS 12\.5 and cuDNN 9\.3 reach compute capability 12\.0 only through compute_90 PTX",
        why,
    ), why
    # The kernel_gen kernels, counted by the harvest: sm_90a-only PTX in 2.16-2.20, portable in 2.21.
    assert "the 1,149 generated (kernel_gen) kernels carry their PTX only as compute_90a" in why
    assert "TF 2.16-2.20" in why and "TF 2.21 is the first whose 1,149 generated kernels" in why


def test_debian_10_python_37_without_gpu_gets_todays_cpu_tensorflow_with_a_python_beside() -> None:
    profile = MachineProfile(
        platform="linux",
        arch="x86_64",
        os=OsInfo(id="debian", version="10", name="Debian GNU/Linux 10 (buster)", glibc="2.28"),
        python=PythonInfo(version="3.7.3", executable="/usr/bin/python3", env="system"),
        resources=Resources(ram_mib=8000, home_free_mib=50000, cpu_count=4),
    )
    best = recommend(profile).recommended
    assert best is not None and best.set.method == "cpu"
    assert best.set.tensorflow == "2.21.0" and best.set.python >= "3.10"
    assert best.python_change
    plan = build_plan(profile, best, home="/home/student")
    assert plan.steps[0].id.startswith("python"), [s.id for s in plan.steps]


def test_plan_tf_on_a_gpu_it_cannot_use_says_why_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wizard", "--profile", "ubuntu-22.04-gtx680-old", "plan", "--tf", "2.21"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    lines = [line for line in result.stderr.splitlines() if "2.21" in line]
    assert len(lines) == 1 and "GPU" in lines[0] and "compute capability 3.0" in lines[0]
    assert "(CPU only)" in result.stdout.splitlines()[0]  # the method as the app words it


def test_plan_tf_with_a_driver_step_is_the_gpu_plan() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "wizard",
            "--profile",
            "ubuntu-20.04-gtx1080-driver470",
            "plan",
            "--tf",
            "2.21",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    head = result.stdout.splitlines()[0]
    assert head.startswith("Plan: TensorFlow 2.21.0 (pip, CUDA included)"), head
    assert "525.60.13" in result.stdout and "(CPU only)" not in result.stdout
