"""A demo machine whose plan installs the NVIDIA driver (RTX 4090 fresh): the monitor and the
benchmark say plainly that they show the machine as detected, and a CPU run is not a success."""

from __future__ import annotations

from typing import Any

import pytest

from wizard.cli.main import main
from wizard.nvml import ErrorKind
from wizard.text import t

FRESH = "ubuntu-24.04-rtx4090-fresh"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_monitor_on_the_fresh_demo_says_the_driver_was_only_simulated(capsys: Any, lang: str) -> None:
    assert main(["--lang", lang, "--profile", FRESH, "monitor", "--count", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert " ".join(t("monitor.demo_driver.no_gpu").split())[:30] in out
    for kind in ErrorKind:
        assert f"({kind.value})" not in out and f"（{kind.value}）" not in out


def test_bench_on_the_fresh_demo_says_it_ran_on_the_cpu_and_why(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    main(["--lang", "en", "--profile", FRESH, "bench"])
    out = " ".join(capsys.readouterr().out.split())
    assert "it ran on the CPU, not on the GPU" in out
    assert "driver steps run only in simulation" in out


def test_bench_on_a_demo_without_nvidia_hardware_stays_a_plain_cpu_verdict(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wizard.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "DEMO_PACE", 0.0)
    main(["--lang", "en", "--profile", "no-nvidia-gpu", "bench"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Verdict: TensorFlow works" in out and "not on the GPU" not in out
