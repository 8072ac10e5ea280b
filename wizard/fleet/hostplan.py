"""A class's plan made ready for its hosts: the same steps, their programs and wheels local.

What changes from the plan a single machine would get, and why:
- the programs a step names (installed_ok.py, the GPU check) live in the wizard's folder on the
  host, which the playbook fills (REMOTE_PROGRAMS);
- environments are made and filled by the uv the playbook copies there (REMOTE_UV), and every
  uv command gets `--no-index --find-links WHEELHOUSE`: the host asks no public index;
- the TensorFlow step is the plan's own: it places the class's lock (the plan's, digest-checked)
  and installs it `--require-hashes --no-deps`; the playbook copies that lock where the step reads it;
- a step's other packages (pip in the venv step, ipykernel) come from a hashed lock of their own,
  compiled under the class's lock (`--require-hashes --no-deps -r REMOTE_LOCKS/...`);
- the conda route installs Miniforge and the environment's packages from the files the class's
  bundle carries (wizard.fleet.condaship), each checked by its sha256 on the host;
- a driver step also holds the packages it installed (`apt-mark hold`), so a routine upgrade
  cannot swap the driver under TensorFlow.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from wizard.choose.lock import LOCK_NAME
from wizard.fleet.condaship import offline_step
from wizard.plan.model import Plan, Step
from wizard.plan.programs import program_name
from wizard.profile import MachineProfile
from wizard.text import t

REMOTE_DIR = "/opt/tf-gpu-wizard"
REMOTE_PROGRAMS = f"{REMOTE_DIR}/programs"
REMOTE_UV = f"{REMOTE_DIR}/bin/uv"
REMOTE_WHEELHOUSE = f"{REMOTE_DIR}/wheelhouse"
REMOTE_LOCKS = f"{REMOTE_DIR}/locks"
OFFLINE = ("--no-index", "--find-links", REMOTE_WHEELHOUSE)
JINJA_MARKERS = ("{{", "{%", "{#")


def fleet_profile(profile: MachineProfile, uv_version: str) -> MachineProfile:
    """The host's facts as the planner uses them: uv is the one the playbook ships; the host's
    own index settings are not used (the host installs from the wheelhouse only)."""
    p = copy.deepcopy(profile)
    p.simulated = False  # real facts, read on the host by the probe this run
    p.python.uv = REMOTE_UV
    p.python.uv_version = uv_version
    p.python.pip_index_url = None
    p.python.pip_extra_index_urls = None
    p.python.pip_find_links = None
    p.python.pip_index_private = False
    p.python.uv_index_configured = False
    return p


def _programs(argv: tuple[str, ...]) -> tuple[str, ...]:
    out = []
    for arg in argv:
        name = program_name(arg)
        out.append(f"{REMOTE_PROGRAMS}/{name}" if name else arg)
    return tuple(out)


def _offline(argv: tuple[str, ...]) -> tuple[str, ...]:
    if not argv or argv[0] != REMOTE_UV:
        return argv
    if argv[1:2] == ("venv",):
        return (*argv[:2], *OFFLINE, *argv[2:])
    if argv[1:3] == ("pip", "install"):
        return (*argv[:3], *OFFLINE, *argv[3:])
    return argv


def _held(step: Step) -> Step:
    """The driver packages an apt install put in, held; ubuntu-drivers' nvidia:550 is nvidia-driver-550."""
    packages: list[str] = []
    for argv in step.commands:
        if "apt-get" in argv and "install" in argv:
            packages += [a for a in argv if a.startswith("nvidia-driver")]
        if argv[:2] == ("ubuntu-drivers", "install"):
            packages += ["nvidia-driver-" + a.split(":", 1)[1] for a in argv[2:] if a.startswith("nvidia:")]
    if not packages:
        return step
    return replace(step, commands=(*step.commands, ("apt-mark", "hold", *packages)))


def _plain_install(argv: tuple[str, ...]) -> list[str] | None:
    """The requirements of `uv pip install --python PY REQ...` (None for any other command)."""
    if argv[:3] != (REMOTE_UV, "pip", "install") or argv[3:4] != ("--python",):
        return None
    reqs = list(argv[5:])
    return reqs if reqs and not any(a.startswith("-") for a in reqs) else None


