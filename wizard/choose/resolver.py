"""Which TensorFlow setups work on this machine, which one is best, and why.

    recommend(profile, kb=None, *, prefer_method=None, tf=None, python=None) -> Recommendation

Every TensorFlow release in the knowledge base (assets/knowledge) is paired
with every install method (`wizard.choice.METHODS`) into a Candidate, which is
`ok` or carries the reasons it is not, in words that name the numbers. Reasons
on an ok candidate are caveats (a Python to install, a slow first start).

Ranking of the ok candidates: a GPU set before CPU; the newest TensorFlow
(for CPU sets: the newest for the current Python); pip-and-cuda, then conda,
then system-cuda; the current Python kept; fewer caveats. The unlock hint names
the one change (a driver upgrade, WSL2) that would give a better set.
`prefer_method`, `tf` ("2.15" or "2.15.1") and `python` ("3.11") narrow the
choice the way the plan's --method / --tf options do.

Helpers for the plan:

    pip_requirements(candidate) -> list[str]
        the exact pip requirement strings: TensorFlow and, for pip-and-cuda, every nvidia-*
        wheel pinned with == (candidate.pins, the set wheelset.py chose for this GPU);
        candidate.constraints are the pip *constraint* lines (a -c file) beside them.
    conda_packages(candidate) -> list[str]
        conda-forge specs for the `conda` method, e.g. ['python=3.10', 'cudatoolkit=11.2', 'cudnn=8.1'].
    required_driver(candidate, platform) -> str | None
        the minimum NVIDIA driver the candidate needs ("525.60.13"; the Windows
        driver's number for wsl2 / windows), None for cpu.

A profile with missing, unknown or odd fields never raises: what cannot be read
becomes a reason or a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import (
    GPU_GENERATION,
    METHODS,
    MINOR,
    PTX_JIT,
    TOOLKIT,
    Candidate,
    DriverNeed,
    GpuReport,
    Recommendation,
    VersionSet,
    XlaLimit,
)
from wizard.choose.driver_floors import normalize_driver
from wizard.choose.driver_view import need_reason, reported_text, upgrade_hint, xla_limit_text
from wizard.choose.gpu_generation import generation_floor, toolkit_too_old, xla_limit
from wizard.choose.gpucode import PTX_DRIVER_TOO_OLD, SASS, Fit, fit
from wizard.choose.knowledge import ComputeBuild, KnowledgeBase, Release, driver_text, load_knowledge
from wizard.choose.wheelset import GpuTarget, WheelSet, choose_set, tested_set
from wizard.choose.wsl_command import wsl_install_shown
from wizard.probe.state_view import (
    REMOVED_BY_PLAN,
    StateWords,
    blocking_words,
    removed_by_plan_words,
    side_words,
)
from wizard.profile import UNKNOWN, MachineProfile
from wizard.profile_view import wsl1_command
from wizard.text import t

GPU_METHODS = ("pip-and-cuda", "conda", "system-cuda")
# Ranking order: pip wheels touch nothing outside the venv; conda keeps CUDA in
# its env; a system toolkit changes /usr/local and the shell setup.
METHOD_ORDER = ("pip-and-cuda", "conda", "system-cuda", "cpu")
_ARCH_ALIASES = {
    "amd64": "x86_64",
    "x64": "x86_64",
    "x86_64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "arm64",
}


# ---- facts read from the profile -----------------------------------------------------


@dataclass(frozen=True)
class GpuFact:
    name: str
    cc: Version | None  # None: unknown


@dataclass(frozen=True)
class Facts:
    """The profile reduced to what the resolver needs, every value already checked."""

    platform: str
    arch: str
    python: Version | None  # major.minor
    driver: Version | None
    driver_text: str
    driver_cuda: Version | None
    gpus: tuple[GpuFact, ...]  # sorted, so the GPU order in the profile never matters
    has_gpu: bool
    notes: tuple[str, ...] = ()
    driver_reported: bool = False  # a driver answered, but its version could not be read
    glibc: Version | None = None  # the C library TensorFlow's manylinux wheels load against
    wsl_distro: str = ""  # WSL: the distribution's name (WSL_DISTRO_NAME)
    assumed_driver: bool = False  # judged on the driver a driver step installs, not today's
    # A driver installed but not loaded, which a restart loads (MachineProfile.driver_awaiting_reboot):
    # a set it is new enough for has a restart as its driver step, not an install.
    driver_installed: Version | None = None
    # WSL2: a Linux NVIDIA driver's libcuda inside WSL (MachineProfile.linux_driver_in_wsl): every
    # GPU set fits only after the plan's step that removes it.
    linux_driver_in_wsl: tuple[str, ...] = ()
    # The machine state that stops the GPU (wizard.probe.state_view.blocking_words), whose fix is
    # the driver step; None where no such state is known.
    machine_fix: StateWords | None = None

    @property
    def windows_driver(self) -> bool:
        return self.platform in ("wsl2", "windows")


def read_facts(profile: MachineProfile, kb: KnowledgeBase) -> Facts:
    notes: list[str] = []
    platform = profile.platform if isinstance(profile.platform, str) else "unknown"
    arch = _ARCH_ALIASES.get(str(profile.arch).lower(), str(profile.arch).lower() or "unknown")
    python = python_series(getattr(profile.python, "version", None))
    if python is None:
        notes.append(t("recommend.note_python_unknown", value=getattr(profile.python, "version", None)))
    windows = platform in ("wsl2", "windows")
    driver_text = ""
    driver: Version | None = None
    driver_cuda: Version | None = None
    if profile.driver is not None:
        driver_text = str(profile.driver.version)
        driver = normalize_driver(profile.driver.version)
        if driver is None and driver_text not in ("", "unknown", "None"):
            notes.append(t("recommend.note_driver_odd", value=driver_text))
        driver_cuda = _cuda_version(profile.driver.cuda)
        cuda_failed = any(s.failed for s in profile.states_of("cuda"))
        # `CUDA Version: ERR!` is a state, not a gap to fill from the driver's version.
        if driver_cuda is None and driver is not None and not cuda_failed:
            driver_cuda = kb.cuda_for_driver(driver, windows=windows)
    for said in side_words(profile):  # a failure that does not stop the GPU set is still said
        notes.append(t("recommend.state_note", title=said.title, fix=said.fix))
    for fact, name in profile.overrides.items():  # a fact set from outside is said to be so
        notes.append(t("states.override_note", fact=fact, name=name))
    gpus = tuple(sorted(_gpu_facts(profile, kb), key=_gpu_sort_key))
    # A GPU stopped by a machine state (a container started without it, a module Secure Boot
    # blocks) is a GPU to plan for: its fix comes first, not TensorFlow on the CPU.
    has_gpu = bool(gpus) or _positive(profile.nvidia_pci_devices) or profile.blocking_state is not None
    reported = profile.driver is not None and driver is None and driver_text not in ("", "unknown", "None")
    glibc = glibc_version(getattr(profile.os, "glibc", None))
    return Facts(
        platform,
        arch,
        python,
        driver,
        driver_text,
        driver_cuda,
        gpus,
        has_gpu,
        tuple(notes),
        reported,
        glibc,
        str(getattr(profile.os, "wsl_distro", "") or ""),
        driver_installed=normalize_driver(profile.driver_awaiting_reboot or ""),
        linux_driver_in_wsl=profile.linux_driver_in_wsl,
        machine_fix=_machine_fix(profile),
    )


def _machine_fix(profile: MachineProfile) -> StateWords | None:
    """The blocking state's words, unless the plan's remove-linux-driver step is its fix already."""
    found = blocking_words(profile)
    return found if found is not None and found.reason not in REMOVED_BY_PLAN else None


def glibc_version(value: object) -> Version | None:
    """'2.35' or 'glibc 2.35' (os.confstr's form) -> 2.35; None for anything else."""
    m = re.fullmatch(r"\s*(?:glibc\s+)?([0-9]+)\.([0-9]+)\s*", str(value or ""), re.ASCII)
    return Version(f"{m.group(1)}.{m.group(2)}") if m and m.group(1) == "2" else None


def python_series(value: object) -> Version | None:
    """ "3.11.7" -> 3.11; None for anything that is not a Python 3 version."""
    m = re.match(r"^\s*([0-9]+)\.([0-9]+)", str(value), re.ASCII)  # "٣.١٠" is not a version
    if not m:
        return None
    v = Version(f"{m.group(1)}.{m.group(2)}")
    return v if v.major == 3 else None


def _cuda_version(value: object) -> Version | None:
    m = re.fullmatch(r"\s*([0-9]{1,2})\.([0-9]{1,2})(\.[0-9]+)?\s*", str(value), re.ASCII)
    return Version(f"{m.group(1)}.{m.group(2)}") if m else None


def _cc(value: object) -> Version | None:
    m = re.fullmatch(r"\s*([0-9]{1,2})\.([0-9])\s*", str(value), re.ASCII)
    return Version(f"{m.group(1)}.{m.group(2)}") if m else None


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _gpu_facts(profile: MachineProfile, kb: KnowledgeBase) -> list[GpuFact]:
    out = []
    for gpu in profile.gpus or []:
        name = str(gpu.name) if gpu.name not in (None, "", "unknown") else "NVIDIA GPU"
        # NVML's own answer first; the table only fills in what NVML could not say.
        cc = _cc(gpu.compute_capability)
        if cc is None:
            row = kb.gpu(name)
            cc = row.compute_capability if row else None
        out.append(GpuFact(_short_name(name), cc))
    if not out and profile.pci_gpus:
        # The driver is not answering, but the probe saw the cards on the PCI bus: their device ids
        # name them and give their compute capability (the PCI id table), so coverage still holds.
        for pci in profile.pci_gpus:
            known = pci.name if pci.name not in ("", UNKNOWN) else ""
            cc = _cc(pci.compute_capability)
            if cc is None and known:
                row = kb.gpu(known)
                cc = row.compute_capability if row else None
            out.append(GpuFact(_short_name(known or "NVIDIA GPU"), cc))
    if not out and _positive(profile.nvidia_pci_devices):
        # A profile saved before pci_gpus: an old probe wrote the card's name into a note.
        for note in profile.notes or []:
            # A coded note carries the card's name as a field (its wording is the language's);
            # a free-text note from an old profile is read as the probe wrote it in English.
            fields = getattr(note, "fields", {})
            m = re.search(r"PCI: NVIDIA device \S+ \(([^)]+)\)", str(getattr(note, "text", note)))
            pci_name = fields.get("name") if "name" in fields else (m.group(1) if m else None)
            if pci_name:
                row = kb.gpu(pci_name)
                out.append(GpuFact(_short_name(pci_name), row.compute_capability if row else None))
    return out


def _short_name(name: str) -> str:
    # A GPU name is data: it goes into reasons and notes, so it is cut to a name's length.
    from wizard.safe.display import cut

    return cut(" ".join(name.replace("NVIDIA ", "").split()), GPU_NAME_LIMIT) or "NVIDIA GPU"


GPU_NAME_LIMIT = 80


def _gpu_sort_key(g: GpuFact) -> tuple[Version, str]:
    return (g.cc or Version("0"), g.name)


# ---- evaluating one candidate --------------------------------------------------------


@dataclass
class _Eval:
    """A candidate being built: blockers carry a kind so the unlock hint can tell
    a driver problem (fixable) from a GPU that is simply too old."""

    blockers: list[tuple[str, str]] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    constraint_reasons: list[str] = field(default_factory=list)
    python: Version | None = None
    python_change: str | None = None
    needs_driver: Version | None = None
    # What the floor above comes from: MINOR / TOOLKIT / PTX_JIT, and the CUDA it belongs to.
    driver_basis: tuple[str, Version | None] = (MINOR, None)
    reported: GpuReport | None = None
    gpus: list[GpuTarget] = field(default_factory=list)  # the GPUs this release can use
    wheel_set: WheelSet | None = None  # pip-and-cuda: the nvidia-* wheels pinned with ==
    jit_ptx: str | None = None  # "compute_90": a GPU here runs this release only through PTX
    driver_step: bool = False  # judged on the driver it needs, not on today's
    xla_limit: XlaLimit | None = None  # XLA cannot compile for a GPU here (jit_compile=False)

    def block(self, kind: str, text: str) -> None:
        self.blockers.append((kind, text))

    def need_driver(self, floor: Version, basis: str = MINOR, cuda: Version | None = None) -> None:
        if self.needs_driver is None or floor > self.needs_driver:
            self.needs_driver = floor
            self.driver_basis = (basis, cuda)


def _series(rel: Release) -> str:
    return rel.series


# The Python of the Ubuntu that `wsl --install` brings today (24.04).
WSL_UBUNTU_PYTHON = Version("3.12")


def evaluate(
    facts: Facts, kb: KnowledgeBase, rel: Release, method: str, forced_python: Version | None
) -> _Eval:
    if facts.platform == "windows" and method == "pip-and-cuda" and facts.has_gpu:
        # Native Windows has TensorFlow on the GPU only up to 2.10; newer sets run in WSL2 on
        # the same Windows driver. Judge the set as it will be there; the plan sets WSL2 up.
        there = Facts(**{**facts.__dict__, "platform": "wsl2", "python": WSL_UBUNTU_PYTHON, "glibc": None})
        ev = evaluate(there, kb, rel, method, forced_python)
        ev.caveats.insert(0, t("recommend.windows_via_wsl2", tf=_series(rel)))
        return ev
    ev = _Eval()
    _check_platform(ev, facts, kb, rel, method)
    _choose_python(ev, facts, rel, method, forced_python)
    if method != "cpu":
        _check_gpu_method(ev, facts, kb, rel, method)
    return ev


def _check_platform(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release, method: str) -> None:
    if facts.platform not in ("linux", "wsl2", "wsl1", "windows", "macos"):
        ev.caveats.append(t("recommend.platform_unknown", platform=facts.platform))
        if method != "cpu":
            ev.block("platform", t("recommend.platform_unknown_gpu"))
        return
    wheel = kb.wheel(facts.platform, facts.arch, rel)
    if wheel is None:
        ev.block(
            "platform", t("recommend.no_wheel", tf=_series(rel), platform=facts.platform, arch=facts.arch)
        )
        return
    if facts.glibc is not None and facts.platform in ("linux", "wsl2", "wsl1") and facts.glibc < rel.glibc:
        tag = f"{rel.glibc.major}_{rel.glibc.minor}"
        text = t("recommend.glibc_too_old", tf=_series(rel), tag=tag, need=rel.glibc, have=facts.glibc)
        ev.block("platform", text)
        return
    if method == "cpu":
        return
    if facts.platform == "wsl1":
        ev.block("platform", t("recommend.wsl1"))
    elif facts.platform == "macos":
        ev.block("platform", t("recommend.macos"))
    elif facts.platform == "windows" and not wheel.gpu:
        ev.block("platform", t("recommend.windows_ended", tf=_series(rel)))
    elif not wheel.gpu:
        ev.block(
            "platform", t("recommend.no_gpu_wheel", tf=_series(rel), platform=facts.platform, arch=facts.arch)
        )
    elif facts.platform == "windows" and method == "pip-and-cuda":
        ev.block("method", t("recommend.no_and_cuda_windows"))


def _choose_python(ev: _Eval, facts: Facts, rel: Release, method: str, forced: Version | None) -> None:
    supported = rel.pythons()
    if forced is not None:
        ev.python = forced
        if forced not in rel.python:
            ev.block(
                "python",
                t("recommend.python_unsupported", python=forced, tf=_series(rel), range=rel.python_range()),
            )
        return
    current = facts.python
    if current is not None and current in rel.python:
        ev.python = current
        return
    if not supported:
        ev.block("python", t("recommend.python_none", tf=_series(rel)))
        return
    if current is None:
        ev.python = supported[-1]
        ev.caveats.append(
            t("recommend.python_assumed", python=ev.python, tf=_series(rel), range=rel.python_range())
        )
    else:
        ev.python = rel.nearest_python(current) or supported[-1]  # the smallest change (ties: the newer)
        ev.caveats.append(
            t(
                "recommend.python_switch",
                python=ev.python,
                current=current,
                tf=_series(rel),
                range=rel.python_range(),
            )
        )
    ev.python_change = _python_how(ev.python, facts, method)


def _python_how(python: Version, facts: Facts, method: str) -> str:
    if method == "conda":
        return t("recommend.python_change_conda", python=python)
    if facts.platform in ("windows",):
        return t("recommend.python_change_windows", python=python)
    if facts.platform == "macos":
        return t("recommend.python_change_macos", python=python)
    return t("recommend.python_change_linux", python=python)


def _check_gpu_method(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release, method: str) -> None:
    if any(kind == "platform" for kind, _ in ev.blockers):
        return
    if method == "pip-and-cuda" and kb.extra(rel) is None:
        ev.block("method", t("recommend.no_and_cuda", tf=_series(rel)))
        return
    if not facts.has_gpu:
        ev.block("gpu", t("recommend.no_gpu"))
        return
    _check_compute_capability(ev, facts, kb, rel)
    _check_generation(ev, facts, kb, rel, method)
    _check_driver(ev, facts, kb, rel, method)
    if method == "pip-and-cuda":
        _pin_wheels(ev, facts, kb, rel)


def _check_compute_capability(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release) -> None:
    build = kb.build(rel)
    if build is None:
        return
    if not facts.gpus:
        ev.caveats.append(t("recommend.cc_unknown", name=t("recommend.cc_unknown_name")))
        return
    usable: list[GpuFact] = []
    driver_blocked: list[tuple[GpuFact, Fit]] = []
    for gpu in facts.gpus:
        if gpu.cc is None:
            ev.caveats.append(t("recommend.cc_unknown", name=gpu.name))
            usable.append(gpu)
            continue
        got = fit(gpu.cc, build.sass_archs, build.ptx, facts.driver_cuda, every_ptx=True)
        if got.kind == SASS:
            usable.append(gpu)
        elif got.kind == PTX_DRIVER_TOO_OLD:
            driver_blocked.append((gpu, got))
        elif got.runs:
            usable.append(gpu)
            ev.jit_ptx = got.via
            ev.caveats.append(
                t(
                    "recommend.cc_ptx_jit",
                    name=gpu.name,
                    cc=gpu.cc,
                    tf=_series(rel),
                    sass=_cc_label(max(build.sass)),
                    ptx=got.via,
                    isa=got.isa,
                )
            )
            if got.needs_cuda is not None:  # the driver must compile this PTX: its floor counts
                _need_cuda_driver(ev, facts, kb, got.needs_cuda)
    for gpu, got in driver_blocked:
        assert got.needs_cuda is not None
        floor = _cuda_driver_floor(kb, got.needs_cuda, facts.windows_driver)
        text = t(
            "recommend.cc_ptx_driver",
            name=gpu.name,
            cc=gpu.cc,
            tf=_series(rel),
            ptx=got.via,
            isa=got.isa,
            cuda=got.needs_cuda,
            floor=driver_text(floor) if floor else "?",
            driver=facts.driver_text or "?",
            driver_cuda=facts.driver_cuda,
        )
        if usable:
            ev.caveats.append(text)
        else:
            ev.block("driver", text)
            if floor is not None:
                ev.need_driver(floor, PTX_JIT, got.needs_cuda)
    unusable = [g for g in facts.gpus if g not in usable and all(g is not d for d, _ in driver_blocked)]
    if not usable and not driver_blocked:
        gpu = unusable[0]
        ev.block("cc", _no_code_text(gpu, build, rel, facts))
    elif usable:
        for gpu in unusable:
            ev.caveats.append(
                t(
                    "recommend.cc_gpu_skipped",
                    name=gpu.name,
                    cc=gpu.cc,
                    tf=_series(rel),
                    minimum=build.minimum,
                )
            )
    ev.gpus = [GpuTarget(g.name, g.cc) for g in usable if g.cc is not None]
    _reported_failures(ev, facts, kb)


def _check_generation(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release, method: str) -> None:
    """What each GPU's generation asks whatever the set (wizard.choose.gpu_generation): its own
    driver floor, a system-wide CUDA new enough to know it, and whether XLA compiles for it."""
    for gpu in facts.gpus:
        if gpu.cc is None:
            continue
        if method == "system-cuda":
            first = toolkit_too_old(kb, gpu.cc, rel.cuda)
            if first is not None:
                ev.block(
                    "cc",
                    t(
                        "gpuroute.toolkit_too_old",
                        cuda=_mm(rel.cuda),
                        name=gpu.name,
                        cc=gpu.cc,
                        first=_mm(first),
                    ),
                )
        found = generation_floor(kb, gpu.cc, facts.windows_driver)
        if found is not None:
            floor, cuda = found
            ev.need_driver(floor, GPU_GENERATION, cuda)
            if facts.driver is not None and facts.driver < floor:
                ev.block(
                    "driver",
                    t(
                        "gpuroute.driver_below_generation",
                        name=gpu.name,
                        arch=_arch_name(facts, kb),
                        cuda=_mm(cuda),
                        floor=driver_text(floor),
                        driver=facts.driver_text or "?",
                    ),
                )
        limit = xla_limit(kb, rel, gpu.name, gpu.cc)
        if limit is not None and ev.xla_limit is None and any(g.cc == gpu.cc for g in ev.gpus):
            ev.xla_limit = limit
            ev.caveats.insert(0, xla_limit_text(limit))


def _no_code_text(gpu: GpuFact, build: ComputeBuild, rel: Release, facts: Facts) -> str:
    """Why a GPU cannot run a release: too old, or (Blackwell on 2.16-2.20) some kernels
    carry only PTX specific to another architecture."""
    if gpu.cc is not None and gpu.cc >= build.minimum:
        got = fit(gpu.cc, build.sass_archs, build.ptx, facts.driver_cuda, every_ptx=True)
        if got.missing:
            return t(
                "recommend.cc_ptx_partial",
                name=gpu.name,
                cc=gpu.cc,
                tf=_series(rel),
                ptx=got.via,
                missing=got.missing,
            )
    return t("recommend.cc_too_old", name=gpu.name, cc=gpu.cc, tf=_series(rel), minimum=build.minimum)


def _reported_failures(ev: _Eval, facts: Facts, kb: KnowledgeBase) -> None:
    """GPUs on which pip TensorFlow is reported to fail (Blackwell): the evidence and what to expect."""
    for gpu in facts.gpus:
        arch = kb.architecture(gpu.cc) if gpu.cc else None
        if arch is not None and arch.reports:
            ev.reported = GpuReport(gpu.name, str(gpu.cc), arch.name, tuple(arch.reports))
            ev.caveats.append(reported_text(ev.reported, kb))
            return


def _cuda_driver_floor(kb: KnowledgeBase, cuda: Version, windows: bool) -> Version | None:
    row = kb.toolkit(cuda)
    if row is None:
        return None
    return row.windows if windows else row.linux


def _need_cuda_driver(ev: _Eval, facts: Facts, kb: KnowledgeBase, cuda: Version) -> None:
    floor = _cuda_driver_floor(kb, cuda, facts.windows_driver)
    if floor is not None:
        ev.need_driver(floor, PTX_JIT, cuda)


def _cc_label(cc: Version, ptx: bool = False) -> str:
    return f"{'compute' if ptx else 'sm'}_{cc.major}{cc.minor}"


def required_floor(kb: KnowledgeBase, rel: Release, method: str, platform: str) -> Version | None:
    """The minimum driver: TensorFlow's own floor for pip/conda libraries (CUDA
    minor-version compatibility), the toolkit's full requirement for system-cuda."""
    windows = platform in ("wsl2", "windows")
    if method == "cpu":
        return None
    if method == "system-cuda":
        tk = kb.toolkit(rel.cuda)
        return None if tk is None else (tk.windows if windows else tk.linux)
    floor = kb.driver_floor(rel)
    if platform == "windows":
        minor = kb.minor_floor(rel.cuda_major)
        return minor.windows if minor else None
    if floor is None:
        return None
    return floor.wsl if platform == "wsl2" else floor.linux


def _check_driver(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release, method: str) -> None:
    floor = required_floor(kb, rel, method, facts.platform)
    if floor is None:
        return
    if method == "system-cuda":
        ev.need_driver(floor, TOOLKIT, Version(_mm(rel.cuda)))
    else:
        ev.need_driver(floor, MINOR, Version(f"{rel.cuda_major}.0"))
    what = (
        t("recommend.needs_toolkit", cuda=rel.cuda)
        if method == "system-cuda"
        else t("recommend.needs_tf_cuda", tf=_series(rel), major=rel.cuda_major)
    )
    if facts.driver is None:
        _no_driver(ev, facts, kb, ev.needs_driver or floor, what)
        return
    if facts.driver >= floor:
        return
    supports = (
        t("recommend.driver_supports", driver=facts.driver_text, cuda=facts.driver_cuda)
        if facts.driver_cuda
        else t("recommend.driver_is", driver=facts.driver_text)
    )
    ev.block("driver", t("recommend.driver_too_old", supports=supports, needs=what, floor=driver_text(floor)))


def _no_driver(ev: _Eval, facts: Facts, kb: KnowledgeBase, floor: Version, what: str) -> None:
    last = _last_branch(facts, kb)
    if last is not None and last < floor.major:
        arch = _arch_name(facts, kb)
        ev.block(
            "cc", t("recommend.branch_too_old", arch=arch, branch=last, needs=what, floor=driver_text(floor))
        )
        return
    if facts.machine_fix is not None:  # installed but stopped: its fix, never an install
        ev.caveats.append(
            t("recommend.driver_state", title=facts.machine_fix.title, fix=facts.machine_fix.fix)
        )
        return
    if facts.driver_installed is not None and facts.driver_installed >= floor:
        installed = driver_text(facts.driver_installed)
        ev.caveats.append(
            t("recommend.driver_installed_linux", needs=what, floor=driver_text(floor), installed=installed)
        )
        return
    where = "unreadable" if facts.driver_reported else "windows" if facts.windows_driver else "linux"
    ev.caveats.append(t(f"recommend.driver_missing_{where}", needs=what, floor=driver_text(floor)))


def _last_branch(facts: Facts, kb: KnowledgeBase) -> int | None:
    """The newest driver branch every usable GPU here can run (None: current)."""
    branches = []
    for gpu in facts.gpus:
        arch = kb.architecture(gpu.cc) if gpu.cc else None
        if arch and arch.last_driver_branch is not None:
            branches.append(arch.last_driver_branch)
        else:
            return None
    return max(branches) if branches else None


def _arch_name(facts: Facts, kb: KnowledgeBase) -> str:
    for gpu in facts.gpus:
        arch = kb.architecture(gpu.cc) if gpu.cc else None
        if arch:
            return arch.name
    return "this"


def _pin_wheels(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release) -> None:
    """Choose the nvidia-* set pinned with == for the GPUs this release can use (wheelset)."""
    if any(kind in ("cc", "platform", "method") for kind, _ in ev.blockers):
        return
    choice = choose_set(kb, rel, ev.gpus, facts.driver_cuda)
    if choice.wset is None:
        return
    ev.wheel_set = choice.wset
    for problem in choice.blockers:
        ev.block("driver" if problem.kind == "driver" else "cc", problem.text)
    ev.caveats.extend(p.text for p in choice.caveats)
    tested = tested_set(kb, rel)
    if choice.wset.origin != "tested" and tested is not None:
        changed = [line for line in choice.wset.lines() if line not in tested.lines()]
        ev.caveats.append(
            t(
                f"recommend.wheels_{choice.wset.origin}",
                tf=_series(rel),
                cuda=choice.wset.cuda or "?",
                cudnn=choice.wset.cudnn or "?",
                pins=", ".join(changed),
                why=tested_shortfall(kb, tested, ev.gpus, facts.driver_cuda),
            )
        )
    nvcc = choice.wset.version("nvidia-cuda-nvcc")
    cuda = facts.driver_cuda
    # After a driver step the driver is whatever the student installs (the floor is a floor).
    if (
        nvcc is not None
        and cuda is not None
        and cuda.major == Version(nvcc).major
        and not facts.assumed_driver
    ):
        ptxas = Version(_mm(Version(nvcc)))
        if ptxas > cuda:
            ev.caveats.append(
                t("recommend.ptxas_newer", lowest=_mm(ptxas), cuda=cuda, driver=facts.driver_text or "?")
            )


# How the libraries are called where a student reads about them.
_FAMILY_NAMES = {
    "nvidia-cudnn": "cuDNN",
    "nvidia-cublas": "cuBLAS",
    "nvidia-cufft": "cuFFT",
    "nvidia-curand": "cuRAND",
    "nvidia-cusolver": "cuSOLVER",
    "nvidia-cusparse": "cuSPARSE",
    "nvidia-nccl": "NCCL",
    "nvidia-cuda-cupti": "CUPTI",
    "nvidia-cuda-nvrtc": "NVRTC",
    "nvidia-cuda-runtime": "the CUDA runtime",
    "nvidia-nvjitlink": "nvJitLink",
}


def tested_shortfall(
    kb: KnowledgeBase, tested: WheelSet, gpus: list[GpuTarget], driver_cuda: Version | None
) -> str:
    """What the tested wheels lack on these GPUs, exactly as the harvest read them: "ptxas 12.5
    has no sm_120 target; cuDNN 9.3 and cuBLAS 12.5 reach compute capability 12.0 only through
    compute_90 PTX" (not "they do not reach this GPU" when they do, through PTX)."""
    from wizard.choose.harvest import Arch

    parts: list[str] = []
    for gpu in gpus:
        ptx: dict[str, list[str]] = {}
        none: list[str] = []
        for name, version in tested.pins:
            family = name.rsplit("-cu", 1)[0]
            pkg = kb.harvest.package(name, version)
            if pkg is None:
                continue
            if family == "nvidia-cuda-nvcc":
                if pkg.ptxas_targets and not any(a == Arch(gpu.cc) for a in pkg.ptxas_targets):
                    target = Arch(gpu.cc).label()
                    parts.append(t("recommend.short_ptxas", version=_mm(Version(version)), target=target))
                continue
            label = f"{_FAMILY_NAMES.get(family, family)} {_mm(Version(version))}"
            worst = None
            for code in pkg.libs.values():
                if code.empty:
                    continue
                got = fit(gpu.cc, code.sass, code.ptx, driver_cuda)
                if got.kind == SASS:
                    continue
                worst = got if worst is None or (worst.runs and not got.runs) else worst
            if worst is None:
                continue
            if worst.runs:
                ptx.setdefault(worst.via, []).append(label)
            else:
                none.append(label)
        for via, labels in ptx.items():
            parts.append(t("recommend.short_ptx", libs=_and(labels), cc=gpu.cc, via=via))
        if none:
            parts.append(t("recommend.short_no_code", libs=_and(none), cc=gpu.cc))
    return "; ".join(dict.fromkeys(parts)) or "?"


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + t("recommend.short_and") + items[-1]


def _mm(v: Version | None) -> str:
    return "?" if v is None else f"{v.major}.{v.minor}"


# ---- the whole recommendation -------------------------------------------------------


def recommend(
    profile: MachineProfile,
    kb: KnowledgeBase | None = None,
    *,
    prefer_method: str | None = None,
    tf: str | None = None,
    python: str | None = None,
) -> Recommendation:
    kb = kb or load_knowledge()
    facts = read_facts(profile, kb)
    notes = list(facts.notes)
    forced_python = python_series(python) if python else None
    if python and forced_python is None:
        notes.append(t("recommend.note_python_arg", value=python))
    releases = list(kb.releases)
    wanted = kb.release(tf) if tf else None
    if tf and wanted is None:
        notes.append(t("recommend.note_tf_unknown", tf=tf, known=", ".join(r.series for r in releases)))

    built: list[tuple[Candidate, _Eval, Release]] = []
    for rel in releases:
        for method in METHOD_ORDER:
            ev = evaluate(facts, kb, rel, method, forced_python)
            ev = _with_driver_step(ev, facts, kb, rel, method, forced_python)
            cand = _candidate(rel, method, ev)
            cand.driver = _driver_need(ev, facts, rel, cand)
            if cand.driver is not None and cand.driver.step and cand.ok:
                cand.reasons.insert(0, need_reason(cand.driver))
            if cand.ok and method != "cpu" and facts.linux_driver_in_wsl:
                # After the Windows driver's step (when there is one), as the plan orders them.
                cand.linux_driver = facts.linux_driver_in_wsl
                at = 1 if cand.driver_step else 0
                cand.reasons.insert(at, linux_driver_reason(profile, facts.linux_driver_in_wsl))
            built.append((cand, ev, rel))

    risky = driver_upgrade_risky(profile, facts)
    eligible = [c for c, _, rel in built if c.ok and (wanted is None or rel is wanted)]
    ranked = sorted(eligible, key=lambda c: _rank_key(c, prefer_method, risky))
    if prefer_method and eligible and not any(c.set.method == prefer_method for c in eligible):
        notes.append(t("recommend.note_method_unavailable", method=prefer_method))
    rest = [c for c, _, _ in built if c not in ranked]
    rest.sort(key=lambda c: (not c.ok, _newest_first(c), METHOD_ORDER.index(c.set.method)))
    ordered = ranked + rest
    for i, cand in enumerate(ordered):
        cand.rank = i
    best = ranked[0] if ranked else None
    upgrade = _upgrade(best, ranked) if risky and wanted is None else None
    return Recommendation(
        recommended=best,
        candidates=ordered,
        unlock_hint=upgrade_hint(upgrade) if upgrade else _unlock_hint(facts, kb, best, built),
        notes=notes + _facts_notes(facts),
        upgrade=upgrade,
    )


def _with_driver_step(
    ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release, method: str, forced: Version | None
) -> _Eval:
    """A set blocked only by the driver is judged again on the driver it needs: when it then
    fits, it is a set with a driver step (done first), not a set that does not fit. A GPU
    whose last driver branch is older than the floor stays blocked (kind "cc")."""
    for _ in range(3):  # a newer driver can raise the floor (PTX of a newer ISA): a few rounds
        kinds = {kind for kind, _ in ev.blockers}
        if kinds != {"driver"} or ev.needs_driver is None:
            return ev
        last = _last_branch(facts, kb)
        if last is not None and last < ev.needs_driver.major:
            return ev
        floor = ev.needs_driver
        there = replace(
            facts,
            driver=floor,
            driver_text=driver_text(floor),
            driver_cuda=kb.cuda_for_driver(floor, windows=facts.windows_driver),
            assumed_driver=True,
        )
        again = evaluate(there, kb, rel, method, forced)
        if not again.blockers:
            again.driver_step = True
            return again
        if again.needs_driver is None or again.needs_driver <= floor:
            return ev  # the driver is not what stops it (or no floor is known): it stays blocked
        ev = again
    return ev


def _driver_need(ev: _Eval, facts: Facts, rel: Release, cand: Candidate) -> DriverNeed | None:
    if cand.set.method == "cpu" or ev.needs_driver is None:
        return None
    basis, basis_cuda = ev.driver_basis
    have = facts.driver_text if facts.driver is not None else None
    installed = facts.driver_installed if facts.driver is None else None
    return DriverNeed(
        floor=driver_text(ev.needs_driver),
        side="windows" if facts.windows_driver else "linux",
        tf=rel.series,
        cuda=cand.set.cuda or _mm(rel.cuda),
        basis=basis,
        basis_cuda=_mm(basis_cuda) if basis_cuda is not None else _mm(rel.cuda),
        have=have,
        have_cuda=_mm(facts.driver_cuda) if facts.driver_cuda is not None and have else None,
        met=facts.driver is not None and facts.driver >= ev.needs_driver,
        installed=driver_text(installed) if installed is not None and installed >= ev.needs_driver else None,
        fix=facts.machine_fix,
    )


def linux_driver_reason(profile: MachineProfile, files: tuple[str, ...]) -> str:
    """The plan's remove step as a set's reason: the state's words (state_view), the same the
    finding, the step and the doctor give; the older sentence only for a profile without states."""
    said = removed_by_plan_words(profile)
    if said is None:
        return t("recommend.linux_driver_first", files=", ".join(files))
    sentence = t("recommend.state_note", title=said.title, fix=said.fix)
    return t("recommend.need_reason_state", sentence=sentence)


def driver_upgrade_risky(profile: MachineProfile, facts: Facts) -> bool:
    """Native Linux with a working NVIDIA driver: replacing it is a real risk (the desktop
    runs on it, DKMS rebuilds the module, Secure Boot wants the module signed), so a set that
    runs on today's driver stays recommended. WSL2 and Windows update a Windows driver: low risk."""
    return facts.platform == "linux" and facts.driver is not None


def _upgrade(best: Candidate | None, ranked: list[Candidate]) -> Candidate | None:
    """The newest GPU set, newer than the recommendation, that needs only a driver step."""
    if best is None or best.driver_step:
        return None
    best_tf = Version(best.set.tensorflow) if best.set.method != "cpu" else Version("0")
    steps = [c for c in ranked if c.driver_step and Version(c.set.tensorflow) > best_tf]
    return min(steps, key=lambda c: (_newest_first(c), METHOD_ORDER.index(c.set.method)), default=None)


def _candidate(rel: Release, method: str, ev: _Eval) -> Candidate:
    gpu = method != "cpu"
    wheels = ev.wheel_set if method == "pip-and-cuda" else None
    # What is shown is what gets installed: for pip wheels, the pinned runtime and cuDNN.
    vs = VersionSet(
        tensorflow=str(rel.version),
        python=str(ev.python) if ev.python else "",
        cuda=(wheels.cuda if wheels and wheels.cuda else _mm(rel.cuda)) if gpu else None,
        cudnn=(wheels.cudnn if wheels and wheels.cudnn else _mm(rel.cudnn)) if gpu else None,
        method=method,
    )
    return Candidate(
        set=vs,
        ok=not ev.blockers,
        reasons=[text for _, text in ev.blockers] + ev.caveats,
        constraints=list(ev.constraints) if not ev.blockers else [],
        constraint_reasons=list(ev.constraint_reasons) if not ev.blockers else [],
        python_change=ev.python_change,
        pins=wheels.lines() if wheels else [],
        min_driver=driver_text(ev.needs_driver) if gpu and ev.needs_driver else None,
        jit_ptx=ev.jit_ptx if gpu else None,
        reported=ev.reported if gpu else None,
        xla_limit=ev.xla_limit if gpu else None,
    )


def _newest_first(c: Candidate) -> tuple[int, ...]:
    return tuple(-x for x in Version(c.set.tensorflow).release)


def _rank_key(
    c: Candidate, prefer: str | None, risky: bool = False
) -> tuple[int, int, int, tuple[int, ...], int, int, int, int]:
    cpu = c.set.method == "cpu"
    return (
        0 if prefer and c.set.method == prefer else 1,
        1 if cpu else 0,
        # Native Linux with a working driver: what runs on it first; a driver step is offered.
        1 if risky and c.driver_step else 0,
        # The newest TensorFlow, CPU sets too: a Python beside the system one is a
        # short step, an old TensorFlow is old for good (Debian 10's 3.7 gets 2.21 on 3.10).
        _newest_first(c),
        1 if c.driver_step else 0,  # the same release on today's driver, when one does
        METHOD_ORDER.index(c.set.method),
        1 if c.python_change else 0,
        len(c.reasons),
    )


def _unlock_hint(
    facts: Facts, kb: KnowledgeBase, best: Candidate | None, built: list[tuple[Candidate, _Eval, Release]]
) -> str | None:
    newest = kb.releases[0]
    best_gpu = best is not None and best.set.method != "cpu"
    best_tf = Version(best.set.tensorflow) if best else Version("0")
    if facts.platform == "wsl1":
        return t("recommend.hint_wsl1", tf=newest.series, command=wsl1_command(facts.wsl_distro))
    if facts.platform == "windows" and facts.has_gpu and (not best_gpu or best_tf < newest.version):
        return t("recommend.hint_windows", tf=newest.series, command=wsl_install_shown())
    if facts.platform == "macos":
        return t("recommend.hint_macos")
    if not facts.has_gpu:
        return t("recommend.hint_wsl2_no_gpu") if facts.platform == "wsl2" else None
    # The newest blocked GPU set whose only obstacle is the driver.
    for cand, ev, rel in built:
        if cand.ok or cand.set.method == "cpu" or (rel.version <= best_tf and best_gpu):
            continue
        kinds = {kind for kind, _ in ev.blockers}
        if kinds == {"driver"} and ev.needs_driver is not None:
            last = _last_branch(facts, kb)
            if last is not None and last < ev.needs_driver.major:
                continue
            return t(
                "recommend.hint_driver",
                floor=driver_text(ev.needs_driver),
                tf=rel.series,
                method=t(f"app.method.{cand.set.method}"),  # the words the Choose screen uses
            )
    if not best_gpu:
        for cand, ev, _rel in built:
            kinds = {kind for kind, _ in ev.blockers}
            if cand.set.method != "cpu" and "cc" in kinds:
                text = next(text for kind, text in ev.blockers if kind == "cc")
                return t("recommend.hint_gpu_too_old", why=text)
    return None


def _facts_notes(facts: Facts) -> list[str]:
    notes = []
    if facts.driver is not None:
        notes.append(
            t("recommend.note_driver", driver=facts.driver_text, cuda=facts.driver_cuda)
            if facts.driver_cuda
            else t("recommend.driver_is", driver=facts.driver_text)
        )
    for gpu in facts.gpus:
        notes.append(t("recommend.note_gpu", name=gpu.name, cc=gpu.cc if gpu.cc else "unknown"))
    return notes


# ---- helpers for the plan -------------------------------------------------------------


def pip_requirements(candidate: Candidate, kb: KnowledgeBase | None = None) -> list[str]:
    """The pip requirement strings that install the candidate's TensorFlow.

    pip-and-cuda is `tensorflow[and-cuda]==X`, except for releases whose extra
    also pulls TensorRT wheels pip can no longer resolve (2.14, 2.15): there the
    extra's nvidia-* lines are named one by one (see and_cuda.toml)."""
    version = candidate.set.tensorflow
    if candidate.set.method != "pip-and-cuda":
        return [f"tensorflow=={version}"]
    if candidate.pins:  # the one nvidia-* set chosen for this GPU and driver, every wheel ==
        return [f"tensorflow=={version}", *candidate.pins]
    kb = kb or load_knowledge()
    rel = kb.release(version)
    extra = kb.extra(rel) if rel else None
    if extra is not None and extra.explicit_why:
        return [f"tensorflow=={version}", *(str(r) for r in extra.requires)]
    return [f"tensorflow[and-cuda]=={version}"]


def conda_packages(candidate: Candidate) -> list[str]:
    """conda-forge specs for the `conda` method: Python plus the CUDA libraries.

    CUDA 11 comes as the single `cudatoolkit` package; CUDA 12 as split packages
    selected by `cuda-version` (conda-forge has no cudatoolkit 12)."""
    vs = candidate.set
    specs = [f"python={vs.python}"] if vs.python else []
    if vs.method != "conda" or vs.cuda is None:
        return specs
    cuda = Version(vs.cuda)
    if cuda.major == 11:
        return [*specs, f"cudatoolkit={vs.cuda}", f"cudnn={vs.cudnn}"]
    return [
        *specs,
        f"cuda-version={vs.cuda}",
        "cuda-cudart",
        "cuda-nvcc",
        "cuda-cupti",
        "libcublas",
        "libcufft",
        "libcurand",
        "libcusolver",
        "libcusparse",
        "nccl",
        f"cudnn={vs.cudnn}",
    ]


def required_driver(candidate: Candidate, platform: str, kb: KnowledgeBase | None = None) -> str | None:
    """The minimum NVIDIA driver version the candidate needs on this platform."""
    kb = kb or load_knowledge()
    rel = kb.release(candidate.set.tensorflow)
    if rel is None:
        return None
    floor = required_floor(kb, rel, candidate.set.method, platform)
    # The resolver's floor for this GPU (PTX the driver must compile) when it is higher.
    if candidate.min_driver and floor is not None and platform in ("linux", "wsl2", "windows"):
        try:
            floor = max(floor, Version(candidate.min_driver))
        except InvalidVersion:
            pass
    return driver_text(floor) if floor else None


# ---- the rows worth showing --------------------------------------------------------
# A table of every release x method buries the reasons; the CLI and the app show the
# recommendation, the best other fitting set of each method, and the newest blocked
# set of each method, so a student sees why nothing newer was chosen.
USEFUL_ROWS = 14


def useful_candidates(rec: Recommendation, show_all: bool = False) -> list[Candidate]:
    """The rows worth a student's attention: the recommendation; the best other
    fitting set of each method; and, per method, the newest set that does not
    fit but is at least as new as the recommendation, so its reason shows why
    nothing newer was chosen."""
    if show_all:
        return list(rec.candidates)
    best = rec.recommended
    rows: list[Candidate] = [best] if best else []
    if rec.upgrade is not None:  # the newer set one driver step away, right under the recommendation
        rows.append(rec.upgrade)
    if best is not None and best.driver_step:  # and what runs on today's driver, without the step
        today = [c for c in rec.candidates if c.ok and not c.driver_step and c.set.method != "cpu"]
        if today:
            rows.append(today[0])
    for method in METHODS:
        fitting = [c for c in rec.candidates if c.ok and c.set.method == method and c is not best]
        if fitting and fitting[0] not in rows:
            rows.append(fitting[0])
    for method in METHODS:
        blocked = [
            c
            for c in rec.candidates
            if not c.ok and c.set.method == method and (best is None or _newer_or_same(c, best))
        ]
        if blocked:
            rows.append(max(blocked, key=lambda c: Version(c.set.tensorflow)))
    return rows[:USEFUL_ROWS]


def _newer_or_same(a: Candidate, b: Candidate) -> bool:
    return Version(a.set.tensorflow) >= Version(b.set.tensorflow)
