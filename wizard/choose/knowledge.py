"""The compatibility tables in assets/knowledge/*.toml, as typed, frozen rows.

One TOML file per table; every row names its `source` (a URL or a file) and a
`confidence`: "verified" (read in the primary source), "secondary" (the primary
source as quoted elsewhere) or "unverified" (best-known value; `source` says
where to check). `load_knowledge()` parses and caches them; `validate()` lists
what is wrong with a table (the table tests call it), so a bad edit fails a
test instead of misleading a student.

Versions are `packaging.version.Version` and ranges `SpecifierSet` from the
moment they are read: nothing downstream compares version strings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import pairwise
from typing import Any, TypeVar

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from wizard.assets import asset_text
from wizard.choose.choice import FailureReport
from wizard.choose.harvest import Arch, Harvest, Ptx, TfHarvest, canonical, load_harvest
from wizard.tomlcompat import tomllib

CONFIDENCE = ("verified", "secondary", "unverified")
TABLES = ("tensorflow", "and_cuda", "compute", "cuda", "platforms", "gpus", "architectures", "myths")
# Every Python a TensorFlow 2.10+ release could name; used to print ranges ("3.10-3.13").
KNOWN_PYTHONS = tuple(Version(f"3.{minor}") for minor in range(7, 15))


class KnowledgeError(ValueError):
    """A table that cannot be read; the message names the file and the row."""


# ---- rows ---------------------------------------------------------------------


@dataclass(frozen=True)
class Sourced:
    source: str
    confidence: str
    note: str | None


@dataclass(frozen=True)
class Release(Sourced):
    version: Version  # the newest patch of the line: what gets installed
    tested: Version  # the row in TensorFlow's tested-build table
    python: SpecifierSet
    cuda: Version
    cudnn: Version
    glibc: Version  # the Linux x86_64 wheels' manylinux tag: the oldest glibc they load on

    generated: bool = False  # True: every field read from the wheel (harvest.json), no hand row

    @property
    def series(self) -> str:
        return f"{self.version.major}.{self.version.minor}"

    @property
    def preview(self) -> bool:
        """A pre-release (2.22.0rc0): shown only when asked for (--pre), never recommended by default."""
        return self.version.is_prerelease

    @property
    def cuda_major(self) -> int:
        return self.cuda.major

    def pythons(self) -> list[Version]:
        return [p for p in KNOWN_PYTHONS if p in self.python]

    def nearest_python(self, current: Version) -> Version | None:
        """The supported Python nearest `current`: the smallest change (ties: the newer one)."""
        supported = self.pythons()
        if not supported:
            return None
        return min(supported, key=lambda p: (abs(p.minor - current.minor), -p.minor))

    def python_range(self) -> str:
        """ "3.9-3.11": how the tested-build table writes it."""
        supported = self.pythons()
        if not supported:
            return str(self.python)
        lo, hi = supported[0], supported[-1]
        return str(lo) if lo == hi else f"{lo}-{hi}"


@dataclass(frozen=True)
class DriverFloor(Sourced):
    tensorflow: SpecifierSet
    cuda_major: int
    linux: Version
    wsl: Version


@dataclass(frozen=True)
class AndCudaExtra(Sourced):
    series: str  # "2.21"
    cuda_major: int
    requires: tuple[Requirement, ...]
    explicit_why: str | None = None  # set: install `requires` by name instead of the extra

    def requirement(self, name: str) -> Requirement | None:
        for req in self.requires:
            if req.name == name:
                return req
        return None

    @property
    def nvcc(self) -> Requirement | None:
        """The nvidia-cuda-nvcc-cuXX line: it brings the ptxas XLA compiles with."""
        return self.requirement(f"nvidia-cuda-nvcc-cu{self.cuda_major}")


@dataclass(frozen=True)
class ComputeBuild(Sourced):
    tensorflow: SpecifierSet
    sass: tuple[Version, ...]
    ptx: tuple[Ptx, ...]  # PTX per arch with its ISA; arch-specific (9.0a) entries too

    @property
    def minimum(self) -> Version:
        return min((*self.sass, *(p.arch.cc for p in self.ptx if not p.arch.specific)))

    @property
    def sass_archs(self) -> tuple[Arch, ...]:
        return tuple(Arch(v) for v in self.sass)

    def label(self) -> str:
        """The list as build_info's cuda_compute_capabilities writes it: sm_60,...,compute_90."""
        parts = [f"sm_{v.major}{v.minor}" for v in self.sass]
        for arch in sorted({p.arch for p in self.ptx if not p.arch.specific}):
            parts.append(arch.label(ptx=True))
        return ",".join(parts)


