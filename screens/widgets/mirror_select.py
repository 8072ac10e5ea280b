"""The plan screen's package source: the default index, or a mirror from the machine's catalogue."""

from __future__ import annotations

from textual.widgets import Select

from wizard.mirror.advice import DEFAULT
from wizard.mirror.catalogue import load_catalogue
from wizard.mirror.configured import read_configured
from wizard.safe.display import safe
from wizard.text import t


def mirror_options(current: str | None) -> list[tuple[str, str]]:
    """(label, value) pairs: the default first (saying when pip is configured), then each mirror."""
    default = t("mirror.app.default_configured") if read_configured().pip_index else t("mirror.app.default")
    options = [(default, DEFAULT)]
    options += [(safe(name, 30), name) for name in load_catalogue().names]
    if current and current not in (value for _, value in options):
        options.append((safe(current, 30), current))  # a URL given with --mirror
    return options


class MirrorSelect(Select[str]):
    def __init__(self, current: str | None, **kwargs: object) -> None:
        super().__init__(
            mirror_options(current),
            value=current or DEFAULT,
            allow_blank=False,
            compact=True,
            **kwargs,  # type: ignore[arg-type]
        )
