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


@pytest.mark.parametrize("with_log", [False, True])
def test_doctor_on_blackwell_says_the_fact_once_with_the_plans_fix_and_the_public_source(
    zh: None,
    with_log: bool,
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    argv = ["doctor", "--lang", "zh", "--profile", RTX5090]
    if with_log:
        log = tmp_path / "run.log"
        log.write_text("Epoch 1/3\n", encoding="utf-8")
        argv += ["--log", str(log)]
    main(argv)
    out = capsys.readouterr().out
    flat = "".join(line.strip() for line in out.splitlines())
    assert flat.count("1,149") == 2, out  # the paragraph (which names 1,149 twice) printed once
    assert "…" not in out
    assert "查看详情" not in out and "来源：tf-gpu-wizard detect" not in out
    assert "安装TensorFlow2.21.0" in flat.replace(" ", "") and "CUDA_CACHE_MAXSIZE" in out
    assert "来源：tensorflow/tensorflow#99592" in out
    assert main(["doctor", "--profile", RTX5090, "--json"]) in (0, 1, 2)
    (finding,) = [d for d in json.loads(capsys.readouterr().out) if d["id"] == "finding-reported-fail"]
    assert finding["seen_in"].startswith("tensorflow/tensorflow#") and "detect" not in finding["fix"]
