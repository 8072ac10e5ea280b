"""A GPU whose row in nvidia-smi's table shows ERR! for its temperature and performance state (its
name still read) is a GPU the driver cannot reach, beside GPUs that work; a fan alone reading ERR! is
a working card. Shape from NVIDIA/dcgm-exporter#46 (an A100 of eight)."""

from __future__ import annotations

from pathlib import Path

from tests.probe_case import replay_machine, run

HEAD = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|===============================+======================+======================|\n"
)
WORKING = (
    "|   0  NVIDIA A100 80G...  On   | 00000000:07:00.0 Off |                    0 |\n"
    "| N/A   31C    P0    62W / 300W |      0MiB / 80994MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)
ERR_ROW = (
    "|   1  NVIDIA A100 80G...  On   | 00000000:D6:00.0 Off |                 ERR! |\n"
    "|ERR!  ERR! ERR!      1W /  N/A |      0MiB / 80994MiB |    ERR!      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)
FAN_ONLY = (
    "|   1  NVIDIA GeForce ...  Off  | 00000000:0A:00.0 Off |                  N/A |\n"
    "| ERR!  45C    P2    80W / 250W |   1200MiB / 11264MiB |     35%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)


def _gpu_states(tmp_path: Path, table: str) -> list[tuple[int | None, str, str]]:
    profile = replay_machine(
        tmp_path, {"/proc/version": "Linux version 5.15.0 (x) #1 SMP\n"}, [run("nvidia-smi", stdout=table)]
    )
    return [(s.index, s.state, s.reason) for s in profile.states if s.layer == "gpu"]


def test_a_row_of_err_readings_is_a_gpu_the_driver_cannot_reach(tmp_path: Path) -> None:
    states = _gpu_states(tmp_path, HEAD + WORKING + ERR_ROW)
    assert (0, "works", "") in states
    failing = [s for s in states if s[1] != "works"]
    assert failing == [(1, "failing", "gpu-unreachable")]


def test_a_fan_that_reads_err_alone_is_a_working_gpu(tmp_path: Path) -> None:
    states = _gpu_states(tmp_path, HEAD + WORKING + FAN_ONLY)
    assert all(state == "works" for _, state, _ in states), states
