"""`fleet plan`: run by the playbook on the control node, between the facts and the apply.

It reads the profiles the probe brought back (DIR/profiles/HOST.json), groups the hosts into
classes, makes each class's plan (wizard.choose.recommend + wizard.plan.build_plan, with the
answers file's choices), takes the plan's own whole-environment lock (compiled here only where
none is recorded; wizard.fleet.lockfile), fetches its wheels once into DIR/wheelhouse, and writes
what the role reads: DIR/plans/HOST.json (the host's steps, or why it is left alone) and
DIR/plans/summary.json. Files are rewritten only when their content changes,
so a rerun with the same facts reports no change and downloads nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wizard.choose.choice import Candidate, Recommendation
from wizard.choose.lock import Lock
from wizard.fleet.answers import Answers, load_answers
from wizard.fleet.classes import HostClass, group_hosts
from wizard.fleet.condaship import CondaNeeds, ShipError, Shipped, conda_needs, ship
from wizard.fleet.hostplan import (
    REMOTE_LOCKS,
    REMOTE_PROGRAMS,
    REMOTE_WHEELHOUSE,
    blockers,
    fleet_profile,
    for_hosts,
    has_jinja,
    installed_lock,
    lock_source,
    step_packages,
    step_vars,
)
from wizard.fleet.lockfile import ClassLock, LockError, class_lock, compile_lock, download_glibc
from wizard.fleet.tools import control_uv, uv_version
from wizard.fleet.wheelhouse import (
    WheelhouseError,
    class_bundle,
    digests,
    fetch_missing,
    pip_command,
    wheels_for,
)
from wizard.plan.model import Plan, PlanError, PlanInputs
from wizard.profile import MachineProfile, ProfileError
from wizard.safe.atomic import write_text_atomic
from wizard.text import t

DEFAULT_ENV = "/opt/tf-gpu"
HOME = "/root"  # the role's steps run as root (become): the Jupyter kernel is registered there
HOST_NAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,200}$")


@dataclass
class FleetPlan:
    changed: bool = False
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)
    classes: dict[str, dict[str, Any]] = field(default_factory=dict)
    downloaded_files: int = 0
    downloaded_bytes: int = 0
    wheelhouse_files: int = 0
    wheelhouse_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "changed": self.changed,
            "hosts": self.hosts,
            "classes": self.classes,
            "wheelhouse": {
                "files": self.wheelhouse_files,
                "bytes": self.wheelhouse_bytes,
                "downloaded_files": self.downloaded_files,
                "downloaded_bytes": self.downloaded_bytes,
            },
        }


def pick(rec: Recommendation, method: str | None) -> Candidate | None:
    """The recommended set, or the best working one of the asked-for method (as `plan` picks)."""
    if method and (rec.recommended is None or rec.recommended.set.method != method):
        return next((c for c in rec.candidates if c.ok and c.set.method == method), None)
    return rec.recommended


def _write(path: Path, text: str) -> bool:
    """Write only when different; True when the file changed."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_text_atomic(path, text, make_parents=True)
    return True


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


def class_plan(cls: HostClass, answers: Answers, uv_ver: str) -> tuple[Plan | None, Candidate | None, str]:
    """The plan the wizard makes for this class, or why none: (plan, candidate, reason)."""
    from wizard.choose.resolver import recommend
    from wizard.plan.build import build_plan

    profile = fleet_profile(cls.profile, uv_ver)
    if profile.platform not in ("linux", "wsl2"):
        return None, None, t("fleet.plan.platform", platform=profile.platform)
    try:
        rec = recommend(profile, prefer_method=answers.method, tf=answers.tensorflow, python=answers.python)
    except Exception as exc:  # a table or a profile the resolver cannot read: this class only
        return None, None, t("fleet.plan.no_set", reasons=f"{type(exc).__name__}: {exc}")
    cand = pick(rec, answers.method)
    if cand is None:
        reasons = "; ".join(r for c in rec.candidates[:3] for r in c.reasons[:1]) or t(
            "plan.view.no_candidate"
        )
        return None, None, t("fleet.plan.no_set", reasons=reasons)
    try:
        plan = build_plan(profile, cand, venv=answers.environment or DEFAULT_ENV, home=HOME)
        for step_id in answers.optional:
            if step_id not in [s.id for s in plan.steps if s.optional]:
                return None, None, t("fleet.plan.not_optional", step=step_id)
            plan = plan.with_enabled(step_id, True)
    except PlanError as exc:
        return None, None, str(exc)
    return plan, cand, ""


def with_lock(plan: Plan, profile: MachineProfile, cand: Candidate, lock: Lock) -> Plan:
    """The plan with its TensorFlow step installing `lock` the way a recorded lock is installed
    (used where none is recorded and the lock was compiled on the control node)."""
    from pathlib import PurePosixPath

    from wizard.plan.locked import locked_environment_step

    inputs = PlanInputs(candidate=cand, venv=PurePosixPath(plan.venv), home=PurePosixPath(HOME))
    step = locked_environment_step(profile, inputs, lock)
    return replace(plan, steps=tuple(step if s.id == "tensorflow" else s for s in plan.steps))