@dataclass(frozen=True)
class Toolkit(Sourced):
    cuda: Version
    linux: Version
    windows: Version
    # The newest PTX ISA this CUDA writes (NVIDIA's PTX ISA release history): what XLA in a
    # TensorFlow built with this CUDA emits (12.5 -> 8.5); None where the table does not say.
    ptx_isa: Version | None = None


@dataclass(frozen=True)
class MinorCompat(Sourced):
    cuda_major: int
    linux: Version
    windows: Version


@dataclass(frozen=True)
class Wheel(Sourced):
    platform: str
    arch: tuple[str, ...]
    tensorflow: SpecifierSet
    gpu: bool


@dataclass(frozen=True)
class Gpu(Sourced):
    name: str
    compute_capability: Version
    fp32_tflops: float | None
    fp16_tensor_tflops: float | None
    peak_source: str | None


@dataclass(frozen=True)
class Architecture(Sourced):
    name: str
    cc_min: Version
    cc_max: Version
    last_driver_branch: int | None
    ptxas_cuda: Version | None
    reports: tuple[FailureReport, ...] = ()  # issues reporting pip TensorFlow failing on these GPUs
    # (compute capability, the lowest PTX ISA LLVM accepts for its target): sm_120 needs 8.7
    ptx_isa_min: tuple[tuple[Version, Version], ...] = ()

    def covers(self, cc: Version) -> bool:
        return self.cc_min <= cc <= self.cc_max

    def ptx_floor(self, cc: Version) -> Version | None:
        """The PTX ISA a compiler must write for this GPU's target; None where no row says."""
        return next((isa for c, isa in self.ptx_isa_min if c == cc), None)


@dataclass(frozen=True)
class NvccFloor(Sourced):
    """From this CUDA on, nvcc builds no code below `lowest`: a build made with it has no machine
    code or PTX a GPU of a lower compute capability can run."""

    cuda: Version
    lowest: Version


@dataclass(frozen=True)
class Myth(Sourced):
    id: str
    claim: str
    truth: str
    seen_in: tuple[str, ...]
    quote: str | None


