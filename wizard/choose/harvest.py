"""assets/knowledge/harvest.json as typed rows: the facts read from the wheels themselves.

`python -m maint.harvest` writes that file: for each TensorFlow release the wheel
files (name, sha256), the Python tags that exist, build_info, the `and-cuda`
lines and what pip resolves them to; for each nvidia-* wheel it read, the GPU
code its libraries hold. A wheel is cited by file name and sha256, never by
where it came from.

Loading is forgiving: a partial harvest (a step that recorded an error, a
package not read yet) gives fewer facts, never an exception; `missing` says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from wizard.assets import asset_text

_ARCH = re.compile(r"^(?:sm|compute)_([0-9]+)([0-9])([a-z]?)$")
_MANYLINUX = re.compile(r"manylinux_([0-9]+)_([0-9]+)_")
_LEGACY_MANYLINUX = {"manylinux2014": "2.17", "manylinux2010": "2.12", "manylinux1": "2.5"}


@dataclass(frozen=True, order=True)
class Arch:
    """sm_86 / compute_90a / sm_120f as a compute capability and its suffix:
    "a" = arch-specific (that exact GPU only), "f" = family-specific (that major, same or
    later minor), "" = portable."""

    cc: Version
    suffix: str = ""

    @classmethod
    def parse(cls, name: str) -> Arch | None:
        m = _ARCH.match(name.strip())
        if not m:
            return None
        return cls(Version(f"{m.group(1)}.{m.group(2)}"), m.group(3))

    @property
    def specific(self) -> bool:
        """Not portable: 'a' or 'f' code runs only on its own architecture or family."""
        return bool(self.suffix)

    def label(self, ptx: bool = False) -> str:
        return f"{'compute' if ptx else 'sm'}_{self.cc.major}{self.cc.minor}{self.suffix}"


@dataclass(frozen=True)
class Ptx:
    arch: Arch
    isa: Version


@dataclass(frozen=True)
class GpuCode:
    """The GPU code of a library or a wheel: machine code (SASS) and PTX with its ISA."""

    sass: tuple[Arch, ...] = ()
    ptx: tuple[Ptx, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.sass and not self.ptx

    def sass_label(self) -> str:
        return ",".join(a.label() for a in self.sass) or "-"


@dataclass(frozen=True)
class WheelFile:
    file: str
    sha256: str
    size: int | None = None


@dataclass(frozen=True)
class PinnedWheel:
    """One package at one version, with the wheel file(s) that install it."""

    name: str
    version: str
    files: tuple[WheelFile, ...] = ()


@dataclass(frozen=True)
class TfHarvest:
    version: Version
    requires_python: str | None
    python_tags: Mapping[str, str]  # "3.12" -> "manylinux_2_27_x86_64"
    python_wheels: Mapping[str, WheelFile]
    compute_capabilities: tuple[str, ...]  # build_info["cuda_compute_capabilities"]
    cuda_version: str | None
    cudnn_version: str | None
    code: GpuCode  # SASS and the PTX of the fatbins in the shared libraries
    ptx_text: tuple[Ptx, ...]  # PTX outside fatbins (compiled by ptxas at run time, not the driver)
    and_cuda_requires: tuple[str, ...]
    resolved: Mapping[str, PinnedWheel]  # pip's resolution of tensorflow[and-cuda]==version
    patches: Mapping[str, tuple[str, ...]]  # every patch of the minor -> Pythons with a wheel
    wheel: WheelFile | None
    errors: Mapping[str, str]
    # The machine code every kernel of the biggest library carries (its most common SASS set):
    # what build_info's cuda_compute_capabilities lists, read from the fatbins themselves
    # (2.22.0rc0's build_info names no capabilities and no CUDA version).
    kernel_sass: tuple[Arch, ...] = ()

    def pythons(self) -> list[Version]:
        return sorted(Version(p) for p in self.python_tags)

    def glibc(self, python: str | None = None) -> Version | None:
        """The oldest glibc the Linux x86_64 wheel needs (of one Python, or the highest of all)."""
        if python is not None and python in self.python_tags:
            tags = [self.python_tags[python]]
        else:
            tags = list(self.python_tags.values())
        found = [v for v in (manylinux_glibc(tag) for tag in tags) if v is not None]
        return max(found) if found else None

    def ptx_isa(self, arch: Arch) -> Version | None:
        """The newest PTX ISA among this arch's PTX entries in the fatbins."""
        isas = [p.isa for p in self.code.ptx if p.arch == arch]
        return max(isas) if isas else None


