"""Detect describes the Python the TensorFlow environment is made from, not the wizard's own venv.

The wizard runs inside its own .venv (install.sh makes it). That venv is the running
interpreter, but it is not the system's Python: the target is the interpreter the venv was
made from (sys._base_executable, under sys.base_prefix), with that interpreter's pip and venv.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.machines import LINUX_PY, NATIVE_PROC_VERSION, UBUNTU_2204, context, tree
from wizard.choose.resolver import recommend
from wizard.plan.build import build_plan
from wizard.probe.python_env import probe_python
from wizard.profile import MachineProfile

WIZARD_VENV = replace(
    LINUX_PY,
    executable="/home/ana/tf-gpu-wizard/.venv/bin/python",
    prefix="/home/ana/tf-gpu-wizard/.venv",
    base_prefix="/usr",
    base_executable="/usr/bin/python3.10",
    has_pip=True,  # the wizard's venv has pip ...
    has_venv=True,
    base_has_pip=False,  # ... the system's Python does not (no python3-pip)
    base_has_venv=False,  # ... nor ensurepip (no python3-venv)
)


def _probe(tmp_path: Path, python: object) -> tuple[MachineProfile, list[str]]:
    root = tree(tmp_path, {"/proc/version": NATIVE_PROC_VERSION, "/etc/os-release": UBUNTU_2204})
    ctx = context(root, python=python)  # type: ignore[arg-type]
    profile = MachineProfile(platform="linux", arch="x86_64")
    profile.os.id = "ubuntu"
    probe_python(ctx, profile)
    return profile, ctx.notes


def test_the_wizards_own_venv_is_not_reported_as_the_python(tmp_path: Path) -> None:
    profile, notes = _probe(tmp_path, WIZARD_VENV)
    assert profile.python.executable == "/usr/bin/python3.10"
    assert profile.python.env == "system"
    assert profile.python.env_name is None
    # pip and venv are the base interpreter's, which the TF environment is made from
    assert profile.python.pip is False and profile.python.venv_module is False
    assert any(".venv" in n and "/usr/bin/python3.10" in n for n in notes)


def test_the_plan_makes_the_tf_environment_from_the_base_interpreter(tmp_path: Path) -> None:
    profile, _ = _probe(tmp_path, WIZARD_VENV)
    profile.python.version = "3.10.12"
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    commands = [" ".join(c) for s in plan.steps for c in s.commands]
    assert not any("/.venv/bin/python" in c for c in commands)
    assert any("/usr/bin/python3.10" in c for c in commands)


def test_no_base_executable_falls_back_to_the_base_prefix(tmp_path: Path) -> None:
    facts = replace(WIZARD_VENV, base_executable="")
    profile, _ = _probe(tmp_path, facts)
    assert profile.python.executable == "/usr/bin/python3.10"


def test_a_plain_system_python_is_unchanged(tmp_path: Path) -> None:
    profile, notes = _probe(tmp_path, LINUX_PY)
    assert profile.python.executable == "/usr/bin/python3"
    assert profile.python.env == "system"
    assert profile.python.pip is True and profile.python.venv_module is True
    assert not any(".venv" in n for n in notes)


def test_the_running_python_knows_its_base() -> None:
    import sys

    from wizard.probe.context import running_python

    facts = running_python()
    assert facts.base_prefix == sys.base_prefix
    assert facts.base_executable == getattr(sys, "_base_executable", sys.executable)
    if sys.prefix != sys.base_prefix:  # the test runs in the wizard's own venv
        assert facts.base_executable != sys.executable
