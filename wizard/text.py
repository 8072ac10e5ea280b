"""User-facing text in one place, so a Chinese interface is a new folder of files.

Messages live in `assets/text/<lang>/<area>.toml`; the key "probe.no_driver"
is `no_driver` in `probe.toml`. Values are `str.format` templates. A missing
key in another language falls back to English; a missing English key is a bug
and shows the key itself rather than crashing the UI.

The language: `--lang` (set_language) over TF_GPU_WIZARD_LANG over the locale, where
the first non-empty of LC_ALL, LC_MESSAGES, LANG decides (POSIX) and any zh_* is zh.
It is read when a text is asked for; key-binding labels are read when their screen
module is imported, so the CLI sets the language before importing the app.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from wizard.assets import asset_text, list_assets
from wizard.safe.profile_hint import keep_profile
from wizard.tomlcompat import tomllib

DEFAULT_LANG = "en"
LANGUAGES = ("en", "zh")
LANG_ENV = "TF_GPU_WIZARD_LANG"
# POSIX: the first of these that is set and not empty decides the messages' language.
LOCALE_ENV = ("LC_ALL", "LC_MESSAGES", "LANG")

_chosen: str | None = None  # --lang: above the environment


def parse_language(value: str) -> str | None:
    """'zh', 'zh_CN.UTF-8', 'zh-TW', 'en_US' -> a language we have; None for anything else."""
    base = value.strip().lower().replace("-", "_").split(".")[0].split("@")[0].split("_")[0]
    return base if base in LANGUAGES else None


def locale_name(env: Mapping[str, str] | None = None) -> str:
    """The locale that decides messages: the first non-empty of LC_ALL, LC_MESSAGES, LANG."""
    env = os.environ if env is None else env
    return next((env[name] for name in LOCALE_ENV if env.get(name)), "")


def language_from(env: Mapping[str, str]) -> str:
    """TF_GPU_WIZARD_LANG when it names a language, else the locale's (any zh_* is zh)."""
    chosen = parse_language(env.get(LANG_ENV, ""))
    if chosen:
        return chosen
    return "zh" if parse_language(locale_name(env)) == "zh" else DEFAULT_LANG


def set_language(lang: str | None) -> None:
    """Fix the language for this process (`--lang`); None goes back to the environment."""
    global _chosen
    _chosen = None if lang is None else parse_language(lang) or DEFAULT_LANG


def language() -> str:
    return _chosen or language_from(os.environ)


def language_flag() -> str | None:
    """The `--lang` a command must carry to keep this process's language: None when the
    environment alone would choose it (a restart hint then stays short)."""
    current = language()
    return None if current == language_from(os.environ) else current


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
    """The message for `key` in the current language, filled with `fields`; in a session on a
    profile every `tf-gpu-wizard COMMAND` hint in it keeps --profile (wizard.safe.profile_hint)."""
    return keep_profile(in_language(language(), key, **fields))


def in_language(lang: str, key: str, /, **fields: Any) -> str:
    """The message for `key` in `lang` (one of LANGUAGES), whatever this process speaks: a name
    worded per language that was once stored (a demo journal's old file name)."""
    template = _catalogue(lang).get(key) or _catalogue(DEFAULT_LANG).get(key)
    if template is None:
        return key
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


def has(key: str) -> bool:
    return key in _catalogue(DEFAULT_LANG)
