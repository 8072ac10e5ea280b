"""The nvidia-* wheels a pip-and-cuda install pins with ==, chosen for this GPU and driver.

A release's `and-cuda` extra either pins every nvidia-* wheel (2.14-2.19) or
gives ranges up to the next major (2.20, 2.21), which pip floats to the newest
wheels. The wizard never floats: it installs one set, pinned with ==, so what
Choose and Plan show is what pip installs.

- `tested`: the pins TensorFlow tested. A range is served by the newest
  release's exact pin that fits in it (the 2.18/2.19 pins serve 2.20 and 2.21);
  failing that, by pip's own resolution recorded in the harvest.
- A library whose architectures do not reach this GPU (cuDNN 9.28 has machine
  code for 7.5+ only; NCCL 2.32 from 6.0) is replaced by the newest harvested
  version inside the release's range that does reach it; ptxas likewise for its
  sm_ targets. Every library TensorFlow loads counts: cuDNN, cuBLAS, cuFFT,
  cuRAND, cuSOLVER, cuSPARSE, NCCL, CUPTI (the harvest reads them all).
- `resolved`: pip's unpinned resolution (the harvest's), used only when the
  tested set does not fit and it does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

from wizard.choose.gpucode import PTX_DRIVER_TOO_OLD, SASS, fit
from wizard.choose.harvest import Arch, NvidiaHarvest, canonical
from wizard.choose.knowledge import AndCudaExtra, KnowledgeBase, Release
from wizard.text import language, t

TESTED, BOUNDED, RESOLVED = "tested", "bounded", "resolved"


@dataclass(frozen=True)
class WheelSet:
    origin: str  # TESTED | BOUNDED | RESOLVED
    source_series: str  # the release whose pins (or pip resolution) the set starts from
    pins: tuple[tuple[str, str], ...]  # (canonical name, version), sorted by name

    def version(self, family: str) -> str | None:
        """The version of e.g. 'nvidia-cudnn' (any -cuXX suffix)."""
        for name, version in self.pins:
            if name.rsplit("-cu", 1)[0] == family:
                return version
        return None

    @property
    def cuda(self) -> str | None:
        return _mm(self.version("nvidia-cuda-runtime"))

    @property
    def cudnn(self) -> str | None:
        return _mm(self.version("nvidia-cudnn"))

    def lines(self) -> list[str]:
        return [f"{name}=={version}" for name, version in self.pins]

    def with_pin(self, name: str, version: str) -> WheelSet:
        pins = tuple(sorted((n, version if n == name else v) for n, v in self.pins))
        return replace(self, origin=BOUNDED, pins=pins)


@dataclass(frozen=True)
class GpuTarget:
    name: str
    cc: Version


@dataclass(frozen=True)
class Problem:
    name: str  # the package
    kind: str  # "code" (no code for the GPU), "driver" (PTX needs a newer driver), "ptxas"
    text: str


def _mm(version: str | None) -> str | None:
    if not version:
        return None
    try:
        v = Version(version)
    except InvalidVersion:
        return None
    return f"{v.major}.{v.minor}"


def _exact(req: Requirement) -> str | None:
    pins = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    return pins[0] if len(pins) == 1 else None


def _lowest(req: Requirement) -> str | None:
    lows = [s.version for s in req.specifier if s.operator in (">=", "~=")]
    return min(lows, key=Version) if lows else None


def nvidia_requirements(extra: AndCudaExtra) -> list[Requirement]:
    return [r for r in extra.requires if canonical(r.name).startswith("nvidia-")]


def tested_set(kb: KnowledgeBase, rel: Release) -> WheelSet | None:
    memo: dict[Any, tuple[KnowledgeBase, WheelSet | None]] = vars(kb.harvest).setdefault("_tested", {})
    key = (id(kb), rel.version)
    if key not in memo or memo[key][0] is not kb:
        memo[key] = (kb, _tested_set(kb, rel))
    return memo[key][1]


def _tested_set(kb: KnowledgeBase, rel: Release) -> WheelSet | None:
    extra = kb.extra(rel)
    if extra is None:
        return None
    harvested = kb.harvest.release(rel.version)
    donors = sorted(
        (e for e in kb.extras if Version(e.series) <= Version(rel.series)),
        key=lambda e: Version(e.series),
        reverse=True,
    )
    pins = []
    source = rel.series
    for req in nvidia_requirements(extra):
        name = canonical(req.name)
        version = _exact(req)
        if version is None:
            for donor in donors:
                got = donor.requirement(req.name)
                pinned = _exact(got) if got is not None else None
                if pinned is not None and req.specifier.contains(pinned, prereleases=True):
                    version, source = pinned, donor.series
                    break
        if version is None and harvested is not None and name in harvested.resolved:
            version = harvested.resolved[name].version
        if version is None:
            version = _lowest(req)
        if version is None:
            return None
        pins.append((name, version))
    return WheelSet(TESTED, source, tuple(sorted(pins)))


def resolved_set(kb: KnowledgeBase, rel: Release) -> WheelSet | None:
    """pip's own resolution of tensorflow[and-cuda]==X as the harvest recorded it."""
    extra = kb.extra(rel)
    harvested = kb.harvest.release(rel.version)
    if extra is None or harvested is None:
        return None
    pins = []
    for req in nvidia_requirements(extra):
        got = harvested.resolved.get(canonical(req.name))
        if got is None:
            return None
        pins.append((canonical(req.name), got.version))
    return WheelSet(RESOLVED, rel.series, tuple(sorted(pins)))


