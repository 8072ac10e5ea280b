"""What a tester's walk through the demo profiles found (trial 2): each test is what the tester saw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wizard.cli.main import main
from wizard.text import set_language

MISMATCH = "ubuntu-22.04-rtx3060-mismatch-after-update"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language(None)


def _unnamed_gpu_profile(tmp_path: Path) -> str:
    """The mismatch demo as an old saved profile kept it: NVML fails and only the count of GPUs on
    the PCI bus is known (no device id), so the GPU has no name and no compute capability."""
    data = json.loads((ROOT / "assets" / "profiles" / f"{MISMATCH}.json").read_text(encoding="utf-8"))
    data.pop("pci_gpus", None)
    data["notes"] = [n for n in data.get("notes", []) if "PCI" not in json.dumps(n)]
    path = tmp_path / "old-saved-profile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_gpu_nvml_cannot_name_is_worded_in_chinese_in_recommend(
    zh: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # NVML fails, the GPU has no name and no compute capability; the caveat said "the NVIDIA GPU
    # 的算力…" in the Chinese UI.
    assert main(["--lang", "zh", "--profile", _unnamed_gpu_profile(tmp_path), "recommend"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA 显卡 的算力" in out or "NVIDIA 显卡的算力" in out
    assert "the NVIDIA GPU" not in out


def test_a_gpu_nvml_cannot_name_reads_whole_in_english(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["--lang", "en", "--profile", _unnamed_gpu_profile(tmp_path), "recommend"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "the compute capability of the NVIDIA GPU is unknown" in out


def test_the_mismatch_demo_names_its_gpu_from_the_pci_bus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "en", "--profile", MISMATCH, "recommend"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "GeForce RTX 3060: compute capability 8.6" in out and "is unknown" not in out


# ---- RTX 50: TF 2.21's XLA cannot target sm_120, and the benchmark said "21.9 times with XLA" ------

RTX5090 = "ubuntu-24.04-rtx5090"


def _rtx5090_report(**kwargs: Any) -> Any:
    from wizard.bench.runner import SimulatedBenchRun
    from wizard.demo import load_demo

    run = SimulatedBenchRun(load_demo(RTX5090), delay=0, **kwargs)
    for _ in run.events():
        pass
    return run.report


def test_simulated_rtx5090_benchmark_runs_no_xla_and_the_verdict_says_why() -> None:
    from wizard.bench.verdict import verdict

    report = _rtx5090_report()
    assert report.train_rate("GPU") is not None  # the GPU still trains, without XLA
    assert report.train_rate("GPU", xla=True) is None and report.train_rate("CPU", xla=True) is None
    assert report.phases["xla"].status == "skipped"
    found = verdict(report)
    assert found is not None and found.level == "ok"
    assert "XLA was not run" in found.text and "12.0" in found.text
    assert "with XLA)" not in found.text


def test_simulated_benchmark_runs_in_the_tensorflow_the_plan_installs() -> None:
    # The profile has TF 2.19.0, which Detect says cannot use an RTX 5090; the plan installs 2.21.0.
    from wizard.bench.events import validate_event
    from wizard.bench.sim import simulated_events
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo

    profile = load_demo(RTX5090)
    best = recommend(profile).recommended
    assert best is not None and best.set.tensorflow != profile.tensorflow.version  # type: ignore[union-attr]
    events = [validate_event(e) for e in simulated_events(profile, candidate=best)]
    env = next(e.raw for e in events if e.raw.get("kind") == "environment")
    assert env["data"]["tf_version"] == best.set.tensorflow


def test_a_gpu_whose_xla_works_still_benchmarks_xla() -> None:
    from wizard.bench.runner import SimulatedBenchRun
    from wizard.demo import load_demo

    run = SimulatedBenchRun(load_demo("ubuntu-22.04-rtx3090-cuda11.8"), delay=0)
    for _ in run.events():
        pass
    assert run.report.train_rate("GPU", xla=True) is not None and run.report.xla_why is None


def test_bench_cli_on_an_rtx5090_demo_prints_no_xla_figures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    assert main(["--lang", "en", "--profile", RTX5090, "bench"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "times with XLA" not in out
    assert "XLA was not run: TF 2.21's XLA cannot compile for compute capability 12.0" in out


def test_bench_cli_on_an_rtx5090_demo_in_chinese(
    zh: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    assert main(["--lang", "zh", "--profile", RTX5090, "bench"]) == 0
    out = "".join(capsys.readouterr().out.split())
    assert "用XLA时是" not in out
    assert "没有运行XLA" in out


def test_a_real_benchmark_on_a_set_without_xla_passes_no_xla(tmp_path: Any) -> None:
    # On a real RTX 50 machine TF 2.21's jit_compile aborts the process: the monitor's run
    # must not start the XLA phase at all.
    import dataclasses
    import sys
    from pathlib import Path

    from screens.monitor_screen import MonitorScreen
    from wizard.bench.runner import BenchRun
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo

    real = dataclasses.replace(load_demo(RTX5090), simulated=False)
    best = recommend(real).recommended
    screen = MonitorScreen(real, candidate=best, bench_python=Path(sys.executable))
    run = screen._make_run()
    assert isinstance(run, BenchRun)
    assert "--no-xla" in run.command(tmp_path / "tf_bench.py")
    assert run.report.xla_why is not None and "12.0" in run.report.xla_why
    plain = MonitorScreen(real, candidate=None, bench_python=Path(sys.executable))._make_run()
    assert isinstance(plain, BenchRun) and "--no-xla" not in plain.command(tmp_path / "tf_bench.py")


async def test_the_app_hands_the_chosen_set_to_the_monitor() -> None:
    from screens.monitor_screen import MonitorScreen
    from tests.apps.wizard_app import build_app, to_finished

    app = build_app(RTX5090)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_finished(pilot)
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        assert screen.candidate is app.session.candidate
        assert screen.candidate is not None and screen.candidate.xla_limit is not None


# ---- the finish's Jupyter hint re-planned the recommended set, not the one the student chose -------

GTX1080 = "ubuntu-20.04-gtx1080-driver470"


def test_jupyter_hint_after_a_conda_run_keeps_conda_and_its_folder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The recommended set here is pip; the student chose conda. A bare `apply --with jupyter` would
    # have planned pip TensorFlow into the conda environment's folder.
    assert main(["--lang", "en", "--profile", GTX1080, "apply", "--method", "conda", "--yes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Jupyter:"))
    command = lines[at + 1].strip()  # on its own line, to copy whole
    assert command.startswith(f"tf-gpu-wizard apply --profile {GTX1080} ")
    assert "--method conda" in command and "--tf 2.14" in command and "--python 3.9" in command
    # The environment is in the folder `apply` picks by itself: --venv is left out (one line to copy)
    assert command.endswith("--with jupyter") and "--venv" not in command
    folder = next(line.split()[1] for line in lines if line.strip().startswith("source "))
    folder = folder.removesuffix("/bin/activate")
    # and the command it prints is one `apply` takes: the same conda plan, in the same folder,
    # Jupyter switched on
    argv = command.split()[1:]
    assert main(["--lang", "en", *argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "conda environment" in out and "Jupyter kernel  [you] [optional, on]" in out
    assert folder in out


# ---- the benchmark panel's "Result saved to" path was broken mid-name ("bench-2026120" / "6-…json") --


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_saved_result_path_breaks_only_after_a_slash(
    size: tuple[int, int], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Static

    from screens.monitor_screen import MonitorScreen
    from tests.apps.monitor_app import MonitorApp, settle
    from wizard.bench.runner import SimulatedBenchRun
    from wizard.demo import load_demo

    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(tmp_path / "a-rather-long-home-folder-for-the-wizard"))
    profile = load_demo(GTX1080)
    app = MonitorApp(
        lambda: MonitorScreen(
            profile,
            bench_factory=lambda: SimulatedBenchRun(profile, delay=0),
            interval=3600,
            autostart_bench=True,
            save_results=True,
        )
    )
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.saved is not None
        footer = screen.query_one("#bench-footer", Static)
        from textual.geometry import Region

        strips = footer.render_lines(Region(0, 0, footer.size.width, footer.size.height))
        lines = [strip.text.rstrip() for strip in strips]  # as the screen shows them
        width = footer.content_region.width
        at = next(i for i, line in enumerate(lines) if line.startswith("/"))
        path_lines = [line for line in lines[at:] if line]
        assert "".join(path_lines) == str(screen.saved)
        for line in path_lines[:-1]:  # a break right after a "/", or a name wider than the panel
            assert line.endswith("/") or len(line) == width, path_lines
        if len(screen.saved.name) <= width:
            assert path_lines[-1] == screen.saved.name, path_lines


# ---- doctor --log: a cut evidence line read as whole ("in this co"), and ". " inside Chinese -------

MISMATCH_LOG = (
    "2026-12-06 07:40:12.345678: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"
    "2026-12-06 07:40:13.111600: E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262]"
    " kernel version 555.42.6 does not match DSO version 560.35.3 -- cannot find working devices in this"
    " configuration\n"
)


def _doctor_log(tmp_path: Any, capsys: pytest.CaptureFixture[str], lang: str) -> str:
    log = tmp_path / "train.log"
    log.write_text(MISMATCH_LOG)
    main(["--lang", lang, "doctor", "--log", str(log)])
    return capsys.readouterr().out


def test_doctor_marks_a_cut_evidence_line_as_cut(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    out = " ".join(_doctor_log(tmp_path, capsys, "en").split())
    at = out.index("seen in the output: 2026-12-06 07:40:13.111600")
    evidence = out[at:].split(" Fix:")[0]
    assert "kernel version 555.42.6 does not match DSO version 560.35.3" in evidence
    assert evidence.endswith("…") and not evidence.endswith("in this co")


def test_doctor_joins_its_reason_and_why_with_a_chinese_full_stop(
    zh: None, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    out = "".join(_doctor_log(tmp_path, capsys, "zh").split())
    assert "560.35.3" in out and "555.42.6" in out
    assert "）。磁盘上" in out and "）.磁盘上" not in out


# ---- the mismatch demo's monitor said "No NVIDIA GPU was found by the driver" (there is one) -------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_monitor_on_the_mismatch_demo_does_not_say_the_driver_found_no_gpu(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    from wizard.text import t

    assert main(["--lang", lang, "--profile", MISMATCH, "monitor", "--count", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert " ".join(t("monitor.no_gpu.none").split()) not in out
    assert " ".join(t("monitor.demo_driver.no_gpu").split())[:30] in out
    set_language(None)


def test_the_demo_driver_words_do_not_claim_no_driver_is_loaded() -> None:
    # The mismatch demo has its module loaded (535.154.05): the words fit it and a fresh install.
    from wizard.text import t

    for lang in ("en", "zh"):
        set_language(lang)
        for key in ("monitor.demo_driver.no_gpu", "bench.demo_driver.cpu_only"):
            assert "no NVIDIA driver loaded" not in t(key) and "没有加载 NVIDIA 驱动" not in t(key)
    set_language(None)


def test_jupyter_hint_names_a_folder_the_student_chose(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the default folder is left out: an environment elsewhere keeps its --venv, whole."""
    args = [
        "--lang",
        "en",
        "--profile",
        GTX1080,
        "apply",
        "--method",
        "conda",
        "--venv",
        "/data/envs/tf",
        "--yes",
    ]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Jupyter:"))
    assert "--venv /data/envs/tf --with jupyter" in lines[at + 1]
