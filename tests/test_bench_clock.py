"""A benchmark figure that means something (issue 37 point 4): each GPU result against what this GPU
reaches at the clock it ran at (SM count x FLOP/clock/SM of its architecture and precision x the SM
clock NVML read during the measured runs), the precision named, a throttled GPU said to be so.

Recorded readings, as tf_bench.py prints them: a desktop RTX 3090, a laptop RTX 3080 held at 62% of
its clock by its power limit, an H100 in BF16, and a run of an older script that read no clocks.
The simulated runs of the demo profiles follow the same arithmetic.
"""

from __future__ import annotations

from typing import Any

import pytest

from wizard.bench.events import validate_event
from wizard.bench.peak import achievable_tflops, flop_per_clock, precision_of
from wizard.bench.report import BenchReport
from wizard.bench.runner import SimulatedBenchRun
from wizard.bench.verdict import clock_note, matmul_cells, matmul_columns
from wizard.cli.main import main
from wizard.demo import load_demo
from wizard.text import t


def _run(name: str, cc: str, rows: list[dict[str, Any]]) -> BenchReport:
    report = BenchReport()
    events: list[dict[str, Any]] = [
        {"event": "start", "schema": 1, "quick": False},
        {"event": "phase_start", "phase": "environment", "title": "env"},
        {
            "event": "result",
            "phase": "environment",
            "kind": "environment",
            "data": {
                "tf_version": "2.21.0",
                "devices": [{"name": "/physical_device:GPU:0", "type": "GPU"}],
                "gpus": [{"device_name": name, "compute_capability": cc}],
            },
        },
        {"event": "phase_end", "phase": "environment", "status": "ok", "seconds": 1.0},
        {"event": "phase_start", "phase": "matmul", "title": "matmul"},
    ]
    for row in rows:
        n = row.get("n", 8192)
        data = {"device": "GPU", "n": n, "seconds": 2.0 * n**3 / (row["tflops"] * 1e12), **row}
        events.append({"event": "result", "phase": "matmul", "kind": "matmul", "data": data})
    events.append({"event": "phase_end", "phase": "matmul", "status": "ok", "seconds": 9.0})
    for raw in events:
        report.apply(validate_event(raw))
    return report


def _row(report: BenchReport, precision: str) -> Any:
    return next(r for r in report.matmul if r.precision == precision)


# RTX 3090 desktop: fp16 at 95% of 82 SMs x 512 FLOP/clock x 1695 MHz; TF32 named as such.
RTX_3090 = [
    {"dtype": "float16", "precision": "fp16", "tflops": 68.0, "sm_count": 82, "clock_mhz": 1695.0,
     "max_clock_mhz": 1860.0, "power_w": 342.0, "temperature_c": 71.0, "warmup_seconds": 0.6},
    {"dtype": "float32", "precision": "tf32", "tflops": 30.0, "sm_count": 82, "clock_mhz": 1710.0,
     "max_clock_mhz": 1860.0, "power_w": 330.0, "temperature_c": 70.0},
    {"dtype": "float32", "precision": "fp32", "tflops": 23.0, "sm_count": 82, "clock_mhz": 1740.0,
     "max_clock_mhz": 1860.0, "power_w": 320.0, "temperature_c": 69.0},
]  # fmt: skip
# RTX 3080 Laptop GPU on a 95 W budget: 1050 MHz of 1710.
LAPTOP_3080 = [
    {"dtype": "float16", "precision": "fp16", "tflops": 24.0, "sm_count": 48, "clock_mhz": 1050.0,
     "max_clock_mhz": 1710.0, "power_w": 94.0, "temperature_c": 87.0, "warmup_seconds": 0.9},
]  # fmt: skip
H100 = [
    {"dtype": "bfloat16", "precision": "bf16", "tflops": 780.0, "sm_count": 132, "clock_mhz": 1755.0,
     "max_clock_mhz": 1980.0, "power_w": 690.0, "temperature_c": 62.0},
]  # fmt: skip


def test_a_desktop_fp16_result_against_its_own_peak_at_its_clock() -> None:
    report = _run("NVIDIA GeForce RTX 3090", "8.6", RTX_3090)
    fp16 = _row(report, "fp16")
    assert fp16.achievable_tflops == pytest.approx(82 * 512 * 1695e6 / 1e12)  # 71.2 TFLOP/s
    assert fp16.percent_of_achievable == pytest.approx(95.5, abs=0.1)
    assert 95 <= fp16.percent_of_achievable <= 107  # what a good fp16 matmul reaches on RTX 30/40
    assert fp16.warmup_seconds == 0.6 and fp16.seconds < 0.1  # the warm-up is not the measured time
    tf32 = _row(report, "tf32")
    assert tf32.achievable_tflops == pytest.approx(82 * 256 * 1710e6 / 1e12)
    assert tf32.percent_of_peak is None  # no datasheet FP32 comparison for a TF32 figure
    assert report.throttled() is None
    cells = {matmul_cells(report, r)[1]: matmul_cells(report, r) for r in report.matmul}
    assert set(cells) == {"FP16", "TF32", "FP32"}  # each precision named
    assert cells["FP16"][-1] == "96%"
    assert matmul_columns(report)[-1] == "at_clock"
    note = clock_note(report)
    assert note is not None and "82 SMs" in note and "1695-1740 MHz" in note and "342 W" in note
    assert "71 °C" in note and t("bench.clock.throttled", clock=0, share=0, max=0)[:10] not in note


