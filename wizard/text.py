"""User-facing text in one place, so a Chinese interface is a new folder of files.

Messages live in `assets/text/<lang>/<area>.toml`; the key "probe.no_driver"
is `no_driver` in `probe.toml`. Values are `str.format` templates. A missing
key in another language falls back to English; a missing English key is a bug
and shows the key itself rather than crashing the UI.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from wizard.assets import asset_text, list_assets
from wizard.tomlcompat import tomllib

DEFAULT_LANG = "en"


def language() -> str:
    lang = os.environ.get("TF_GPU_WIZARD_LANG", "")
    return lang or DEFAULT_LANG


@cache
def _catalogue(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in list_assets(f"text/{lang}"):
        if not name.endswith(".toml"):
            continue
        area = name[: -len(".toml")]
        data = tomllib.loads(asset_text(f"text/{lang}/{name}"))
        for key, value in _flatten(data):
            out[f"{area}.{key}"] = value
    return out


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            items.extend(_flatten(value, f"{prefix}{key}."))
        else:
            items.append((f"{prefix}{key}", str(value)))
    return items


def t(key: str, /, **fields: Any) -> str:
    """The message for `key` in the current language, filled with `fields`."""
    template = _catalogue(language()).get(key) or _catalogue(DEFAULT_LANG).get(key)
    if template is None:
        return key
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


def has(key: str) -> bool:
    return key in _catalogue(DEFAULT_LANG)
