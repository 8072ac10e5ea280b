"""A class's one lock: the plan's own, so the wheelhouse holds exactly what the plan installs.

- Recorded (wizard.choose.lock.environment_lock): the plan already installs it
  (`lockfile.py place`, then `--require-hashes --no-deps -r <venv>/tf-gpu-wizard.lock.txt`, proved
  by `lockfile.py check`); the fleet downloads those very files.
- None recorded (another Python, an old glibc): compiled here on the control node with uv for the
  same target the plan would compile for on the machine (its Python, `uv_platform(glibc)`, every
  package with its sha256), and the class's plan then installs that lock in the same locked step.
  The class's plan output says so.
- A step's other packages (pip in the venv step, ipykernel for Jupyter) are compiled the same way
  under the lock's versions, so a host installs nothing unhashed.
A compile is kept in the project, named by its inputs: a rerun with the same facts asks no index.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import Candidate
from wizard.choose.harvest import WheelFile, canonical
from wizard.choose.lock import Lock, LockLine, LockTarget, environment_lock, lock_for
from wizard.plan.common import constraints_for
from wizard.plan.locked import uv_platform
from wizard.safe.atomic import write_text_atomic
from wizard.text import t

COMPILE_TIMEOUT_S = 600
MACHINES = {"amd64": "x86_64", "arm64": "aarch64"}
_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")


class LockError(RuntimeError):
    """The lock could not be made; one line for the user."""


@dataclass(frozen=True)
class ClassLock:
    lock: Lock  # complete: every package pinned == with its sha256
    recorded: bool  # the plan's recorded lock (else compiled on the control node)

    @property
    def source(self) -> str:
        return "recorded" if self.recorded else "compiled"


def parse_compiled(text: str) -> tuple[LockLine, ...]:
    """The packages of the hashed requirements file `uv pip compile --generate-hashes` writes
    (hash options on continuation lines), as lock lines: one file per sha256 it names."""
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for raw in joined.splitlines():
        m = _LINE.match(raw.split("#", 1)[0].strip() + " ")
        if m:
            hashes = tuple(WheelFile("", h) for h in _HASH.findall(raw))
            out.append(LockLine(canonical(m.group(1)), m.group(2), hashes))
    return tuple(out)


def _uv_compile(
    requirements: list[str],
    constraints: list[str],
    *,
    python: str,
    platform: str,
    uv: str,
    index_args: tuple[str, ...],
) -> str:
    with tempfile.TemporaryDirectory(prefix="tf-gpu-wizard-lock-") as tmp:
        req = Path(tmp) / "requirements.in"
        req.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        cons = Path(tmp) / "constraints.txt"
        cons.write_text("\n".join(constraints) + "\n", encoding="utf-8")
        argv = [
            uv, "pip", "compile", "--quiet", "--generate-hashes", "--no-header", "--no-annotate",
            "--python-version", python, "--python-platform", platform, "--only-binary", ":all:",
            *index_args, "-c", str(cons), str(req),
        ]  # fmt: skip
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LockError(t("fleet.lock.failed", error=str(exc))) from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        raise LockError(t("fleet.lock.failed", error=tail[:400]))
    return done.stdout


def target_platform(arch: str, glibc: str) -> str:
    """uv's --python-platform for the class: the plan's own target name (x86_64-manylinux_2_17)."""
    return uv_platform(glibc).replace("x86_64", MACHINES.get(arch, arch))


def download_glibc(lock: Lock, glibc: str) -> str:
    """The glibc whose wheels the one download takes for `lock`: the one it was resolved for (a
    recorded lock: manylinux_2_28, or higher where a pinned wheel needs it), never above the hosts'.
    pip then picks the very files the lock names, not newer builds the hosts could also run."""
    found = re.search(r"manylinux_?([0-9]+)_([0-9]+)", lock.target.platform if lock.target else "")
    resolved = Version(f"{found.group(1)}.{found.group(2)}") if found else Version("2.17")
    if lock.target is not None and lock.target.glibc > resolved:
        resolved = lock.target.glibc
    try:
        return str(min(resolved, Version(glibc)))
    except InvalidVersion:
        return str(resolved)


def compile_key(
    requirements: list[str], constraints: list[str], python: str, platform: str, index_args: tuple[str, ...]
) -> str:
    """Names a compile by all its inputs: the cached result serves only the very same question."""
    text = "\0".join([python, platform, *requirements, "--", *constraints, "--", *index_args])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def compile_lock(
    requirements: list[str],
    *,
    python: str,
    glibc: str,
    uv: str,
    arch: str = "x86_64",
    index_args: tuple[str, ...] = (),
    constraints: list[str] | None = None,
    cache: Path | None = None,
) -> Lock:
    """`requirements` resolved with uv for `python` on Linux `arch` with `glibc`, hashed: a
    complete Lock. With `cache` (a folder), the same inputs are compiled once."""
    if not requirements:
        raise LockError(t("fleet.lock.no_requirements"))
    platform = target_platform(arch, glibc)
    constraints = constraints or []
    key = compile_key(requirements, constraints, python, platform, index_args)
    kept = cache / f"{key}.txt" if cache is not None else None
    text = None
    if kept is not None and kept.is_file():
        text = kept.read_text(encoding="utf-8")
    fresh = not text or not parse_compiled(text)
    if fresh:
        text = _uv_compile(
            requirements, constraints, python=python, platform=platform, uv=uv, index_args=index_args
        )
    lines = parse_compiled(text or "")
    if not lines or not all(line.files for line in lines):
        raise LockError(t("fleet.lock.unhashed"))
    if kept is not None and fresh:
        write_text_atomic(kept, text or "", make_parents=True)
    try:
        floor = Version(glibc)
    except InvalidVersion:
        floor = Version("2.17")
    return Lock(tuple(sorted(lines, key=lambda line: line.name)), LockTarget(python, platform, floor))


def fallback_requirements(candidate: Candidate, glibc: str) -> tuple[list[str], list[str]]:
    """(requirements, constraints) of the set, as the plan compiles them on a machine (pip-and-cuda:
    TensorFlow and its nvidia pins) or installs them (cpu: tensorflow-cpu)."""
    partial = lock_for(candidate, glibc=glibc)
    if partial is not None:
        return partial.requirements, [c for c in constraints_for(candidate) if not c.startswith("nvidia-")]
    dist = "tensorflow-cpu" if candidate.set.method == "cpu" else "tensorflow"
    return [f"{dist}=={candidate.set.tensorflow}"], constraints_for(candidate)


def class_lock(
    candidate: Candidate,
    glibc: str,
    *,
    uv: str,
    arch: str = "x86_64",
    index_args: tuple[str, ...] = (),
    cache: Path | None = None,
) -> ClassLock:
    """The plan's recorded lock for this class; compiled for the same target only when none is."""
    # Recorded locks: Linux x86_64 (every method the plan locks) and aarch64 (tensorflow's own).
    machine = MACHINES.get(arch, arch)
    family = f"linux-{machine}" if machine in ("x86_64", "aarch64") else None
    recorded = environment_lock(candidate, glibc, family=family) if family else None
    if recorded is not None:
        return ClassLock(recorded, True)
    requirements, constraints = fallback_requirements(candidate, glibc)
    lock = compile_lock(
        requirements,
        python=candidate.set.python,
        glibc=glibc,
        uv=uv,
        arch=arch,
        index_args=index_args,
        constraints=constraints,
        cache=cache,
    )
    return ClassLock(lock, False)
