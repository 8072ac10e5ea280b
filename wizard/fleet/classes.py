"""Host classes: the hosts whose facts decide the same TensorFlow set get one plan.

What decides the set (wizard.choose) is the platform and distribution, the CPU architecture,
each GPU's compute capability, the driver branch, the Python minor and glibc. Two hosts that
agree on all of them get the same recommendation and the same plan, so the plan is made once
per class and the wheelhouse holds each class's wheels once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from wizard.profile import UNKNOWN, MachineProfile


@dataclass(frozen=True)
class ClassKey:
    platform: str  # "linux", "wsl2"
    distro: str  # "debian-12"
    arch: str
    gpus: tuple[str, ...]  # compute capabilities, sorted: ("8.6", "8.6"); () without a GPU
    driver_branch: str  # "550"; "none" without a driver
    python: str  # "3.11"
    glibc: str  # "2.36"

    @property
    def name(self) -> str:
        """A readable, file-safe name: linux-debian-12-x86_64-cpu-py3.11-glibc2.36-1a2b3c."""
        gpu = "sm" + "+".join(sorted(set(self.gpus))) if self.gpus else "cpu"
        driver = "" if self.driver_branch == "none" else f"-drv{self.driver_branch}"
        text = f"{self.platform}-{self.distro}-{self.arch}-{gpu}{driver}-py{self.python}-glibc{self.glibc}"
        digest = hashlib.sha256(repr(self).encode()).hexdigest()[:6]
        return re.sub(r"[^A-Za-z0-9._+-]+", "_", text)[:100] + "-" + digest

    def to_dict(self) -> dict[str, object]:
        return {
            "platform": self.platform,
            "distro": self.distro,
            "arch": self.arch,
            "gpus": list(self.gpus),
            "driver_branch": self.driver_branch,
            "python": self.python,
            "glibc": self.glibc,
        }


@dataclass
class HostClass:
    key: ClassKey
    hosts: list[str] = field(default_factory=list)
    profiles: dict[str, MachineProfile] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.key.name

    @property
    def profile(self) -> MachineProfile:
        """The class's representative: its first host's facts."""
        return self.profiles[self.hosts[0]]


def _minor(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version or UNKNOWN


def class_key(profile: MachineProfile) -> ClassKey:
    driver = profile.driver.version if profile.driver else ""
    branch = driver.split(".")[0] if driver and driver != UNKNOWN else "none"
    return ClassKey(
        platform=profile.platform,
        distro=f"{profile.os.id}-{profile.os.version}",
        arch=profile.arch,
        gpus=tuple(sorted(g.compute_capability for g in profile.gpus)),
        driver_branch=branch,
        python=_minor(profile.python.version),
        glibc=profile.os.glibc,
    )


def group_hosts(profiles: dict[str, MachineProfile]) -> list[HostClass]:
    """Hosts grouped by class, in the order their first host appears (hosts sorted by name)."""
    classes: dict[ClassKey, HostClass] = {}
    for host in sorted(profiles):
        key = class_key(profiles[host])
        cls = classes.setdefault(key, HostClass(key))
        cls.hosts.append(host)
        cls.profiles[host] = profiles[host]
    return list(classes.values())
