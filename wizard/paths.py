"""Where the wizard keeps its state, logs and results (platformdirs)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

_DIRS = PlatformDirs("tf-gpu-wizard", appauthor=False)


def _override(var: str, default: str) -> Path:
    # TF_GPU_WIZARD_HOME puts everything in one folder: tests and portable use.
    home = os.environ.get("TF_GPU_WIZARD_HOME")
    return Path(home) / var if home else Path(default)


def state_dir() -> Path:
    return _override("state", _DIRS.user_state_dir)


def data_dir() -> Path:
    return _override("data", _DIRS.user_data_dir)


def log_dir() -> Path:
    return _override("logs", _DIRS.user_log_dir)


def default_venv() -> Path:
    return Path.home() / ".venvs" / "tf-gpu"


def ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
