"""`detect --dump DIR` writes what the probe read; `detect --from DIR` replays it through the same
probe, exactly; secrets and the user's name never reach the dump."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.machines import LINUX_PY, NATIVE_PROC_VERSION, UBUNTU_2204, fail, ok, tree
from wizard.demo import load_profile
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeGpu, FakeNvml
from wizard.probe import detect
from wizard.probe.dump import Mask, detect_dump, recording_context, write_dump
from wizard.sysio import CannedCommands, System

ROOT = Path(__file__).resolve().parent.parent


def _without_free_disk(data: dict) -> dict:
    # Free disk moves between two reads (other processes write); everything else must be equal.
    data = json.loads(json.dumps(data))
    data["resources"].pop("home_free_mib", None)
    return data


def test_dump_then_from_equals_detect_on_this_machine(tmp_path: Path) -> None:
    env = {"TF_GPU_WIZARD_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    import os

    env = {**os.environ, **env}
    cli = [sys.executable, "-m", "wizard", "detect", "--json"]
    dumped = subprocess.run([*cli, "--dump", str(tmp_path / "d")], capture_output=True, text=True, env=env)
    assert dumped.returncode == 0, dumped.stderr
    replayed = subprocess.run([*cli, "--from", str(tmp_path / "d")], capture_output=True, text=True, env=env)
    live = subprocess.run(cli, capture_output=True, text=True, env=env)
    assert replayed.returncode == 0 and live.returncode == 0
    assert dumped.stdout == replayed.stdout  # the replay is exact
    mask = Mask.here(Path.home())
    want = json.loads(mask.text(live.stdout))
    assert _without_free_disk(json.loads(replayed.stdout)) == _without_free_disk(want)
    for name in ("commands.json", "nvml.json", "env.json", "python.json", "packages.json", "dump.json"):
        assert (tmp_path / "d" / name).is_file(), name
    commands = json.loads((tmp_path / "d" / "commands.json").read_text())
    assert all(set(c) >= {"argv", "stdout", "stderr", "exit"} for c in commands)


def _broken_machine(tmp_path: Path) -> tuple[System, FakeNvml]:
    files = {
        "/proc/version": NATIVE_PROC_VERSION,
        "/etc/os-release": UBUNTU_2204,
        "/proc/modules": "nvidia 5 0 - Live 0x0\n",
        "/sys/module/nvidia/version": "535.154.05\n",
        "/sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
        "/sys/bus/pci/devices/0000:01:00.0/class": "0x030000\n",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.183.01": "",
        "/home/alice/.config/pip/pip.conf": "[global]\nindex-url = https://alice:s3cret@mirror.example/simple\n",
        "/usr/local/cuda-12.2/version.json": '{"cuda": {"version": "12.2.140"}}',
        "/usr/local/cuda-12.2/bin/nvcc": "",
    }
    root = tree(tmp_path / "machine", files, links={"/usr/local/cuda": "cuda-12.2"})
    smi = fail(
        18,
        stdout="Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183\n",
    )
    runner = CannedCommands({("nvidia-smi",): smi, ("ldconfig", "-p"): ok("")})
    env = {"HOME": "/home/alice", "API_TOKEN": "tok-123456", "LD_LIBRARY_PATH": "/home/alice/cuda/lib64"}
    system = System(root=root, runner=runner, environ=env, home=Path("/home/alice"))
    gpus = [FakeGpu(name="NVIDIA GeForce RTX 3090", cc=(8, 6))]
    return system, FakeNvml(gpus, init_error=ErrorKind.OTHER)


def test_a_broken_machine_replays_exactly_and_masked(tmp_path: Path) -> None:
    system, nvml = _broken_machine(tmp_path)
    python = LINUX_PY
    ctx, rec = recording_context(system=system, nvml_factory=lambda: nvml, python=python)
    ctx.system.environ.get("API_TOKEN")  # a secret the probe (or an override) might ask for
    original = detect(context=ctx)
    out = tmp_path / "dump"
    write_dump(out, ctx, rec)
    text = "\n".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    names = "\n".join(str(p) for p in out.rglob("*"))
    assert "alice" not in text and "alice" not in names
    assert "s3cret" not in text and "tok-123456" not in text
    replayed = detect_dump(out)
    want = Mask.here(Path("/home/alice")).value(original.to_dict())
    assert replayed.to_dict() == want
    states = {s.reason for s in replayed.states}
    assert "version-mismatch" in states
    assert replayed.cuda_toolkits and replayed.cuda_toolkits[0].default  # the link replays as a link


def test_profile_dir_works_on_every_command(tmp_path: Path) -> None:
    system, nvml = _broken_machine(tmp_path)
    ctx, rec = recording_context(system=system, nvml_factory=lambda: nvml, python=LINUX_PY)
    detect(context=ctx)
    write_dump(tmp_path / "dump", ctx, rec)
    profile = load_profile(str(tmp_path / "dump"))
    assert profile.simulated  # a dump is another machine: never acted on here
    assert profile.blocking_state is not None and profile.blocking_state.reason == "version-mismatch"


def test_a_damaged_dump_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "commands.json").write_text("{not json")
    env = {"TF_GPU_WIZARD_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    import os

    done = subprocess.run(
        [sys.executable, "-m", "wizard", "detect", "--from", str(bad)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("value", ["https://u:p@host/simple", "http://token@host/x"])
def test_url_credentials_are_masked(value: str) -> None:
    assert Mask().text(value).startswith(value.split("://")[0] + "://***:***@")
