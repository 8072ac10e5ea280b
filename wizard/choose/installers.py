"""Pinned installers (assets/knowledge/installers.toml): a release, its file for this platform and
the sha256 that release publishes, with where it was read. None where no hash is recorded."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from wizard.assets import asset_text
from wizard.tomlcompat import tomllib

SHA256_HEX = 64


@dataclass(frozen=True)
class PinnedInstaller:
    name: str  # "miniforge"
    version: str  # "26.1.1-3"
    file: str  # "Miniforge3-26.1.1-3-Linux-x86_64.sh"
    sha256: str
    url: str  # the release asset's address
    source: str  # where the sha256 was read


@cache
def _table() -> dict[str, object]:
    try:
        return tomllib.loads(asset_text("knowledge/installers.toml"))
    except (FileNotFoundError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def pinned(name: str, platform: str) -> PinnedInstaller | None:
    """The pinned installer `name` for `platform` ("Linux-x86_64", "Linux-aarch64"), or None when
    the table has no release with a well-formed sha256 for it (a plan never runs it unchecked)."""
    entry = _table().get(name)
    if not isinstance(entry, dict):
        return None
    files = entry.get("files")
    item = files.get(platform) if isinstance(files, dict) else None
    if not isinstance(item, dict):
        return None
    version, file, sha = str(entry.get("version", "")), str(item.get("file", "")), str(item.get("sha256", ""))
    if not version or not file or len(sha) != SHA256_HEX or any(c not in "0123456789abcdef" for c in sha):
        return None
    url = str(entry.get("url", "")).format(version=version, file=file)
    return PinnedInstaller(name, version, file, sha, url, str(item.get("source", "")))


def release(name: str) -> str | None:
    """The pinned release of installer `name` ("26.1.1-3"), also where no platform has a hash."""
    entry = _table().get(name)
    version = entry.get("version") if isinstance(entry, dict) else None
    return str(version) if version else None
