"""What a tester's walk through the demo profiles found (trial 2): each test is what the tester saw."""

from __future__ import annotations

from typing import Any

import pytest

from wizard.cli.main import main
from wizard.text import set_language

MISMATCH = "ubuntu-22.04-rtx3060-mismatch-after-update"


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language(None)


def test_a_gpu_nvml_cannot_name_is_worded_in_chinese_in_recommend(
    zh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # The driver was updated without a restart: NVML fails, the GPU has no name and no compute
    # capability; the caveat said "the NVIDIA GPU 的算力…" in the Chinese UI.
    assert main(["--lang", "zh", "--profile", MISMATCH, "recommend"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA 显卡 的算力" in out or "NVIDIA 显卡的算力" in out
    assert "the NVIDIA GPU" not in out


def test_a_gpu_nvml_cannot_name_reads_whole_in_english(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "en", "--profile", MISMATCH, "recommend"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "the compute capability of the NVIDIA GPU is unknown" in out
