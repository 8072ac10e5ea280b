"""uv's cache is shared state: with uv's default link mode the environment's files are hard links
to the cache's, so a file damaged in one environment is damaged in the cache and in every other
environment linked from it. A repair must not link the damaged inode back, and must leave the cache
whole for the environments built after it.

Real faults, real tools: the wizard's uv, a real package index on 127.0.0.1 (tests.test_uv_cache),
the plan's own steps run by the real Runner; a file truncated through its link, the same-size damage
inside pip, and a dist-info left with its RECORD and without its METADATA by a SIGKILLed writer.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_install_repair import _overwrite_same_size, _wheel
from tests.test_runner_helpers import Recorder
from tests.test_uv_cache import NOT_ROOT, Index, _uv_env, index  # noqa: F401 (the fixture)
from wizard.choose.choice import Candidate, VersionSet
from wizard.plan.common import tensorflow_step, venv_step
from wizard.plan.installer import Installer
from wizard.plan.model import Plan, PlanInputs
from wizard.profile import MachineProfile
from wizard.run.runner import Runner

WANT = f"{sys.version_info.major}.{sys.version_info.minor}"


def _tf_plan(uv: str, url: str, venv: Path, py: str, tmp_path: Path) -> Plan:
    installer = Installer("uv", uv, ("--index-url", url))
    cand = Candidate(VersionSet("2.21.0", "3.11", None, None, "cpu"), ok=True)
    step = tensorflow_step(
        MachineProfile(),
        PlanInputs(cand, venv, tmp_path),
        distribution="wizdemo",
        python=py,
        installer=installer,
    )
    return Plan(cand.set, "linux", str(venv), py, (step,), label="uv shared cache")


def _run(plan: Plan, env: dict[str, str]) -> Recorder:
    rec = Recorder()
    result = Runner(plan, rec, sudo=NOT_ROOT, env=env).run()
    assert result.outcome == "finished", "\n".join(rec.lines[-20:])
    return rec


def _check(plan: Plan, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(plan.steps[-1].check.argv), env=env, capture_output=True, text=True)


def test_a_file_truncated_through_uvs_hard_link_is_repaired_and_the_next_environment_is_whole(
    index: Index,  # noqa: F811 (the fixture, imported)
    tmp_path: Path,
) -> None:
    uv, venv, py, env = _uv_env(tmp_path)
    plan = _tf_plan(uv, index.url, venv, py, tmp_path)
    _run(plan, env)
    site = next(venv.glob("lib/python*/site-packages"))
    target = site / "wizdemo" / "part4.py"
    good = target.read_bytes()
    assert target.stat().st_nlink > 1, "uv linked the file from its cache"
    with open(target, "r+b") as f:  # cut short in place, as a kill or a full disk leaves it
        f.truncate(7)
    assert _check(plan, env).returncode == 1

    rec = _run(plan, env)
    assert rec.statuses() == {"tensorflow": "done"}, "repaired, not skipped"
    assert any("cleaning it for: wizdemo" in line for line in rec.lines), rec.lines[-20:]
    assert target.read_bytes() == good
    assert _check(plan, env).returncode == 0

    # A second environment built from the same cache afterwards gets whole files, not the damage.
    other = tmp_path / "venv2"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(other)], check=True, env=env)
    other_py = str(other / "bin" / "python")
    other_plan = _tf_plan(uv, index.url, other, other_py, tmp_path)
    _run(other_plan, env)
    other_file = next(other.glob("lib/python*/site-packages")) / "wizdemo" / "part4.py"
    assert other_file.read_bytes() == good
    assert _check(other_plan, env).returncode == 0


def _pip_world(tmp_path: Path) -> tuple[Path, dict[str, str], Installer]:
    import ensurepip

    uv_pkg = pytest.importorskip("uv")
    bundled = Path(ensurepip.__file__).parent / "_bundled"
    if not any(bundled.glob("pip-*.whl")):
        pytest.skip("this Python has no bundled pip wheel")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for whl in bundled.glob("pip-*.whl"):
        shutil.copy(whl, wheels)
    _wheel(wheels, "wizdemo", "2.21.0", {"wizdemo/__init__.py": b"VALUE = 1\n"})
    env = {
        **os.environ,
        "UV_OFFLINE": "1",
        "UV_FIND_LINKS": str(wheels),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_NO_CONFIG": "1",
        "PIP_CONFIG_FILE": os.devnull,
    }
    env.pop("VIRTUAL_ENV", None)
    return tmp_path / "venv", env, Installer("uv", str(uv_pkg.find_uv_bin()))


def test_same_size_damage_inside_a_pip_linked_from_uvs_cache_is_repaired(tmp_path: Path) -> None:
    venv, env, installer = _pip_world(tmp_path)
    cand = Candidate(VersionSet("2.21.0", WANT, None, None, "cpu"), ok=True)
    profile = MachineProfile()
    profile.python.executable = str(Path(getattr(sys, "_base_executable", sys.executable)))
    step = venv_step(profile, PlanInputs(cand, venv, tmp_path), installer=installer)
    repair = next(argv for argv in step.commands if "repair-env" in argv)
    assert repair[-3:] == ("--uv", installer.uv, str(venv)), "the plan shows the cache clean-up"
    plan = Plan(
        cand.set, "linux", str(venv), str(venv / "bin" / "python"), (step,), label="pip in uv's cache"
    )
    _run(plan, env)
    site = next(venv.glob("lib/python*/site-packages"))
    target = site / "pip" / "__init__.py"
    good = target.read_bytes()
    assert target.stat().st_nlink > 1, "uv linked pip from its cache"
    _overwrite_same_size(target)
    assert _check(plan, env).returncode == 1

    rec = _run(plan, env)
    assert rec.statuses() == {"venv": "done"}, "repaired, not skipped"
    assert any("cleaning it for: pip" in line for line in rec.lines), rec.lines[-20:]
    assert target.read_bytes() == good
    assert _check(plan, env).returncode == 0
    # And the next run finds it whole: the damage did not come back from the cache.
    assert _run(plan, env).statuses() == {"venv": "satisfied"}


WRITER = r"""
import os, sys, time
info = sys.argv[1]
record = open(os.path.join(info, "RECORD"), "rb").read()
for name in os.listdir(info):
    os.unlink(os.path.join(info, name))
