"""What the doctor answers for a text, as the round tests ask it (its first id, all ids, harmless only)."""

from __future__ import annotations

from wizard.doctor.diagnose import match_output, recognised_in_output


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else "nothing"


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text)]


def harmless_only(text: str) -> bool:
    found = match_output(text)
    return bool(found) and not recognised_in_output(found)
