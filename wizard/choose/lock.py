"""The lock of an environment: every package it installs, pinned with ==, each with the sha256 of
the one wheel file that installs it on the target (Python, Linux x86_64, glibc).

Where it comes from (ARCHITECTURE.md, "Locks"):
- the harvester resolved `tensorflow==X` (and `tensorflow-cpu==X`) with uv for each Python the
  release has a wheel for, at manylinux glibc 2.28, and recorded every package's wheel file and
  sha256 in assets/knowledge/locks.json (no URL, no index);
- a GPU set's nvidia-* wheels are the candidate's own pins (wizard.choose.wheelset bounds them to
  the GPU), each with the sha256 of the wheel the harvest read;
- the two joined are the whole environment (`complete`): installed with
  `pip install --require-hashes --no-deps -r <venv>/tf-gpu-wizard.lock.txt`, pip (or uv) then
  installs exactly these files and nothing else.
When no lock is recorded for the combination (another Python, an older glibc), `lock_for` gives
the nvidia-only lock and the plan compiles the rest on the machine (wizard.plan.locked).

Off Linux x86_64 the harvester records `tensorflow==X` the same way for Linux aarch64 (a Jetson),
macOS (arm64, x86_64; from macOS 12) and Windows x86_64: `environment_lock(candidate, glibc,
family=...)` with `family_of(platform, arch)` finds those.

`environment_lock(candidate, glibc)` is the one public entry for other stages (the fleet builds its
wheelhouse from `Lock.text()`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from wizard.assets import asset_text
from wizard.choose.choice import Candidate
from wizard.choose.harvest import WheelFile, canonical, manylinux_glibc
from wizard.choose.knowledge import KnowledgeBase, load_knowledge
from wizard.profile import MachineProfile

LOCK_NAME = "tf-gpu-wizard.lock.txt"
# The platform the recorded locks were resolved for (uv's name) and the lowest glibc any is for.
RECORDED_PLATFORM = "x86_64-manylinux_2_28"
CPU_DISTRIBUTION = "tensorflow-cpu"
LINUX_X86_64 = "linux-x86_64"
# The lowest macOS a macOS lock serves when the record does not say (the harvester's target).
MACOS_FLOOR = "12.0"


def family_of(platform: str, arch: str) -> str | None:
    """The lock family of a machine: "linux-x86_64", "linux-aarch64", "macos-aarch64",
    "macos-x86_64", "windows-x86_64"; None where no lock is recorded (another arch)."""
    cpu = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(arch.lower())
    system = "linux" if platform in ("linux", "wsl2", "wsl1") else platform
    if cpu is None or system not in ("linux", "macos", "windows") or (system, cpu) == ("windows", "aarch64"):
        return None
    return f"{system}-{cpu}"


def platform_family(uv_platform: str) -> str | None:
    """The family of a recorded lock from uv's --python-platform ("aarch64-apple-darwin" ->
    "macos-aarch64", "x86_64-manylinux_2_28" -> "linux-x86_64")."""
    arch, _, rest = uv_platform.partition("-")
    if rest.startswith("manylinux"):
        return f"linux-{arch}"
    if rest == "apple-darwin":
        return f"macos-{arch}"
    if rest == "pc-windows-msvc":
        return f"windows-{arch}"
    return None


@dataclass(frozen=True)
class LockLine:
    name: str
    version: str
    files: tuple[WheelFile, ...]

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class LockTarget:
    """What a whole-environment lock was resolved for."""

    python: str  # "3.12"
    platform: str  # uv's --python-platform, "x86_64-manylinux_2_28"
    glibc: Version  # the newest glibc any of its wheels needs: machines with this or newer (0 off Linux)
    macos: Version | None = None  # a macOS lock: the lowest macOS it serves

    @property
    def family(self) -> str:
        return platform_family(self.platform) or LINUX_X86_64

    @property
    def system(self) -> str:
        """What the plan shows of the target: "glibc 2.28", "macOS 12.0+", "Windows"."""
        family = self.family
        if family.startswith("macos"):
            return f"macOS {self.macos or MACOS_FLOOR}+"
        if family.startswith("windows"):
            return "Windows"
        return f"glibc {self.glibc}"


@dataclass(frozen=True)
class Lock:
    lines: tuple[LockLine, ...]
    # Set for a lock of the whole environment (every package); None for the nvidia-only lock.
    target: LockTarget | None = None

    @property
    def complete(self) -> bool:
        return self.target is not None

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

    @property
    def hash_count(self) -> int:
        return sum(len(line.files) for line in self.lines) if self.hashed else 0

    def text(self) -> str:
        """The requirements file: one line per package, `name==version --hash=sha256:...`."""
        out = []
        for line in self.lines:
            hashes = [f"--hash=sha256:{f.sha256}" for f in line.files] if self.hashed else []
            out.append(" ".join([line.requirement, *hashes]))
        return "\n".join(out) + "\n"

    @property
    def digest(self) -> str:
        """sha256 of text(): names this lock (the file beside the environment, a fleet receipt)."""
        return hashlib.sha256(self.text().encode("utf-8")).hexdigest()

    def files(self) -> list[WheelFile]:
        """Every wheel file of the lock (what a wheelhouse holds)."""
        return [f for line in self.lines for f in line.files]


# ---- the recorded locks (assets/knowledge/locks.json) ------------------------------------------


@dataclass(frozen=True)
class RecordedLock:
    distribution: str
    version: str
    target: LockTarget
    packages: Mapping[str, tuple[str, WheelFile]]  # canonical name -> (version, wheel)


@dataclass(frozen=True)
class RecordedLocks:
    locks: Mapping[tuple[str, str, str], tuple[RecordedLock, ...]] = field(default_factory=dict)

    def find(
        self,
        distribution: str,
        version: str,
        python: str,
        glibc: Version | None,
        family: str = LINUX_X86_64,
        macos: Version | None = None,
    ) -> RecordedLock | None:
        """The lock for this release and Python whose wheels the machine's glibc takes (the one
        resolved for the newest glibc not above it); with glibc unknown, the lowest recorded.
        Off Linux x86_64 only the family's locks count; a macOS lock needs macOS >= its floor."""
        found = [
            r
            for r in self.locks.get((canonical(distribution), version, python), ())
            if r.target.family == family
            and (macos is None or r.target.macos is None or r.target.macos <= macos)
        ]
        if not family.startswith("linux"):
            glibc = None
        fits = [r for r in found if glibc is None or r.target.glibc <= glibc]
        if not fits:
            return None
        if glibc is None:
            return min(fits, key=lambda r: r.target.glibc)
        return max(fits, key=lambda r: r.target.glibc)


