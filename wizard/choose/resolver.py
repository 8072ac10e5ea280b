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
        the exact pip requirement strings, e.g. ['tensorflow[and-cuda]==2.21.0'];
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
from dataclasses import dataclass, field

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from wizard.choose.choice import METHODS, Candidate, Recommendation, VersionSet
from wizard.choose.knowledge import KnowledgeBase, Release, driver_text, load_knowledge
from wizard.profile import MachineProfile
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
        if driver_cuda is None and driver is not None:
            driver_cuda = kb.cuda_for_driver(driver, windows=windows)
    gpus = tuple(sorted(_gpu_facts(profile, kb), key=_gpu_sort_key))
    has_gpu = bool(gpus) or _positive(profile.nvidia_pci_devices)
    reported = profile.driver is not None and driver is None and driver_text not in ("", "unknown", "None")
    return Facts(
        platform, arch, python, driver, driver_text, driver_cuda, gpus, has_gpu, tuple(notes), reported
    )


def normalize_driver(value: object) -> Version | None:
    """'470.256.02' -> Version; Windows' '32.0.15.6636' -> 566.36; junk -> None."""
    text = str(value).strip()
    m = re.fullmatch(r"\d{2}\.\d+\.(\d+)\.(\d+)", text)
    if m:  # Windows driver store form: the last five digits are the NVIDIA version
        digits = (m.group(1) + m.group(2).zfill(4))[-5:]
        text = f"{digits[:3]}.{digits[3:]}"
    if not re.fullmatch(r"\d{2,4}(\.\d{1,4}){0,3}", text):
        return None
    try:
        v = Version(text)
    except InvalidVersion:
        return None
    return v if v.major >= 100 else None


def python_series(value: object) -> Version | None:
    """ "3.11.7" -> 3.11; None for anything that is not a Python 3 version."""
    m = re.match(r"^\s*(\d+)\.(\d+)", str(value))
    if not m:
        return None
    v = Version(f"{m.group(1)}.{m.group(2)}")
    return v if v.major == 3 else None


def _cuda_version(value: object) -> Version | None:
    m = re.fullmatch(r"\s*(\d{1,2})\.(\d{1,2})(\.\d+)?\s*", str(value))
    return Version(f"{m.group(1)}.{m.group(2)}") if m else None


def _cc(value: object) -> Version | None:
    m = re.fullmatch(r"\s*(\d{1,2})\.(\d)\s*", str(value))
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
    if not out and _positive(profile.nvidia_pci_devices):
        # The driver is not answering, but the probe saw the card on the PCI bus
        # and wrote its name into a note: use it to know the architecture.
        for note in profile.notes or []:
            m = re.search(r"PCI: NVIDIA device \S+ \(([^)]+)\)", str(note))
            if m:
                row = kb.gpu(m.group(1))
                out.append(GpuFact(_short_name(m.group(1)), row.compute_capability if row else None))
    return out


def _short_name(name: str) -> str:
    return " ".join(name.replace("NVIDIA ", "").split()) or "NVIDIA GPU"


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

    def block(self, kind: str, text: str) -> None:
        self.blockers.append((kind, text))


def _series(rel: Release) -> str:
    return rel.series


def evaluate(
    facts: Facts, kb: KnowledgeBase, rel: Release, method: str, forced_python: Version | None
) -> _Eval:
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
        # The nearest supported Python is the smallest change (ties: the newer one).
        ev.python = min(supported, key=lambda p: (abs(p.minor - current.minor), -p.minor))
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
    _check_driver(ev, facts, kb, rel, method)
    if method == "pip-and-cuda":
        _driver_aware_pins(ev, facts, kb, rel)


