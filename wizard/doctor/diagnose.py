"""The doctor: recognise known failures in a machine profile and in output, and give the fix.

Two sources, ranked together:
  * output: known error texts in a log, a pasted session or a running command's output
    (assets/doctor/patterns.toml via wizard.doctor.catalogue; each row names where the text was seen);
  * profile: every problem `detect` reports (wizard.doctor.findings), so doctor and detect agree.

Ranking: the output's own findings first: its harmful causes (what just failed), then its weak
causes (a line that is evidence only beside a failure), then its harmful symptoms (consequences the
causes explain), then its fallback causes (a complaint in words, the cause only where the text shows
nothing else), then its harmless messages, labelled so; then what
detect finds on this machine (errors, warnings, notes), labelled as being about this machine. A log
read on another machine (lab IT reading a student's log) is never drowned by the reader's own
machine. Where a weak row is the output's only harmful evidence, the doctor is not sure: it is
shown as a note (severity info, not harmful) and the text counts as not recognised, since a wrong
cause stated with confidence costs a person more than "not recognised" does. The texts a person
reads live in assets/text/<lang>/doctor.toml; `sharpen` adds what is specific to this machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from wizard.doctor.catalogue import HARMFUL, SYMPTOM, WEAK, Hit, LineMatcher, Pattern, pattern, patterns
from wizard.doctor.facts import Facts, read_facts
from wizard.doctor.findings import Finding, find_problems
from wizard.doctor.logread import ends
from wizard.doctor.sharpen import Sharpener
from wizard.profile import MachineProfile
from wizard.profile_view import wsl1_command
from wizard.text import has, t

# Every finding `detect` can report, and the diagnosis the doctor gives for it. A finding missing
# here still reaches the user (as itself, see _from_finding): doctor never hides what detect says.
FINDING_TO_DIAGNOSIS = {
    "wsl1": "wsl1",
    "native-windows": "native-windows",
    "macos": "macos",
    "linux-driver-in-wsl": "linux-driver-in-wsl",
    "gpu-without-driver": "no-device",
    "no-driver-wsl2": "no-device",
    "no-nvidia-gpu": "no-nvidia-gpu",
    "driver-no-gpus": "no-device",
    "nouveau": "nouveau",
    "reboot-needed": "driver-library-mismatch",
    "secure-boot": "secure-boot-module",
    "unknown-cc": "unknown-cc",
    "ld-library-path": "ld-library-path",
    "no-venv": "no-venv-module",
    "cpu-only-tf": "cpu-only-wheel",
    "low-disk": "low-disk",
    "newest-tf-driver": "newest-tf-driver",
    "newest-tf-gpu-old": "newest-tf-gpu-old",
    "python-too-old": "python-too-old",
}

SEVERITIES = ("error", "warning", "info", "harmless")
DETECT_SOURCE = "tf-gpu-wizard detect"

# The order of the report (lower first): see the module docstring.
_TIER_OUTPUT_CAUSE, _TIER_OUTPUT_WEAK, _TIER_OUTPUT_SYMPTOM, _TIER_HARMLESS = 0, 1, 2, 3
_TIER_PROFILE_ERROR, _TIER_PROFILE_WARNING, _TIER_PROFILE_INFO = 4, 5, 6


@dataclass(frozen=True)
class Diagnosis:
    id: str
    title: str
    why: str  # the cause in plain words
    fix: str  # what to do, as a command where one exists
    evidence: str  # "seen in the output: <line>", or what detect found on this machine (raw data)
    harmful: bool = True
    severity: str = "error"  # error | warning | info | harmless
    family: str = ""
    line: int | None = None  # line number of the evidence (negative: counted from the end of a log)
    origin: str = "output"  # output | profile
    seen_in: str = ""  # the source: where this text was seen (issues, guides), or "tf-gpu-wizard detect"
    for_this_machine: str = ""  # the fix made specific with this machine's profile ("" when nothing to add)
    # The reasoning's own verdict where it says more than the id (cover-too-old, cover-open,
    # driver-userspace-older: wizard.doctor.reason.VERDICT_IDS); "" where the id says it all.
    verdict: str = ""
    # A cause said in words (a fallback row: the cause only where the text shows nothing else).
    worded: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _venv_shown() -> str:
    """The wizard's environment as a fix names it (~ for the home folder, as the plan shows it)."""
    from pathlib import Path

    from wizard.paths import default_venv

    venv, home = default_venv(), Path.home()
    try:
        return "~/" + venv.relative_to(home).as_posix()
    except ValueError:
        return str(venv)


