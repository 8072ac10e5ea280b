"""Build fixture machines for the probe: a file tree, canned commands, fake NVML."""

from __future__ import annotations

import os
import re
from pathlib import Path

from wizard.probe.context import ProbeContext, PythonFacts
from wizard.sysio import CannedCommands, CommandResult, System

LINUX_PY = PythonFacts(
    version="3.10.12",
    executable="/usr/bin/python3",
    prefix="/usr",
    base_prefix="/usr",
    platform="linux",
    machine="x86_64",
    has_pip=True,
    has_venv=True,
    libc="glibc 2.35",  # Ubuntu 22.04's
)

UBUNTU_2204 = 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n'
NATIVE_PROC_VERSION = "Linux version 6.5.0-41-generic (buildd@lcy02) (gcc 12.3.0) #41~22.04.2-Ubuntu SMP\n"
WSL2_PROC_VERSION = (
    "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0) #1 SMP\n"
)
WSL1_PROC_VERSION = (
    "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0) #3996-Microsoft\n"
)


def tree(root: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    for rel, content in files.items():
        path = root / rel.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    for rel, target in (links or {}).items():
        path = root / rel.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
    return root


def ok(stdout: str = "") -> CommandResult:
    return CommandResult(0, stdout)


def fail(code: int = 1, stdout: str = "", stderr: str = "") -> CommandResult:
    return CommandResult(code, stdout, stderr)


def context(
    root: Path,
    commands: dict[tuple[str, ...], CommandResult] | None = None,
    env: dict[str, str] | None = None,
    python: PythonFacts = LINUX_PY,
    distributions: list[tuple[str, str]] | None = None,
) -> ProbeContext:
    system = System(root=root, runner=CannedCommands(dict(commands or {})), environ=env or {}, home=root)
    # Distribution names are normalised as importlib.metadata does (PEP 503).
    versions = {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in distributions or []}
    return ProbeContext(system=system, python=python, installed=lambda name: versions.get(name))
