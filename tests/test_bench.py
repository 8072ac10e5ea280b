"""The benchmark runner: event validation, the report, the process around the script."""

from __future__ import annotations

import ast
import json
import os
import stat
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from wizard import paths
from wizard.bench.events import BenchEventError, parse_event, validate_event
from wizard.bench.report import BenchReport, MatmulResult, published_peak
from wizard.bench.runner import (
    BenchPythonMissing,
    BenchRun,
    SimulatedBenchRun,
    resolve_python,
    save_report,
    script_path,
)
from wizard.bench.sim import simulated_events
from wizard.bench.verdict import peak_note
from wizard.cli import main
from wizard.demo import load_demo
from wizard.text import t

GOOD: list[dict[str, Any]] = [
    {"event": "start", "schema": 1, "quick": True},
    {"event": "phase_start", "phase": "matmul", "title": "Matmul"},
    {"event": "progress", "phase": "matmul", "done": 1, "total": 4, "detail": "x"},
    {
        "event": "result",
        "phase": "matmul",
        "kind": "matmul",
        "data": {"device": "GPU", "dtype": "float32", "n": 1024, "seconds": 0.01, "tflops": 0.2},
    },
    {"event": "phase_end", "phase": "matmul", "status": "ok", "seconds": 1.5},
    {"event": "error", "phase": None, "message": "boom", "fatal": True},
    {"event": "done", "ok": False, "seconds": 3},
]
BAD: list[tuple[Any, str]] = [
    ([], "JSON object"),
    ({"event": "party"}, "unknown event"),
    ({"event": "progress", "phase": "matmul", "done": 5, "total": 4}, "outside"),
    ({"event": "progress", "phase": "matmul", "done": True, "total": 4}, "boolean"),
    ({"event": "phase_start", "phase": "warp", "title": "x"}, "unknown phase"),
    ({"event": "phase_end", "phase": "sanity", "status": "meh", "seconds": 1}, "status"),
    ({"event": "start", "schema": 2}, "schema"),
    ({"event": "result", "phase": "matmul", "kind": "magic", "data": {}}, "unknown kind"),
    ({"event": "result", "phase": "matmul", "kind": "matmul", "data": {"device": "GPU"}}, "missing"),
    (
        {
            "event": "result",
            "phase": "matmul",
            "kind": "matmul",
            "data": {"device": "GPU", "dtype": "float32", "n": 8, "seconds": 0, "tflops": 1.0},
        },
        "positive",
    ),
    ({"event": "done", "ok": "yes", "seconds": 1}, "wrong type"),
]


@pytest.mark.parametrize("event", GOOD, ids=lambda e: e["event"])
def test_valid_events_pass(event: dict[str, Any]) -> None:
    assert parse_event(json.dumps(event)).event == event["event"]


@pytest.mark.parametrize(("obj", "why"), BAD, ids=[w for _, w in BAD])
def test_invalid_events_say_what_is_wrong(obj: Any, why: str) -> None:
    with pytest.raises(BenchEventError, match=why):
        validate_event(obj)


def test_a_line_that_is_not_json() -> None:
    with pytest.raises(BenchEventError, match="not JSON"):
        parse_event("2024-01-01 I tensorflow/core: hello")


def _report(profile: str) -> BenchReport:
    p = load_demo(profile)
    report = BenchReport(gpu_name=p.gpus[0].name if p.gpus else None)
    for raw in simulated_events(p):
        report.apply(validate_event(raw))
    return report


def test_report_from_a_whole_run() -> None:
    report = _report("ubuntu-22.04-rtx3090-cuda11.8")
    assert report.done and report.ok and report.errors == []
    assert all(p.status == "ok" for p in report.phases.values())
    assert report.environment is not None and report.environment["tf_version"]
    best = report.best("GPU")
    assert best is not None and best.n == 8192
    # The RTX 3090 is in the knowledge table (35.6 TFLOP/s FP32): a percentage appears.
    assert best.percent_of_peak == pytest.approx(100 * best.tflops / 35.6)
    assert report.speedup["plain"] > 1 and report.train_rate("GPU", xla=True)
    assert report.tf_vs_numpy() == pytest.approx(0.15 / 0.16)
    json.dumps(report.to_dict())


def test_no_gpu_report_has_cpu_and_numpy_only() -> None:
    report = _report("no-nvidia-gpu")
    assert {r.device for r in report.matmul} == {"CPU", "numpy"}
    assert report.tf_vs_numpy() is not None and report.speedup == {}


