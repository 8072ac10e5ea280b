"""A demo profile made this machine's own: its Python, and the uv the test extra installs, so a
plan's uv commands can run for real."""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from wizard.demo import load_demo
from wizard.plan.programs import program_name, programs_dir
from wizard.profile import MachineProfile


def uv_path() -> str:
    uv = Path(sys.executable).parent / "uv"
    found = str(uv) if uv.exists() else shutil.which("uv")
    if found is None:
        pytest.fail("uv is not installed, but the test extra brings it: the test environment is broken")
    return found


def machine_with_uv(demo: str = "no-nvidia-gpu") -> MachineProfile:
    base = load_demo(demo)
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    python = replace(base.python, version=py, executable=sys.executable, uv=uv_path(), uv_version="0.8.0")
    return replace(base, python=python, simulated=False)  # this machine's: its own paths, run for real


def demo_as_this_machine(demo: str) -> MachineProfile:
    """A demo profile's facts as this machine's (not simulated): the plan names this machine's
    programs, so its commands run here. A demo plan names the demo user's (wizard.plan.demo_paths)."""
    return replace(load_demo(demo), simulated=False)


def program_here(shown: str) -> Path:
    """The file on this machine of a program or lock a plan names (a demo plan names the demo
    user's programs folder; the wizard wrote the same bytes into this machine's)."""
    name = program_name(shown)
    if name is None:
        pytest.fail(f"{shown} is not one of the wizard's programs")
    return programs_dir() / name
