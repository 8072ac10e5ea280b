"""What the plan installs, in one line, for recommend, Choose and the doctor.

The same data the plan uses (wizard.choose.lock.machine_lock for the candidate and the
profile's platform, arch, glibc and macOS; wizard.plan.installer.choose_installer for uv or pip),
so these three never say "pip installs exactly 12 nvidia-* packages" while the plan installs a
44-package lock with uv.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.choose.choice import Candidate
from wizard.choose.lock import machine_lock
from wizard.plan.installer import choose_installer
from wizard.profile import MachineProfile
from wizard.text import t


@dataclass(frozen=True)
class LockedInstall:
    count: int  # packages in the lock
    nvidia: int  # of them nvidia-* wheels
    installer: str  # "uv" or "pip", the plan's
    digest: str  # the lock's sha256, first 16 hex digits (as the plan shows it)


def locked_install(candidate: Candidate, profile: MachineProfile) -> LockedInstall | None:
    """The whole-environment lock the plan installs on this machine, or None (no lock recorded,
    or a native-Windows profile whose GPU plan installs nothing on Windows)."""
    if profile.platform == "windows" and candidate.set.method == "pip-and-cuda":
        return None
    try:
        lock = machine_lock(candidate, profile)  # the plan's own choice (linux, conda, locked)
    except Exception:  # a damaged knowledge table: say nothing rather than something wrong
        return None
    if lock is None:
        return None
    nvidia = sum(1 for line in lock.lines if line.name.startswith("nvidia-"))
    return LockedInstall(len(lock.lines), nvidia, choose_installer(profile).name, lock.digest[:16])


def install_summary(candidate: Candidate, profile: MachineProfile | None) -> str:
    """ "Installs the locked environment with uv: 44 packages, 12 of them NVIDIA libraries", the
    Windows line for a native-Windows profile, or "" where the plan has no lock to speak of."""
    if profile is None:
        return ""
    if profile.platform == "windows" and candidate.set.method == "pip-and-cuda":
        return t("plan.lock_view.on_windows")
    found = locked_install(candidate, profile)
    if found is None:
        return ""
    key = "plan.lock_view.summary" if found.nvidia else "plan.lock_view.summary_cpu"
    return t(key, count=found.count, nvidia=found.nvidia, installer=found.installer)
