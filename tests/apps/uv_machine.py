"""A demo profile made this machine's own: its Python, and the uv the test extra installs, so a
plan's uv commands can run for real."""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from wizard.demo import load_demo
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
    return replace(base, python=python)
