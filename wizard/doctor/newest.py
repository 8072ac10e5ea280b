"""Is the newest TensorFlow blocked on this machine's GPU, and by what?

`detect` used to say "No problems found" on a machine whose driver is too old for the
current TensorFlow: everything the student installs then is a year behind. This asks
the resolver about the newest release and says what stands in its way and the fix.
Findings are returned as (key, severity, fields) for wizard.doctor.findings to word.
"""

from __future__ import annotations

import shlex

from packaging.version import Version

from wizard.choose.choice import Recommendation
from wizard.choose.driver_view import need_floor_words, need_sentence, reported_text, step_title
from wizard.choose.knowledge import KnowledgeBase, Release, load_knowledge
from wizard.choose.resolver import GPU_METHODS, Facts, evaluate, read_facts, recommend
from wizard.plan.linux import driver_install_commands
from wizard.profile import MachineProfile
from wizard.text import t

# Platforms whose own finding already says why the GPU is out of reach (an old GPU).
SAID_ELSEWHERE = ("wsl1", "macos", "windows")

Problem = tuple[str, str, dict[str, str]]


def newest_tf_problems(p: MachineProfile, rec: Recommendation | None = None) -> list[Problem]:
    """The driver step the chosen set needs, the newer set one driver step away, the newest
    TensorFlow blocked by the GPU, reported failures on this GPU, and a Python to change: all
    read from the recommendation Choose shows (`rec`, else asked for here), never worked out again."""
    try:
        return _problems(p, rec)
    except Exception:  # a table that does not load, an odd profile: detect's other findings stand
        return []


def restart_loads(rec: Recommendation | None) -> str | None:
    """The installed NVIDIA driver a restart loads, where that restart is all the recommended set's
    driver step is (DriverNeed.restart_only, as the resolver carries it: installed, new enough, not
    loaded); None where the cause is not known to be that (the generic fixes then stand)."""
    best = rec.recommended if rec is not None else None
    need = best.driver if best is not None else None
    return need.installed if need is not None and need.restart_only else None


def _problems(p: MachineProfile, rec: Recommendation | None) -> list[Problem]:
    kb = load_knowledge()
    rec = rec if rec is not None else recommend(p, kb)
    facts = read_facts(p, kb)
    best = rec.recommended
    if best is None or not kb.releases:
        return []
    out: list[Problem] = []
    newest = kb.releases[0]
    best_tf = best.set.tensorflow if best.set.method != "cpu" else ""
    until = t("findings.until.tf", tf=best_tf) if best_tf else t("findings.until.cpu")

    def fix(floor: str, next_key: str, tf: str, restart_only: bool = False) -> str:
        """How to get the driver: the plan's own commands (one place: plan.linux), then the next key."""
        then = t(next_key, tf=tf)
        if restart_only:  # installed, not loaded: the plan's step is the restart
            return t("findings.fix_z18.driver_restart", next=then)
        if facts.windows_driver:
            return t("findings.fix_z18.driver_wsl2", floor=floor, next=then)
        commands = driver_install_commands(p, floor)
        if not commands:
            return t("findings.fix_z18.driver_by_hand", floor=floor, next=then)
        shown = " && ".join(shlex.join(("sudo", *c)) for c in commands)
        return t("findings.fix_z18.driver_linux", floor=floor, commands=shown, next=then)

    if best.driver is not None and best.driver.step:
        need = best.driver
        fields = {
            "step": step_title(need),
            "tf": best.set.tensorflow,
            # A stopped machine: the title says the state ("Fix first: Secure Boot blocks..."),
            # the sentence only the floor it stands in the way of, never the state's title again.
            "sentence": need_sentence(need, fix=False) if need.fix is None else need_floor_words(need),
            "fix": fix(need.floor, "findings.next_z18.in_plan", need.tf, need.restart_only)
            if need.fix is None
            else need.fix.fix,  # a stopped machine: the state's fix, never an install
        }
        if need.fix is not None:  # the state's own finding gives its fix: said once, there
            fields["why_key"] = "findings.driver_step.why_state"
        out.append(("driver-step", "warning", fields))  # the plan's first step: the student must do it
    elif rec.upgrade is not None and rec.upgrade.driver is not None:
        need = rec.upgrade.driver
        fields = {
            "newest": need.tf,
            "reason": need_sentence(need, fix=False),
            "fix": fix(need.floor, "findings.next_z18.upgrade", need.tf),
            "until": until,
        }
        out.append(("newest-tf-driver", "info", fields))  # a way forward, not a failure
    elif (
        p.platform not in SAID_ELSEWHERE
        and facts.has_gpu
        and (not best_tf or Version(best_tf) < newest.version)
    ):
        evals = [evaluate(facts, kb, newest, method, None) for method in GPU_METHODS]
        if all(ev.blockers for ev in evals):
            ev = evals[0]  # pip-and-cuda: the method the wizard prefers
            kinds = {kind for kind, _ in ev.blockers}
            if "cc" in kinds:
                reason = _after_head(next(text for kind, text in ev.blockers if kind == "cc"))
                last = t("findings.until.gpu_tf", tf=best_tf) if best_tf else t("findings.until.gpu_cpu")
                fields = {"newest": newest.series, "reason": reason, "until": last}
                out.append(("newest-tf-gpu-old", "info", fields))
    if best.reported is not None:
        report = best.reported
        fields = {"name": report.name, "arch": report.arch, "why": reported_text(report, kb)}
        # The doctor's fix is the plan's own answer (the set it pins, its cache step, its GPU check),
        # and its source the public reports, not "run detect" again.
        fields["doctor_fix"] = t(
            "findings.reported_fail.fix", tf=best.set.tensorflow, name=report.name, arch=report.arch
        )
        fields["doctor_source"] = "; ".join(r.issue for r in report.reports)
        out.append(("reported-fail", "warning", fields))
    installed = _installed_tf_blocked(p, facts, kb, best_tf)
    if installed is not None:
        out.append(installed)
    if best.python_change and facts.python is not None and Version(best.set.python) > facts.python:
        fields = {"tf": best.set.tensorflow, "python": best.set.python, "current": str(facts.python)}
        out.append(("python-too-old", "info", fields))
    return out


