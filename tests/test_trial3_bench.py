"""Trial 3: the CLI benchmark on a real machine decides XLA from facts, and says what ran."""

from __future__ import annotations

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
