"""The benchmark's verdict, the `bench` CLI's live lines, and simulated runs that follow the GPU."""

from __future__ import annotations

import re
from typing import Any

import pytest

from wizard.bench.events import validate_event
from wizard.bench.report import BenchReport
from wizard.bench.runner import SimulatedBenchRun
from wizard.bench.sim import simulated_events
from wizard.bench.verdict import best_gflops, gpu_speedup, verdict
from wizard.cli.main import main
from wizard.demo import load_demo
from wizard.monitor.sim import SimulatedSource
from wizard.text import t


def replay(profile: str, *, gpu_name: str | None = None, drop: tuple[str, ...] = ()) -> BenchReport:
    """A whole simulated run folded into a report; `drop` leaves out events of those phases."""
    p = load_demo(profile)
    report = BenchReport(gpu_name=gpu_name if gpu_name is not None else (p.gpus[0].name if p.gpus else None))
    for raw in simulated_events(p):
        if raw.get("phase") in drop:
            continue
        report.apply(validate_event(raw))
    return report


# ---- the verdict ------------------------------------------------------------------------


def test_gpu_verdict_says_how_many_times_the_cpu_and_with_xla() -> None:
    report = replay("ubuntu-22.04-rtx3090-cuda11.8")
    found = verdict(report)
    plain = report.train_rate("GPU") / report.train_rate("CPU")  # type: ignore[operator]
    xla = report.train_rate("GPU", True) / report.train_rate("CPU", True)  # type: ignore[operator]
    assert found is not None and found.level == "ok"
    assert found.text == t("bench.verdict.gpu", x=plain) + t("bench.verdict.with_xla", x=xla)
    assert f"{plain:.1f} times" in found.text


def test_cpu_only_verdict_is_tensorflow_against_numpy_in_gflops() -> None:
    report = replay("no-nvidia-gpu")
    found = verdict(report)
    tf = max(r.tflops for r in report.matmul if r.device == "CPU") * 1000
    numpy = max(r.tflops for r in report.matmul if r.device == "numpy") * 1000
    assert found is not None and found.level == "ok"
    assert found.text == t("bench.verdict.cpu", tf=tf, numpy=numpy)
    assert f"{tf:,.0f} GFLOP/s" in found.text and f"NumPy's {numpy:,.0f}" in found.text


def test_a_gpu_machine_whose_tensorflow_saw_no_gpu_says_so() -> None:
    # The CPU phases only (as when TensorFlow does not see the GPU), on a machine that has one.
    report = BenchReport(gpu_name="NVIDIA GeForce RTX 3090")
    for raw in simulated_events(load_demo("no-nvidia-gpu")):
        report.apply(validate_event(raw))
    found = verdict(report)
    assert found is not None and found.level == "warn" and t("bench.verdict.gpu_unseen") in found.text


def test_no_verdict_while_running_and_a_failed_run_says_it_measured_nothing() -> None:
    running = BenchReport()
    running.apply(validate_event({"event": "start", "schema": 1}))
    assert verdict(running) is None
    failed = BenchReport()
    failed.apply(validate_event({"event": "error", "phase": None, "message": "boom", "fatal": True}))
    failed.apply(validate_event({"event": "done", "ok": False, "seconds": 1.0}))
    found = verdict(failed)
    assert found is not None and found.level == "error"


def test_matmul_on_the_gpu_without_the_cnn_is_a_warning_not_a_speedup() -> None:
    report = replay("ubuntu-22.04-rtx3090-cuda11.8", drop=("train", "xla"))
    report.apply(validate_event({"event": "done", "ok": False, "seconds": 1.0}))
    assert gpu_speedup(report) is None
    found = verdict(report)
    assert found is not None and found.level == "warn" and "TFLOP/s" in found.text
    assert best_gflops(report, "numpy") is not None


# ---- simulated runs follow the machine ------------------------------------------------


def _rates(profile: str) -> tuple[float, float]:
    run = SimulatedBenchRun(load_demo(profile), delay=0)
    for _ in run.events():
        pass
    gpu = run.report.train_rate("GPU")
    assert gpu is not None
    watts = SimulatedSource(load_demo(profile)).fake.gpus[0].power_limit_mw / 1000
    return gpu, watts


def test_a_gtx_1080_and_an_rtx_5090_do_not_simulate_alike() -> None:
    gtx_rate, gtx_watts = _rates("ubuntu-20.04-gtx1080-driver470")
    rtx_rate, rtx_watts = _rates("ubuntu-24.04-rtx5090")
    assert rtx_rate > 3 * gtx_rate  # 104.8 against 8.9 FP32 TFLOP/s, seen through a small CNN
    assert (gtx_watts, rtx_watts) == (180, 575)  # each board's rated power, not one 170 W for all
    assert _rates("ubuntu-20.04-gtx1080-driver470") == (gtx_rate, gtx_watts)  # deterministic


