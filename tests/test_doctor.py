"""The doctor recognises the failures users really see and names the fix."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wizard.demo import load_demo
from wizard.doctor.diagnose import diagnose, match_output, patterns
from wizard.text import has

REAL_TEXTS = {
    # From the users' guides (shared/seeds) and TensorFlow / CUDA / pip output.
    "missing-cudnn": "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
    "missing-cudart": "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    "gpu-list-empty": (
        "W0000 00:00:1712345678.1 12345 gpu_device.cc:2344] Cannot dlopen some GPU libraries. "
        "Please make sure the missing libraries mentioned above are installed properly\n"
        "Skipping registering GPU devices..."
    ),
    "cpu-only-wheel": "I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used.",
    "memory-held": "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:1017] failed to allocate 22.19GiB (23826612224 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    "driver-too-old": "CUDA driver version is insufficient for CUDA runtime version",
    "no-device": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    "secure-boot-module": "ERROR: Installation failed. The nvidia kernel module was not created.",
    "unsupported-cc": "Ignoring visible gpu device (device: 0, name: NVIDIA GeForce GTX 680, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
    "python-unsupported": "ERROR: Could not find a version that satisfies the requirement tensorflow[and-cuda]==2.15.0 (from versions: 2.16.1)",
    "externally-managed": "error: externally-managed-environment",
    "no-venv-module": "The virtual environment was not created successfully because ensurepip is not\navailable.",
}


@pytest.mark.parametrize(("diag_id", "text"), sorted(REAL_TEXTS.items()))
def test_real_error_texts_are_recognised(diag_id: str, text: str) -> None:
    found = match_output("some unrelated line\n" + text)
    assert found and found[0].id == diag_id
    assert found[0].fix and found[0].fix != f"doctor.{diag_id}.fix"


def test_every_pattern_has_texts_and_a_source() -> None:
    for p in patterns():
        assert p.seen_in
        for part in ("title", "why", "fix"):
            assert has(f"doctor.{p.id}.{part}"), f"doctor.{p.id}.{part} missing"


def test_healthy_output_gives_nothing() -> None:
    ok = "2.21.0\n[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\nmatmul ok\n"
    assert match_output(ok) == []


def test_profile_problems_come_with_fixes() -> None:
    ids = [d.id for d in diagnose(load_demo("wsl2-linux-driver-inside"))]
    assert "linux-driver-in-wsl" in ids
    # The machine's error first, then its warnings in detect's order.
    assert [d.id for d in diagnose(load_demo("ubuntu-24.04-rtx4090-fresh"))] == [
        "no-device",  # an RTX 4090 on the PCI bus and no NVIDIA driver
        "nouveau",
        "secure-boot-module",
        "no-venv-module",  # a fresh Ubuntu has no python3-venv
        "finding-driver-step",  # the plan's first step: the driver the chosen set needs
    ]


def test_output_matches_come_before_profile_findings_and_are_not_repeated() -> None:
    found = diagnose(load_demo("wsl2-linux-driver-inside"), REAL_TEXTS["missing-cudart"])
    assert found[0].id == "missing-cudart"
    assert len({d.id for d in found}) == len(found)


def test_doctor_cli_reads_a_log_from_stdin() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wizard", "--profile", "no-nvidia-gpu", "doctor", "--log", "-", "--json"],
        input=REAL_TEXTS["missing-cudnn"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr  # 1: a harmful problem was found
    found = json.loads(result.stdout)
    assert found[0]["id"] == "missing-cudnn" and found[0]["origin"] == "output" and found[0]["line"] == 1
    assert "no-nvidia-gpu" in [d["id"] for d in found]  # and what detect says about the machine
