"""The doctor's answer as the app shows it, for the doctor's screen (a pasted text) and the run's
doctor (a failed step's output): the grouping of wizard.doctor.report_view, each diagnosis as the
CLI prints it (title, why, evidence, fix, the machine's own fix, source). Every value is data (a
log line, a GPU name, a path): inserted as text, never read as markup, made safe to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from wizard.doctor.report_view import DoctorReport, demo_heading, demo_label, machine_fix_line
from wizard.safe.display import safe
from wizard.text import t

if TYPE_CHECKING:
    from wizard.doctor.diagnose import Diagnosis
    from wizard.profile import MachineProfile

EVIDENCE_LIMIT = 400  # cells of a log line shown as evidence (the CLI's limit)
SECTION = "bold $primary"


def answer_content(
    report: DoctorReport,
    profile: MachineProfile | None,
    *,
    note: str = "",
    heading: str = "doctor.log_heading",
    next_step: str = "app.doctor_screen.not_recognised_next",
) -> Content:
    """The whole answer: `heading` over the text's own findings (where a text was given), then
    the machine's, under a heading that names it."""
    out = [_plain(note, "$text-muted")] if note else []
    if report.text_given:
        out.append(_plain(t(heading), SECTION))
    out += [diagnosis_content(d, profile) for d in report.from_text]
    if report.not_recognised:
        out.append(_plain(t("doctor.not_recognised") + "\n" + t(next_step), "$warning"))
    if report.harmless:
        out.append(_plain(t("doctor.harmless_intro"), SECTION))
        out += [_harmless(d) for d in report.harmless]
    out.append(_plain(machine_heading(report, profile), SECTION))
    out += [diagnosis_content(d, profile) for d in report.machine]
    return Content("\n\n").join(out)


def machine_heading(report: DoctorReport, profile: MachineProfile | None) -> str:
    """Which machine the second part is about: a demo is never called this machine."""
    if profile is None:
        return t("app.doctor_screen.machine_unknown")
    label = demo_label(profile)
    heading = demo_heading(profile) if report.machine else None
    if heading is not None:
        return heading
    if label is not None:
        return t("app.doctor_screen.machine_demo_ok", label=label)
    return t("app.doctor_screen.machine_here" if report.machine else "app.doctor_screen.machine_here_ok")


def diagnosis_content(d: Diagnosis, profile: MachineProfile | None) -> Content:
    label = t("doctor.note_label") + ": " if d.severity == "info" else ""
    style = {"error": "$error", "warning": "$warning", "info": "$primary"}.get(d.severity, "$text")
    parts = [f"[bold {style}]$title[/]"]
    fields = {"title": safe(label + d.title, None)}
    if d.why:
        parts.append("$why")
        fields["why"] = safe(d.why, None)
    parts.append("[$text-muted italic]$evidence[/]")
    fields["evidence"] = safe(d.evidence, EVIDENCE_LIMIT)
    parts.append("[$success]$fix[/]")
    fields["fix"] = safe(t("doctor.fix_line", fix=d.fix), None)
    if d.for_this_machine:
        parts.append("[$success]$machine[/]")
        fields["machine"] = safe(machine_fix_line(d.for_this_machine, profile), None)
    if d.seen_in:
        parts.append("[$text-muted]$source[/]")
        fields["source"] = safe(t("doctor.source_line", source=d.seen_in), None)
    return Content.from_markup("\n".join(parts), **fields)


def _harmless(d: Diagnosis) -> Content:
    return Content.from_markup(
        "[$text-muted]$title[/]\n$why\n[$text-muted italic]$evidence[/]",
        title=safe(f"{t('doctor.harmless_label')} · {d.title}", None),
        why=safe(d.why, None),
        evidence=safe(d.evidence, EVIDENCE_LIMIT),
    )


def _plain(words: str, style: str) -> Content:
    """Catalogue words in one style, never read as markup (they may hold [brackets])."""
    return Content.from_markup(f"[{style}]$words[/]", words=words)