@dataclass(frozen=True)
class KnowledgeBase:
    releases: tuple[Release, ...]  # newest first; final releases only (previews: with_previews())
    driver_floors: tuple[DriverFloor, ...]
    extras: tuple[AndCudaExtra, ...]
    builds: tuple[ComputeBuild, ...]
    toolkits: tuple[Toolkit, ...]  # newest CUDA first
    minor_compat: tuple[MinorCompat, ...]
    wheels: tuple[Wheel, ...]
    gpus: tuple[Gpu, ...]
    architectures: tuple[Architecture, ...]
    myths: tuple[Myth, ...]
    harvest: Harvest = field(default_factory=lambda: Harvest(date=None), compare=False, repr=False)
    _gpu_index: dict[str, Gpu] = field(default_factory=dict, compare=False, repr=False)
    previews: tuple[Release, ...] = ()  # pre-releases the harvest read (2.22.0rc0), newest first
    nvcc_floors: tuple[NvccFloor, ...] = ()  # newest CUDA first

    def with_previews(self) -> KnowledgeBase:
        """The same knowledge with the pre-releases among the releases (`--pre`)."""
        if not self.previews:
            return self
        both = sorted((*self.releases, *self.previews), key=lambda r: r.version, reverse=True)
        return replace(self, releases=tuple(both), previews=())

    # ---- look-ups the resolver uses ----------------------------------------
    def release(self, version: str | Version) -> Release | None:
        """A release by full version ("2.21.0") or series ("2.21")."""
        try:
            wanted = Version(str(version))
        except InvalidVersion:
            return None
        for rel in self.releases:
            if wanted in (rel.version, rel.tested) or (
                len(wanted.release) == 2 and (rel.version.major, rel.version.minor) == wanted.release
            ):
                return rel
        return None

    def extra(self, release: Release) -> AndCudaExtra | None:
        return next((e for e in self.extras if e.series == release.series), None)

    def build(self, release: Release) -> ComputeBuild | None:
        return next((b for b in self.builds if _covers(b.tensorflow, release.version)), None)

    def driver_floor(self, release: Release) -> DriverFloor | None:
        return next((f for f in self.driver_floors if _covers(f.tensorflow, release.version)), None)

    def minor_floor(self, cuda_major: int) -> MinorCompat | None:
        return next((m for m in self.minor_compat if m.cuda_major == cuda_major), None)

    def nvcc_floor(self, cuda: Version) -> NvccFloor | None:
        """The row that gives the lowest compute capability a build made with this CUDA can serve;
        None where no row reaches back to it."""
        return next((f for f in self.nvcc_floors if f.cuda <= cuda), None)

    def nvcc_lowest(self, cuda: Version) -> Version | None:
        floor = self.nvcc_floor(cuda)
        return floor.lowest if floor is not None else None

    def toolkit(self, cuda: Version) -> Toolkit | None:
        """The toolkit row for a CUDA major.minor (12.5.1 -> 12.5)."""
        key = Version(f"{cuda.major}.{cuda.minor}")
        return next((t for t in self.toolkits if t.cuda == key), None)

    def cuda_for_driver(self, driver: Version, *, windows: bool) -> Version | None:
        """The newest CUDA this driver supports (what nvidia-smi prints), from Table 3."""
        for row in self.toolkits:  # newest first
            if driver >= (row.windows if windows else row.linux):
                return row.cuda
        return None

    def wheel(self, platform: str, arch: str, release: Release) -> Wheel | None:
        for row in self.wheels:
            if row.platform == platform and arch in row.arch and _covers(row.tensorflow, release.version):
                return row
        return None

    def gpu(self, name: str) -> Gpu | None:
        """A GPU by the name NVML or lspci gives, forgiving prefixes and case."""
        return self._gpu_index.get(gpu_key(name))

    def architecture(self, cc: Version) -> Architecture | None:
        return next((a for a in self.architectures if a.covers(cc)), None)


def _covers(spec: SpecifierSet, version: Version) -> bool:
    """A range of releases holds a preview of a release in it too (">=2.21" holds 2.22.0rc0)."""
    return spec.contains(version, prereleases=True)


def driver_text(version: Version) -> str:
    """A driver version the way NVIDIA writes it: 555.42.02, not packaging's 555.42.2."""
    first, *rest = (str(part) for part in version.release)
    return ".".join([first, *(part.zfill(2) for part in rest)])


def gpu_key(name: str) -> str:
    """'NVIDIA GeForce RTX 4090' and 'GeForce RTX 4090' are one GPU."""
    key = " ".join(name.replace("NVIDIA", " ").split()).lower()
    return key


# ---- loading --------------------------------------------------------------------


def read_table(name: str) -> dict[str, Any]:
    """The raw TOML of assets/knowledge/<name>.toml."""
    return tomllib.loads(asset_text(f"knowledge/{name}.toml"))


@cache
def load_knowledge() -> KnowledgeBase:
    """All tables, parsed once per process."""
    return build_knowledge({name: read_table(name) for name in TABLES}, load_harvest())


def build_knowledge(raw: Mapping[str, Mapping[str, Any]], harvest: Harvest | None = None) -> KnowledgeBase:
    """Typed rows from raw tables and the harvest (assets/knowledge/harvest.json unless another is
    given); raises KnowledgeError naming the bad row."""
    harvest = harvest if harvest is not None else load_harvest()
    hand = _rows(raw, "tensorflow", "release", lambda row: _release(_from_wheel(row, harvest)))
    releases = hand + generated_releases(harvest, hand)
    extras = _rows(raw, "and_cuda", "extra", _extra)
    extras += generated_extras(harvest, extras)
    builds = _rows(raw, "compute", "build", _build)
    builds = generated_builds(harvest, builds) + builds  # read from the wheel: first match wins
    gpus = _rows(raw, "gpus", "gpu", _gpu)
    kb = KnowledgeBase(
        releases=tuple(sorted((r for r in releases if not r.preview), key=lambda r: r.version, reverse=True)),
        previews=tuple(sorted((r for r in releases if r.preview), key=lambda r: r.version, reverse=True)),
        driver_floors=tuple(_rows(raw, "tensorflow", "driver_floor", _driver_floor)),
        extras=tuple(extras),
        builds=tuple(builds),
        toolkits=tuple(sorted(_rows(raw, "cuda", "toolkit", _toolkit), key=lambda t: t.cuda, reverse=True)),
        minor_compat=tuple(_rows(raw, "cuda", "minor_compat", _minor)),
        wheels=tuple(_rows(raw, "platforms", "wheel", _wheel)),
        gpus=tuple(gpus),
        architectures=tuple(_rows(raw, "architectures", "arch", _arch)),
        myths=tuple(_rows(raw, "myths", "myth", _myth)),
        nvcc_floors=tuple(
            sorted(_rows(raw, "architectures", "nvcc_floor", _nvcc_floor), key=lambda f: f.cuda, reverse=True)
        ),
        harvest=harvest,
        _gpu_index={gpu_key(g.name): g for g in gpus},
    )
    return kb


