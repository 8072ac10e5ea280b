"""The control node's uv: it compiles the locks here and is copied to the hosts (same binary)."""

from __future__ import annotations

import re
import shutil
import subprocess


def control_uv() -> str | None:
    """uv's path: the one the wizard's own `uv` package ships, else the one on PATH."""
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found]

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


def uv_version(uv: str) -> str:
    try:
        out = subprocess.run(
            [uv, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "0"
    m = re.search(r"([0-9]+\.[0-9]+(?:\.[0-9]+)?)", out)
    return m.group(1) if m else "0"