def step_packages(plan: Plan) -> dict[str, list[str]]:
    """What each step but the locked install puts in by name (`pip`, `ipykernel`): these get a
    hashed lock of their own in the fleet."""
    out: dict[str, list[str]] = {}
    for step in plan.active_steps:
        if step.id == "tensorflow":
            continue
        for argv in step.commands:
            reqs = _plain_install(argv)
            if reqs:
                out.setdefault(step.id, []).extend(r for r in reqs if r not in out.get(step.id, []))
    return out


def lock_source(plan: Plan) -> tuple[str, str] | None:
    """(the lock file the TensorFlow step places, its sha256), read from its `lockfile.py place`."""
    try:
        step = plan.step("tensorflow")
    except KeyError:
        return None
    for argv in step.commands:
        if len(argv) >= 6 and argv[1].endswith("lockfile.py") and argv[2] == "place":
            return argv[3], argv[5]
    return None


def installed_lock(plan: Plan) -> str:
    """Where the plan's lock lives in the environment (what `lockfile.py check` proves)."""
    return str(PurePosixPath(plan.venv) / LOCK_NAME)


def for_hosts(plan: Plan, tools: Mapping[str, str] | None = None) -> Plan:
    """`plan` as the fleet runs it (see the module's docstring); `tools`: step id -> the host's
    path of that step's hashed lock."""
    tools = tools or {}
    steps = []
    for step in plan.steps:
        commands = []
        for argv in step.commands:
            python = argv[4] if _plain_install(argv) is not None else ""
            if python and step.id in tools:
                argv = (
                    REMOTE_UV, "pip", "install", "--python", python,
                    "--require-hashes", "--no-deps", "-r", tools[step.id],
                )  # fmt: skip
            commands.append(_offline(_programs(argv)))
        check = replace(step.check, argv=_programs(step.check.argv))
        recheck = replace(step.recheck, argv=_programs(step.recheck.argv)) if step.recheck else None
        step = replace(step, commands=tuple(commands), check=check, recheck=recheck)
        if step.id == "driver":
            step = _held(step)
        step = offline_step(step, REMOTE_WHEELHOUSE)  # conda: the shipped files, offline
        steps.append(step)
    return replace(plan, steps=tuple(steps))


def blockers(plan: Plan, confirmed: bool) -> list[str]:
    """Why the fleet leaves this plan's hosts alone (empty: it applies the plan)."""
    out = []
    for step in plan.active_steps:
        if step.where == "windows-host":
            out.append(t("fleet.plan.windows_step", step=step.id))
        elif (
            step.id == "python" and step.commands and step.commands[0][:3] == (REMOTE_UV, "python", "install")
        ):
            out.append(t("fleet.plan.python_download", python=plan.set.python))
        elif step.id == "miniforge" and not step.commands:  # no pinned sha256: never run unchecked
            out.append(t("fleet.conda_ship.no_installer", step=step.id))
        elif step.confirm and not confirmed:
            out.append(t("fleet.plan.needs_confirm", step=step.id, question=step.confirm))
    return out


def has_jinja(value: Any) -> bool:
    """Text Ansible would read as a template: such data is refused, never sent to a host."""
    if isinstance(value, str):
        return any(m in value for m in JINJA_MARKERS)
    if isinstance(value, dict):
        return any(has_jinja(k) or has_jinja(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(has_jinja(v) for v in value)
    return False


def step_vars(step: Step) -> dict[str, Any]:
    """One step as the role's tasks read it."""
    return {
        "id": step.id,
        "title": step.title,
        "where": step.where,
        "commands": [list(c) for c in step.commands],
        "check": list(step.check.argv),
        # Run first: the verify's kept proof (env_proof.py check), so a second playbook run with
        # nothing changed starts no TensorFlow; after the commands, `check`.
        "check_first": list(step.before_check.argv),
        "check_is_last": step.check_is_last_command,  # the last command proved it: not run twice
        "proves": step.check.proves,
        "check_before": step.check_before,
        "restart": step.restart or "",
        "manual": step.manual or "",
    }