def _rows(raw: Mapping[str, Mapping[str, Any]], table: str, key: str, make: Any) -> list[Any]:
    rows = raw.get(table, {}).get(key, [])
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(make(row))
        except (KeyError, TypeError, ValueError, InvalidVersion, InvalidSpecifier, InvalidRequirement) as exc:
            raise KnowledgeError(f"knowledge/{table}.toml: [[{key}]] #{i + 1}: {exc!r}") from None
    return out


def _sourced(row: Mapping[str, Any]) -> dict[str, Any]:
    # Missing ones are reported by validate(); loading should not hide the other problems.
    return {
        "source": str(row.get("source", "")),
        "confidence": str(row.get("confidence", "")),
        "note": row.get("note"),
    }


def _release(row: Mapping[str, Any]) -> Release:
    return Release(
        version=Version(row["version"]),
        tested=Version(row.get("tested", row["version"])),
        python=SpecifierSet(row["python"]),
        cuda=Version(row["cuda"]),
        cudnn=Version(row["cudnn"]),
        glibc=Version(row["glibc"]),
        **_sourced(row),
    )


# ---- rows generated from the harvest (what the wheel itself says) ---------------------------
# A release the hand tables do not have gets its rows from harvest.json: the Python range (the cp
# tags that exist), the glibc (the manylinux tag), CUDA (build_info), cuDNN (the and-cuda pin, else
# build_info), SASS / PTX (build_info and the fatbins), the and-cuda lines. What no wheel says
# (the tested-build row, the driver floors, notes) stays in the hand tables, with its source.


def _harvest_source(tf: TfHarvest, what: str) -> str:
    wheel = f"{tf.wheel.file} sha256 {tf.wheel.sha256}" if tf.wheel else f"tensorflow {tf.version}"
    return f"assets/knowledge/harvest.json: {wheel} (generated: {what})"


# The fields of a tensorflow.toml row a wheel tells: a hand row leaves them out and gets them here.
WHEEL_FIELDS = ("python", "glibc", "cuda", "cudnn")


def _from_wheel(row: Mapping[str, Any], harvest: Harvest) -> Mapping[str, Any]:
    missing = [f for f in WHEEL_FIELDS if f not in row]
    if not missing:
        return row
    tf = harvest.release(str(row.get("version", "")))
    gen = release_from_harvest(tf) if tf is not None else None
    if gen is None:
        raise ValueError(f"{row.get('version')}: no {', '.join(missing)}, and the harvest cannot tell them")
    told = {
        "python": str(gen.python),
        "glibc": str(gen.glibc),
        "cuda": str(gen.cuda),
        "cudnn": str(gen.cudnn),
    }
    return {**{f: told[f] for f in missing}, **row}


def release_from_harvest(tf: TfHarvest) -> Release | None:
    """The tensorflow.toml row the wheel tells; None when the harvest of it is incomplete."""
    pythons = tf.pythons()
    glibc = tf.glibc()
    cuda = _cuda_of(tf)
    cudnn = _cudnn_of(tf)
    if not pythons or glibc is None or cuda is None or cudnn is None or tf.wheel is None:
        return None
    hi = pythons[-1]
    return Release(
        version=tf.version,
        tested=tf.version,
        python=SpecifierSet(f">={pythons[0]},<{hi.major}.{hi.minor + 1}"),
        cuda=Version(f"{cuda.major}.{cuda.minor}"),
        cudnn=cudnn,
        glibc=glibc,
        source=_harvest_source(tf, "cp tags, manylinux tag, build_info or the and-cuda floors"),
        confidence="verified",
        note="a preview (pre-release): shown only with --pre" if tf.version.is_prerelease else None,
        generated=True,
    )