def test_published_peak_degrades_to_none() -> None:
    assert published_peak("NVIDIA GeForce RTX 3090", "float32") == pytest.approx(35.6)
    assert published_peak("A GPU nobody has heard of", "float32") is None
    assert published_peak("NVIDIA GeForce RTX 3090", "int4") is None


def test_save_report_goes_to_the_data_dir() -> None:
    report = _report("wsl2-rtx4060-laptop")
    first, second = save_report(report), save_report(report)
    assert first.parent == paths.data_dir() / "bench" and first != second
    assert json.loads(first.read_text())["done"] is True


def test_default_python_missing_says_how_to_pass_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.venvs/tf-gpu there
    with pytest.raises(BenchPythonMissing, match="--python"):
        resolve_python(None)
    with pytest.raises(BenchPythonMissing, match="No Python at"):
        resolve_python(str(tmp_path / "nope" / "python"))
    assert resolve_python(sys.executable) == Path(sys.executable)


# ---- the real process around the script, without TensorFlow -------------------------


def test_without_tensorflow_the_script_reports_it_and_ends_cleanly() -> None:
    """This test's own Python has no TensorFlow: the stream still ends with an error and done."""
    run = BenchRun(Path(sys.executable), quick=True)
    events = list(run.events())
    kinds = [e.event for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert run.report.ok is False and "cannot import TensorFlow" in run.report.errors[0]
    assert run.report.phases["environment"].status == "failed"
    assert run.report.invalid_lines == [] and run.returncode == 2


def _fake_python(tmp_path: Path, body: str) -> Path:
    """An executable that stands in for the target Python and runs `body` instead of the script."""
    script = tmp_path / "fake_bench.py"
    script.write_text(textwrap.dedent(body))
    exe = tmp_path / "python"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


pytestmark_posix = pytest.mark.skipif(os.name != "posix", reason="a shell-script stand-in for python")


@pytestmark_posix
def test_stop_interrupts_the_script_which_reports_where(tmp_path: Path) -> None:
    exe = _fake_python(
        tmp_path,
        """
        import json, signal, sys, time
        def out(**e): print(json.dumps(e), flush=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as tf_bench.py: even if inherited ignored
        try:  # everything after the start, as in tf_bench.py, so Ctrl-C is always reported
            out(event="start", schema=1)
            out(event="phase_start", phase="matmul", title="Matmul")
            time.sleep(60)
        except KeyboardInterrupt:
            out(event="error", phase="matmul", message="interrupted", fatal=True)
            out(event="done", ok=False, seconds=0.1)
            sys.exit(130)
        """,
    )
    run = BenchRun(exe)
    seen = []
    for ev in run.events():
        seen.append(ev.event)
        if ev.event == "phase_start":
            run.stop(grace=10)
    assert seen[-2:] == ["error", "done"] and run.report.errors == ["matmul: interrupted"]
    assert run.returncode == 130


@pytestmark_posix
def test_the_real_script_stops_where_it_is_even_when_started_with_sigint_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wizard started as a background job of a script inherits SIGINT ignored, and so does the
    benchmark it starts: tf_bench.py takes SIGINT back, so the stop still reports the phase it hit.
    Its TensorFlow import is made to hang here (a stand-in package that sleeps)."""
    import signal

    fake = tmp_path / "site" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("import time\ntime.sleep(60)\n")
    (tmp_path / "site" / "numpy").mkdir()  # imported first; this test's Python may have none
    (tmp_path / "site" / "numpy" / "__init__.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child inherits it ignored
    try:
        run = BenchRun(Path(sys.executable), quick=True)
        seen = []
        for ev in run.events():
            seen.append((ev.event, ev.raw.get("phase"), ev.raw.get("message")))
            if ev.event == "phase_start":
                time.sleep(0.5)  # into the import
                run.stop(grace=10)
    finally:
        signal.signal(signal.SIGINT, before)
    assert seen[-2:] == [("error", "environment", "interrupted"), ("done", None, None)]
    assert run.returncode != -9  # it ended by itself, not killed after the grace


@pytestmark_posix
def test_a_crash_without_done_is_reported_and_noise_is_kept_aside(tmp_path: Path) -> None:
    exe = _fake_python(
        tmp_path,
        """
        import json, sys
        print(json.dumps({"event": "start", "schema": 1}), flush=True)
        print("Segmentation fault (not JSON)", flush=True)
        print("libcudnn.so.9: cannot open shared object file", file=sys.stderr, flush=True)
        sys.exit(139)
        """,
    )
    run = BenchRun(exe)
    events = list(run.events())
    assert events[-1].event == "error" and "exit code 139" in events[-1].raw["message"]
    assert "libcudnn" in events[-1].raw["message"]
    assert run.report.done and run.report.ok is False
    assert len(run.report.invalid_lines) == 1


def test_a_python_that_cannot_start(tmp_path: Path) -> None:
    not_exe = tmp_path / "python"
    not_exe.write_text("")  # exists, but is not executable
    run = BenchRun(not_exe)
    events = list(run.events())
    assert len(events) == 1 and events[0].event == "error" and run.report.ok is False


def test_simulated_run_replays_and_stops() -> None:
    run = SimulatedBenchRun(load_demo("ubuntu-24.04-rtx5090"), delay=0)
    assert [e.event for e in run.events()][-1] == "done" and run.report.simulated and run.report.ok
    slow = SimulatedBenchRun(load_demo("ubuntu-24.04-rtx5090"), delay=0.05)
    started = time.monotonic()
    for ev in slow.events():
        if ev.event == "phase_start":
            slow.stop()
    assert time.monotonic() - started < 5
    assert slow.report.ok is False and slow.report.stopped and not slow.report.errors


# ---- the script itself stays standalone ----------------------------------------------


def test_the_script_imports_only_stdlib_tensorflow_and_numpy() -> None:
    with script_path() as path:
        tree = ast.parse(path.read_text())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
    extra = {m for m in modules if m not in sys.stdlib_module_names} - {"tensorflow", "numpy", "__future__"}
    assert extra == set()


def test_the_wizard_never_imports_the_script_or_tensorflow() -> None:
    import wizard.bench.runner  # noqa: F401

    assert "tensorflow" not in sys.modules and "tf_bench" not in sys.modules


# ---- the command line ---------------------------------------------------------------


def test_cli_bench_without_the_venv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: Any) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["bench"]) == 2
    assert "--python" in capsys.readouterr().err


def test_cli_bench_json_on_a_demo_profile(capsys: Any) -> None:
    assert main(["bench", "--profile", "wsl2-rtx4060-laptop", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(validate_event(json.loads(line)) for line in lines)
    assert json.loads(lines[-1])["event"] == "done"
    assert list((paths.data_dir() / "bench").glob("bench-*-simulated.json"))


def test_cli_bench_human_on_a_demo_profile(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    assert main(["--profile", "ubuntu-22.04-rtx3090-cuda11.8", "bench"]) == 0
    out = capsys.readouterr().out
    assert "SIMULATED" in out and "times as fast as the CPU" in out
    # One fact, one place: the % of this GPU at the clock it ran at (issue 37), in the table and
    # explained under it; no datasheet percentage beside it, no line saying there is none.
    assert t("bench.clock.col_at_clock") in out and "82 SMs" in out and "% of the published peak" not in out
    assert t("bench.no_peak") not in out and "no published peak" not in out


def test_cli_bench_gpu_without_a_published_peak_shows_no_percent(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["--profile", "ubuntu-22.04-gtx960m-laptop", "bench"]) == 0
    out = capsys.readouterr().out
    table = out[out.rindex(t("bench.phase.matmul")) :]  # the results table after the live lines
    assert "GPU    FP32" in table and "%" not in table.split(t("bench.bar_chart"))[0]
    assert t("bench.col.peak") not in out and "published peak" not in out.replace(t("bench.no_peak"), "")
    assert out.count(t("bench.no_peak")) == 1  # said once, on its own line
    assert t("bench.no_peak") + "\n" in out


def test_peak_note_names_the_gpu_types_without_a_peak() -> None:
    report = BenchReport()
    report.matmul = [
        MatmulResult("CPU", "float32", 1024, 0.1, 0.1),
        MatmulResult("GPU", "float32", 1024, 0.1, 8.0, percent_of_peak=70.0),
        MatmulResult("GPU", "float16", 1024, 0.1, 20.0),
    ]
    assert report.has_peak()
    assert peak_note(report) == t("bench.no_peak_for", dtypes="float16")
    report.matmul[2].percent_of_peak = 50.0
    assert peak_note(report) is None  # CPU rows never have a peak: nothing to say
    report.matmul = report.matmul[:1]
    assert not report.has_peak() and peak_note(report) is None  # no GPU ran: no peak talk at all