# ---- does a set reach this GPU? ----------------------------------------------------------


# The libraries TensorFlow loads from the nvidia-* wheels; others in them (cuFFTW's FFTW API,
# cuSOLVERMg, CUPTI's checkpoint and nvperf helpers) are never loaded, so their code is no bound.
LOADED = re.compile(
    r"^lib(cudart|cublas|cublasLt|cudnn\w*|cufft|curand|cusolver|cusparse|nccl|cupti|nvrtc|nvJitLink)\.so"
)

HARD = ("code", "driver")  # the library cannot run here
# It runs, but only through PTX the driver compiles / XLA is slowed / only the profiler lacks it.
SOFT = ("ptx", "ptxas", "profiler")
# Loaded only by the profiler (tf.profiler, TensorBoard's Profile tab), never by training: a GPU it
# has no code for still trains, so it never refuses a set (issue 33: TF 2.14/2.15 on an RTX 50).
PROFILER_ONLY = ("nvidia-cuda-cupti",)


def problems(
    kb: KnowledgeBase, wset: WheelSet, gpus: Sequence[GpuTarget], driver_cuda: Version | None
) -> list[Problem]:
    """The worst problem of each pinned package on these GPUs (hard before soft)."""
    out: list[Problem] = []
    for name, version in wset.pins:
        problem = package_problem(kb, name, version, gpus, driver_cuda)
        if problem is not None:
            out.append(problem)
    return out


def package_problem(
    kb: KnowledgeBase, name: str, version: str, gpus: Sequence[GpuTarget], driver_cuda: Version | None
) -> Problem | None:
    # The same package, GPUs and driver come back for every release and method the resolver
    # weighs: remembered on the harvest they were read from (it lives as long as the answers hold).
    memo: dict[Any, tuple[KnowledgeBase, Problem | None]] = vars(kb.harvest).setdefault("_problems", {})
    key = (id(kb), name, version, tuple(gpus), driver_cuda, language())
    if key in memo and memo[key][0] is kb:
        return memo[key][1]
    pkg = kb.harvest.package(name, version)
    found = [p for g in gpus if (p := _package_problem(kb, pkg, name, version, g, driver_cuda))]
    hard = [p for p in found if p.kind in HARD]
    worst = hard or found
    memo[key] = (kb, worst[0] if worst else None)
    return memo[key][1]


def _package_problem(
    kb: KnowledgeBase,
    pkg: NvidiaHarvest | None,
    name: str,
    version: str,
    gpu: GpuTarget,
    driver_cuda: Version | None,
) -> Problem | None:
    if name.startswith("nvidia-cuda-nvcc"):
        return _ptxas_problem(kb, pkg, name, version, gpu)
    if pkg is None:
        return None  # not harvested: nothing known against it
    soft: Problem | None = None
    for lib, code in sorted(pkg.libs.items()):
        if code.empty or not LOADED.match(lib):
            continue
        got = fit(gpu.cc, code.sass, code.ptx, driver_cuda)
        fields = {"package": name, "version": version, "lib": lib, "name": gpu.name, "cc": gpu.cc}
        if got.kind == SASS:
            continue
        if got.runs:
            soft = soft or Problem(
                name, "ptx", t("recommend.lib_ptx_only", via=got.via, isa=got.isa, **fields)
            )
            continue
        if got.kind == PTX_DRIVER_TOO_OLD and not name.startswith(PROFILER_ONLY):
            text = t(
                "recommend.lib_ptx_driver",
                via=got.via,
                isa=got.isa,
                cuda=got.needs_cuda,
                driver_cuda=driver_cuda,
                **fields,
            )
            return Problem(name, "driver", text)
        if name.startswith(PROFILER_ONLY):
            return Problem(name, "profiler", t("gpuroute.lib_profiler_only", **fields))
        return Problem(name, "code", t("recommend.lib_no_code", sass=code.sass_label(), **fields))
    return soft


