"""Locked installs: every nvidia-* wheel pinned with ==, each with the sha256 the harvest read,
installed with `pip install --require-hashes --no-deps -r <venv>/tf-gpu-wizard.lock.txt`;
applied again, the step is skipped and nothing is downloaded.

The end-to-end test uses real pip, offline: small wheels named like TensorFlow and cuDNN
are built here and installed from a local folder by the plan's own step and the real Runner.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.apps.uv_machine import program_here
from tests.test_runner_helpers import Recorder, make_plan
from wizard.choose.choice import Candidate, VersionSet
from wizard.choose.harvest import WheelFile, load_harvest
from wizard.choose.lock import LOCK_NAME, Lock, LockLine, lock_for
from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.installer import INSTALLER_ENV
from wizard.plan.locked import locked_tensorflow_step
from wizard.plan.model import PlanInputs
from wizard.profile import MachineProfile
from wizard.run.runner import Runner

HARVEST = load_harvest()
LINE = re.compile(r"^[a-z0-9-]+==[0-9a-z.]+( --hash=sha256:[0-9a-f]{64})+$")


def pip_and_cuda_demos() -> list[str]:
    out = []
    for name in demo_names():
        profile = load_demo(name)
        rec = recommend(profile)
        # (native Windows gets WSL2 first; its plan inside WSL2 is the pip-and-cuda one)
        if (
            profile.platform in ("linux", "wsl2")
            and rec.recommended
            and rec.recommended.set.method == "pip-and-cuda"
        ):
            out.append(name)
    return out


@pytest.mark.parametrize("name", pip_and_cuda_demos())
def test_every_pip_and_cuda_demo_gets_a_lock_of_exactly_the_shown_versions(name: str) -> None:
    profile = load_demo(name)
    cand = recommend(profile).recommended
    lock = lock_for(cand, glibc=profile.os.glibc)
    assert lock is not None
    # The whole environment when a lock is recorded for it: TensorFlow, exactly the shown nvidia
    # pins, and TensorFlow's other packages; else TensorFlow and the pins.
    assert f"tensorflow=={cand.set.tensorflow}" in lock.requirements
    assert [r for r in lock.requirements if r.startswith("nvidia-")] == sorted(cand.pins)
    if not lock.complete:
        assert lock.requirements == [f"tensorflow=={cand.set.tensorflow}", *cand.pins]
    assert all(p.startswith("nvidia-") for p in cand.pins) and len(cand.pins) >= 10
    pins = dict(p.split("==") for p in cand.pins)
    runtime = next(v for k, v in pins.items() if k.startswith("nvidia-cuda-runtime-cu"))
    cudnn = next(v for k, v in pins.items() if k.startswith("nvidia-cudnn-cu"))
    assert cand.set.cuda == ".".join(runtime.split(".")[:2])
    assert cand.set.cudnn == ".".join(cudnn.split(".")[:2])
    plan = build_plan(profile, cand, home="/home/student")
    step = plan.step("tensorflow")
    # The lock is placed from the programs folder after its digest is checked (a short command).
    placed = next(c for c in step.commands if "place" in c)
    src, dest, digest = placed[-3:]
    assert program_here(src).read_text(encoding="utf-8") == lock.text() and digest == lock.digest
    assert dest.endswith(LOCK_NAME)
    assert f"CUDA {cand.set.cuda}, cuDNN {cand.set.cudnn}" in step.title
    # The check proves the installed set is the lock's: the file by digest, every package in it.
    if lock.complete:
        assert step.check.argv[-3:] == ("check", dest, lock.digest)
    else:
        assert set(step.check.argv[-len(lock.lines) :]) == set(lock.requirements)


def test_the_lock_cites_the_harvested_hashes() -> None:
    profile = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    cand = recommend(profile).recommended
    lock = lock_for(cand, glibc=profile.os.glibc)
    assert lock is not None and lock.hashed and lock.missing == [] and lock.complete
    lines = lock.text().splitlines()
    assert all(LINE.match(line) for line in lines), lines
    # The recorded lock's TensorFlow wheel is the very file the harvest read for this Python.
    tf_sha = HARVEST.release("2.21.0").python_wheels["3.10"].sha256
    assert f"tensorflow==2.21.0 --hash=sha256:{tf_sha}" in lines
    cudnn = next(line for line in lines if line.startswith("nvidia-cudnn-cu12=="))
    assert cudnn.startswith("nvidia-cudnn-cu12==9.3.0.75 --hash=sha256:")
    assert cudnn.split(":")[-1] == HARVEST.package("nvidia-cudnn-cu12", "9.3.0.75").wheel.sha256


def test_pip_reads_the_lock_as_a_hashed_requirements_file(tmp_path: Path) -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    lock = lock_for(recommend(profile).recommended, glibc=profile.os.glibc)
    path = tmp_path / LOCK_NAME
    path.write_text(lock.text(), encoding="utf-8")
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-index",
            "--find-links",
            str(empty),
            "--require-hashes",
            "--no-deps",
            "--target",
            str(tmp_path / "t"),
            "-r",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # Parsed (hash mode on, every line pinned); it stops only because this folder has no wheels.
    assert done.returncode != 0
    assert "No matching distribution found for absl-py==2.5.1" in done.stderr, done.stderr[-800:]
    assert (
        "Invalid requirement" not in done.stderr and "hash" not in done.stderr.lower().split("no matching")[0]
    )


def test_a_wheel_without_a_known_hash_makes_an_unhashed_lock_that_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cand = Candidate(
        VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"),
        True,
        pins=["nvidia-cublas-cu12==12.5.3.2", "nvidia-cudnn-cu12==9.99.0.1"],
    )
    lock = lock_for(cand)
    assert lock is not None and not lock.hashed and lock.missing == ["nvidia-cudnn-cu12==9.99.0.1"]
    assert "--hash" not in lock.text()
    # With uv (the wizard's own, as every plan but the person's pick of pip has): the whole lock is
    # resolved on the machine, every package hashed, then installed with --require-hashes.
    step = build_plan(load_demo("ubuntu-22.04-rtx3090-cuda11.8"), cand, home="/h").step("tensorflow")
    assert any(c[2] == "compile" for c in step.commands if len(c) > 2)
    install = next(c for c in step.commands if "-r" in c)
    assert "--require-hashes" in install
    monkeypatch.setenv(INSTALLER_ENV, "pip")  # pip: the nvidia-only lock as it is, saying what it lacks
    step = build_plan(load_demo("ubuntu-22.04-rtx3090-cuda11.8"), cand, home="/h").step("tensorflow")
    install = next(c for c in step.commands if "-r" in c)
    assert "--require-hashes" not in install and "--no-deps" in install
    assert "nvidia-cudnn-cu12==9.99.0.1" in step.why


def test_other_methods_get_no_lock() -> None:
    rec = recommend(load_demo("ubuntu-22.04-rtx3090-cuda11.8"))
    for cand in rec.candidates:
        if cand.set.method != "pip-and-cuda":
            assert lock_for(cand) is None


# ---- real pip, offline -------------------------------------------------------------------------


def _wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> Path:
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    entries = {
        f"{dist}/__init__.py": f"VERSION = {version!r}\n".encode(),
        f"{info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            + "".join(f"Requires-Dist: {r}\n" for r in requires)
        ).encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, data in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    entries[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for member, data in entries.items():
            zf.writestr(member, data)
    return path


def _line(path: Path, name: str, version: str) -> LockLine:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return LockLine(name, version, (WheelFile(path.name, sha),))


def test_locked_install_for_real_then_again_downloads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    tf = _wheel(wheels, "tensorflow", "2.21.0", ("tinydep>=1", 'nvidia-cudnn-cu12>=9.3; extra == "and-cuda"'))
    cudnn = _wheel(wheels, "nvidia-cudnn-cu12", "9.3.0.75")
    _wheel(wheels, "nvidia-cudnn-cu12", "9.28.0.42")  # newer, in the folder: the lock must not take it
    _wheel(wheels, "tinydep", "1.0")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    cand = Candidate(
        VersionSet(
            "2.21.0", f"{sys.version_info.major}.{sys.version_info.minor}", "12.5", "9.3", "pip-and-cuda"
        ),
        True,
        pins=["nvidia-cudnn-cu12==9.3.0.75"],
    )
    inputs = PlanInputs(candidate=cand, venv=venv, home=tmp_path)
    lock = Lock((_line(tf, "tensorflow", "2.21.0"), _line(cudnn, "nvidia-cudnn-cu12", "9.3.0.75")))
    step = locked_tensorflow_step(MachineProfile(), inputs, lock)

    first = Recorder()
    result = Runner(make_plan(step), first, simulate=False).run()
    assert result.outcome == "finished", (result.message, first.lines[-10:])
    assert first.statuses() == {"tensorflow": "done"}
    assert (venv / LOCK_NAME).read_text(encoding="utf-8") == lock.text()
    site = next(venv.glob("lib/python*/site-packages"))
    assert (site / "nvidia_cudnn_cu12-9.3.0.75.dist-info").is_dir()
    assert not list(site.glob("nvidia_cudnn_cu12-9.28*"))
    assert (site / "tinydep-1.0.dist-info").is_dir()  # TensorFlow's other requirements came after

    again = Recorder()
    result = Runner(make_plan(step), again, simulate=False).run()
    assert result.outcome == "finished"
    assert again.statuses() == {"tensorflow": "satisfied"}
    assert not any("pip" in line and "install" in line for line in again.lines)


def test_a_wheel_whose_hash_differs_from_the_lock_is_refused(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    tf = _wheel(wheels, "tensorflow", "2.21.0")
    wrong = LockLine("tensorflow", "2.21.0", (WheelFile(tf.name, "0" * 64),))
    path = tmp_path / LOCK_NAME
    path.write_text(Lock((wrong,)).text(), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-index",
            "--find-links",
            str(wheels),
            "--require-hashes",
            "--no-deps",
            "--target",
            str(tmp_path / "t"),
            "-r",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"),
    )
    assert done.returncode != 0
    assert "DO NOT MATCH THE HASHES" in done.stderr
    assert not (tmp_path / "t" / "tensorflow").exists()
