"""What the round rule tests share: English texts, and the doctor's first answer to a text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wizard.doctor.diagnose import Diagnosis, match_output
from wizard.text import set_language


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    set_language("en")
    yield
    set_language("en")


def first(text: str) -> Diagnosis:
    found = match_output(text)
    assert found, text
    return found[0]


def first_cause(text: str) -> str:
    """The id of the first harmful answer to a text, "" where none is harmful."""
    return next((d.id for d in match_output(text) if d.harmful), "")
