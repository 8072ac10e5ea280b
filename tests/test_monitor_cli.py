"""`tf-gpu-wizard monitor`: --json lines, --count, the human view, a demo profile."""

from __future__ import annotations

import json
from typing import Any

from wizard.cli import main


def test_json_prints_one_sample_per_line_and_stops_after_count(capsys: Any) -> None:
    # This machine's own NVML: whatever it has (often nothing), the stream is the same shape.
    assert main(["monitor", "--json", "--count", "3", "--interval", "0.01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 3 and all(r["type"] == "sample" for r in records)
    assert "source" in records[0] and "source" not in records[1]
    assert all(r["host"]["ram_total"] > 0 for r in records)
    if not records[0]["gpus"]:
        assert records[0]["no_gpu_reason"]


def test_demo_profile_is_simulated_and_says_so(capsys: Any) -> None:
    assert (
        main(
            [
                "--profile",
                "ubuntu-22.04-2x-a100-server",
                "monitor",
                "--json",
                "--count",
                "2",
                "--interval",
                "0.01",
            ]
        )
        == 0
    )
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["simulated"] and first["source"]["simulated"]
    assert [g["name"] for g in first["gpus"]] == ["NVIDIA A100-SXM4-80GB"] * 2


def test_human_view_on_a_pipe(capsys: Any) -> None:
    assert main(["monitor", "--profile", "wsl2-rtx4060-laptop", "--count", "2", "--interval", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "SIMULATED" in out and "RTX 4060 Laptop" in out
    assert "does not report per-process GPU memory" in " ".join(out.split())
    assert "Monitor stopped (samples taken: 2)" in out and "of one core" in out


def test_interval_must_be_positive(capsys: Any) -> None:
    try:
        main(["monitor", "--interval", "0"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "must be > 0" in capsys.readouterr().err


def test_every_gpu_field_keeps_its_value_in_80_columns(capsys: Any, monkeypatch: Any) -> None:
    from rich.cells import cell_len

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["--profile", "ubuntu-22.04-2x-a100-server", "monitor", "--count", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(cell_len(line.rstrip()) for line in lines) <= 80
    clock = [line for line in lines if "Memory clock" in line]
    assert len(clock) == 2 and all("MHz" in line.split("Memory clock", 1)[1] for line in clock)
    assert sum(line.strip().startswith("PCIe") for line in lines) == 2  # its own indented line
