"""Small helpers the probe's round-rule tests share: a pasted command, a dump replayed from files and
commands, the reasons named, one layer's state, and a state worded in both languages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.dump_corpus import materialize
from wizard.probe.dump import detect_dump
from wizard.probe.state_view import words
from wizard.profile import LayerState, MachineProfile
from wizard.text import set_language


def cmd(argv: list[str], stdout: str = "", stderr: str = "", exit: int | None = None) -> dict:
    """A command as a dump holds it (exit None: the paste shows none)."""
    return {"argv": argv, "stdout": stdout, "stderr": stderr, "exit": exit}


def run(*argv: str, stdout: str = "", stderr: str = "") -> dict:
    """The same, the argv given word by word."""
    return cmd(list(argv), stdout, stderr)


def replay_machine(tmp_path: Path, files: dict[str, str], commands: list[dict]) -> MachineProfile:
    """A machine of these files and commands, replayed through `detect --from`'s path."""
    case = {"slug": "m", "source": "https://github.com/example/m", "files": files, "commands": commands}
    return detect_dump(materialize(case, tmp_path))


def detect_from(dump: Path, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`tf-gpu-wizard detect --from DUMP` as a person runs it (this checkout's wizard, its own home)."""
    root = Path(__file__).resolve().parent.parent
    full = {**os.environ, "TF_GPU_WIZARD_HOME": str(home), "PYTHONPATH": str(root), **env}
    return subprocess.run(
        [sys.executable, "-m", "wizard", "detect", "--from", str(dump)],
        capture_output=True,
        text=True,
        env=full,
    )


def reasons(p: MachineProfile) -> set[str]:
    return {s.reason for s in p.failed_states if s.reason}


def layer(p: MachineProfile, name: str) -> LayerState:
    return next(s for s in p.states if s.layer == name)


def in_both_languages(state: LayerState, p: MachineProfile) -> tuple[tuple[str, str], tuple[str, str]]:
    """(title, fix) in English, then in Chinese."""
    en = words(state, p)
    set_language("zh")
    try:
        zh = words(state, p)
    finally:
        set_language(None)
    return (en.title, en.fix), (zh.title, zh.fix)