# The two guides our users copy from are cited by what they are (patterns.toml names them in
# English); a person reads them in their language.
GUIDES = {
    "a widely copied Chinese guide to matching CUDA and cuDNN for TensorFlow": "doctor.source_guide_cuda",
    "a widely copied Chinese WSL2 guide": "doctor.source_guide_wsl2",
}


def public_source(seen_in: str) -> str:
    """A row's sources as a person reads them: public citations, the guides in their language."""
    for english, key in GUIDES.items():
        if english in seen_in:
            seen_in = seen_in.replace(english, t(key))
    return seen_in


def _texts(diag_id: str, **fields: str) -> tuple[str, str, str]:
    # Fixes name the wizard's own environment ({venv}), never a new venv somewhere else, and the
    # plan's own commands ({wsl_install}: the WSL2 install step's command, one place for it).
    from wizard.choose.wsl_command import wsl_install_shown

    return (
        t(f"doctor.{diag_id}.title"),
        t(f"doctor.{diag_id}.why"),
        t(f"doctor.{diag_id}.fix", venv=_venv_shown(), wsl_install=wsl_install_shown(), **fields),
    )


def _from_hit(hit: Hit, sharpen: Sharpener | None, unsure: bool = False) -> Diagnosis:
    """`unsure`: a weak line with no harmful line beside it, shown as a note, not as a cause."""
    p = hit.pattern
    title, why, fix = _texts(p.texts or p.id)
    harmful = p.harmful and not unsure
    return Diagnosis(
        id=p.id,
        title=title,
        why=why,
        fix=fix,
        evidence=t("doctor.matched", line=hit.line),
        harmful=harmful,
        severity="info" if unsure else "error" if p.harmful else "harmless",
        family=p.family,
        line=hit.number,
        origin="output",
        seen_in=public_source(p.seen_in),
        # The machine's own fix is the wizard's TensorFlow set: not for another program's words.
        for_this_machine=sharpen(p.id) if sharpen and harmful and not p.texts else "",
        worded=p.fallback,
    )


# A driver installed but not loaded, which one restart loads (Finding.restart_loads, from choose's
# DriverNeed): the fix of each finding it causes, worded for that finding.
RESTART_FIXES = {
    "gpu-without-driver": "doctor.restart_fix",
    "nouveau": "doctor.restart_fix_nouveau",
    "driver-step": "doctor.restart_fix_step",
}


def _deciding_first(lines: tuple[str, ...]) -> list[str]:
    """A state's evidence lines, the deciding ones first (the probe adds them after the failure
    they explain: the kernel's line, modinfo, mokutil), each message once (nvidia-smi's query and
    its table print the same failure), so a line cut to fit keeps what decided it."""
    out: list[str] = []
    said: set[str] = set()
    for line in reversed(lines):
        message = line.split(": ", 1)[-1]
        if message not in said:
            said.add(message)
            out.append(line)
    return out


