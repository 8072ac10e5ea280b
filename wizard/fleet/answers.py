"""The answers file: what a person would pick in the wizard, written down once.

The same file drives `apply --answers FILE` on one machine and `fleet export --answers FILE`
for a lab. TOML, every key optional:

    tensorflow = "2.21"          # a release or series; default: the recommended one
    method = "cpu"               # pip-and-cuda | system-cuda | conda | cpu; default: recommended
    python = "3.12"              # the environment's Python; default: the recommended one
    environment = "/opt/tf-gpu"  # the environment's folder
    mirror = "campus"            # a catalogue name, an index URL, or "default"
    optional = ["jupyter"]       # optional steps to switch on
    confirm = false              # true: answer yes to the questions destructive steps ask
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.choose.choice import METHODS
from wizard.safe.error_words import os_error
from wizard.text import t
from wizard.tomlcompat import tomllib

MAX_BYTES = 64 * 1024
KEYS = ("tensorflow", "method", "python", "environment", "mirror", "optional", "confirm")


class AnswersError(ValueError):
    """A bad answers file: one line for the user."""


@dataclass(frozen=True)
class Answers:
    tensorflow: str | None = None
    method: str | None = None
    python: str | None = None
    environment: str | None = None
    mirror: str | None = None
    optional: tuple[str, ...] = field(default_factory=tuple)
    confirm: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "tensorflow": self.tensorflow,
            "method": self.method,
            "python": self.python,
            "environment": self.environment,
            "mirror": self.mirror,
            "optional": list(self.optional),
            "confirm": self.confirm,
        }

    def to_toml(self) -> str:
        lines = []
        for key, value in self.to_dict().items():
            if value is None:
                continue
            if isinstance(value, bool):
                lines.append(f"{key} = {'true' if value else 'false'}")
            elif isinstance(value, list):
                lines.append(f"{key} = [" + ", ".join(_toml_string(v) for v in value) + "]")
            else:
                lines.append(f"{key} = {_toml_string(str(value))}")
        return "\n".join(lines) + "\n"


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text(data: dict[str, Any], key: str, path: Path) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\n" in value or len(value) > 4096:
        raise AnswersError(t("fleet.answers.not_text", path=str(path), key=key))
    return value.strip()


def parse_answers(text: str, path: Path) -> Answers:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise AnswersError(t("fleet.answers.bad_toml", path=str(path), error=str(exc))) from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise AnswersError(
            t("fleet.answers.unknown_key", path=str(path), keys=", ".join(unknown), known=", ".join(KEYS))
        )
    method = _text(data, "method", path)
    if method is not None and method not in METHODS:
        raise AnswersError(
            t("fleet.answers.bad_method", path=str(path), method=method, known=", ".join(METHODS))
        )
    optional = data.get("optional", [])
    if not isinstance(optional, list) or not all(isinstance(o, str) and o for o in optional):
        raise AnswersError(t("fleet.answers.not_list", path=str(path), key="optional"))
    confirm = data.get("confirm", False)
    if not isinstance(confirm, bool):
        raise AnswersError(t("fleet.answers.not_bool", path=str(path), key="confirm"))
    return Answers(
        tensorflow=_text(data, "tensorflow", path),
        method=method,
        python=_text(data, "python", path),
        environment=_text(data, "environment", path),
        mirror=_text(data, "mirror", path),
        optional=tuple(optional),
        confirm=confirm,
    )


def load_answers(path: Path) -> Answers:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise AnswersError(t("fleet.answers.unreadable", path=str(path), error=os_error(exc))) from None
    if len(raw) > MAX_BYTES:
        raise AnswersError(t("fleet.answers.too_large", path=str(path), limit=MAX_BYTES // 1024))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AnswersError(t("fleet.answers.not_utf8", path=str(path))) from None
    return parse_answers(text, path)
