"""The benchmark's FLOP/clock/SM table (assets/knowledge/sm_throughput.toml) against the
whitepapers' own arithmetic: each checked peak is recomputed from the board's SM count x boost
clock x the row's per-SM figure, and a row is called verified only where every precision it gives
was checked so."""

from __future__ import annotations

from typing import Any

import pytest

from wizard.assets import asset_text
from wizard.bench.peak import PRECISIONS, achievable_tflops, flop_per_clock
from wizard.tomlcompat import tomllib

ROWS = tomllib.loads(asset_text("knowledge/sm_throughput.toml"))["sm"]
CHECKS = [(row, check) for row in ROWS for check in row.get("check", [])]


def _id(item: tuple[dict[str, Any], dict[str, Any]]) -> str:
    row, check = item
    return f"{row['arch']}-{row['segment']}-{check['precision']}"


@pytest.mark.parametrize("item", CHECKS, ids=[_id(c) for c in CHECKS])
def test_each_checked_peak_is_sms_times_clock_times_the_rows_figure(
    item: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    row, check = item
    precision = str(check["precision"])
    per_sm = row[precision]
    sms, mhz, peak = int(check["sms"]), float(check["boost_mhz"]), float(check["published_tflops"])
    assert isinstance(per_sm, int)
    recomputed = achievable_tflops(sms, mhz, per_sm)
    assert abs(recomputed - peak) / peak <= 0.02, (recomputed, peak)
    # The per-SM figure recorded is the published peak's own, and rounds to the row's.
    from_peak = peak * 1e12 / (sms * mhz * 1e6)
    assert abs(from_peak - float(check["per_sm_from_peak"])) < 0.1
    assert abs(from_peak - per_sm) / per_sm <= 0.02
    assert check["board"] and check["table"] and check["read_in"]


def test_more_than_half_the_architectures_are_checked_against_a_whitepaper() -> None:
    assert len(CHECKS) >= 20
    assert {r["arch"] for r in ROWS if r.get("check")} >= {
        "Pascal GP100", "Volta", "Turing", "Ampere GA100", "Ampere GA10x", "Ada", "Blackwell GB20x",
    }  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['arch']}-{r['segment']}" for r in ROWS])
def test_a_row_is_verified_only_where_every_precision_it_gives_was_checked(row: dict[str, Any]) -> None:
    given = {p for p in PRECISIONS if isinstance(row.get(p), int)}
    checked = {str(c["precision"]) for c in row.get("check", [])}
    assert checked <= given
    why = str(row.get("unverified", ""))
    if row["confidence"] == "verified":
        assert checked == given and not why
    elif row["confidence"] == "partly":
        assert checked and checked < given
        assert all(p in why for p in given - checked), why  # each unchecked precision is named
    else:
        assert row["confidence"] == "unverified" and not checked and len(why) > 40


def test_a_jetson_tx2_is_not_given_a_geforce_pascal_fp16_rate() -> None:
    # cc 6.1 runs FP16 at 1/64 of FP32; cc 6.2 (Jetson TX2) at 2x (the CUDA guide's throughput table).
    gtx = flop_per_clock("6.1", "NVIDIA GeForce GTX 1080", "fp16")
    tx2 = flop_per_clock("6.2", "NVIDIA Tegra X2", "fp16")
    assert gtx is not None and gtx.flop_per_clock == 4
    assert tx2 is not None and tx2.flop_per_clock == 512
