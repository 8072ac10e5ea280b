"""env_proof.py: the verify's proof kept with what it proved, and the plan's verify step run by the
real Runner. A real virtual environment (the wizard's own uv) holds a stand-in `tensorflow` that
counts its imports; the GPUs and the driver come from an `nvidia-smi` on PATH (a script that prints
what it is given), NVML being off here. Each test changes one thing the proof stands on, as a user's
machine would, and sees TensorFlow start again, or not.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_install_repair import _overwrite_same_size
from tests.test_runner_helpers import Recorder
from wizard.choose.choice import Candidate, VersionSet
from wizard.plan.common import verify_step
from wizard.plan.model import Plan, PlanInputs
from wizard.plan.programs import program
from wizard.probe.installers import bundled_uv
from wizard.run.proof import forget
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)
FAKE_TF = """import os
with open(os.environ["FAKE_TF_STARTS"], "a") as f:
    f.write("x")
__version__ = "2.21.0"
"""
VERIFY = "import tensorflow; print('TensorFlow', tensorflow.__version__, 'ok')\n"
SMI = """#!/bin/sh
cat "$(dirname "$0")/gpus.csv"
"""


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, object]:
    uv = bundled_uv()
    if not uv:
        pytest.skip("the wizard's uv is not installed")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(FAKE_TF)
    (venv / "tf-gpu-wizard.lock.txt").write_text("tensorflow==2.21.0\n")
    tools = tmp_path / "bin"
    tools.mkdir()
    smi = tools / "nvidia-smi"
    smi.write_text(SMI)
    smi.chmod(smi.stat().st_mode | stat.S_IXUSR)
    (tools / "gpus.csv").write_text("550.54.14, NVIDIA GeForce RTX 4070, GPU-1111\n")
    verify = tmp_path / "verify.py"
    verify.write_text(VERIFY)
    starts = tmp_path / "starts"
    env = {
        **os.environ,
        "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}",
        "TF_GPU_WIZARD_PROOF_NVML": "0",
        "FAKE_TF_STARTS": str(starts),
    }
    return {"venv": venv, "site": site, "tools": tools, "verify": verify, "starts": starts, "env": env}


def _plan(m: dict[str, object], gpu: bool) -> Plan:
    venv = m["venv"]
    assert isinstance(venv, Path)
    cand = Candidate(VersionSet("2.21.0", "3.11", None, None, "cpu"), ok=True)
    step = verify_step(PlanInputs(cand, venv, venv.parent), gpu=False, hello="x")
    py = str(venv / "bin" / "python")
    mode = "gpu" if gpu else "cpu"
    # The plan's own step, its TensorFlow program replaced by the stand-in's verify.
    argv = (py, program("env_proof.py"), "prove", mode, "--", py, str(m["verify"]))
    recheck = (py, program("env_proof.py"), "check", mode, "--", py, str(m["verify"]))
    assert step.commands[0][1:5] == (program("env_proof.py"), "prove", "cpu", "--")
    assert step.recheck is not None and step.recheck.argv[1:5] == (
        program("env_proof.py"),
        "check",
        "cpu",
        "--",
    )
    step = type(step)(
        **{
            **step.__dict__,
            "commands": (argv,),
            "check": type(step.check)(argv, step.check.proves),
            "recheck": type(step.check)(recheck, step.recheck.proves),
        }
    )
    return Plan(cand.set, "linux", str(venv), py, (step,), label="proof test")


def _apply(m: dict[str, object], plan: Plan) -> tuple[str, list[str]]:
    rec = Recorder()
    env = m["env"]
    assert isinstance(env, dict)
    result = Runner(plan, rec, sudo=NOT_ROOT, env=env).run()
    assert result.outcome == "finished", "\n".join(rec.lines[-20:])
    return rec.statuses()["verify"], rec.lines


def _starts(m: dict[str, object]) -> int:
    starts = m["starts"]
    assert isinstance(starts, Path)
    return len(starts.read_text()) if starts.exists() else 0


def test_nothing_changed_nothing_started_and_each_change_proves_again(machine: dict[str, object]) -> None:
    m = machine
    plan = _plan(m, gpu=True)
    assert _apply(m, plan)[0] == "done" and _starts(m) == 1
    status, lines = _apply(m, plan)
    assert status == "satisfied" and _starts(m) == 1, lines[-5:]

    tools, site, venv = m["tools"], m["site"], m["venv"]
    assert isinstance(tools, Path) and isinstance(site, Path) and isinstance(venv, Path)
    # A new driver.
    (tools / "gpus.csv").write_text("560.35.03, NVIDIA GeForce RTX 4070, GPU-1111\n")
    assert _apply(m, plan)[0] == "done" and _starts(m) == 2
    assert _apply(m, plan)[0] == "satisfied" and _starts(m) == 2
    # Another GPU beside it.
    (tools / "gpus.csv").write_text(
        "560.35.03, NVIDIA GeForce RTX 4070, GPU-1111\n560.35.03, NVIDIA GeForce RTX 3060, GPU-2222\n"
    )
    assert _apply(m, plan)[0] == "done" and _starts(m) == 3
    assert _apply(m, plan)[0] == "satisfied" and _starts(m) == 3
    # Another lock.
    (venv / "tf-gpu-wizard.lock.txt").write_text("tensorflow==2.21.0\nnumpy==2.0.0\n")
    assert _apply(m, plan)[0] == "done" and _starts(m) == 4
    # A file added to site-packages (a package installed by hand).
    pkg = site / "wizdemo_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    assert _apply(m, plan)[0] == "done" and _starts(m) == 5
    # The stand-in TensorFlow rewritten (a new mtime).
    init = site / "tensorflow" / "__init__.py"
    init.write_text(FAKE_TF + "# edited\n")
    assert _apply(m, plan)[0] == "done" and _starts(m) == 6
    # GPUs nobody can list now: not proven by what cannot be read.
    (tools / "nvidia-smi").unlink()
    status, lines = _apply(m, plan)
    assert status == "done" and _starts(m) == 7
    # apply --verify: the record is removed first, the full proof runs.
    (tools / "nvidia-smi").write_text(SMI)
    (tools / "nvidia-smi").chmod(0o755)
    assert _apply(m, plan)[0] == "done" and _starts(m) == 8
    assert _apply(m, plan)[0] == "satisfied" and _starts(m) == 8
    assert forget(plan) == [venv / ".tf-gpu-wizard-proof.json"]
    assert _apply(m, plan)[0] == "done" and _starts(m) == 9


def test_a_failing_verify_keeps_no_proof(machine: dict[str, object]) -> None:
    m = machine
    plan = _plan(m, gpu=False)
    verify = m["verify"]
    assert isinstance(verify, Path)
    verify.write_text("import tensorflow, sys; sys.exit('no GPU found')\n")
    rec = Recorder()
    env = m["env"]
    assert isinstance(env, dict)
    assert Runner(plan, rec, sudo=NOT_ROOT, env=env).run().outcome == "failed"
    venv = m["venv"]
    assert isinstance(venv, Path) and not (venv / ".tf-gpu-wizard-proof.json").exists()
    verify.write_text(VERIFY)
    assert _apply(m, plan)[0] == "done" and _apply(m, plan)[0] == "satisfied" and _starts(m) == 2


def test_a_same_size_overwrite_with_its_mtime_set_back_is_proven_by_digest(
    machine: dict[str, object],
) -> None:
    """A file with a RECORD: the check proves it against its digest when only its ctime moved."""
    m = machine
    site, venv = m["site"], m["venv"]
    assert isinstance(site, Path) and isinstance(venv, Path)
    info = site / "tensorflow-2.21.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.21.0\n")
    data = (site / "tensorflow" / "__init__.py").read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    (info / "RECORD").write_text(
        f"tensorflow/__init__.py,sha256={digest},{len(data)}\ntensorflow-2.21.0.dist-info/RECORD,,\n"
    )
    plan = _plan(m, gpu=False)
    assert _apply(m, plan)[0] == "done" and _apply(m, plan)[0] == "satisfied" and _starts(m) == 1
    # Same size, its mtime set back: its inode, size and mtime stay, its ctime moves (its link count
    # does not): the digest decides, and it differs.
    _overwrite_same_size(site / "tensorflow" / "__init__.py", offset=data.rfind(b"0"), count=1)
    status, lines = _apply(m, plan)
    assert status == "done" and _starts(m) == 2, lines[-5:]


def test_a_fifo_or_a_link_where_the_record_is_is_no_proof(machine: dict[str, object], tmp_path: Path) -> None:
    """The record is state the wizard reads and writes: a FIFO there never blocks the check, a
    symlink there is never followed (its target is neither read as a proof nor written)."""
    m = machine
    plan = _plan(m, gpu=False)
    venv = m["venv"]
    assert isinstance(venv, Path)
    record = venv / ".tf-gpu-wizard-proof.json"
    os.mkfifo(record)
    assert _apply(m, plan)[0] == "done" and _starts(m) == 1  # not blocked, proven by running
    assert _apply(m, plan)[0] == "satisfied" and _starts(m) == 1  # replaced by a whole record
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(record.read_text())
    record.unlink()
    record.symlink_to(elsewhere)
    assert _apply(m, plan)[0] == "done" and _starts(m) == 2
    assert record.is_file() and not record.is_symlink()