def _check_compute_capability(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release) -> None:
    build = kb.build(rel)
    if build is None:
        return
    if not facts.gpus:
        ev.caveats.append(t("recommend.cc_unknown", name="the NVIDIA GPU"))
        return
    usable = []
    for gpu in facts.gpus:
        if gpu.cc is None:
            ev.caveats.append(t("recommend.cc_unknown", name=gpu.name))
            usable.append(gpu)
            continue
        kind = _cc_support(gpu.cc, build.sass, build.ptx)
        if kind == "sass":
            usable.append(gpu)
        elif kind == "ptx":
            usable.append(gpu)
            ev.caveats.append(
                t(
                    "recommend.cc_ptx_jit",
                    name=gpu.name,
                    cc=gpu.cc,
                    tf=_series(rel),
                    sass=_cc_label(max(build.sass)),
                    ptx=_cc_label(max(p for p in build.ptx if p <= gpu.cc), ptx=True),
                )
            )
    unusable = [g for g in facts.gpus if g not in usable]
    if not usable:
        gpu = unusable[0]
        ev.block(
            "cc", t("recommend.cc_too_old", name=gpu.name, cc=gpu.cc, tf=_series(rel), minimum=build.minimum)
        )
    elif unusable:
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


def _cc_support(cc: Version, sass: tuple[Version, ...], ptx: tuple[Version, ...]) -> str:
    """'sass' when machine code runs as is (same major, not newer minor), 'ptx'
    when the driver can JIT-compile portable code for it, else 'none'."""
    if any(s.major == cc.major and s.minor <= cc.minor for s in sass):
        return "sass"
    if any(p <= cc for p in ptx):
        return "ptx"
    return "none"


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
    ev.needs_driver = floor
    what = (
        t("recommend.needs_toolkit", cuda=rel.cuda)
        if method == "system-cuda"
        else t("recommend.needs_tf_cuda", tf=_series(rel), major=rel.cuda_major)
    )
    if facts.driver is None:
        _no_driver(ev, facts, kb, floor, what)
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


def _driver_aware_pins(ev: _Eval, facts: Facts, kb: KnowledgeBase, rel: Release) -> None:
    """Keep pip's ptxas (nvidia-cuda-nvcc-cuXX) no newer than the driver's CUDA.

    XLA compiles kernels with that ptxas; when it is newer than the driver, TF
    warns and disables parallel compilation (and, for PTX the driver must JIT,
    the driver refuses code from a newer toolchain). Under minor-version
    compatibility the other nvidia-* libraries run on any driver of the major."""
    extra = kb.extra(rel)
    nvcc = extra.nvcc if extra else None
    cuda = facts.driver_cuda
    if extra is None or nvcc is None or cuda is None or cuda.major > extra.cuda_major:
        return
    if cuda.major < extra.cuda_major:
        return  # the driver check already blocked it
    cap = Version(f"{cuda.major}.{cuda.minor + 1}")
    lowest = _lowest(nvcc)
    need = _ptxas_needed(facts, kb)
    pins = []
    if lowest is not None and lowest >= cap:
        # Even the oldest ptxas the extra allows is newer than the driver: keep it
        # at that oldest one (closest to the driver) and say what it costs.
        ev.caveats.append(
            t("recommend.ptxas_newer", lowest=_mm(lowest), cuda=cuda, driver=facts.driver_text or "?")
        )
        closest = Version(f"{lowest.major}.{lowest.minor + 1}")
        if _allows(nvcc.specifier, closest):
            pins.append(f"<{closest}")
            ev.constraint_reasons.append(
                t("recommend.pin_nvcc_closest_reason", name=nvcc.name, cap=closest, cuda=cuda)
            )
    elif _allows(nvcc.specifier, cap):
        pins.append(f"<{cap}")
        ev.constraint_reasons.append(t("recommend.pin_nvcc_reason", name=nvcc.name, cap=cap, cuda=cuda))
    if need is not None and (lowest is None or lowest < need):
        if need >= cap:
            ev.block("driver", t("recommend.ptxas_gpu_driver", cuda=cuda, need=need))
            return
        if _allows(nvcc.specifier, need):
            pins.insert(0, f">={need}")
            ev.constraint_reasons.append(t("recommend.pin_nvcc_gpu_reason", name=nvcc.name, need=need))
        else:
            ev.caveats.append(
                t("recommend.ptxas_too_old_for_gpu", tf=_series(rel), lowest=_mm(lowest), need=need)
            )
    if pins:
        # One constraint line per package, so its reasons are joined into one.
        ev.constraints.append(f"{nvcc.name}{','.join(pins)}")
        ev.constraint_reasons[:] = ["; ".join(ev.constraint_reasons)]


