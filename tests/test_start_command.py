"""Every "start it again" names something that works: the launcher install.sh wrote, or the
entry point's full path (PATH may not hold either)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wizard.paths import LAUNCHER_MARK, start_command
from wizard.text import t

OWN = Path(sys.prefix) / "bin" / "tf-gpu-wizard"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("TF_GPU_WIZARD_START_COMMAND", raising=False)  # conftest sets it for screens
    return tmp_path


def _launcher(home: Path, text: str) -> None:
    path = home / ".local" / "bin" / "tf-gpu-wizard"
    path.parent.mkdir(parents=True)
    path.write_text(text)


def test_the_launcher_when_install_sh_wrote_it_for_this_installation(home: Path) -> None:
    _launcher(home, f"#!/bin/sh\n{LAUNCHER_MARK}\nexec '{OWN}' \"$@\"\n")
    assert start_command() == "~/.local/bin/tf-gpu-wizard"


def test_the_full_path_without_a_launcher_or_with_someone_elses(home: Path) -> None:
    want = str(OWN) if OWN.exists() else "tf-gpu-wizard"
    assert start_command() == want
    _launcher(home, "#!/bin/sh\necho mine\n")
    assert start_command() == want
    # install.sh's launcher, but for another checkout: not this one.
    (home / ".local" / "bin" / "tf-gpu-wizard").write_text(
        f"#!/bin/sh\n{LAUNCHER_MARK}\nexec '/elsewhere/x'\n"
    )
    assert start_command() == want


def test_restart_messages_name_it(home: Path) -> None:
    _launcher(home, f"#!/bin/sh\n{LAUNCHER_MARK}\nexec '{OWN}' \"$@\"\n")
    for key in ("runner.restart_reboot", "runner.restart_wsl", "app.run.stopped", "app.help.body"):
        text = t(key, command=start_command(), message="x")
        assert "~/.local/bin/tf-gpu-wizard" in text, key