# The kinds of blocker that stop an installed GPU build from using this GPU (not a Python or a method).
GPU_BLOCKERS = ("cc", "driver")


def _installed_tf_blocked(p: MachineProfile, facts: Facts, kb: KnowledgeBase, best_tf: str) -> Problem | None:
    """The TensorFlow already installed here cannot use this GPU (an RTX 5090 with TF 2.19): the
    resolver's own reason for that release, so Detect says what Choose's table says."""
    tf = p.tensorflow
    if tf is None or tf.distribution == "tensorflow-cpu" or p.platform not in ("linux", "wsl2"):
        return None
    if not facts.has_gpu or tf.version == best_tf:
        return None
    rel = kb.release(tf.version)
    if rel is None:
        return None
    ev = evaluate(facts, kb, rel, "pip-and-cuda", None)
    reason = next((text for kind, text in ev.blockers if kind in GPU_BLOCKERS), None)
    if reason is None:
        return None
    fields = {"version": tf.version, "reason": _after_head(reason)}
    fields["plan"] = (
        t("findings.installed_tf.plan_gpu", tf=best_tf) if best_tf else t("findings.installed_tf.plan_cpu")
    )
    fields["doctor_fix"] = t("findings.installed_tf.fix")
    fields["doctor_source"] = _wheel_citation(kb, rel)
    return ("installed-tf-blocked", "warning", fields)


def _wheel_citation(kb: KnowledgeBase, rel: Release) -> str:
    """The wheel the GPU facts were read from, by file name and sha256 (a public artifact), without
    the path of our own data file."""
    build = kb.build(rel)
    if build is None:
        return ""
    parts = [part.strip() for part in build.source.split(":", 1)[-1].split(";")]
    return next((part for part in parts if f"tensorflow-{rel.version}-" in part), parts[0])


def _after_head(reason: str) -> str:
    """The resolver's reason without its short plain head ("driver too old: ..."): the
    finding's title says that already."""
    head, sep, rest = reason.partition(": ")
    return rest if sep and len(head) <= 24 and rest else reason