def test_simulated_fp32_matmul_follows_the_published_peak() -> None:
    report = replay("ubuntu-24.04-rtx5090")
    best = report.best("GPU")
    assert best is not None and best.percent_of_peak is not None
    assert 60 < best.percent_of_peak < 80  # a good run reaches about three quarters of the peak


# ---- the bench CLI --------------------------------------------------------------------

COUNTER = re.compile(r"^\s*\[\s*(\d+)/(\d+)\]\s*(.*)$")


def test_bench_cli_piped_prints_counters_in_order_each_with_its_result(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    assert main(["--profile", "ubuntu-20.04-gtx1080-driver470", "bench"]) == 0
    out = capsys.readouterr().out  # captured: not a terminal, as when piped to a file
    lines = out.splitlines()
    counters = [m for m in (COUNTER.match(line) for line in lines) if m is not None]
    assert len(counters) > 10
    last_done = 0
    for m in counters:
        done, total, what = int(m.group(1)), int(m.group(2)), m.group(3)
        assert what.strip(), "a bare counter"  # every counter says what it counted
        assert done == last_done + 1 or done == 1  # in order; 1 again starts a phase
        last_done = done if done < total else 0
    # images/s, live and in the table at the end, XLA included
    assert re.search(r"\[1/2\] CPU: [\d,]+ images/s", out) and re.search(r"\[2/2\] GPU: [\d,]+ images/s", out)
    assert re.search(r"GPU with XLA: [\d,]+ images/s", out)
    assert t("bench.col.xla") in out and t("bench.bar_chart") in out
    assert "Verdict: the GPU trains" in out and "with XLA" in out
    # the result file's path stays on one line
    saved = next(line for line in lines if line.startswith("Result saved to"))
    assert saved.endswith(".json")


# ---- a run stopped early: the verdict says what was measured, nothing more -----------------


def _stopped_after(profile: str, results: int) -> BenchReport:
    """A simulated run stopped (s, Ctrl-C) once `results` matmul results were in."""
    p = load_demo(profile)
    report = BenchReport(gpu_name=p.gpus[0].name if p.gpus else None)
    seen = 0
    for raw in simulated_events(p):
        if raw.get("event") == "result" and raw.get("kind") == "matmul":
            if seen == results:
                break
            seen += 1
        report.apply(validate_event(raw))
    report.stop()
    return report


def test_stopped_with_only_numpys_matmul_says_numpy_measured() -> None:
    report = _stopped_after("wsl2-rtx4060-laptop", 1)
    assert [r.device for r in report.matmul] == ["numpy"]  # what the panel's table shows
    numpy = best_gflops(report, "numpy")
    found = verdict(report)
    assert found is not None and numpy is not None and found.level == "warn"
    assert found.text == t("bench.verdict.numpy_only_stopped", numpy=numpy)
    assert f"{numpy:,.0f} GFLOP/s" in found.text and "measure anything" not in found.text


def test_stopped_before_the_gpu_had_its_turn_claims_nothing_about_the_gpu() -> None:
    report = _stopped_after("wsl2-rtx4060-laptop", 2)  # NumPy and TensorFlow on the CPU
    assert {r.device for r in report.matmul} == {"numpy", "CPU"}
    found = verdict(report)
    assert found is not None and found.level == "warn"
    assert t("bench.verdict.gpu_unseen") not in found.text
    assert found.text.endswith(t("bench.verdict.stopped_rest"))
    on_gpu = _stopped_after("wsl2-rtx4060-laptop", 7)
    found = verdict(on_gpu)
    assert found is not None and "GPU" in {r.device for r in on_gpu.matmul}
    assert found.text == t("bench.verdict.gpu_matmul_stopped", tflops=on_gpu.best("GPU").tflops)  # type: ignore[union-attr]


def test_stopped_before_any_result_and_a_failed_numpy_only_run() -> None:
    found = verdict(_stopped_after("wsl2-rtx4060-laptop", 0))
    assert found is not None and found.text == t("bench.verdict.stopped_nothing")
    failed = replay("no-nvidia-gpu", drop=("train", "xla"))
    failed.matmul = [r for r in failed.matmul if r.device == "numpy"]
    failed.apply(validate_event({"event": "done", "ok": False, "seconds": 1.0}))
    found = verdict(failed)
    assert found is not None and found.level == "error"
    assert found.text == t("bench.verdict.numpy_only", numpy=best_gflops(failed, "numpy"))
