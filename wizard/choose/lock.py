"""The lock of a pip-and-cuda install: TensorFlow and every nvidia-* wheel, pinned with ==,
each with the sha256 of its wheel as the harvest read it.

Written beside the environment (<venv>/tf-gpu-wizard.lock.txt) and installed with
`pip install --require-hashes --no-deps -r`: pip then refuses any file whose hash
differs. Only when the harvest lacks a hash for some wheel is the lock written
without hashes (pip's hash mode is all or nothing); it still pins every version.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

from wizard.choose.choice import Candidate
from wizard.choose.harvest import WheelFile, canonical
from wizard.choose.knowledge import KnowledgeBase, load_knowledge

LOCK_NAME = "tf-gpu-wizard.lock.txt"


@dataclass(frozen=True)
class LockLine:
    name: str
    version: str
    files: tuple[WheelFile, ...]

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class Lock:
    lines: tuple[LockLine, ...]

    @property
    def hashed(self) -> bool:
        return all(line.files for line in self.lines)

    @property
    def missing(self) -> list[str]:
        """Requirements the harvest has no wheel hash for."""
        return [line.requirement for line in self.lines if not line.files]

    @property
    def requirements(self) -> list[str]:
        return [line.requirement for line in self.lines]

    def text(self) -> str:
        """The requirements file: one line per package, `name==version --hash=sha256:...`."""
        out = []
        for line in self.lines:
            hashes = [f"--hash=sha256:{f.sha256}" for f in line.files] if self.hashed else []
            out.append(" ".join([line.requirement, *hashes]))
        return "\n".join(out) + "\n"


def lock_for(candidate: Candidate, kb: KnowledgeBase | None = None) -> Lock | None:
    """The lock of a pip-and-cuda candidate; None for other methods or a set without pins."""
    if candidate.set.method != "pip-and-cuda" or not candidate.pins:
        return None
    kb = kb or load_knowledge()
    lines = [_tensorflow_line(kb, candidate)]
    for pin in candidate.pins:
        try:
            req = Requirement(pin)
        except InvalidRequirement:
            return None
        versions = [s.version for s in req.specifier if s.operator == "=="]
        if len(versions) != 1:
            return None
        name = canonical(req.name)
        lines.append(LockLine(name, versions[0], kb.harvest.wheel_files(name, versions[0])))
    return Lock(tuple(lines))


def _tensorflow_line(kb: KnowledgeBase, candidate: Candidate) -> LockLine:
    version = candidate.set.tensorflow
    harvested = kb.harvest.release(version)
    files: tuple[WheelFile, ...] = ()
    if harvested is not None:
        # The wheel for the environment's Python; every Python's when that one is not known.
        one = harvested.python_wheels.get(candidate.set.python)
        files = (one,) if one else tuple(harvested.python_wheels[p] for p in sorted(harvested.python_wheels))
    return LockLine("tensorflow", version, files)
