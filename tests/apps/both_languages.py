"""A test run once in English and once in Chinese (`lang`), and text compared without the line breaks
a screen or a terminal puts in (`flat`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wizard.text import set_language


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    set_language(request.param)
    yield request.param
    set_language("en")


def flat(text: str) -> str:
    return "".join(text.split())