def _floor(tf: TfHarvest, family: str) -> Version | None:
    """major.minor of the lowest version the and-cuda extra allows for a family (9.3.0.75 -> 9.3)."""
    for line in tf.and_cuda_requires:
        req = Requirement(line)
        if canonical(req.name).rsplit("-cu", 1)[0] == family:
            lows = [Version(s.version) for s in req.specifier if s.operator in ("==", ">=", "~=")]
            if lows:
                low = min(lows)
                return Version(f"{low.major}.{low.minor}")
    return None


def _cuda_of(tf: TfHarvest) -> Version | None:
    """build_info's CUDA, else the and-cuda runtime floor (2.22.0rc0's build_info names none)."""
    try:
        if tf.cuda_version:
            v = Version(str(tf.cuda_version))
            return Version(f"{v.major}.{v.minor}")
    except InvalidVersion:
        pass
    return _floor(tf, "nvidia-cuda-runtime")


def _cudnn_of(tf: TfHarvest) -> Version | None:
    """cuDNN major.minor: the and-cuda floor, else build_info's (a major only before 2.14)."""
    floor = _floor(tf, "nvidia-cudnn")
    if floor is not None:
        return floor
    try:
        return Version(str(tf.cudnn_version)) if tf.cudnn_version else None
    except InvalidVersion:
        return None


def build_from_harvest(tf: TfHarvest) -> ComputeBuild | None:
    """The compute.toml row the wheel tells: SASS from build_info, each PTX arch at its newest ISA."""
    listed = [a for c in tf.compute_capabilities if (a := Arch.parse(c)) is not None and c.startswith("sm_")]
    sass = sorted(a.cc for a in (listed or tf.kernel_sass))
    isas: dict[Arch, Version] = {}
    for ptx in tf.code.ptx:
        isas[ptx.arch] = max(ptx.isa, isas.get(ptx.arch, ptx.isa))
    if not sass and not isas:
        return None
    return ComputeBuild(
        tensorflow=SpecifierSet(f"=={tf.version}"),
        sass=tuple(sass),
        ptx=tuple(Ptx(a, isas[a]) for a in sorted(isas)),
        source=_harvest_source(tf, "build_info.py; fatbins of the shared libraries"),
        confidence="verified",
        note=None,
    )


def extra_from_harvest(tf: TfHarvest) -> AndCudaExtra | None:
    if not tf.and_cuda_requires:
        return None
    requires = tuple(Requirement(r) for r in tf.and_cuda_requires)
    majors = [int(n.rsplit("-cu", 1)[1]) for r in requires if "-cu" in (n := canonical(r.name))]
    if not majors:
        return None
    return AndCudaExtra(
        series=f"{tf.version.major}.{tf.version.minor}",
        cuda_major=max(majors),
        requires=requires,
        source=_harvest_source(tf, "METADATA Requires-Dist of the and-cuda extra"),
        confidence="verified",
        note=None,
    )


_Row = TypeVar("_Row")


def _generated_rows(harvest: Harvest, have: set[str], make: Callable[[Any], _Row | None]) -> list[_Row]:
    """A row made from the harvest for each release series the hand table lacks."""
    out = []
    for tf in sorted(harvest.tensorflow.values(), key=lambda h: h.version):
        if f"{tf.version.major}.{tf.version.minor}" not in have and (row := make(tf)):
            out.append(row)
    return out


def generated_releases(harvest: Harvest, hand: list[Release]) -> list[Release]:
    return _generated_rows(harvest, {r.series for r in hand}, release_from_harvest)


def generated_extras(harvest: Harvest, hand: list[AndCudaExtra]) -> list[AndCudaExtra]:
    return _generated_rows(harvest, {e.series for e in hand}, extra_from_harvest)


