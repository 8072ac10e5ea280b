"""A long log: every line is matched, and the facts are read from its start and its end
(wizard.doctor.diagnose.fact_text), where start-up prints the versions and the failure comes last.
Reading every fact of a 2.5 MB log took about 17 s; the answer must not lose the start's facts."""

from __future__ import annotations

from pathlib import Path

from wizard.doctor.diagnose import FACT_HEAD_CHARS, FACT_TAIL_CHARS, diagnose_lines, fact_text
from wizard.doctor.logread import read_log
from wizard.text import set_language

SMI = "| NVIDIA-SMI 470.161.03   Driver Version: 470.161.03   CUDA Version: 11.4     |"
END = (
    "I tensorflow/tsl/platform/default/dso_loader.cc] Successfully opened dynamic library libcudart.so.12\n"
    "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
    "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
)
STEP = "step {n} loss 0.3105 accuracy 0.9120 ############################################\n"


def test_a_long_logs_start_and_end_are_both_read(tmp_path: Path) -> None:
    set_language("en")
    body = "".join(STEP.format(n=n) for n in range(40_000))  # about 3.4 MB
    log = tmp_path / "train.log"
    log.write_text(SMI + "\n" + body + END, encoding="utf-8")
    found = diagnose_lines(read_log(str(log)).lines)
    # The driver is read from the first line, the CUDA the program loaded from the end: together
    # they decide that the driver is below that CUDA's floor.
    assert found[0].id == "driver-too-old"
    assert "470.161.03" in found[0].why and "525.60.13" in found[0].why


def test_the_fact_text_is_bounded_and_keeps_whole_lines() -> None:
    lines = [f"line {n} " + "x" * 60 for n in range(50_000)]
    text = fact_text(lines)
    assert len(text) <= FACT_HEAD_CHARS + FACT_TAIL_CHARS
    kept = text.split("\n")
    assert kept[0] == lines[0] and kept[-1] == lines[-1] and lines[25_000] not in kept
    assert set(kept) <= set(lines)
    short = lines[:10]
    assert fact_text(short) == "\n".join(short)
