"""Findings lead with one line; the evidence and sources are one key (`w`) or --explain away
(issue 36, point 18). On an RTX 5090, Detect's "What needs attention" was 30 lines in a narrow
column with four issue citations inside one sentence; recommend's why cell ran to 60 lines."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.widgets import Static

from screens.widgets.findings_view import FindingsView
from tests.apps.wizard_app import build_app, to_detect
from wizard.cli.main import main
from wizard.demo import load_demo
from wizard.doctor.finding_view import lead
from wizard.doctor.findings import find_problems
from wizard.text import set_language, t

RTX5090 = "ubuntu-24.04-rtx5090"
CITATION = re.compile(r"tensorflow/tensorflow#\d+")


def _why_text(view: FindingsView) -> str:
    return "\n".join(str(s.render()) for s in view.query(".finding-why").results(Static))


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_detect_leads_with_a_line_and_w_shows_the_evidence(lang: str) -> None:
    set_language(lang)
    try:
        app = build_app(RTX5090)
        async with app.run_test(size=(80, 24)) as pilot:
            await to_detect(pilot)
            view = app.screen.query_one(FindingsView)
            short = _why_text(view)
            assert not CITATION.search(short)  # no issue citations in the lines read first
            assert t("keys.findings.more_app") in " ".join(str(s.render()) for s in view.query(Static))
            await pilot.press("w")
            await pilot.pause()
            whole = _why_text(view)
            assert len(CITATION.findall(" ".join(whole.split()))) >= 4  # the sources, one key away
            await pilot.press("w")
            await pilot.pause()
            assert _why_text(view) == short
    finally:
        set_language("en")


def test_the_lead_is_one_sentence_without_citations_and_keeps_the_fix() -> None:
    for f in find_problems(load_demo(RTX5090)):
        short = lead(f.why)
        assert not CITATION.search(short) and len(short) <= 400
    driver = find_problems(load_demo("wsl2-rtx3080-laptop-driver527"))[0]
    assert "Fix: in Windows, install NVIDIA driver 528.33 or newer" in lead(driver.why)


def test_detect_cli_short_by_default_explain_whole(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--profile", RTX5090]) == 0
    short = " ".join(capsys.readouterr().out.split())
    assert not CITATION.search(short)
    assert f"tf-gpu-wizard detect --profile {RTX5090} --explain" in short  # the hint keeps the profile
    assert main(["detect", "--profile", RTX5090, "--explain"]) == 0
    whole = " ".join(capsys.readouterr().out.split())
    assert len(CITATION.findall(whole)) >= 4


def test_recommend_why_cell_is_short_by_default(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    main(["recommend", "--profile", RTX5090])
    short = capsys.readouterr().out
    main(["recommend", "--profile", RTX5090, "--explain"])
    whole = capsys.readouterr().out
    # 45 lines before the routes for this GPU (issue 33) were listed under the table: 5 more.
    assert len(short.splitlines()) <= 50 < len(whole.splitlines())
    assert "more (recommend --explain)" in short  # a row's other reasons are one flag away
    assert "--explain" in short and "cuSOLVER" in whole
