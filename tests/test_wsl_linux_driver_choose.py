"""WSL2 with a Linux NVIDIA driver installed inside: Detect says to remove it and the plan does,
so Choose's rows, `recommend` and its --json say every GPU set fits after that step (the reason
first, as a driver step's is), never a bare "works here"."""

from __future__ import annotations

import json

import pytest

from screens.widgets.candidate_table import short_why
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.text import t

DEMO = "wsl2-linux-driver-inside"
LIBCUDA = "/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01"


def test_every_gpu_row_fits_after_the_step_that_removes_the_linux_driver() -> None:
    profile = load_demo(DEMO)
    rec = recommend(profile)
    gpu_rows = [c for c in rec.candidates if c.ok and c.set.method != "cpu"]
    assert gpu_rows
    for cand in gpu_rows:
        assert cand.linux_driver == (LIBCUDA,) and cand.first_steps == ["remove-linux-driver"]
        assert short_why(cand) != t("app.choose.ok")
        assert short_why(cand) == "remove the Linux driver first"
        assert LIBCUDA in cand.reasons[0]
    cpu = next(c for c in rec.candidates if c.ok and c.set.method == "cpu")
    assert cpu.first_steps == [] and short_why(cpu) == t("app.choose.ok")  # no GPU, no libcuda needed
    # The plan's step removes exactly the files the row names.
    assert rec.recommended is not None
    step = build_plan(profile, rec.recommended).step("remove-linux-driver")
    assert step.commands[0][-1] == LIBCUDA


def test_recommend_and_its_json_say_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    from wizard.cli.main import main

    assert main(["--lang", "en", "recommend", "--profile", DEMO]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "recommended + remove Linux driver" in out
    assert main(["--lang", "en", "recommend", "--json", "--profile", DEMO]) == 0
    data = json.loads(capsys.readouterr().out)
    best = data["candidates"][0]
    assert best["first_steps"] == ["remove-linux-driver"] and best["linux_driver"] == [LIBCUDA]


def test_a_clean_wsl2_says_works_here() -> None:
    rec = recommend(load_demo("wsl2-rtx4060-laptop"))
    assert rec.recommended is not None and rec.recommended.first_steps == []
    assert not rec.recommended.linux_driver
