"""The CLI in Chinese reads like the app: worded method names, no words cut mid-sentence,
one numbering of steps (tester's walk, engineer f2)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rich.cells import cell_len

from wizard.choose.choice import METHODS
from wizard.cli.main import main
from wizard.text import set_language, t

RTX5090 = "ubuntu-24.04-rtx5090"


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language(None)


def test_recommend_and_plan_in_chinese_name_methods_as_the_app_does(
    zh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recommend", "--profile", RTX5090, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    for method in METHODS:
        assert t(f"app.method.{method}") in out, method
    assert "pip-and-cuda" not in out and "system-cuda" not in out
    assert main(["plan", "--profile", RTX5090, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "（pip，自带 CUDA）" in out and "pip-and-cuda" not in out
    # A machine still reads the bare names.
    assert main(["recommend", "--profile", RTX5090, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "pip-and-cuda" in json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_recommend_at_80_columns_wraps_without_cutting_words(
    lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    try:
        assert main(["recommend", "--profile", RTX5090, "--lang", lang]) == 0
    finally:
        set_language(None)
    out = capsys.readouterr().out
    assert "…" not in out
    assert all(cell_len(line.rstrip()) <= 80 for line in out.splitlines())
    # The words the tester saw cut are there whole.
    flat = "".join(line.strip() for line in out.splitlines())
    assert "PTX ISA" in out or "PTXISA" in flat
    assert "cuSOLVER" in out
