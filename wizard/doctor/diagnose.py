"""The doctor: recognise known failures in a profile or in output, and offer the fix.

Two sources: the profile's findings (wizard.findings) and known error texts in
step output or logs (assets/doctor/patterns.toml, each pattern naming where the
text was seen). The texts a person reads live in assets/text/en/doctor.toml.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from wizard.assets import asset_text
from wizard.doctor.findings import find_problems
from wizard.profile import MachineProfile
from wizard.text import t
from wizard.tomlcompat import tomllib

# Profile findings that the doctor can also offer a fix for.
FINDING_TO_DIAGNOSIS = {
    "linux-driver-in-wsl": "linux-driver-in-wsl",
    "gpu-without-driver": "no-device",
    "no-driver-wsl2": "no-device",
    "driver-no-gpus": "no-device",
    "cpu-only-tf": "cpu-only-wheel",
    "no-venv": "no-venv-module",
    "secure-boot": "secure-boot-module",
}


@dataclass(frozen=True)
class Pattern:
    id: str
    regexes: tuple[re.Pattern[str], ...]
    seen_in: str


@dataclass(frozen=True)
class Diagnosis:
    id: str
    title: str
    why: str
    fix: str
    evidence: str  # the output line that matched, or the profile finding's title

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@cache
def patterns() -> tuple[Pattern, ...]:
    data = tomllib.loads(asset_text("doctor/patterns.toml"))
    return tuple(
        Pattern(
            id=row["id"],
            regexes=tuple(re.compile(rx, re.IGNORECASE) for rx in row["regex"]),
            seen_in=row["seen_in"],
        )
        for row in data["pattern"]
    )


def _diagnosis(diag_id: str, evidence: str) -> Diagnosis:
    return Diagnosis(
        id=diag_id,
        title=t(f"doctor.{diag_id}.title"),
        why=t(f"doctor.{diag_id}.why"),
        fix=t(f"doctor.{diag_id}.fix"),
        evidence=evidence,
    )


def match_output(text: str) -> list[Diagnosis]:
    """Known failures in `text`, in the order of their first appearance, each once."""
    found: dict[str, tuple[int, str]] = {}
    lines = text.splitlines()
    for pattern in patterns():
        for number, line in enumerate(lines):
            if any(rx.search(line) for rx in pattern.regexes):
                found[pattern.id] = (number, line.strip()[:200])
                break
    ordered = sorted(found.items(), key=lambda item: item[1][0])
    return [_diagnosis(diag_id, t("doctor.matched", line=line)) for diag_id, (_, line) in ordered]


def diagnose(profile: MachineProfile | None = None, output: str | None = None) -> list[Diagnosis]:
    """Everything the doctor recognises: output matches first (they are what just failed)."""
    result = match_output(output) if output else []
    seen = {d.id for d in result}
    if profile is not None:
        for finding in find_problems(profile):
            diag_id = FINDING_TO_DIAGNOSIS.get(finding.key)
            if diag_id and diag_id not in seen:
                seen.add(diag_id)
                result.append(_diagnosis(diag_id, finding.title))
    return result
