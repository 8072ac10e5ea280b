"""The CLI in Chinese reads like the app: worded method names, no words cut mid-sentence,
one numbering of steps (tester's walk, engineer f2)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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
        short = capsys.readouterr().out
        # Whole with --explain (issue 36: by default each reason leads with one line).
        assert main(["recommend", "--profile", RTX5090, "--lang", lang, "--explain"]) == 0
    finally:
        set_language(None)
    out = capsys.readouterr().out
    assert "…" not in short and all(cell_len(line.rstrip()) <= 80 for line in short.splitlines())
    assert len(short.splitlines()) < len(out.splitlines())
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


def _numbered(out: str) -> dict[str, str]:
    """Plan's numbered step heads, number -> the head's start (the title before its tags)."""
    heads = {}
    for line in out.splitlines():
        m = re.match(r"^ ?(\d+)\. (.+?)  \[", line)
        if m:
            heads[m.group(1)] = m.group(2)
    return heads


def test_plan_dry_run_and_run_number_the_same_steps(tmp_path: Any) -> None:
    """A switched-off optional step (.wslconfig) is shown unnumbered; Plan, the dry run and Run
    give every step that runs the same number."""
    name = "wsl2-rtx4060-laptop"
    env = {**os.environ, "HOME": str(tmp_path), "COLUMNS": "200", "TF_GPU_WIZARD_LANG": "en"}
    env.pop("XDG_STATE_HOME", None)
    env.pop("XDG_DATA_HOME", None)

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "wizard", "--profile", name, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        return done.stdout

    plan_out = cli("plan")
    dry_out = cli("apply", "--dry-run")
    run_out = cli("apply", "--yes", "--new")
    plan = _numbered(plan_out)
    assert _numbered(dry_out) == plan
    off = t("runner.cli.would_leave_out")
    assert off in dry_out and " - " in plan_out  # the switched-off step is there, unnumbered
    ran = re.findall(r"==> \[(\d+)/(\d+)\] (.+?)(?: \[|$)", run_out, re.M)
    assert ran, run_out
    total = {int(total) for _, total, _ in ran}
    assert total == {len(plan)}, (total, plan)
    for number, _, title in ran:
        assert plan[number].startswith(title.strip()), (number, title, plan[number])
