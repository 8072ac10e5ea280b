"""Decisions from the setup a log shows (wizard.doctor.setup_facts), beside wizard.doctor.reason's.

    decide_setup(facts, causes, symptoms) -> SetupDecision | None

Each names a cause only where the text holds the evidence that decides it:
  * a container started by `docker run` / `podman run` with nothing that gives it the NVIDIA driver
    (no --gpus, --runtime=nvidia, NVIDIA_VISIBLE_DEVICES, CDI device or driver volume; device nodes
    alone bring no libcuda), where CUDA then finds no driver or calls it too old: the container has
    no GPU access (the host's driver is never reached, so "update the driver" is ruled out);
  * the CUDA a program was built for beside a driver below that CUDA's floor in Choose's knowledge
    (before CUDA 11 each minor has its own floor, release notes' Table 3; from 11 on the major's
    minor-version compatibility floor), where the text says no GPU was usable: the driver is too old;
  * MIG mode beside the text saying no device was found: no MIG instance reaches the program;
  * a scheduler's job whose request names no GPU, where the program found none;
  * in WSL2 an nvidia-smi of another driver branch than the Windows driver the text names (WSL2's
    nvidia-smi comes with the Windows driver): a Linux driver's files inside WSL;
  * WSL2 and a GPU in TCC mode where the text says the GPU cannot be used there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from packaging.version import Version

from wizard.choose.driver_floors import normalize_driver
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.facts import Facts
from wizard.doctor.judge import cuda_floor, text_platform
from wizard.doctor.setup_facts import Evidence

# Causes a container given no driver explains (CUDA finding no driver, or calling it too old).
NO_DRIVER_IDS = frozenset({"driver-too-old", "no-device", "cuinit-failed", "container-no-gpu"})
NO_GPU_SYMPTOMS = frozenset({"no-device", "gpu-list-empty", "cuinit-failed"})
BRANCH = 5  # NVIDIA's driver branches: R535 is 535-539 (Windows 536.xx, 537.xx), R550 is 550-554


@dataclass(frozen=True)
class SetupDecision:
    """What wizard.doctor.reason makes its Decision of (this module stays below it)."""

    id: str
    key: str  # doctor.reason.setup.* text, filled with `fields`
    fields: dict[str, str] = field(default_factory=dict)
    line: int | None = None  # the evidence line
    said: str = ""  # its text
    drop: tuple[str, ...] = ()  # ids whose fix this one contradicts
    texts: str = ""  # the doctor.toml section of its title, why and fix, where not the id's own
    fix_fields: dict[str, str] = field(default_factory=dict)  # what its fix's words are filled with


def _decision(
    diag_id: str,
    key: str,
    fields: dict[str, str],
    at: Evidence | None,
    drop: tuple[str, ...] = (),
) -> SetupDecision:
    line, said = at if at is not None else (None, "")
    return SetupDecision(diag_id, f"doctor.reason.setup.{key}", fields, line, said, drop)


def _code_says_no_driver(facts: Facts) -> Evidence | None:
    return next(((n, ln) for c, n, ln in facts.codes if c.decides in ("driver-too-old", "no-device")), None)


def _container_without_driver(facts: Facts, causes: list[str], symptoms: set[str]) -> SetupDecision | None:
    s = facts.setup
    if not s.container_run or s.driver_given or "WSL2" in facts.platforms:
        return None
    if not set(causes) <= NO_DRIVER_IDS:
        return None
    at = _code_says_no_driver(facts) or s.gpu_missing
    if at is None and not (set(causes) | symptoms) & (NO_DRIVER_IDS | NO_GPU_SYMPTOMS):
        return None
    decision = _decision(
        "container-no-gpu",
        "container_apptainer" if s.apptainer else "container",
        {"command": s.container_run},
        at or s.container_at,
        drop=("driver-too-old", "no-device"),
    )
    # Apptainer's answer is its own option (--nv), not Docker's --gpus and toolkit
    if not s.apptainer:
        return decision
    # The person's own command with --nv added, where it was read whole; else the option's place in one.
    command = s.with_nv or "apptainer exec --nv IMAGE.sif COMMAND"
    return replace(decision, texts="container-no-gpu-apptainer", fix_fields={"nv_command": command})


def build_floor(cuda: str, platform: str | None = None) -> Version | None:
    """The lowest driver that runs a program built for CUDA `cuda` ("10.1"): judge.cuda_floor's,
    the lower of Linux's and Windows' where the platform is not known."""
    try:
        wanted = Version(cuda)
    except ValueError:
        return None
    found = cuda_floor(wanted, platform, load_knowledge())
    return None if found is None else found[0]


def _driver_below_build(facts: Facts, causes: list[str], symptoms: set[str]) -> SetupDecision | None:
    s = facts.setup
    driver_text = s.driver or facts.driver_smi
    if not s.cuda_built or not driver_text or causes:
        return None
    if s.gpu_missing is None and not symptoms & NO_GPU_SYMPTOMS:
        return None
    # A Windows driver the text names is judged by Windows' floor; otherwise the lower of the two.
    platform = text_platform(facts) if facts.windows_driver else None
    driver, floor = normalize_driver(driver_text), build_floor(s.cuda_built, platform)
    if driver is None or floor is None or driver >= floor:
        return None
    fields = {"driver": driver_text, "cuda": s.cuda_built, "floor": str(floor)}
    return _decision("driver-too-old", "build_floor", fields, s.driver_at or s.cuda_built_at)


def _mig_without_instance(facts: Facts, causes: list[str]) -> SetupDecision | None:
    if not facts.mig or causes or facts.setup.gpu_missing is None:
        return None
    return _decision("mig-no-instance", "mig", {}, facts.setup.gpu_missing)


def _job_without_gpu(facts: Facts, causes: list[str], symptoms: set[str]) -> SetupDecision | None:
    s = facts.setup
    if "scheduler" not in facts.platforms or not s.job_request or causes:
        return None
    if s.gpu_missing is None and not symptoms & NO_GPU_SYMPTOMS:
        return None
    return _decision("scheduler-no-gpu", "job", {"request": s.job_request}, s.gpu_missing or s.job_at)


def _branch(version: str) -> int | None:
    v = normalize_driver(version)
    return None if v is None else v.major // BRANCH


def _linux_smi_in_wsl(facts: Facts, causes: list[str]) -> SetupDecision | None:
    s = facts.setup
    if "WSL2" not in facts.platforms or not s.windows_driver or not s.smi_version or causes:
        return None
    if facts.failure_line is None and s.gpu_missing is None:
        return None
    windows, smi = _branch(s.windows_driver), _branch(s.smi_version)
    if windows is None or smi is None or windows == smi:
        return None
    fields = {"windows": s.windows_driver, "smi": s.smi_version}
    return _decision("linux-driver-in-wsl", "wsl_smi", fields, s.smi_at)


def _tcc_said(facts: Facts, causes: list[str]) -> SetupDecision | None:
    if not facts.tcc or "WSL2" not in facts.platforms or causes or facts.setup.gpu_missing is None:
        return None
    return _decision("wsl-tcc", "tcc", {}, facts.setup.gpu_missing)


def decide_setup(facts: Facts, causes: list[str], symptoms: set[str]) -> SetupDecision | None:
    """The first decision the setup's evidence makes, or None (then wizard.doctor.reason goes on)."""
    return (
        _container_without_driver(facts, causes, symptoms)
        or _driver_below_build(facts, causes, symptoms)
        or _mig_without_instance(facts, causes)
        or _job_without_gpu(facts, causes, symptoms)
        or _linux_smi_in_wsl(facts, causes)
        or _tcc_said(facts, causes)
    )


__all__ = ["SetupDecision", "build_floor", "decide_setup"]