def _from_finding(
    finding: Finding, sharpen: Sharpener | None, profile: MachineProfile | None = None
) -> Diagnosis:
    diag_id = FINDING_TO_DIAGNOSIS.get(finding.key, "")
    evidence = t("doctor.detected", title=finding.title, why=finding.why)
    harmful = finding.severity in ("error", "warning")
    row = pattern(diag_id) if diag_id else None
    if diag_id and has(f"doctor.{diag_id}.title"):
        title, why, fix = _texts(diag_id)
        if diag_id == "wsl1" and profile is not None:  # the command as detect gives it, with the name
            fix = t("doctor.wsl1.fix_for", command=wsl1_command(profile.os.wsl_distro))
    else:  # a finding the doctor has no text for yet: say what detect says, once
        diag_id = f"finding-{finding.key}"
        title, why, fix = finding.title, finding.why, finding.fix or t("doctor.finding_fix")
        evidence = t("doctor.detected_here", title=finding.title)
        if why == fix:  # a machine state's finding: its why is its fix, said once as the fix
            why = ""
        if finding.evidence:  # what detect saw, not the title again
            evidence = t("doctor.detected_seen", lines="; ".join(_deciding_first(finding.evidence)))
    if finding.restart_loads and finding.key in RESTART_FIXES:
        # The cause is known: the installed driver waits for a restart. Not an install, not detect.
        fix = t(RESTART_FIXES[finding.key], installed=finding.restart_loads)
    return Diagnosis(
        id=diag_id,
        title=title,
        why=why,
        fix=fix,
        evidence=evidence,
        harmful=harmful,
        severity=finding.severity,
        family=row.family if row else "machine",
        line=None,
        origin="profile",
        seen_in=finding.source or DETECT_SOURCE,
        for_this_machine=sharpen(diag_id) if sharpen and harmful else "",
    )


def _tier(d: Diagnosis, tier: int) -> int:
    if d.origin == "output":
        if d.severity == "info":  # a weak line alone: a note, before the harmless messages
            return _TIER_OUTPUT_WEAK
        if not d.harmful:
            return _TIER_HARMLESS
        return {HARMFUL: _TIER_OUTPUT_CAUSE, WEAK: _TIER_OUTPUT_WEAK}.get(tier, _TIER_OUTPUT_SYMPTOM)
    return {"error": _TIER_PROFILE_ERROR, "warning": _TIER_PROFILE_WARNING}.get(
        d.severity, _TIER_PROFILE_INFO
    )


def _after_root(
    item: tuple[int, float, Diagnosis], roots: tuple[str, ...], keys: dict[str, tuple[int, int]]
) -> tuple[int, float, Diagnosis]:
    """A consequence row's place: right after the last-ranked of its roots the text shows (a root's
    message is more specific than the consequence it explains), else where its own tier puts it."""
    found = [keys[r] for r in roots if r in keys and r != item[2].id]
    if not found:
        return item
    tier, order = max(found)
    return (tier, order + 0.5 + item[1] / 10_000, item[2])


def from_hits(
    hits: Iterable[Hit],
    profile: MachineProfile | None = None,
    facts: Facts | None = None,
    written_there: bool = False,
) -> list[Diagnosis]:
    """The report for the hits of a LineMatcher plus the profile's findings, ranked, each id once;
    with the facts read from the same text, reasoned (wizard.doctor.reason): a cause the facts
    decide first, the causes it contradicts gone, or "not sure" with the command that decides.
    `written_there`: the profile's machine wrote the text (a plan step's output, `doctor --run`
    here), so its platform joins the text's facts (wizard.doctor.machine_facts)."""
    if written_there and profile is not None and facts is not None:
        from wizard.doctor.machine_facts import with_machine

        facts = with_machine(facts, profile)
    sharpen = Sharpener(profile) if profile is not None else None
    ranked: list[tuple[int, float, Diagnosis]] = []
    seen: set[str] = set()
    ordered = sorted(hits, key=lambda h: h.rank)
    # A weak line is a cause only beside a failure the output shows (a cause, a fallback cause or a
    # symptom); a fallback row (a complaint in words) is a cause on its own.
    unsure = not any(h.pattern.tier in (HARMFUL, SYMPTOM) or h.pattern.fallback for h in ordered)
    keys: dict[str, tuple[int, int]] = {}
    for order, hit in enumerate(ordered):
        d = _from_hit(hit, sharpen, unsure=unsure and hit.pattern.weak)
        seen.add(d.id)
        keys[d.id] = (_tier(d, hit.pattern.tier), order)
        ranked.append((*keys[d.id], d))
    ranked = [_after_root(item, hit.pattern.after, keys) for item, hit in zip(ranked, ordered, strict=True)]
    if profile is not None:
        for order, finding in enumerate(find_problems(profile), start=len(ranked)):
            d = _from_finding(finding, sharpen, profile)
            if d.id not in seen:
                seen.add(d.id)
                ranked.append((_tier(d, HARMFUL), order, d))
    found = [d for _, _, d in sorted(ranked, key=lambda item: (item[0], item[1]))]
    if facts is None:
        return found
    from wizard.doctor.reasoned import reasoned

    return reasoned(found, facts, diagnosis_for)