def generated_builds(harvest: Harvest, hand: list[ComputeBuild]) -> list[ComputeBuild]:
    """A row for each harvested release whose hand row is missing or says other than its wheel."""
    out = []
    for tf in sorted(harvest.tensorflow.values(), key=lambda h: h.version):
        row = build_from_harvest(tf)
        if row is None:
            continue
        covering = next((b for b in hand if _covers(b.tensorflow, tf.version)), None)
        if covering is None or (covering.sass, set(covering.ptx)) != (row.sass, set(row.ptx)):
            out.append(row)
    return out


def _driver_floor(row: Mapping[str, Any]) -> DriverFloor:
    return DriverFloor(
        tensorflow=SpecifierSet(row["tensorflow"]),
        cuda_major=int(row["cuda_major"]),
        linux=Version(row["linux"]),
        wsl=Version(row["wsl"]),
        **_sourced(row),
    )


def _extra(row: Mapping[str, Any]) -> AndCudaExtra:
    return AndCudaExtra(
        series=str(row["tensorflow"]),
        cuda_major=int(row["cuda_major"]),
        requires=tuple(Requirement(r) for r in row["requires"]),
        explicit_why=str(row["explicit_why"]) if row.get("explicit") else None,
        **_sourced(row),
    )


def _build(row: Mapping[str, Any]) -> ComputeBuild:
    archs, isas = list(row["ptx"]), list(row["ptx_isa"])
    if len(archs) != len(isas):
        raise ValueError("ptx and ptx_isa must have one entry each")
    ptx = []
    for arch, isa in zip(archs, isas, strict=True):
        parsed = Arch.parse("compute_" + str(arch).replace(".", ""))
        if parsed is None:
            raise ValueError(f"ptx arch {arch!r} is not like 9.0 or 9.0a")
        ptx.append(Ptx(parsed, Version(isa)))
    return ComputeBuild(
        tensorflow=SpecifierSet(row["tensorflow"]),
        sass=tuple(Version(v) for v in row["sass"]),
        ptx=tuple(ptx),
        **_sourced(row),
    )


def _toolkit(row: Mapping[str, Any]) -> Toolkit:
    return Toolkit(
        cuda=Version(row["cuda"]),
        linux=Version(row["linux"]),
        windows=Version(row["windows"]),
        ptx_isa=Version(row["ptx_isa"]) if row.get("ptx_isa") else None,
        **_sourced(row),
    )


def _minor(row: Mapping[str, Any]) -> MinorCompat:
    return MinorCompat(
        cuda_major=int(row["cuda_major"]),
        linux=Version(row["linux"]),
        windows=Version(row["windows"]),
        **_sourced(row),
    )


def _wheel(row: Mapping[str, Any]) -> Wheel:
    return Wheel(
        platform=str(row["platform"]),
        arch=tuple(str(a) for a in row["arch"]),
        tensorflow=SpecifierSet(row["tensorflow"]),
        gpu=bool(row["gpu"]),
        **_sourced(row),
    )


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _gpu(row: Mapping[str, Any]) -> Gpu:
    return Gpu(
        name=str(row["name"]),
        compute_capability=Version(row["compute_capability"]),
        fp32_tflops=_float(row.get("fp32_tflops")),
        fp16_tensor_tflops=_float(row.get("fp16_tensor_tflops")),
        peak_source=row.get("peak_source"),
        **_sourced(row),
    )


def _report(row: Any) -> FailureReport:
    if not isinstance(row, Mapping):
        return FailureReport(issue=str(row))
    releases = row.get("releases", [])
    return FailureReport(
        issue=str(row["issue"]),
        releases=tuple(str(r) for r in releases) if isinstance(releases, list) else (str(releases),),
        gpu=str(row.get("gpu", "")),
        error=str(row.get("error", "")),
        where=str(row.get("where", "")),
        platform=str(row.get("platform", "")),
    )


def _arch(row: Mapping[str, Any]) -> Architecture:
    branch = row.get("last_driver_branch")
    ptxas = row.get("ptxas_cuda")
    return Architecture(
        name=str(row["name"]),
        cc_min=Version(row["cc_min"]),
        cc_max=Version(row["cc_max"]),
        last_driver_branch=int(branch) if branch is not None else None,
        ptxas_cuda=Version(ptxas) if ptxas is not None else None,
        reports=tuple(_report(r) for r in row.get("pip_tensorflow_reports", [])),
        ptx_isa_min=tuple((Version(r["cc"]), Version(r["isa"])) for r in row.get("ptx_isa_min", [])),
        **_sourced(row),
    )