def _lowest(req: Requirement) -> Version | None:
    versions = [Version(s.version) for s in req.specifier if s.operator in ("==", ">=", "~=", "===")]
    return min(versions) if versions else None


def _allows(spec: SpecifierSet, version: Version) -> bool:
    """Does `spec` admit some version >= `version`? Checked on a grid of CUDA-like
    versions plus the specifier's own bounds, so == pins and ranges both work."""
    grid = [
        Version(f"{major}.{minor}.{micro}")
        for major in (11, 12, 13)
        for minor in range(21)
        for micro in (0, 999)
    ]
    grid += [Version(s.version) for s in spec if "*" not in s.version]
    return any(v >= version and spec.contains(v, prereleases=True) for v in grid)


def _mm(v: Version | None) -> str:
    return "?" if v is None else f"{v.major}.{v.minor}"


def _ptxas_needed(facts: Facts, kb: KnowledgeBase) -> Version | None:
    """The oldest ptxas that can build code for every GPU here (Blackwell: 12.8)."""
    needs = []
    for gpu in facts.gpus:
        arch = kb.architecture(gpu.cc) if gpu.cc else None
        if arch and arch.ptxas_cuda is not None:
            needs.append(arch.ptxas_cuda)
    return max(needs) if needs else None


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
            built.append((_candidate(rel, method, ev), ev, rel))

    eligible = [c for c, _, rel in built if c.ok and (wanted is None or rel is wanted)]
    ranked = sorted(eligible, key=lambda c: _rank_key(c, prefer_method))
    if prefer_method and eligible and not any(c.set.method == prefer_method for c in eligible):
        notes.append(t("recommend.note_method_unavailable", method=prefer_method))
    rest = [c for c, _, _ in built if c not in ranked]
    rest.sort(key=lambda c: (not c.ok, _newest_first(c), METHOD_ORDER.index(c.set.method)))
    ordered = ranked + rest
    for i, cand in enumerate(ordered):
        cand.rank = i
    best = ranked[0] if ranked else None
    return Recommendation(
        recommended=best,
        candidates=ordered,
        unlock_hint=_unlock_hint(facts, kb, best, built),
        notes=notes + _facts_notes(facts),
    )


def _candidate(rel: Release, method: str, ev: _Eval) -> Candidate:
    gpu = method != "cpu"
    vs = VersionSet(
        tensorflow=str(rel.version),
        python=str(ev.python) if ev.python else "",
        cuda=_mm(rel.cuda) if gpu else None,
        cudnn=_mm(rel.cudnn) if gpu else None,
        method=method,
    )
    return Candidate(
        set=vs,
        ok=not ev.blockers,
        reasons=[text for _, text in ev.blockers] + ev.caveats,
        constraints=list(ev.constraints) if not ev.blockers else [],
        constraint_reasons=list(ev.constraint_reasons) if not ev.blockers else [],
        python_change=ev.python_change,
    )


def _newest_first(c: Candidate) -> tuple[int, ...]:
    return tuple(-x for x in Version(c.set.tensorflow).release)


def _rank_key(c: Candidate, prefer: str | None) -> tuple[int, int, int, tuple[int, ...], int, int, int]:
    cpu = c.set.method == "cpu"
    return (
        0 if prefer and c.set.method == prefer else 1,
        1 if cpu else 0,
        # CPU sets: the newest TensorFlow *for this Python* (a CPU build gains
        # little from a newer release, a second Python costs every student time).
        1 if cpu and c.python_change else 0,
        _newest_first(c),
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
        return t("recommend.hint_wsl1", tf=newest.series)
    if facts.platform == "windows" and facts.has_gpu and (not best_gpu or best_tf < newest.version):
        return t("recommend.hint_windows", tf=newest.series)
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
                method=cand.set.method,
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
    for method in METHODS:
        fitting = [c for c in rec.candidates if c.ok and c.set.method == method and c is not best]
        if fitting:
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
