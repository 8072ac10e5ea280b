"""Pre-releases (2.22.0rc0): shown only when asked for (`--pre`), labelled preview, never the
default recommendation.

The harvest records the coming release of a line with no final release yet; the knowledge base
keeps it apart (`KnowledgeBase.previews`). `recommend_with_previews` lets the resolver weigh it
like any release, then labels each preview candidate and keeps a final release recommended
unless the person asked for the preview by name (`--tf 2.22`).
"""

from __future__ import annotations

from dataclasses import replace

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import Candidate, Recommendation
from wizard.choose.knowledge import KnowledgeBase, load_knowledge
from wizard.profile import MachineProfile
from wizard.text import t


def is_preview(candidate: Candidate) -> bool:
    try:
        return Version(candidate.set.tensorflow).is_prerelease
    except InvalidVersion:
        return False


def knowledge(pre: bool) -> KnowledgeBase:
    kb = load_knowledge()
    return kb.with_previews() if pre else kb


def recommend_with_previews(
    profile: MachineProfile,
    *,
    prefer_method: str | None = None,
    tf: str | None = None,
    python: str | None = None,
) -> Recommendation:
    from wizard.choose.resolver import recommend

    rec = recommend(profile, knowledge(True), prefer_method=prefer_method, tf=tf, python=python)
    for cand in rec.candidates:
        if is_preview(cand):
            label = t("recommend.preview.label", version=cand.set.tensorflow)
            if label not in cand.reasons:
                cand.reasons.insert(0, label)
    if rec.recommended is not None and is_preview(rec.recommended) and not tf:
        final = next((c for c in rec.candidates if c.ok and not is_preview(c)), None)
        if final is not None:
            rec = replace(rec, recommended=final)
    return rec