def match_output(text: str) -> list[Diagnosis]:
    """Known failures in `text` (a log or a whole pasted session), ranked, harmless ones last."""
    matcher = LineMatcher()
    matcher.feed_text(text)
    return from_hits(matcher.hits.values(), facts=read_facts(text))


def diagnose(
    profile: MachineProfile | None = None, output: str | None = None, written_there: bool = False
) -> list[Diagnosis]:
    """Everything the doctor recognises in `output` and on the machine `profile` describes."""
    matcher = LineMatcher()
    if output:
        matcher.feed_text(output)
    facts = read_facts(output) if output else None
    return from_hits(matcher.hits.values(), profile, facts, written_there)


# The facts of a long log are read from its start and its end: versions, the platform and the
# driver are printed at start-up, the failure at the end. Reading every fact of a 2 MiB log took
# about 16 s here (a few dozen searches a line); every line is still matched against the catalogue.
FACT_HEAD_CHARS = 256 << 10
FACT_TAIL_CHARS = 256 << 10


def fact_text(lines: list[str]) -> str:
    """The text the facts are read from: all of it, or its first and last lines for a long log."""
    parts = ends(lines, FACT_HEAD_CHARS, FACT_TAIL_CHARS)
    return "\n".join(lines if parts is None else parts[0] + parts[1])


def diagnose_lines(
    lines: Iterable[tuple[int, str]], profile: MachineProfile | None = None
) -> list[Diagnosis]:
    """A log read as (number, line) pairs (wizard.doctor.logread): `doctor --log` and the app's
    doctor screen. Every line is matched; the facts are read from the same lines (fact_text)."""
    matcher = LineMatcher()
    kept: list[str] = []
    for number, line in lines:
        matcher.feed(line, number)
        kept.append(line)
    return from_hits(matcher.hits.values(), profile, read_facts(fact_text(kept)))


def harmful(found: Iterable[Diagnosis]) -> list[Diagnosis]:
    return [d for d in found if d.harmful]


def diagnosis_for(
    diag_id: str,
    evidence: str,
    line: int | None,
    seen_in: str,
    *,
    harmful: bool = True,
    fix: str | None = None,
    reason: str = "",
    texts: str = "",
    fix_fields: dict[str, str] | None = None,
    severity: str | None = None,
) -> Diagnosis:
    """A diagnosis the reasoning decided (its texts from doctor.toml, its family from the catalogue);
    `reason`, the facts that decided it, leads its why; `texts` names another section's words."""
    title, why, fix_text = _texts(texts or diag_id, **(fix_fields or {}))
    if reason:
        why = t("doctor.judge.join", reason=reason, why=why)  # a full stop in the reader's language
    row = pattern(diag_id)
    return Diagnosis(
        id=diag_id,
        title=title,
        why=why,
        fix=fix if fix is not None else fix_text,
        evidence=evidence,
        harmful=harmful,
        severity=severity or ("error" if harmful else "info"),
        family=row.family if row else "driver" if harmful else "unsure",
        line=line,
        origin="output",
        seen_in=seen_in,
        verdict=texts,
    )


def recognised_in_output(found: Iterable[Diagnosis]) -> bool:
    """True when the output held at least one harmful text the doctor knows."""
    return any(d.harmful and d.origin == "output" for d in found)


__all__ = [
    "DETECT_SOURCE",
    "FINDING_TO_DIAGNOSIS",
    "SEVERITIES",
    "Diagnosis",
    "Pattern",
    "diagnose",
    "diagnose_lines",
    "from_hits",
    "harmful",
    "match_output",
    "patterns",
    "recognised_in_output",
]
