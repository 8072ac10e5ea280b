"""Read files shipped in the `assets` package, from a wheel or a checkout alike."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path


def asset(path: str) -> Traversable:
    node = resources.files("assets")
    for part in path.split("/"):
        node = node.joinpath(part)
    return node


def asset_text(path: str) -> str:
    return asset(path).read_text(encoding="utf-8")


def list_assets(folder: str) -> list[str]:
    node = asset(folder)
    if not node.is_dir():
        return []
    return sorted(child.name for child in node.iterdir())


def asset_file(path: str) -> Path:
    """A shipped file's place on disk, for a plan command that copies or runs it (a wheel
    and a checkout both unpack the assets package into a real folder)."""
    return Path(str(asset(path)))
