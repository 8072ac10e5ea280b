"""The mirror catalogue the machine provides: named package indexes in `mirrors.toml`.

The wizard ships no mirror address: a lab's IT puts its list in
/etc/tf-gpu-wizard/mirrors.toml for every user, and a student adds their own with
`tf-gpu-wizard mirror add NAME --pypi URL [--conda URL]` (the user's config dir).
A user entry replaces a system entry of the same name. The format:

    [mirror.campus]
    pypi = "https://mirror.example.edu/pypi/simple"        # a PEP 503 simple index
    conda = "https://mirror.example.edu/conda/conda-forge"  # a conda-forge channel
    note = "campus network only"

Editing keeps every line of the file that is not the entry being added or removed,
and the file is written whole (temp, fsync, rename).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from wizard import paths
from wizard.safe.atomic import TooLarge, WriteError, read_bytes_limited, write_text_atomic
from wizard.safe.display import safe
from wizard.safe.error_words import os_error
from wizard.text import t
from wizard.tomlcompat import tomllib

FILE_NAME = "mirrors.toml"
MAX_FILE = 1 << 20
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
# Words --mirror understands itself, so no entry may take them.
RESERVED = ("default", "configured")
SCHEMES = ("http", "https", "file")
_HEADER = re.compile(r"""\s*\[\s*mirror\s*\.\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]\s*(?:#.*)?""")


class MirrorError(ValueError):
    """A bad mirror name, address or catalogue file; the message is one line for the user."""


@dataclass(frozen=True)
class Mirror:
    name: str
    pypi: str | None = None  # a PEP 503 simple index: pip --index-url, uv --default-index
    conda: str | None = None  # a conda-forge channel: conda -c URL --override-channels
    note: str = ""
    origin: str = "user"  # user | system | url (given on the command line)

    def to_dict(self) -> dict[str, str | None]:
        """As shown (--json included): a password in an address is masked."""
        from wizard.mirror.secret import masked

        return {
            "name": self.name,
            "pypi": masked(self.pypi) if self.pypi else None,
            "conda": masked(self.conda) if self.conda else None,
            "note": self.note,
            "origin": self.origin,
        }


@dataclass
class Catalogue:
    mirrors: dict[str, Mirror] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # one line each: a file or entry that was skipped

    def get(self, name: str) -> Mirror | None:
        return self.mirrors.get(name)

    @property
    def names(self) -> list[str]:
        return list(self.mirrors)


def user_file() -> Path:
    return paths.config_dir() / FILE_NAME


def system_file() -> Path:
    return paths.system_config_dir() / FILE_NAME


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name) or name.lower() in RESERVED:
        raise MirrorError(t("mirror.bad_name", name=safe(name, 60), reserved=", ".join(RESERVED)))
    return name


def check_url(url: str, what: str) -> str:
    """An index or channel address: http(s) with a host, or file://; no spaces or control chars."""
    text = url.strip()
    parts = urlsplit(text)
    bad = not text or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in text)
    if bad or parts.scheme not in SCHEMES or (parts.scheme != "file" and not parts.hostname):
        raise MirrorError(t("mirror.bad_url", what=what, url=safe(url, 120)))
    return text.rstrip("/")


def _check_note(note: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in note):
        raise MirrorError(t("mirror.bad_note"))
    return note.strip()


def _toml_string(value: str) -> str:
    # JSON's string escapes are TOML basic-string escapes; the values hold no control chars.
    return json.dumps(value, ensure_ascii=False)


def _entry(name: str, data: object, origin: str) -> Mirror:
    if not isinstance(data, dict):
        raise MirrorError(t("mirror.bad_entry", name=safe(name, 60), error=t("mirror.not_a_table")))
    check_name(name)
    pypi, conda, note = data.get("pypi"), data.get("conda"), data.get("note", "")
    if not all(v is None or isinstance(v, str) for v in (pypi, conda)) or not isinstance(note, str):
        raise MirrorError(t("mirror.bad_entry", name=safe(name, 60), error=t("mirror.not_text")))
    if not pypi and not conda:
        raise MirrorError(t("mirror.bad_entry", name=safe(name, 60), error=t("mirror.no_url")))
    try:
        return Mirror(
            name=name,
            pypi=check_url(pypi, "pypi") if pypi else None,
            conda=check_url(conda, "conda") if conda else None,
            note=_check_note(note),
            origin=origin,
        )
    except MirrorError as exc:
        raise MirrorError(t("mirror.bad_entry", name=name, error=str(exc))) from None


