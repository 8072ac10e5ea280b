"""Every message exists in every language, with the same {placeholders}.

The catalogues are parsed here from the files themselves (not through wizard.text), so a
file that does not parse, a key only one language has, or a translation that lost or
renamed a field fails with the file and key named.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

import pytest

from wizard.text import LANGUAGES
from wizard.tomlcompat import tomllib

TEXT = Path(__file__).resolve().parent.parent / "assets" / "text"
OTHERS = [lang for lang in LANGUAGES if lang != "en"]


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def catalogue(lang: str, root: Path = TEXT) -> dict[str, Any]:
    """area.key -> template, for every file of one language; a file that does not parse fails."""
    out: dict[str, Any] = {}
    for path in sorted((root / lang).glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            pytest.fail(f"{lang}/{path.name} does not parse: {exc}")
        for key, value in _flatten(data).items():
            out[f"{path.stem}.{key}"] = value
    return out


def fields(template: str) -> set[str]:
    """The {placeholders} of a str.format template (a template that does not parse raises)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def key_differences(en: dict[str, Any], other: dict[str, Any]) -> tuple[list[str], list[str]]:
    return sorted(set(en) - set(other)), sorted(set(other) - set(en))


def field_differences(en: dict[str, Any], other: dict[str, Any]) -> list[str]:
    out = []
    for key in sorted(set(en) & set(other)):
        try:
            a, b = fields(en[key]), fields(other[key])
        except ValueError as exc:
            out.append(f"{key}: not a valid template ({exc})")
            continue
        if a != b:
            out.append(f"{key}: {sorted(a)} vs {sorted(b)}")
    return out


def test_every_language_has_the_same_files() -> None:
    files = {lang: sorted(p.name for p in (TEXT / lang).glob("*.toml")) for lang in LANGUAGES}
    assert files["en"], "no English catalogue found"
    for lang in OTHERS:
        assert files[lang] == files["en"], f"text/{lang} files differ from text/en"


@pytest.mark.parametrize("lang", OTHERS)
def test_same_keys_in_both_languages(lang: str) -> None:
    en = catalogue("en")
    assert len(en) > 500  # the walk really read the catalogue
    only_en, only_other = key_differences(en, catalogue(lang))
    assert not only_en, f"keys in en but not in {lang}: {only_en}"
    assert not only_other, f"keys in {lang} but not in en: {only_other}"


@pytest.mark.parametrize("lang", OTHERS)
def test_same_placeholders_in_both_languages(lang: str) -> None:
    differ = field_differences(catalogue("en"), catalogue(lang))
    assert not differ, "\n".join(differ)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_value_is_text(lang: str) -> None:
    bad = [key for key, value in catalogue(lang).items() if not isinstance(value, str)]
    assert not bad, f"{lang}: values that are not strings: {bad}"


def test_the_checks_catch_a_missing_key_a_renamed_field_and_a_broken_file(tmp_path: Path) -> None:
    for lang, body in {
        "en": 'a = "driver {driver} supports CUDA up to {cuda}"\nb = "only in en"\n',
        "zh": 'a = "驱动 {driver} 最高支持 CUDA {cuda_version}"\nc = "只在 zh"\n',
    }.items():
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "area.toml").write_text(body, encoding="utf-8")
    en, zh = catalogue("en", tmp_path), catalogue("zh", tmp_path)
    assert key_differences(en, zh) == (["area.b"], ["area.c"])
    assert field_differences(en, zh) == ["area.a: ['cuda', 'driver'] vs ['cuda_version', 'driver']"]
    assert field_differences({"k": "{{literal}} {x}"}, {"k": "{x} {oops"})[0].startswith("k: not a valid")
    (tmp_path / "zh" / "area.toml").write_text('a = "unterminated\n', encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match=r"zh/area.toml does not parse"):
        catalogue("zh", tmp_path)
