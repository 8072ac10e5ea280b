"""The doctor's report as a person reads it, grouped once for every view (the CLI and the app).

The order: the text's own findings first (harmful causes and notes), then "not recognised" where
the text held nothing the doctor knows, then the text's harmless messages, labelled; then what
detect finds on the machine, under a heading that says which machine it is. A log read on another
machine (lab IT reading a student's log) is never drowned by the reader's own machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from wizard.doctor.diagnose import Diagnosis, recognised_in_output
from wizard.profile import MachineProfile
from wizard.safe.display import safe
from wizard.text import t


@dataclass(frozen=True)
class DoctorReport:
    from_text: list[Diagnosis] = field(default_factory=list)  # the text's causes and notes, ranked
    not_recognised: bool = False  # a text was given and nothing in it is known (no "not sure" either)
    harmless: list[Diagnosis] = field(default_factory=list)  # the text's notices that need no action
    machine: list[Diagnosis] = field(default_factory=list)  # what detect finds (errors, warnings, notes)
    text_given: bool = False  # the headings say which part is about the text, which about the machine

    @property
    def nothing_found(self) -> bool:
        """No text and nothing wrong on the machine: the report says so in one line."""
        return not self.text_given and not self.machine


def doctor_report(found: Sequence[Diagnosis], *, text_given: bool) -> DoctorReport:
    from_text = [d for d in found if d.origin == "output"]
    return DoctorReport(
        from_text=[d for d in from_text if d.severity != "harmless"],
        not_recognised=text_given
        and not recognised_in_output(found)
        and not any(d.id == "not-sure" for d in found),
        harmless=[d for d in from_text if d.severity == "harmless"],
        machine=[d for d in found if d.origin != "output" and d.severity != "harmless"],
        text_given=text_given,
    )


def demo_label(profile: MachineProfile | None) -> str | None:
    """A demo or saved profile's name as every view says it; None for this machine."""
    if profile is None or not profile.simulated:
        return None
    return safe(profile.label or profile.platform)


def demo_heading(profile: MachineProfile | None) -> str | None:
    """The heading over a demo's own findings (never "this machine"); None for this machine."""
    label = demo_label(profile)
    return None if label is None else t("doctor.machine_heading_demo", label=label)


def machine_fix_line(fix: str, profile: MachineProfile | None) -> str:
    """A fix made specific with the machine's profile, saying which machine: a demo or saved profile
    is named as what it is, never called this computer."""
    label = demo_label(profile)
    if label is not None:
        return t("doctor.machine_fix_line_demo", label=label, fix=fix)
    return t("doctor.machine_fix_line", fix=fix)