def _read(path: Path) -> str | None:
    """The file's text; None when there is no file; MirrorError when it cannot be read."""
    try:
        return read_bytes_limited(path, MAX_FILE).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, TooLarge, UnicodeDecodeError) as exc:
        reason = os_error(exc) if isinstance(exc, OSError) else str(exc)
        raise MirrorError(t("mirror.bad_file", path=str(path), error=reason)) from None


def _parse(text: str, path: Path) -> dict[str, object]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MirrorError(t("mirror.bad_file", path=str(path), error=str(exc))) from None
    table = data.get("mirror", {})
    if not isinstance(table, dict):
        raise MirrorError(t("mirror.bad_file", path=str(path), error=t("mirror.not_a_table")))
    return table


def load_file(path: Path, origin: str, into: Catalogue) -> None:
    """Add the entries of one file to `into`; a bad file or entry is a problem, not a crash."""
    try:
        text = _read(path)
        table = {} if text is None else _parse(text, path)
    except MirrorError as exc:
        into.problems.append(str(exc))
        return
    for name, data in table.items():
        try:
            into.mirrors[name] = _entry(str(name), data, origin)
        except MirrorError as exc:
            into.problems.append(t("mirror.skipped", path=str(path), error=str(exc)))


def load_catalogue(system: Path | None = None, user: Path | None = None) -> Catalogue:
    """The system's entries, then the user's (a user entry replaces a system one of the same name)."""
    cat = Catalogue()
    load_file(system or system_file(), "system", cat)
    load_file(user or user_file(), "user", cat)
    return cat


def _without_entry(lines: list[str], name: str) -> tuple[list[str], bool]:
    """The file's lines without the `[mirror.NAME]` table (its header up to the next table)."""
    out: list[str] = []
    inside = found = False
    for line in lines:
        if line.lstrip().startswith("["):
            m = _HEADER.fullmatch(line)
            inside = bool(m) and next(g for g in m.groups() if g is not None) == name  # type: ignore[union-attr]
            found = found or inside
        if not inside:
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out, found


def _write(path: Path, lines: list[str]) -> None:
    text = "\n".join(lines) + "\n" if lines else ""
    _parse(text, path)  # never write a file that would not load
    try:
        write_text_atomic(path, text, make_parents=True)
    except WriteError as exc:
        raise MirrorError(str(exc)) from None


def add_mirror(
    name: str, pypi: str | None, conda: str | None, note: str = "", *, path: Path | None = None
) -> Mirror:
    """Add or replace `[mirror.NAME]` in the user's (or the given) catalogue file."""
    target = path or user_file()
    check_name(name)
    if not pypi and not conda:
        raise MirrorError(t("mirror.need_url"))
    mirror = Mirror(
        name=name,
        pypi=check_url(pypi, "--pypi") if pypi else None,
        conda=check_url(conda, "--conda") if conda else None,
        note=_check_note(note),
        origin="user",
    )
    text = _read(target) or ""
    if text:
        _parse(text, target)  # a damaged file is reported, not overwritten
    lines, _ = _without_entry(text.splitlines(), name)
    block = [f"[mirror.{name}]"]
    block += [
        f"{key} = {_toml_string(value)}"
        for key, value in (("pypi", mirror.pypi), ("conda", mirror.conda))
        if value
    ]
    if mirror.note:
        block.append(f"note = {_toml_string(mirror.note)}")
    _write(target, [*lines, "", *block] if lines else block)
    return mirror


def remove_mirror(name: str, *, path: Path | None = None) -> bool:
    """Remove `[mirror.NAME]` from the user's (or the given) file; False when it had none."""
    target = path or user_file()
    text = _read(target)
    if not text:
        return False
    _parse(text, target)
    lines, found = _without_entry(text.splitlines(), name)
    if found:
        _write(target, lines)
    return found
