"""Helpers the fleet tests share: the Ansible tools beside this Python, and a fleet project."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def ansible_tool(name: str) -> str | None:
    """`ansible-playbook`, `ansible-lint`...: the one installed with the test environment first."""
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    return shutil.which(name)


def has_collection(name: str) -> bool:
    """An Ansible collection (community.general: the chroot connection) in the `ansible` package."""
    try:
        import ansible_collections  # type: ignore[import-not-found]
    except ImportError:
        return False
    namespace, _, collection = name.partition(".")
    return any((Path(p) / namespace / collection).is_dir() for p in ansible_collections.__path__)