@cache
def load_locks() -> RecordedLocks:
    try:
        raw = json.loads(asset_text("knowledge/locks.json"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return RecordedLocks()
    return parse_locks(raw)


def parse_locks(raw: Any) -> RecordedLocks:
    """Forgiving: an entry that does not parse, or names a wheel without a sha256, is left out."""
    if not isinstance(raw, dict):
        return RecordedLocks()
    found = raw.get("wheels")
    wheels: Mapping[str, Any] = found if isinstance(found, dict) else {}
    out: dict[tuple[str, str, str], list[RecordedLock]] = {}
    for dist, versions in _items(raw.get("locks")):
        for version, pythons in _items(versions):
            for python, platforms in _items(pythons):
                for platform, entry in _items(platforms):
                    rec = _recorded(dist, version, python, platform, entry, wheels)
                    if rec is not None:
                        out.setdefault((canonical(dist), version, python), []).append(rec)
    return RecordedLocks({k: tuple(v) for k, v in out.items()})


def _items(node: Any) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in node.items()] if isinstance(node, dict) else []


def _recorded(
    dist: str, version: str, python: str, platform: str, entry: Any, wheels: Mapping[str, Any]
) -> RecordedLock | None:
    if not isinstance(entry, dict):
        return None
    try:
        glibc = Version(str(entry.get("glibc")))
        macos = Version(str(entry["macos"])) if "macos" in entry else None
    except InvalidVersion:
        return None
    packages: dict[str, tuple[str, WheelFile]] = {}
    for name, item in _items(entry.get("packages")):
        if not isinstance(item, dict):
            return None
        file = str(item.get("file", ""))
        info = wheels.get(file)
        sha = info.get("sha256") if isinstance(info, dict) else None
        if not file or not isinstance(sha, str) or len(sha) != 64:
            return None  # a lock with a hole is no lock
        size = info.get("size") if isinstance(info, dict) else None
        packages[canonical(name)] = (str(item.get("version", "")), WheelFile(file, sha, size))
    if not packages:
        return None
    return RecordedLock(dist, version, LockTarget(python, platform, glibc, macos), packages)


# ---- a candidate's lock ----------------------------------------------------------------------


def environment_lock(
    candidate: Candidate,
    glibc: str | Version | None = None,
    *,
    family: str = LINUX_X86_64,
    macos: str | Version | None = None,
) -> Lock | None:
    """The whole-environment lock of a candidate on a machine with this glibc, when one is
    recorded (pip-and-cuda: TensorFlow's packages and the candidate's nvidia pins; cpu:
    tensorflow-cpu's packages on Linux x86_64, tensorflow's elsewhere; system-cuda and conda:
    tensorflow's, which names no nvidia wheel); None otherwise. What a plan installs and a fleet
    downloads. `family` and `macos`: the machine's (`family_of`; macOS's version)."""
    method = candidate.set.method
    if method == "pip-and-cuda":
        lock = lock_for(candidate, glibc=glibc) if family == LINUX_X86_64 else None
    elif method == "cpu":
        dist = CPU_DISTRIBUTION if family == LINUX_X86_64 else "tensorflow"
        lock = _whole_lock(candidate, dist, glibc, family, macos)
    else:
        lock = _whole_lock(candidate, "tensorflow", glibc, family, macos)
        if lock is not None and any(line.name.startswith("nvidia-") for line in lock.lines):
            lock = None  # this route's CUDA is the system's or conda's, never a pip wheel
    return lock if lock is not None and lock.complete else None


def machine_lock(candidate: Candidate, profile: MachineProfile) -> Lock | None:
    """The whole-environment lock a plan for this machine installs (its platform, arch, glibc and
    macOS version pick the recorded lock); None where none is recorded."""
    family = family_of(profile.platform, profile.arch)
    if family is None:
        return None
    macos = profile.os.version if family.startswith("macos") else None
    return environment_lock(candidate, profile.os.glibc, family=family, macos=macos)


def lock_for(
    candidate: Candidate, kb: KnowledgeBase | None = None, *, glibc: str | Version | None = None
) -> Lock | None:
    """The lock of a pip-and-cuda candidate: the whole environment when a lock is recorded for it,
    else TensorFlow and its nvidia-* pins only; None for other methods or a set without pins."""
    if candidate.set.method != "pip-and-cuda" or not candidate.pins:
        return None
    kb = kb or load_knowledge()
    pins = []
    for pin in candidate.pins:
        try:
            req = Requirement(pin)
        except InvalidRequirement:
            return None
        versions = [s.version for s in req.specifier if s.operator == "=="]
        if len(versions) != 1:
            return None
        name = canonical(req.name)
        pins.append(LockLine(name, versions[0], kb.harvest.wheel_files(name, versions[0])))
    recorded = _recorded_for(candidate, "tensorflow", glibc)
    if recorded is not None and all(line.files for line in pins):  # hash mode is all or nothing
        pinned = {line.name for line in pins}
        base = [
            LockLine(name, version, (wheel,))
            for name, (version, wheel) in sorted(recorded.packages.items())
            if name not in pinned and not name.startswith("nvidia-")
        ]
        lines = sorted([*base, *pins], key=lambda line: line.name)
        nvidia = [line for line in lines if line.name.startswith("nvidia-")]
        target = recorded.target
        glibcs = [g for line in nvidia for f in line.files if (g := wheel_glibc(f.file)) is not None]
        if glibcs and max(glibcs) > target.glibc:
            target = LockTarget(target.python, target.platform, max(glibcs))
        return Lock(tuple(lines), target)
    return Lock((_tensorflow_line(kb, candidate), *pins))


def _whole_lock(
    candidate: Candidate,
    dist: str,
    glibc: str | Version | None,
    family: str = LINUX_X86_64,
    macos: str | Version | None = None,
) -> Lock | None:
    recorded = _recorded_for(candidate, dist, glibc, family, macos)
    if recorded is None:
        return None
    lines = [LockLine(n, v, (w,)) for n, (v, w) in sorted(recorded.packages.items())]
    return Lock(tuple(lines), recorded.target)


def _recorded_for(
    candidate: Candidate,
    dist: str,
    glibc: str | Version | None,
    family: str = LINUX_X86_64,
    macos: str | Version | None = None,
) -> RecordedLock | None:
    machine = _version(glibc)
    recorded = load_locks().find(
        dist, candidate.set.tensorflow, candidate.set.python, machine, family, _version(macos)
    )
    if recorded is None or not _meets(recorded, candidate.constraints):
        return None
    return recorded


def _version(value: str | Version | None) -> Version | None:
    if value is None or isinstance(value, Version):
        return value
    try:
        return Version(str(value).split()[-1])
    except (InvalidVersion, IndexError):
        return None


def _meets(recorded: RecordedLock, constraints: list[str]) -> bool:
    """A recorded lock serves only when it keeps the resolver's constraints (nvidia ones aside:
    the candidate's own pins replace those packages)."""
    for line in constraints:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            return False
        name = canonical(req.name)
        if name.startswith("nvidia-") or name not in recorded.packages:
            continue
        if not req.specifier.contains(recorded.packages[name][0], prereleases=True):
            return False
    return True


def wheel_glibc(file: str) -> Version | None:
    """The glibc a wheel file needs: the lowest manylinux tag of its name; None for pure wheels."""
    return manylinux_glibc(file)


def _tensorflow_line(kb: KnowledgeBase, candidate: Candidate) -> LockLine:
    version = candidate.set.tensorflow
    harvested = kb.harvest.release(version)
    files: tuple[WheelFile, ...] = ()
    if harvested is not None:
        # The wheel for the environment's Python; every Python's when that one is not known.
        one = harvested.python_wheels.get(candidate.set.python)
        files = (one,) if one else tuple(harvested.python_wheels[p] for p in sorted(harvested.python_wheels))
    return LockLine("tensorflow", version, files)
