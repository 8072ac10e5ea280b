"""The ranked report made to agree with the facts (wizard.doctor.reason) before anyone reads it.

    reasoned(found, facts) -> list[Diagnosis]

A decided cause goes first (its evidence: the line, then why the facts decide it); the causes whose
fix it contradicts leave the report; where no cause is decided but the text shows a failure, a
"not sure" note follows the output's own findings, with the facts read and the one command that
would decide. The not-sure note is not harmful: it is never counted as a recognised cause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from wizard.doctor.catalogue import pattern
from wizard.doctor.facts import Facts
from wizard.doctor.reason import DECIDE_MISMATCH, Decision, command_for, decide
from wizard.text import t

if TYPE_CHECKING:
    from wizard.doctor.diagnose import Diagnosis

# diagnose.diagnosis_for: (id, evidence, line, seen_in, harmful=, fix=) -> Diagnosis
Make = Callable[..., "Diagnosis"]

NOT_SURE = "not-sure"
REASONING_SOURCE = "tf-gpu-wizard doctor"
FACTS_SHOWN = 12  # facts listed in a not-sure note


def _symptom(d: Diagnosis) -> bool:
    row = pattern(d.id)
    return row is not None and row.symptom


def _cause(d: Diagnosis) -> bool:
    return d.origin == "output" and d.harmful and d.severity == "error" and not _symptom(d)


def facts_text(facts: Facts) -> str:
    """The facts read, as one line of "what: value" pairs (values are log data: shown safely)."""
    pairs = facts.lines()[:FACTS_SHOWN]
    return "; ".join(f"{t('doctor.fact.' + key)}: {value}" for key, value in pairs)


def _decided(decision: Decision, existing: Diagnosis | None, facts: Facts, make: Make) -> Diagnosis:
    why = t(decision.key, **decision.fields)
    if existing is not None:
        evidence, line = existing.evidence, existing.line
    elif decision.evidence is not None:
        evidence, line = t("doctor.matched", line=decision.evidence[1]), decision.evidence[0]
    elif decision.line is not None:
        text = decision.said or next((ln for _, n, ln in facts.codes if n == decision.line), "")
        evidence, line = t("doctor.matched", line=text), decision.line
    elif facts.mismatch_line is not None:
        number, text = facts.mismatch_line
        evidence, line = t("doctor.matched", line=text), number
    else:
        evidence, line = why, None
    source = decision.fields.get("source") or (existing.seen_in if existing else REASONING_SOURCE)
    made = make(
        decision.id,
        evidence,
        line,
        source,
        reason=why,
        texts=decision.texts,
        fix_fields=decision.fix_fields,
        harmful=not decision.harmless,
        severity="harmless" if decision.harmless else None,
    )
    if existing is not None and existing.for_this_machine and not decision.says_machine_line:
        made = replace(made, for_this_machine=existing.for_this_machine)
    return made


def _not_sure(facts: Facts, command: str, make: Make, on_host: bool = False, why: str = "") -> Diagnosis:
    line = None
    if facts.codes:
        line = facts.codes[0][1]
    elif facts.failure_line is not None:
        line = facts.failure_line[0]
    read = facts_text(facts) or t("doctor.fact.none")
    source = facts.codes[0][0].source() if facts.codes else REASONING_SOURCE
    return make(
        NOT_SURE,
        t("doctor.not-sure.facts", facts=read),
        line,
        source,
        harmful=False,
        fix=t("doctor.not-sure.fix_host" if on_host else "doctor.not-sure.fix", command=command),
        reason=why,
    )


def reasoned(found: list[Diagnosis], facts: Facts, make: Make) -> list[Diagnosis]:
    output = [d for d in found if d.origin == "output"]
    rest = [d for d in found if d.origin != "output"]
    causes = [d.id for d in output if _cause(d)]
    symptoms = {d.id for d in output if d.harmful and _symptom(d)}
    reasoning = decide(facts, causes, symptoms, worded={d.id for d in output if d.worded})
    if reasoning.drop:
        output = [d for d in output if d.id not in reasoning.drop]
        causes = [d.id for d in output if _cause(d)]
    for decision in reasoning.decisions:
        existing = next((d for d in output if d.id == decision.id), None)
        output = [d for d in output if d.id not in decision.drop and d.id != decision.id]
        output.insert(0, _decided(decision, existing, facts, make))
    if reasoning.decisions or any(_cause(d) for d in output):
        return output + rest
    # A note only where the text shows a failure the report names nothing harmful for (a symptom
    # row's own fix stands where one matched), or where contradicting causes were taken out.
    if any(d.harmful for d in output) and not reasoning.drop and not reasoning.note:
        return output + rest
    # Harmless messages alone explain their own alarming words; a code beside them still counts.
    # A failure in words with no fact read at all keeps the plain "not recognised" answer.
    failure = (
        reasoning.drop
        or reasoning.note
        or facts.codes
        or (facts.failure_line is not None and not output and not facts.empty())
    )
    if not failure:
        return output + rest
    command = reasoning.command
    if not command:
        families = [d.family for d in output if d.harmful]
        command = DECIDE_MISMATCH if facts.mismatch() else command_for(families, facts)
    why = t(reasoning.why, **reasoning.why_fields) if reasoning.why else ""
    return [*output, _not_sure(facts, command, make, reasoning.on_host, why), *rest]


def unsure(found: list[Diagnosis]) -> Diagnosis | None:
    """The not-sure note of a report, if it has one."""
    return next((d for d in found if d.id == NOT_SURE), None)


__all__ = ["NOT_SURE", "facts_text", "reasoned", "unsure"]
