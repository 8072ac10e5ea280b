"""Trial 3: the CLI benchmark on a real machine decides XLA from facts, and says what ran."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.machines import context, tree
from wizard.cli.main import main
from wizard.nvml_fake import FakeGpu, FakeNvml
from wizard.text import set_language

RTX5090 = "ubuntu-24.04-rtx5090"


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language(None)


def fake_python(tmp_path: Path, tf: str) -> tuple[Path, Path]:
    """A target environment's Python: it answers the metadata question with `tf` and, asked to
    run the benchmark, records its arguments (what a real TensorFlow would be started with)."""
    argv = tmp_path / "argv.txt"
    script = tmp_path / "env" / "bin" / "python"
    script.parent.mkdir(parents=True)
    script.write_text(
        f'#!/bin/sh\nif [ "$1" = "-c" ]; then echo {tf}; exit 0; fi\necho "$@" > "{argv}"\nexit 0\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, argv


def machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, cc: tuple[int, int]) -> None:
    """This machine, as the probe reads it: a native Linux with a fake NVML holding one GPU."""
    import wizard.cli.bench as cli_bench

    root = tree(tmp_path / "root", {"/proc/version": "Linux version 6.8.0-45-generic\n"})
    nvml = FakeNvml([FakeGpu(name=name, cc=cc)], driver="575.57.08", cuda=12090)

    def ctx() -> Any:
        c = context(root)
        c.nvml_factory = lambda: nvml
        return c

    monkeypatch.setattr(cli_bench, "PROBE_CONTEXT", ctx)


needs_sh = pytest.mark.skipif(os.name == "nt", reason="the fake target Python is a shell script")


@needs_sh
def test_real_bench_on_an_rtx5090_with_tf_2_21_does_not_start_xla(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    machine(monkeypatch, tmp_path, "NVIDIA GeForce RTX 5090", (12, 0))
    python, argv = fake_python(tmp_path, "2.21.0")
    main(["--lang", "en", "bench", "--python", str(python)])
    out = " ".join(capsys.readouterr().out.split())
    assert "--no-xla" in argv.read_text().split()
    assert "XLA phase not run: TF 2.21's XLA cannot compile for compute capability 12.0" in out
    assert "Add --xla to run it anyway" in out


@needs_sh
def test_real_bench_in_chinese_says_why_xla_is_not_run(
    zh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    machine(monkeypatch, tmp_path, "NVIDIA GeForce RTX 5090", (12, 0))
    python, argv = fake_python(tmp_path, "2.21.0")
    main(["--lang", "zh", "bench", "--python", str(python)])
    out = "".join(capsys.readouterr().out.split())
    assert "--no-xla" in argv.read_text().split()
    assert "XLA阶段未运行：TF2.21的XLA无法为算力12.0编译" in out and "--xla" in out


@needs_sh
def test_xla_forces_the_phase_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    machine(monkeypatch, tmp_path, "NVIDIA GeForce RTX 5090", (12, 0))
    python, argv = fake_python(tmp_path, "2.21.0")
    main(["--lang", "en", "bench", "--python", str(python), "--xla"])
    assert "--no-xla" not in argv.read_text().split()
    assert "XLA phase not run" not in capsys.readouterr().out


@needs_sh
@pytest.mark.parametrize(
    ("gpu", "cc", "tf"),
    [("NVIDIA GeForce RTX 4090", (8, 9), "2.21.0"), ("NVIDIA GeForce RTX 3090", (8, 6), "2.17.1")],
)
def test_a_gpu_its_xla_can_target_runs_the_xla_phase(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    gpu: str,
    cc: tuple[int, int],
    tf: str,
) -> None:
    machine(monkeypatch, tmp_path, gpu, cc)
    python, argv = fake_python(tmp_path, tf)
    main(["--lang", "en", "bench", "--python", str(python)])
    assert "--no-xla" not in argv.read_text().split()
    assert "XLA phase not run" not in capsys.readouterr().out


def test_the_gate_is_the_resolvers_rule() -> None:
    # One fact, one place: the demo's recommended set and the probed facts give the same limit.
    from wizard.bench.xla_gate import limit_for
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo

    profile = load_demo(RTX5090)
    best = recommend(profile).recommended
    assert best is not None and best.xla_limit is not None
    probed = limit_for(profile.gpus, best.set.tensorflow)
    assert probed is not None
    fields = ("cc", "tf", "isa", "needs")
    assert [getattr(probed, f) for f in fields] == [getattr(best.xla_limit, f) for f in fields]
    assert limit_for(profile.gpus, None) is None  # no TensorFlow read: nothing predicted


def test_installed_tensorflow_reads_metadata_of_the_target_python() -> None:
    from wizard.bench.xla_gate import installed_tensorflow

    # This test's Python has no TensorFlow: not known, never a guess.
    assert installed_tensorflow(Path(sys.executable)) is None
    assert installed_tensorflow(Path("/nonexistent/python")) is None


# ---- "✓ all 5 phases passed" when the XLA phase was not run ------------------------------------


def _rtx5090_report() -> Any:
    from wizard.bench.runner import SimulatedBenchRun
    from wizard.demo import load_demo

    run = SimulatedBenchRun(load_demo(RTX5090), delay=0)
    for _ in run.events():
        pass
    return run.report


def test_the_screen_says_4_phases_passed_and_why_xla_was_not_run() -> None:
    from screens.widgets.bench_panel import BenchPanel

    line = BenchPanel._phase_lines(_rtx5090_report()).plain
    assert line.startswith("✓ 4 phases passed; CNN with XLA not run: TF 2.21's XLA cannot compile")
    assert "all 5" not in line


def test_the_screen_in_chinese_says_what_ran(zh: None) -> None:
    from screens.widgets.bench_panel import BenchPanel

    line = BenchPanel._phase_lines(_rtx5090_report()).plain
    assert line.startswith("✓ 4 个阶段通过；CNN + XLA 未运行：TF 2.21 的 XLA 无法为算力 12.0 编译")
    assert "全部" not in line


def test_a_run_with_every_phase_still_says_all_5() -> None:
    from screens.widgets.bench_panel import BenchPanel
    from wizard.bench.runner import SimulatedBenchRun
    from wizard.demo import load_demo

    run = SimulatedBenchRun(load_demo("ubuntu-22.04-rtx3090-cuda11.8"), delay=0)
    for _ in run.events():
        pass
    assert BenchPanel._phase_lines(run.report).plain.startswith("✓ all 5 phases passed")


def test_cli_says_what_ran_en_and_zh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    assert main(["--lang", "en", "--profile", RTX5090, "bench"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "✓ 4 phases passed; CNN with XLA not run: TF 2.21's XLA cannot compile for compute capability 12.0"
        in out
    )
    assert "all 5 phases" not in out
    set_language("zh")
    try:
        assert main(["--lang", "zh", "--profile", RTX5090, "bench"]) == 0
    finally:
        set_language(None)
    out = "".join(capsys.readouterr().out.split())
    assert "✓4个阶段通过；CNN+XLA未运行：TF2.21的XLA无法为算力12.0编译" in out


def test_cli_json_done_lists_what_ran_and_the_saved_result_too(capsys: pytest.CaptureFixture[str]) -> None:
    from wizard import paths

    assert main(["--lang", "en", "--profile", RTX5090, "bench", "--json"]) == 0
    done = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert done["event"] == "done"
    assert done["passed"] == ["environment", "sanity", "matmul", "train"]
    assert [s["phase"] for s in done["skipped"]] == ["xla"]
    assert "cannot compile for compute capability 12.0" in done["skipped"][0]["reason"]
    saved = sorted((paths.data_dir() / "bench").glob("bench-*-simulated.json"))[-1]
    assert json.loads(saved.read_text())["skipped"] == done["skipped"]


def test_a_phase_the_user_turned_off_says_so() -> None:
    # The script's phase_end says only "--no-xla"; the summary names who decided.
    from wizard.bench.events import validate_event
    from wizard.bench.phase_summary import skipped_phases
    from wizard.bench.report import BenchReport

    report = BenchReport()
    report.skip_why["xla"] = "you asked for --no-xla"
    report.apply(validate_event({"event": "phase_start", "phase": "xla", "title": "x"}))
    report.apply(
        validate_event(
            {"event": "phase_end", "phase": "xla", "status": "skipped", "seconds": 0.0, "reason": "--no-xla"}
        )
    )
    assert [(s.phase, s.reason) for s in skipped_phases(report)] == [("xla", "you asked for --no-xla")]
