"""A pip left half-upgraded by a kill: the venv step's check finds it and the next run repairs it.

What a kill of `pip install --upgrade pip` leaves, made here in a real venv with the real pip files
(pip stashes the old version as `~ip/` and `~ip-X.dist-info`, then writes the new one; the kill
stops it after 8 files):
- 0-50 ms after "Successfully uninstalled pip-X": `pip/` with a few files, `~ip/`, `~ip-X.dist-info`,
  no pip dist-info: `import pip` works (the old check, find_spec, passed) but `python -m pip` fails
  with ModuleNotFoundError: No module named 'pip._internal...';
- 150-300 ms later: pip's files are in place, but `bin/pip` is missing and `pip-X.dist-info` is empty,
  so the finish's own advice (`pip install jupyterlab`) fails.
Offline: the pip wheel is Python's own (ensurepip's bundled wheel), the packages are built here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_install_repair import _wheel
from tests.test_runner_helpers import Recorder
from wizard.choose.choice import Candidate, VersionSet
from wizard.plan.common import tensorflow_step, venv_step
from wizard.plan.installer import PIP, Installer
from wizard.plan.model import Plan, PlanInputs
from wizard.profile import MachineProfile
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

pytestmark = pytest.mark.slow  # real venvs, a real pip upgrade killed half-way

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)
WANT = f"{sys.version_info.major}.{sys.version_info.minor}"


def _bundled_pip() -> Path:
    import ensurepip

    folder = Path(ensurepip.__file__).parent / "_bundled"
    if not any(folder.glob("pip-*.whl")):
        pytest.skip("this Python has no bundled pip wheel")
    return folder


def _base_python() -> str:
    return str(Path(getattr(sys, "_base_executable", sys.executable)))


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for whl in _bundled_pip().glob("pip-*.whl"):
        shutil.copy(whl, wheels)
    _wheel(wheels, "wizdemo", "2.21.0", {"wizdemo/__init__.py": b"VALUE = 1\n"})
    _wheel(wheels, "jupyterstub", "1.0", {"jupyterstub/__init__.py": b"X = 1\n"})
    environ = {
        **os.environ,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "UV_OFFLINE": "1",  # find-links only: nothing from an index
        "UV_FIND_LINKS": str(wheels),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
    }
    environ.pop("VIRTUAL_ENV", None)
    return tmp_path / "venv", wheels, environ


def _plan(venv: Path, installer: Installer) -> Plan:
    cand = Candidate(VersionSet("2.21.0", WANT, None, None, "cpu"), ok=True)
    inputs = PlanInputs(cand, venv, venv.parent)
    profile = MachineProfile()
    profile.python.executable = _base_python()
    profile.python.version = ".".join(map(str, sys.version_info[:3]))
    steps = (
        venv_step(profile, inputs, installer=installer),
        tensorflow_step(profile, inputs, distribution="wizdemo", installer=installer),
    )
    return Plan(cand.set, "linux", str(venv), str(venv / "bin" / "python"), steps, label="pip repair test")


def _site(venv: Path) -> Path:
    return next(venv.glob("lib/python*/site-packages"))


def _venv_check(plan: Plan, environ: dict[str, str]) -> int:
    return subprocess.run(list(plan.steps[0].check.argv), env=environ, capture_output=True).returncode


def _pip_works(venv: Path, environ: dict[str, str]) -> None:
    """What the finish tells the student to do next, with the env's own pip."""
    for argv in (
        [str(venv / "bin" / "python"), "-m", "pip", "--version"],
        [str(venv / "bin" / "pip"), "--version"],
    ):
        done = subprocess.run(argv, env=environ, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "jupyterstub"], env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    subprocess.run(
        [str(venv / "bin" / "pip"), "uninstall", "-y", "jupyterstub"], env=environ, capture_output=True
    )
    assert not [p.name for p in _site(venv).iterdir() if p.name.startswith("~")]


def _killed_right_after_uninstall(venv: Path) -> None:
    """pip's state 0-50 ms after "Successfully uninstalled pip-X" (the trial's 3 of 6)."""
    site = _site(venv)
    (info,) = site.glob("pip-*.dist-info")
    version = info.name[len("pip-") : -len(".dist-info")]
    (site / "pip").rename(site / "~ip")
    info.rename(site / f"~ip-{version}.dist-info")
    new = site / "pip"
    new.mkdir()
    copied = 0
    for src in sorted((site / "~ip").rglob("*.py")):
        rel = src.relative_to(site / "~ip")
        if rel.parts[:2] == ("_internal", "utils"):
            continue
        (new / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, new / rel)
        copied += 1
        if copied == 8:
            break


def _killed_later(venv: Path) -> None:
    """150-300 ms later (the trial's 2 of 6): files in place, bin/pip gone, the dist-info empty."""
    site = _site(venv)
    (info,) = site.glob("pip-*.dist-info")
    for f in info.iterdir():
        shutil.rmtree(f) if f.is_dir() else f.unlink()
    for script in (venv / "bin").glob("pip*"):
        script.unlink()


def _installers() -> list[Installer]:
    found = [PIP]
    try:
        from uv import find_uv_bin

        found.append(Installer("uv", find_uv_bin()))
    except (ImportError, FileNotFoundError):
        pass
    return found


@pytest.mark.parametrize("installer", _installers(), ids=lambda i: i.name)
@pytest.mark.parametrize("damage", [_killed_right_after_uninstall, _killed_later], ids=["early", "late"])
def test_a_half_upgraded_pip_is_found_and_repaired(
    world: tuple[Path, Path, dict[str, str]],
    damage,
    installer: Installer,  # type: ignore[no-untyped-def]
) -> None:
    venv, _, environ = world
    plan = _plan(venv, installer)
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert _venv_check(plan, environ) == 0
    _pip_works(venv, environ)

    damage(venv)
    # The fault is real: the env's pip does not work...
    broken = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "--version"], env=environ, capture_output=True, text=True
    )
    pip_script = venv / "bin" / "pip"
    assert broken.returncode != 0 or not pip_script.exists()
    # ... while `import pip` still finds something (what the old check trusted).
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import importlib.util as u; print(bool(u.find_spec('pip')))"],
        capture_output=True,
        text=True,
    )
    assert found.stdout.strip() == "True"
    assert _venv_check(plan, environ) != 0, "a broken pip is not a finished venv step"

    # The next apply (and `apply --new`: a fresh runner on the same plan) repairs it and finishes.
    rec = Recorder()
    result = Runner(Plan.from_dict(plan.to_dict()), rec, sudo=NOT_ROOT, env=environ).run()
    assert result.outcome == "finished", result.message
    assert rec.statuses()["venv"] == "done"
    assert _venv_check(plan, environ) == 0
    _pip_works(venv, environ)
    imported = subprocess.run([str(venv / "bin" / "python"), "-c", "import wizdemo"], capture_output=True)
    assert imported.returncode == 0, "the environment's packages were kept"