def _ptxas_problem(
    kb: KnowledgeBase, pkg: NvidiaHarvest | None, name: str, version: str, gpu: GpuTarget
) -> Problem | None:
    """XLA builds its kernels with this ptxas: it must know the GPU's sm_ target."""
    if pkg is not None and pkg.ptxas_targets:
        if any(a == Arch(gpu.cc) for a in pkg.ptxas_targets):
            return None
        newest = max(pkg.ptxas_targets).label()
        text = t("recommend.ptxas_no_target", version=version, name=gpu.name, cc=gpu.cc, newest=newest)
        return Problem(name, "ptxas", text)
    arch = kb.architecture(gpu.cc)
    have = _mm(version)
    if arch is None or arch.ptxas_cuda is None or have is None or Version(have) >= arch.ptxas_cuda:
        return None
    text = t("recommend.ptxas_too_old", version=version, name=gpu.name, cc=gpu.cc, need=arch.ptxas_cuda)
    return Problem(name, "ptxas", text)


def _bound(
    kb: KnowledgeBase,
    rel: Release,
    wset: WheelSet,
    found: list[Problem],
    gpus: Sequence[GpuTarget],
    driver_cuda: Version | None,
) -> tuple[WheelSet, list[Problem]]:
    """The set with each failing package moved, inside the release's range, to the newest
    harvested version that reaches every GPU here with machine code (else, for a package
    that cannot run at all, with PTX); and the problems no version fixes."""
    extra = kb.extra(rel)
    bounded, left = wset, []
    for problem in found:
        req = None
        if extra is not None:
            req = next((r for r in extra.requires if canonical(r.name) == problem.name), None)
        clean, soft = None, None
        for version in kb.harvest.versions_of(problem.name) if req is not None else []:  # newest first
            if req is None or not req.specifier.contains(version, prereleases=True):
                continue
            if kb.harvest.package(problem.name, version) is None and not problem.name.startswith(
                "nvidia-cuda-nvcc"
            ):
                continue  # only versions whose code the harvest read
            got = package_problem(kb, problem.name, version, gpus, driver_cuda)
            if got is None:
                clean = version
                break
            if got.kind in SOFT and soft is None:
                soft = (version, got)
        if clean is not None:
            bounded = bounded.with_pin(problem.name, clean)
        elif problem.kind in HARD and soft is not None:
            bounded = bounded.with_pin(problem.name, soft[0])
            left.append(soft[1])
        else:
            left.append(problem)
    return bounded, left


@dataclass(frozen=True)
class Choice:
    wset: WheelSet | None
    blockers: list[Problem]  # problems that stop the set (no code, PTX for a newer driver)
    caveats: list[Problem]  # problems that slow it (ptxas cannot target the GPU)


def choose_set(
    kb: KnowledgeBase, rel: Release, gpus: Sequence[GpuTarget], driver_cuda: Version | None
) -> Choice:
    """The set to pin for this release on these GPUs: the tested one when every library
    reaches the GPUs with machine code; else pip's resolution when the harvest shows it
    does; else the tested one with each failing library moved within the range."""
    tested = tested_set(kb, rel)
    if tested is None:
        return Choice(None, [], [])
    found = problems(kb, tested, gpus, driver_cuda)
    if not found:
        return Choice(tested, [], [])
    resolved = resolved_set(kb, rel)
    if (
        resolved is not None
        and resolved.pins != tested.pins
        and not problems(kb, resolved, gpus, driver_cuda)
    ):
        return Choice(resolved, [], [])
    bounded, left = _bound(kb, rel, tested, found, gpus, driver_cuda)
    return Choice(bounded, [p for p in left if p.kind in HARD], [p for p in left if p.kind in SOFT])