def _nvcc_floor(row: Mapping[str, Any]) -> NvccFloor:
    return NvccFloor(cuda=Version(row["cuda"]), lowest=Version(row["lowest"]), **_sourced(row))


def _myth(row: Mapping[str, Any]) -> Myth:
    return Myth(
        id=str(row["id"]),
        claim=str(row["claim"]),
        truth=str(row["truth"]),
        seen_in=tuple(str(s) for s in row.get("seen_in", [])),
        quote=row.get("quote"),
        **_sourced(row),
    )


# ---- validation ------------------------------------------------------------------


def validate(raw: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """Every problem in the tables, one line each; [] when they are sound."""
    if raw is None:
        raw = {name: read_table(name) for name in TABLES}
    problems = list(_check_sourced(raw))
    try:
        kb = build_knowledge(raw)
    except KnowledgeError as exc:
        return [*problems, str(exc)]
    for check in (_check_releases, _check_extras, _check_builds, _check_toolkits, _check_wheels, _check_gpus):
        problems.extend(check(kb))
    return problems


def _check_sourced(raw: Mapping[str, Mapping[str, Any]]) -> Iterable[str]:
    for table, content in raw.items():
        for key, rows in content.items():
            if not isinstance(rows, list):
                continue
            for i, row in enumerate(rows):
                where = f"{table}.toml [[{key}]] #{i + 1}"
                if not str(row.get("source", "")).strip():
                    yield f"{where}: no source"
                if row.get("confidence") not in CONFIDENCE:
                    yield f"{where}: confidence must be one of {CONFIDENCE}"


def _duplicates(keys: Iterable[Any]) -> list[Any]:
    seen: set[Any] = set()
    dup = []
    for k in keys:
        if k in seen:
            dup.append(k)
        seen.add(k)
    return dup


def _check_releases(kb: KnowledgeBase) -> Iterable[str]:
    for dup in _duplicates(r.series for r in kb.releases):
        yield f"tensorflow.toml: two rows for TensorFlow {dup}"
    for rel in kb.releases:
        if not rel.pythons():
            yield f"tensorflow.toml: {rel.version}: python {rel.python} names no Python 3.7-3.14"
        if (rel.version.major, rel.version.minor) != (rel.tested.major, rel.tested.minor):
            yield f"tensorflow.toml: {rel.version}: tested {rel.tested} is another release line"
        if rel.tested > rel.version:
            yield f"tensorflow.toml: {rel.version}: tested {rel.tested} is newer than the version installed"
        floors = [f for f in kb.driver_floors if rel.version in f.tensorflow]
        if len(floors) != 1:
            yield f"tensorflow.toml: {rel.version} matches {len(floors)} driver_floor rows (want 1)"
        elif floors[0].cuda_major != rel.cuda_major:
            major = floors[0].cuda_major
            yield f"tensorflow.toml: {rel.version}: CUDA {rel.cuda} but its driver floor is for CUDA {major}"
        if kb.toolkit(rel.cuda) is None:
            yield f"tensorflow.toml: {rel.version}: CUDA {rel.cuda} is not in cuda.toml"


def _check_extras(kb: KnowledgeBase) -> Iterable[str]:
    for dup in _duplicates(e.series for e in kb.extras):
        yield f"and_cuda.toml: two rows for TensorFlow {dup}"
    kb = kb.with_previews()  # a preview's generated extra belongs to its (generated) release
    for extra in kb.extras:
        rel = kb.release(extra.series)
        if rel is None:
            yield f"and_cuda.toml: {extra.series} is not in tensorflow.toml"
            continue
        if extra.cuda_major != rel.cuda_major:
            yield f"and_cuda.toml: {extra.series}: cu{extra.cuda_major} wheels for a CUDA {rel.cuda} build"
        if any(r.name.startswith("tensorrt") for r in extra.requires):
            yield f"and_cuda.toml: {extra.series}: TensorRT lines belong in the note, not in requires"
        nvcc = extra.nvcc
        if nvcc is None:
            yield f"and_cuda.toml: {extra.series}: no nvidia-cuda-nvcc-cu{extra.cuda_major} line"
            continue
        # The extra must allow the CUDA the release was built with.
        lowest = min((Version(s.version) for s in nvcc.specifier if s.operator in ("==", ">=")), default=None)
        if lowest is not None and (lowest.major, lowest.minor) != (rel.cuda.major, rel.cuda.minor):
            yield f"and_cuda.toml: {extra.series}: nvcc {nvcc.specifier} does not start at CUDA {rel.cuda}"
    if kb.minor_floor(11) is None or kb.minor_floor(12) is None:
        yield "cuda.toml: minor_compat rows for CUDA 11 and 12 are required"


def _check_builds(kb: KnowledgeBase) -> Iterable[str]:
    for rel in kb.releases:
        n = sum(rel.version in b.tensorflow for b in kb.builds)
        if n != 1:
            yield f"compute.toml: TensorFlow {rel.version} matches {n} build rows (want 1)"
    for b in kb.builds:
        if list(b.sass) != sorted(b.sass) or not b.ptx:
            yield f"compute.toml: {b.tensorflow}: sass must be sorted and ptx non-empty"
        newest_ptx = max(p.arch.cc for p in b.ptx) if b.ptx else None
        if b.sass and newest_ptx is not None and newest_ptx < max(b.sass):
            yield f"compute.toml: {b.tensorflow}: PTX {newest_ptx} is older than the newest SASS"


def _check_toolkits(kb: KnowledgeBase) -> Iterable[str]:
    for dup in _duplicates(t.cuda for t in kb.toolkits):
        yield f"cuda.toml: two rows for CUDA {dup}"
    # Newer CUDA never needs an older driver: a non-monotonic table is a typo.
    for newer, older in pairwise(kb.toolkits):
        if newer.linux < older.linux or newer.windows < older.windows:
            yield f"cuda.toml: CUDA {newer.cuda} asks for an older driver than CUDA {older.cuda}"
    for m in kb.minor_compat:
        # The floor for "any 12.x" can never be above what the newest 12.x toolkit itself needs.
        last = max(
            (t for t in kb.toolkits if t.cuda.major == m.cuda_major), key=lambda t: t.cuda, default=None
        )
        if last is not None and m.linux > last.linux:
            yield f"cuda.toml: CUDA {m.cuda_major}.x minor-compat floor {m.linux} is above CUDA {last.cuda}'s"
    for dup in _duplicates(m.cuda_major for m in kb.minor_compat):
        yield f"cuda.toml: two minor_compat rows for CUDA {dup}"


def _check_wheels(kb: KnowledgeBase) -> Iterable[str]:
    for rel in kb.releases:
        for platform in ("linux", "wsl2", "wsl1", "windows", "macos"):
            archs = {a for w in kb.wheels if w.platform == platform for a in w.arch}
            for arch in archs:
                rows = [
                    w
                    for w in kb.wheels
                    if w.platform == platform and arch in w.arch and rel.version in w.tensorflow
                ]
                if len({w.gpu for w in rows}) > 1:
                    yield f"platforms.toml: {platform}/{arch} TF {rel.version}: rows disagree on GPU support"


def _check_gpus(kb: KnowledgeBase) -> Iterable[str]:
    for dup in _duplicates(gpu_key(g.name) for g in kb.gpus):
        yield f"gpus.toml: two rows for {dup}"
    for g in kb.gpus:
        if kb.architecture(g.compute_capability) is None:
            yield f"gpus.toml: {g.name}: compute capability {g.compute_capability} is in no architecture"
        for peak in (g.fp32_tflops, g.fp16_tensor_tflops):
            if peak is not None and not 0 < peak < 10_000:
                yield f"gpus.toml: {g.name}: peak {peak} TFLOP/s is out of range"
        if (g.fp32_tflops or g.fp16_tensor_tflops) and not g.peak_source:
            yield f"gpus.toml: {g.name}: peaks without a peak_source"
    archs = sorted(kb.architectures, key=lambda a: a.cc_min)
    for a in archs:
        if a.cc_min > a.cc_max:
            yield f"architectures.toml: {a.name}: cc_min > cc_max"
    for lo, hi in pairwise(archs):
        if hi.cc_min <= lo.cc_max:
            yield f"architectures.toml: {lo.name} and {hi.name} overlap"
