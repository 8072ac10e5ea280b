"""Is the newest TensorFlow blocked on this machine's GPU, and by what?

`detect` used to say "No problems found" on a machine whose driver is too old for the
current TensorFlow: everything the student installs then is a year behind. This asks
the resolver about the newest release and says what stands in its way and the fix.
Findings are returned as (key, severity, fields) for wizard.doctor.findings to word.
"""

from __future__ import annotations

from packaging.version import Version

from wizard.choose.knowledge import driver_text, load_knowledge
from wizard.choose.resolver import GPU_METHODS, evaluate, read_facts, recommend
from wizard.profile import MachineProfile
from wizard.text import t

# Platforms whose own finding already says why the GPU is out of reach.
SAID_ELSEWHERE = ("wsl1", "macos", "windows")

Problem = tuple[str, str, dict[str, str]]


def newest_tf_problems(p: MachineProfile) -> list[Problem]:
    """The newest TensorFlow blocked on the GPU (driver or GPU too old), and a Python to change."""
    if p.platform in SAID_ELSEWHERE:
        return []
    try:
        return _problems(p)
    except Exception:  # a table that does not load, an odd profile: detect's other findings stand
        return []


def _problems(p: MachineProfile) -> list[Problem]:
    kb = load_knowledge()
    rec = recommend(p, kb)
    facts = read_facts(p, kb)
    best = rec.recommended
    if best is None or not kb.releases:
        return []
    out: list[Problem] = []
    newest = kb.releases[0]
    best_tf = best.set.tensorflow if best.set.method != "cpu" else ""
    until = t("findings.until.tf", tf=best_tf) if best_tf else t("findings.until.cpu")
    if facts.has_gpu and (not best_tf or Version(best_tf) < newest.version):
        evals = [evaluate(facts, kb, newest, method, None) for method in GPU_METHODS]
        if all(ev.blockers for ev in evals):
            ev = evals[0]  # pip-and-cuda: the method the wizard prefers
            kinds = {kind for kind, _ in ev.blockers}
            reason = _after_head(next(text for _, text in ev.blockers))
            if kinds == {"driver"} and ev.needs_driver is not None:
                floor = driver_text(ev.needs_driver)
                fix_key = "findings.fix.driver_wsl2" if p.platform == "wsl2" else "findings.fix.driver_linux"
                fields = {
                    "newest": newest.series,
                    "reason": reason,
                    "fix": t(fix_key, floor=floor),
                    "until": until,
                }
                out.append(("newest-tf-driver", "info", fields))  # a way forward, not a failure
            elif "cc" in kinds:
                last = t("findings.until.gpu_tf", tf=best_tf) if best_tf else t("findings.until.gpu_cpu")
                fields = {"newest": newest.series, "reason": reason, "until": last}
                out.append(("newest-tf-gpu-old", "info", fields))
    if best.python_change and facts.python is not None and Version(best.set.python) > facts.python:
        fields = {"tf": best.set.tensorflow, "python": best.set.python, "current": str(facts.python)}
        out.append(("python-too-old", "info", fields))
    return out


def _after_head(reason: str) -> str:
    """The resolver's reason without its short plain head ("driver too old: ..."): the
    finding's title says that already."""
    head, sep, rest = reason.partition(": ")
    return rest if sep and len(head) <= 24 and rest else reason
