"""TCSS files from `assets/styles`, for CSS_PATH: real paths from an installed wheel or a
checkout; their text instead where `assets` is not a folder on disk (a zip import)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wizard.assets import asset


def style_paths(names: Iterable[str]) -> list[Path]:
    out: list[Path] = []
    for name in names:
        node = asset(f"styles/{name}")
        if isinstance(node, Path) and node.is_file():
            out.append(node)
    return out


def style_text(names: Iterable[str]) -> str:
    parts = []
    for name in names:
        node = asset(f"styles/{name}")
        if node.is_file() and not isinstance(node, Path):
            parts.append(node.read_text(encoding="utf-8"))
    return "\n".join(parts)