def _index_args(answers: Answers) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(uv's, pip's) index options for the one download: the chosen mirror, else this machine's
    own configuration (pip reads its own; uv is told what pip's says)."""
    from wizard.mirror.advice import resolve
    from wizard.mirror.catalogue import load_catalogue
    from wizard.mirror.configured import read_configured

    mirror = resolve(answers.mirror, load_catalogue()) if answers.mirror else None
    if mirror is not None and mirror.pypi:
        from wizard.mirror.secret import without_password  # the password: ~/.netrc, never argv

        url = without_password(mirror.pypi)
        return ("--index-url", url), ("--index-url", url)
    conf = read_configured()
    uv: list[str] = []
    if conf.uv_index is None:
        if conf.pip_index:
            uv += ["--index-url", conf.pip_index.value]
        for extra in conf.pip_extra:
            for url in extra.value.split():
                uv += ["--extra-index-url", url]
        if conf.pip_extra:
            uv += ["--index-strategy", "unsafe-best-match"]
    return tuple(uv), ()


def _conda_channel(answers: Answers) -> str | None:
    """The chosen mirror's conda-forge channel, where it has one (the lock's own URLs otherwise)."""
    from wizard.mirror.advice import resolve
    from wizard.mirror.catalogue import load_catalogue

    mirror = resolve(answers.mirror, load_catalogue()) if answers.mirror else None
    return mirror.conda if mirror is not None and mirror.conda else None


def plan_fleet(project: Path, hosts: list[str], probed: list[str]) -> FleetPlan:
    """Plan every host of the inventory (see the module's docstring)."""
    from wizard.mirror.catalogue import MirrorError

    answers = load_answers(project / "answers.toml")
    uv = control_uv()
    if uv is None:
        raise LockError(t("fleet.lock.no_uv"))
    uv_ver = uv_version(uv)
    result = FleetPlan()
    profiles: dict[str, MachineProfile] = {}
    for host in sorted(set(hosts)):
        if not HOST_NAME.match(host):
            result.hosts[host] = {"status": "unfit", "reason": t("fleet.plan.bad_host")}
            continue
        if host not in probed:
            result.hosts[host] = {"status": "no-facts", "reason": t("fleet.plan.no_facts")}
            continue
        try:
            profiles[host] = MachineProfile.load(project / "profiles" / f"{host}.json")
        except ProfileError as exc:
            result.hosts[host] = {"status": "no-facts", "reason": str(exc)}
    try:
        uv_index, pip_index = _index_args(answers)
    except MirrorError as exc:
        raise LockError(str(exc)) from None
    wheelhouse = project / "wheelhouse"
    have = digests(wheelhouse)
    for cls in group_hosts(profiles):
        info: dict[str, Any] = {"hosts": cls.hosts, "key": cls.key.to_dict()}
        result.classes[cls.name] = info
        plan, cand, reason = class_plan(cls, answers, uv_ver)
        chosen: ClassLock | None = None
        conda: Shipped | None = None  # the conda route's lock and files, shipped
        needs: CondaNeeds | None = None
        source: tuple[str, str] | None = None  # the lock file the plan's step places, its sha256
        locks: dict[str, Lock] = {}  # "" -> the plan's lock; step id -> that step's own packages
        wheels: list[str] = []
        if plan is not None and cand is not None:
            reason = "; ".join(blockers(plan, answers.confirm))
            if not reason and has_jinja([step_vars(s) for s in plan.active_steps]):
                reason = t("fleet.plan.template")
        if plan is not None and cand is not None and not reason:
            profile = fleet_profile(cls.profile, uv_ver)
            cache = project / "locks" / "compiled"
            arch, glibc = cls.key.arch, cls.key.glibc
            try:
                chosen = class_lock(cand, glibc, uv=uv, arch=arch, index_args=uv_index, cache=cache)
                if not chosen.recorded:
                    plan = with_lock(plan, profile, cand, chosen.lock)
                locks[""] = chosen.lock
                for step_id, reqs in step_packages(plan).items():
                    locks[step_id] = compile_lock(
                        reqs, python=plan.set.python, glibc=glibc, uv=uv, arch=arch, index_args=uv_index,
                        constraints=chosen.lock.requirements, cache=cache,
                    )  # fmt: skip
                for lock in locks.values():
                    _, missing = wheels_for(lock, have)
                    got = fetch_missing(
                        wheelhouse,
                        missing,
                        python=plan.set.python,
                        arch=cls.key.arch,
                        glibc=download_glibc(lock, cls.key.glibc),
                        index_args=pip_index,
                        pip=pip_command(uv),
                    )
                    result.downloaded_files += got.files
                    result.downloaded_bytes += got.bytes
                    if got.files:
                        result.changed = True
                        have = digests(wheelhouse)
                    found, missing = wheels_for(lock, have)
                    wheels += found
                    if missing:
                        reason = t(
                            "fleet.wheelhouse.incomplete", packages=", ".join(p.name for p in missing[:5])
                        )
                        break
                needs = conda_needs(plan, arch)
                if needs is not None and not reason:
                    conda = ship(project, needs, _conda_channel(answers))
                    result.downloaded_files += conda.fetched
                    result.downloaded_bytes += conda.fetched_bytes
                    result.changed |= conda.fetched > 0
                    wheels += conda.files
            except (LockError, WheelhouseError, ShipError) as exc:
                reason = str(exc)
            source = lock_source(plan)
            if not reason and (source is None or source[1] != locks[""].digest):
                reason = t("fleet.lock.not_the_plans")  # the plan must install the lock shipped
        if reason or plan is None or chosen is None:
            info.update(status="unfit", reason=reason)
            for host in cls.hosts:
                result.hosts[host] = {"status": "unfit", "class": cls.name, "reason": reason}
            continue
        lock = chosen.lock
        files: list[dict[str, str]] = []  # what the playbook copies to each host: (project file, host path)
        name = Path(source[0]).name if source else f"{lock.digest[:16]}.txt"
        result.changed |= _write(project / "locks" / name, lock.text())
        files.append({"file": f"locks/{name}", "remote": f"{REMOTE_PROGRAMS}/locks/{name}"})
        tools: dict[str, str] = {}
        for step_id, extra in locks.items():
            if step_id:
                rel = f"{cls.name}.{step_id}.txt"
                result.changed |= _write(project / "locks" / rel, extra.text())
                tools[step_id] = f"{REMOTE_LOCKS}/{rel}"
                files.append({"file": f"locks/{rel}", "remote": tools[step_id]})
        if conda is not None and needs is not None:  # the lab's conda lock, where the step reads it
            files.append({"file": conda.lock_file, "remote": needs.lock})
        plan = for_hosts(plan, tools)
        everything = "".join(lk.text() for lk in locks.values()) + (conda.lock_text if conda else "")
        marker = f"{cls.name}.{hashlib.sha256(everything.encode()).hexdigest()[:16]}.lock"
        _, bundled = class_bundle(wheelhouse, cls.name, sorted(set(wheels)), everything, marker)
        result.changed |= bundled
        info.update(
            status="planned",
            tensorflow=plan.set.tensorflow,
            method=plan.set.method,
            python=plan.set.python,
            lock_digest=lock.digest,
            lock_source=chosen.source,
            lock_target=lock.target.platform if lock.target else "",
            packages=len(lock.lines),
            wheels=len(set(wheels)),
            steps=[s.id for s in plan.active_steps],
        )
        conda_lock = {"installed": "", "digest": ""}
        if conda is not None and needs is not None:
            conda_lock = {"installed": needs.lock, "digest": conda.lock_digest}
            info.update(conda_lock_digest=conda.lock_digest, conda_files=len(conda.files))
        for host in cls.hosts:
            profile = cls.profiles[host]
            host_vars = {
                "fits": True,
                "class": cls.name,
                "tensorflow": plan.set.tensorflow,
                "method": plan.set.method,
                "venv": plan.venv,
                "python": plan.python,
                "lock": {"installed": installed_lock(plan), "digest": lock.digest, "source": chosen.source},
                "locks": files,
                "wheels": sorted(set(wheels)),
                "bundle": f"wheelhouse/bundles/{cls.name}.tar",
                "bundle_marker": f"{REMOTE_WHEELHOUSE}/{marker}",
                "secure_boot": profile.kernel.secure_boot,
                "conda_lock": conda_lock,
                "steps": [step_vars(s) for s in plan.active_steps],
            }
            if has_jinja(host_vars):  # the plan was checked above: here, the host's own facts
                result.hosts[host] = {
                    "status": "unfit",
                    "class": cls.name,
                    "reason": t("fleet.plan.template"),
                }
                continue
            result.hosts[host] = {"status": "planned", "class": cls.name, "reason": ""}
            result.changed |= _write(project / "plans" / f"{host}.json", _dump(host_vars))
    for host, entry in result.hosts.items():
        if entry["status"] != "planned":
            left = {"fits": False, "class": entry.get("class", ""), "reason": entry["reason"]}
            result.changed |= _write(project / "plans" / f"{host}.json", _dump(left))
    sizes = [(wheelhouse / n).stat().st_size for n in set(have.values()) if (wheelhouse / n).is_file()]
    result.wheelhouse_files, result.wheelhouse_bytes = len(sizes), sum(sizes)
    summary = result.to_dict()
    del summary["changed"]
    summary["wheelhouse"] = {"files": result.wheelhouse_files, "bytes": result.wheelhouse_bytes}
    result.changed |= _write(project / "plans" / "summary.json", _dump(summary))
    return result