with open(os.path.join(info, "RECORD"), "wb") as f:  # the RECORD first, as an unpack may write it
    f.write(record)
print("RECORD written", flush=True)
time.sleep(60)  # METADATA would come next: the kill lands here
"""


def test_a_kill_that_leaves_a_dist_info_without_metadata_is_damage_and_is_repaired(
    index: Index,  # noqa: F811 (the fixture, imported)
    tmp_path: Path,
) -> None:
    uv, venv, py, env = _uv_env(tmp_path)
    plan = _tf_plan(uv, index.url, venv, py, tmp_path)
    _run(plan, env)
    site = next(venv.glob("lib/python*/site-packages"))
    info = site / "wizdep-1.0.dist-info"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(info)], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline().strip() == "RECORD written"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert (info / "RECORD").exists() and not (info / "METADATA").exists()

    for _ in range(2):  # the same answer every time, never a traceback
        checked = _check(plan, env)
        assert checked.returncode == 1
        assert "wizdep: damaged (no METADATA)" in checked.stdout
        assert "Traceback" not in checked.stderr, checked.stderr

    rec = _run(plan, env)
    assert rec.statuses() == {"tensorflow": "done"}
    assert not any("Traceback" in line for line in rec.lines), rec.lines[-20:]
    assert (info / "METADATA").exists()
    assert _check(plan, env).returncode == 0
    time.sleep(0)  # nothing left running