@dataclass(frozen=True)
class NvidiaHarvest:
    name: str
    version: str
    wheel: WheelFile | None
    code: GpuCode
    libs: Mapping[str, GpuCode]
    ptxas_targets: tuple[Arch, ...]  # nvidia-cuda-nvcc only: the sm_ targets its ptxas accepts
    ptxas_isa: Version | None


@dataclass(frozen=True)
class Harvest:
    date: str | None
    tensorflow: Mapping[Version, TfHarvest] = field(default_factory=dict)
    nvidia: Mapping[tuple[str, str], NvidiaHarvest] = field(default_factory=dict)

    def release(self, version: Version | str) -> TfHarvest | None:
        try:
            return self.tensorflow.get(Version(str(version)))
        except InvalidVersion:
            return None

    def package(self, name: str, version: str) -> NvidiaHarvest | None:
        return self.nvidia.get((canonical(name), version))

    def versions_of(self, name: str) -> list[str]:
        """Every version of a package the harvest read or saw resolved, newest first."""
        name = canonical(name)
        found = {v for (n, v) in self.nvidia if n == name}
        for tf in self.tensorflow.values():
            if name in tf.resolved:
                found.add(tf.resolved[name].version)
        return sorted(found, key=Version, reverse=True)

    def wheel_files(self, name: str, version: str) -> tuple[WheelFile, ...]:
        """The wheel files known for one package version (from any part of the harvest)."""
        name = canonical(name)
        files: dict[str, WheelFile] = {}
        pkg = self.nvidia.get((name, version))
        if pkg is not None and pkg.wheel is not None:
            files[pkg.wheel.sha256] = pkg.wheel
        for tf in self.tensorflow.values():
            got = tf.resolved.get(name)
            if got is not None and got.version == version:
                for f in got.files:
                    files.setdefault(f.sha256, f)
        if name == "tensorflow":
            release = self.release(version)
            if release is not None:
                for f in release.python_wheels.values():
                    files.setdefault(f.sha256, f)
        return tuple(sorted(files.values(), key=lambda f: f.file))


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def manylinux_glibc(tag: str) -> Version | None:
    """'manylinux_2_27_x86_64' -> 2.27; 'manylinux2014_x86_64' -> 2.17; the lowest of a compound tag."""
    found = [Version(f"{a}.{b}") for a, b in _MANYLINUX.findall(tag)]
    for legacy, glibc in _LEGACY_MANYLINUX.items():
        if legacy in tag:
            found.append(Version(glibc))
    return min(found) if found else None


def isa_cuda(isa: Version) -> Version | None:
    """The CUDA release that introduced a PTX ISA: 7.x -> 11.x, 8.x -> 12.x, 9.x -> 13.x.

    (PTX ISA release notes: ISA 7.0 came with CUDA 11.0, 8.0 with 12.0, 9.0 with 13.0,
    each minor with the CUDA minor of the same number.)"""
    if 7 <= isa.major <= 9:
        return Version(f"{isa.major + 4}.{isa.minor}")
    return None


# ---- loading ---------------------------------------------------------------------------


