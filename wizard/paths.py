"""Where the wizard keeps its state, logs and results (platformdirs)."""

from __future__ import annotations

import os
import sys
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


def config_dir() -> Path:
    """The user's settings (mirrors.toml)."""
    return _override("config", _DIRS.user_config_dir)


def system_config_dir() -> Path:
    """Settings lab IT gives every user of a machine (mirrors.toml)."""
    return _override("etc", "/etc/tf-gpu-wizard")


# The wizard's environment, in the home folder of the machine a plan is for (plan.build.machine_home).
VENV_IN_HOME = Path(".venvs", "tf-gpu")


def default_venv() -> Path:
    return Path.home() / VENV_IN_HOME


def ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def shown(path: Path | str) -> str:
    """A path as a person reads it: under the home folder it starts with ~ (the screens' log line)."""
    text, home = str(path), str(Path.home())
    if home not in ("", "/") and (text == home or text.startswith(home.rstrip("/") + "/")):
        return "~" + text[len(home.rstrip("/")) :]
    return text


def create_new(folder: Path, stem: str, ext: str) -> tuple[Path, int]:
    """Create folder/stem.ext, else stem-2.ext, stem-3.ext, ... with O_EXCL and return it with
    its open descriptor: two runs started in the same second, in one process or two, each get
    their own file (a name taken between looking and creating is skipped, never shared)."""
    ensure(folder)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    n = 1
    while True:
        path = folder / (f"{stem}{ext}" if n == 1 else f"{stem}-{n}{ext}")
        try:
            return path, os.open(path, flags, 0o600)
        except FileExistsError:
            n += 1


# install.sh writes this line into the launcher it puts in ~/.local/bin.
LAUNCHER_MARK = "# tf-gpu-wizard launcher, written by install.sh"


def launcher() -> Path:
    return Path.home() / ".local" / "bin" / "tf-gpu-wizard"


def start_command() -> str:
    """What a person types to start this wizard again: the launcher install.sh wrote for this
    installation (~/.local/bin/tf-gpu-wizard), else this installation's entry point by its
    full path (a bare name would depend on PATH, which nothing may have set).
    TF_GPU_WIZARD_START_COMMAND overrides it: a packager's own launcher, and tests, whose
    screens must not show the checkout's path."""
    override = os.environ.get("TF_GPU_WIZARD_START_COMMAND")
    if override:
        return override
    scripts = "Scripts" if os.name == "nt" else "bin"
    own = Path(sys.prefix) / scripts / ("tf-gpu-wizard.exe" if os.name == "nt" else "tf-gpu-wizard")
    try:
        with open(launcher(), encoding="utf-8", errors="replace") as fh:
            text = fh.read(4096)
    except OSError:
        text = ""
    if LAUNCHER_MARK in text and str(own) in text:
        return "~/.local/bin/tf-gpu-wizard"
    return str(own) if own.exists() else "tf-gpu-wizard"