def test_a_throttling_laptop_says_so() -> None:
    report = _run("NVIDIA GeForce RTX 3080 Laptop GPU", "8.6", LAPTOP_3080)
    fp16 = _row(report, "fp16")
    assert fp16.percent_of_achievable == pytest.approx(100 * 24.0 / (48 * 512 * 1050e6 / 1e12))  # 93%
    assert fp16.throttled and report.throttled() is fp16
    note = clock_note(report)
    assert note is not None and "1050 MHz, 61% of its 1710 MHz maximum" in note


def test_an_h100_in_bf16_at_its_clock() -> None:
    report = _run("NVIDIA H100 80GB HBM3", "9.0", H100)
    bf16 = _row(report, "bf16")
    assert bf16.achievable_tflops == pytest.approx(132 * 4096 * 1755e6 / 1e12)
    assert 80 <= bf16.percent_of_achievable <= 84  # what a good BF16 matmul reaches on H100
    assert report.throttled() is None  # 1755 of 1980 MHz: 89%


def test_a_run_that_read_no_clocks_keeps_the_published_peak_and_names_fp32() -> None:
    old = [{"dtype": "float32", "tflops": 25.0}]  # an older tf_bench.py: TF32 off, no readings
    report = _run("NVIDIA GeForce RTX 3090", "8.6", old)
    row = report.matmul[0]
    assert row.precision == "fp32" and row.percent_of_achievable is None
    assert row.percent_of_peak == pytest.approx(100 * 25.0 / 35.6, abs=0.1)
    assert matmul_columns(report)[-1] == "peak" and clock_note(report) is None
    assert matmul_cells(report, row)[1] == "FP32"


def test_the_precision_tensorflow_runs() -> None:
    assert precision_of("float32", "8.6") == "tf32" and precision_of("float32", "8.6", tf32=False) == "fp32"
    assert precision_of("float32", "7.5") == "fp32" and precision_of("bfloat16", "9.0") == "bf16"
    geforce, pro = (
        flop_per_clock("8.6", "NVIDIA GeForce RTX 3090", "fp16"),
        flop_per_clock("8.6", "NVIDIA RTX A6000", "fp16"),
    )
    assert (
        geforce is not None
        and pro is not None
        and (geforce.flop_per_clock, pro.flop_per_clock) == (512, 1024)
    )
    assert geforce.source.startswith("https://")  # cited
    assert flop_per_clock("7.5", "NVIDIA GeForce RTX 2080 Ti", "tf32") is None  # no TF32 before Ampere


@pytest.mark.parametrize(
    "demo",
    ["ubuntu-22.04-rtx3090-cuda11.8", "wsl2-rtx3080-laptop-driver527", "ubuntu-22.04-h100-driver535-server"],
)
def test_simulated_runs_follow_the_same_arithmetic(demo: str) -> None:
    run = SimulatedBenchRun(load_demo(demo), delay=0)
    list(run.events())
    report = run.report
    gpu = [r for r in report.matmul if r.device == "GPU"]
    assert gpu and all(r.percent_of_achievable is not None for r in gpu)
    for r in gpu:
        rate = flop_per_clock(report.gpu_cc(), report.gpu_name, r.precision or "")
        assert rate is not None and r.sm_count and r.clock_mhz
        assert r.achievable_tflops == pytest.approx(
            achievable_tflops(r.sm_count, r.clock_mhz, rate.flop_per_clock)
        )
    assert (report.throttled() is not None) == ("laptop" in demo)


def test_the_cli_shows_the_figure_the_clock_and_a_laptops_throttling(capsys: Any, monkeypatch: Any) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    monkeypatch.setenv("COLUMNS", "120")
    assert main(["--profile", "wsl2-rtx3080-laptop-driver527", "bench", "--quick"]) == 0
    out = capsys.readouterr().out
    assert t("bench.clock.col_at_clock") in out and "TF32" in out and "FP16" in out
    assert "Held back: it ran at 1060 MHz, 62% of its 1710 MHz maximum" in out