@cache
def load_harvest() -> Harvest:
    try:
        raw = json.loads(asset_text("knowledge/harvest.json"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return Harvest(date=None)
    return parse_harvest(raw)


def parse_harvest(raw: Any) -> Harvest:
    if not isinstance(raw, dict):
        return Harvest(date=None)
    tf: dict[Version, TfHarvest] = {}
    for version, entry in (raw.get("tensorflow") or {}).items():
        parsed = _tf(version, entry)
        if parsed is not None:
            tf[parsed.version] = parsed
    nvidia: dict[tuple[str, str], NvidiaHarvest] = {}
    for name, versions in (raw.get("nvidia") or {}).items():
        if not isinstance(versions, dict):
            continue
        for version, entry in versions.items():
            if isinstance(entry, dict):
                nvidia[(canonical(name), str(version))] = _nvidia(name, str(version), entry)
    return Harvest(date=raw.get("harvested"), tensorflow=tf, nvidia=nvidia)


def _wheel(data: Any) -> WheelFile | None:
    if not isinstance(data, dict) or not data.get("file") or not data.get("sha256"):
        return None
    size = data.get("size")
    return WheelFile(str(data["file"]), str(data["sha256"]), size if isinstance(size, int) else None)


def _code(sass: Iterable[Any], ptx_lists: Iterable[Iterable[Any]]) -> GpuCode:
    archs = sorted({a for a in (Arch.parse(str(s)) for s in sass) if a is not None})
    ptx: set[Ptx] = set()
    for entries in ptx_lists:
        for item in entries or []:
            if not isinstance(item, dict):
                continue
            arch = Arch.parse(str(item.get("arch", "")))
            try:
                isa = Version(str(item.get("isa", "")))
            except InvalidVersion:
                continue
            if arch is not None:
                ptx.add(Ptx(arch, isa))
    return GpuCode(tuple(archs), tuple(sorted(ptx, key=lambda p: (p.arch, p.isa))))


def _tf(version: str, entry: Any) -> TfHarvest | None:
    if not isinstance(entry, dict):
        return None
    try:
        v = Version(version)
    except InvalidVersion:
        return None
    build = entry.get("build_info") or {}
    resolved = {}
    for name, item in (entry.get("pip_resolved_and_cuda") or {}).items():
        if isinstance(item, dict) and item.get("version"):
            wheel = _wheel(item)
            resolved[canonical(name)] = PinnedWheel(
                canonical(name), str(item["version"]), (wheel,) if wheel else ()
            )
    wheels = {str(py): w for py, item in (entry.get("python_wheels") or {}).items() if (w := _wheel(item))}
    sass = entry.get("sass") or []
    counts: dict[str, int] = {}
    raw_libs = entry.get("libs")
    libs: dict[str, Any] = raw_libs if isinstance(raw_libs, dict) else {}
    for lib in libs.values():
        got = lib.get("sass") if isinstance(lib, dict) else None
        if isinstance(got, dict) and sum(got.values()) > sum(counts.values()):
            counts = {str(k): int(v) for k, v in got.items() if isinstance(v, int)}
    most = max(counts.values(), default=0)
    common = [a for k, n in counts.items() if n == most and (a := Arch.parse(k)) is not None]
    kernel_sass = tuple(sorted(common))
    return TfHarvest(
        version=v,
        requires_python=entry.get("requires_python"),
        python_tags={str(k): str(t) for k, t in (entry.get("python_tags") or {}).items()},
        python_wheels=wheels,
        compute_capabilities=tuple(str(c) for c in build.get("cuda_compute_capabilities") or ()),
        cuda_version=build.get("cuda_version"),
        cudnn_version=build.get("cudnn_version"),
        code=_code(sass if isinstance(sass, list) else [], [entry.get("ptx") or []]),
        ptx_text=_code([], [entry.get("ptx_text") or []]).ptx,
        and_cuda_requires=tuple(_requirement_lines(entry.get("and_cuda_requires") or [])),
        resolved=resolved,
        patches={str(k): tuple(str(p) for p in py) for k, py in (entry.get("patches") or {}).items()},
        wheel=_wheel(entry.get("wheel")),
        errors={str(k): str(m) for k, m in (entry.get("errors") or {}).items()},
        kernel_sass=kernel_sass,
    )


def _requirement_lines(lines: Iterable[Any]) -> Iterable[str]:
    for line in lines:
        try:
            req = Requirement(str(line))
        except InvalidRequirement:
            continue
        yield f"{canonical(req.name)}{req.specifier}"


def _nvidia(name: str, version: str, entry: dict[str, Any]) -> NvidiaHarvest:
    libs = {}
    for lib, data in (entry.get("libs") or {}).items():
        if isinstance(data, dict):
            libs[str(lib)] = _code(data.get("sass") or [], [data.get("ptx") or []])
    raw_ptxas = entry.get("ptxas")
    ptxas: dict[str, Any] = raw_ptxas if isinstance(raw_ptxas, dict) else {}
    targets = tuple(sorted(a for a in (Arch.parse(str(s)) for s in ptxas.get("sm_targets", [])) if a))
    try:
        ptxas_isa = Version(str(ptxas["ptx_isa"])) if ptxas.get("ptx_isa") else None
    except InvalidVersion:
        ptxas_isa = None
    sass = entry.get("sass") or []
    return NvidiaHarvest(
        name=canonical(name),
        version=version,
        wheel=_wheel(entry.get("wheel")),
        code=_code(sass if isinstance(sass, list) else [], [entry.get("ptx") or []]),
        libs=libs,
        ptxas_targets=targets,
        ptxas_isa=ptxas_isa,
    )
