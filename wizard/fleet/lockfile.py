"""The one adapter between a class's plan and the whole-environment lock the wheelhouse is built from.

`environment_lock(plan, candidate, ...)` returns every package of the environment pinned `==` with
its sha256, resolved for the class's Python, platform and glibc. Until wizard.choose.lock offers a
lock of the whole environment, it is compiled here with `uv pip compile --generate-hashes` for the
target (`--python-version`, `--python-platform`), from exactly the requirements the plan's install
step checks for, under the plan's constraints; when the choose stage exposes the full lock, this is
the one function that changes.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from wizard.choose.choice import Candidate
from wizard.plan.common import constraints_for
from wizard.plan.model import Plan
from wizard.text import t

COMPILE_TIMEOUT_S = 600
# `uv venv --seed` puts these into the environment; before Python 3.12 setuptools and wheel too.
SEED = ("pip",)
SEED_OLD = ("pip", "setuptools", "wheel")
_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")


class LockError(RuntimeError):
    """The lock could not be made; one line for the user."""


@dataclass(frozen=True)
class LockedPackage:
    name: str  # canonical
    version: str
    sha256: tuple[str, ...]  # every file of this release the index offers


@dataclass(frozen=True)
class EnvLock:
    text: str  # a requirements file: `name==version --hash=sha256:...`, installable with --require-hashes
    packages: tuple[LockedPackage, ...]
    source: str  # "uv pip compile" or the choose stage's lock

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def parse_lock(text: str) -> tuple[LockedPackage, ...]:
    """The packages of a hashed requirements file (continuation lines joined)."""
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for raw in joined.splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("--hash") else raw
        m = _LINE.match(line)
        if m:
            out.append(LockedPackage(canonicalize_name(m.group(1)), m.group(2), tuple(_HASH.findall(line))))
    return tuple(out)


def plan_requirements(plan: Plan) -> list[str]:
    """What the plan's TensorFlow step proves is installed: its check names each requirement."""
    step = plan.step("tensorflow")
    argv = list(step.check.argv)
    return [a for a in argv[argv.index("check") + 1 :]] if "check" in argv else []


def seed_packages(python: str) -> tuple[str, ...]:
    try:
        return SEED if Version(python) >= Version("3.12") else SEED_OLD
    except InvalidVersion:
        return SEED_OLD


def python_platform(arch: str, glibc: str) -> str:
    """uv's target name for a manylinux host: x86_64-manylinux_2_36."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch)
    return f"{machine}-manylinux_{glibc.replace('.', '_')}"


def environment_lock(
    plan: Plan,
    candidate: Candidate,
    *,
    arch: str,
    glibc: str,
    uv: str,
    index_args: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> EnvLock:
    """The whole environment of `plan`, hashed, for its Python on `arch` with `glibc`."""
    requirements = [*plan_requirements(plan), *seed_packages(plan.set.python), *extra]
    if not requirements:
        raise LockError(t("fleet.lock.no_requirements"))
    with tempfile.TemporaryDirectory(prefix="tf-gpu-wizard-lock-") as tmp:
        req = Path(tmp) / "requirements.in"
        req.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        cons = Path(tmp) / "constraints.txt"
        cons.write_text("\n".join(constraints_for(candidate)) + "\n", encoding="utf-8")
        argv = [
            uv,
            "pip",
            "compile",
            "--quiet",
            "--generate-hashes",
            "--no-header",
            "--no-annotate",
            "--python-version",
            plan.set.python,
            "--python-platform",
            python_platform(arch, glibc),
            "--only-binary",
            ":all:",
            *index_args,
            "-c",
            str(cons),
            str(req),
        ]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LockError(t("fleet.lock.failed", error=str(exc))) from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        raise LockError(t("fleet.lock.failed", error=tail[:400]))
    packages = parse_lock(done.stdout)
    if not packages or not all(p.sha256 for p in packages):
        raise LockError(t("fleet.lock.unhashed"))
    return EnvLock(text=done.stdout, packages=packages, source="uv pip compile --generate-hashes")
