"""The TensorFlow part: which wheels exist, what one of them holds, what [and-cuda] resolves to."""

from __future__ import annotations

import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from maint.harvest import resolve
from maint.harvest.context import LINUX_GLIBC, LINUX_X86_64, Context, pick_python
from maint.harvest.fatbin import Scan, arch_key
from maint.harvest.store import today
from maint.harvest.wheelinfo import (
    WheelName,
    exact_pin,
    extra_requires,
    file_facts,
    read_build_info,
    read_metadata,
    scan_wheel_libraries,
)

PACKAGE = "tensorflow"
FIRST_MINOR = "2.10"


@dataclass
class Availability:
    """For each version, the Pythons that have a wheel on one platform family (from pip index)."""

    by_version: dict[str, set[str]]

    @classmethod
    def probe(cls, ctx: Context, platforms: list[str], label: str) -> Availability:
        by_version: dict[str, set[str]] = {}
        for py in ctx.pythons:
            versions = resolve.index_versions(ctx.pip, PACKAGE, py, platforms)
            ctx.log(f"{label} Python {py}: {len(versions)} versions with a wheel")
            for v in versions:
                by_version.setdefault(v, set()).add(py)
        return cls(by_version)

    def pythons(self, version: str) -> list[str]:
        return sorted(self.by_version.get(version, set()), key=py_key)


def py_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def minor_of(version: str) -> str:
    v = Version(version)
    return f"{v.major}.{v.minor}"


def newest_patches(versions: list[str] | set[str], minors: list[str] | None) -> dict[str, str]:
    """minor -> newest final release of it; all minors from 2.10 on when none are named. A minor
    with no final release yet gets its newest pre-release (2.22.0rc0): the coming release, which
    the wizard shows as a preview only when asked (--pre). Its final release replaces it."""
    best: dict[str, Version] = {}
    preview: dict[str, Version] = {}
    for raw in versions:
        try:
            v = Version(raw)
        except InvalidVersion:
            continue
        if v.is_devrelease:
            continue
        minor = f"{v.major}.{v.minor}"
        if minors is not None and minor not in minors:
            continue
        if minors is None and Version(minor) < Version(FIRST_MINOR):
            continue
        into = preview if v.is_prerelease else best
        if minor not in into or v > into[minor]:
            into[minor] = v
    for minor, v in preview.items():
        best.setdefault(minor, v)
    return {m: str(best[m]) for m in sorted(best, key=Version)}


def patches_of(minor: str, avail: Availability) -> dict[str, list[str]]:
    """Every final patch of a minor with the Pythons that have a Linux x86_64 wheel of it."""
    out = {}
    for v in avail.by_version:
        if minor_of(v) == minor and not Version(v).is_prerelease:
            out[v] = avail.pythons(v)
    return dict(sorted(out.items(), key=lambda kv: Version(kv[0])))


STAGES = ("python_tags", "platforms", "wheel", "and_cuda")


def harvest_version(
    ctx: Context,
    version: str,
    linux: Availability,
    others: dict[str, Availability],
    stages: tuple[str, ...] = STAGES,
    entry: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the named stages for one version, into a fresh entry or (a refresh) into the one given."""
    entry = {} if entry is None else entry
    errors = entry.setdefault("errors", {})
    for name in stages:
        errors.pop(name, None)
    entry.update(harvested=today(), minor=minor_of(version), patches=patches_of(minor_of(version), linux))
    pythons = linux.pythons(version)
    if "python_tags" in stages:
        ctx.stage(entry, "python_tags", lambda: _python_tags(ctx, version, pythons, entry))
    if "platforms" in stages:
        ctx.stage(entry, "platforms", lambda: _platforms(ctx, version, others, entry))
    if not pythons:
        errors["wheel"] = "no Linux x86_64 wheel for any probed Python"
    else:
        python = (entry.get("wheel") or {}).get("python") or pick_python(pythons)
        if "wheel" in stages:
            ctx.stage(entry, "wheel", lambda: _wheel(ctx, version, python, entry))
        if "and_cuda" in stages and entry.get("and_cuda_requires"):
            ctx.stage(entry, "and_cuda", lambda: _and_cuda(ctx, version, python, entry))
    if not errors:
        del entry["errors"]
    return entry


def _python_tags(ctx: Context, version: str, pythons: list[str], entry: dict[str, Any]) -> None:
    tags: dict[str, str] = {}
    files: dict[str, dict[str, object]] = {}
    for py in pythons:
        resolved = resolve.dry_run(ctx.pip, f"{PACKAGE}=={version}", py, LINUX_X86_64)
        if not resolved:
            continue
        wheel = _requested(resolved)
        tags[py] = WheelName.parse(wheel.file).platform
        files[py] = {"file": wheel.file, "sha256": wheel.sha256}
        ctx.log(f"  {version} cp{py.replace('.', '')}: {wheel.file}")
    entry["python_tags"] = tags
    entry["python_wheels"] = files


def _platforms(ctx: Context, version: str, others: dict[str, Availability], entry: dict[str, Any]) -> None:
    platforms: dict[str, Any] = {}
    for name, avail in sorted(others.items()):
        pythons = avail.pythons(version)
        info: dict[str, Any] = {"pythons": pythons}
        if pythons:
            py = pythons[-1]
            resolved = resolve.dry_run(ctx.pip, f"{PACKAGE}=={version}", py, resolve.OTHER_PLATFORMS[name])
            if resolved:
                wheel = _requested(resolved)
                info.update(file=wheel.file, sha256=wheel.sha256)
                # Some platforms' "tensorflow" is a stub that pulls the real build from another name.
                env = {**PLATFORM_MARKERS[name], "python_version": py, "python_full_version": f"{py}.0"}
                delegates = sorted(d for r in wheel.requires_dist if (d := _delegate(r, version, env)))
                if delegates:
                    info["delegates_to"] = delegates
        platforms[name] = info
        ctx.log(f"  {version} {name}: {info.get('file', 'no wheel')}")
    entry["platforms"] = platforms


# Marker values of each platform, to tell which same-version TF build a stub wheel pulls there.
PLATFORM_MARKERS: dict[str, dict[str, str]] = {
    "linux_aarch64": {"platform_system": "Linux", "sys_platform": "linux", "platform_machine": "aarch64"},
    "macos_arm64": {"platform_system": "Darwin", "sys_platform": "darwin", "platform_machine": "arm64"},
    "macos_x86_64": {"platform_system": "Darwin", "sys_platform": "darwin", "platform_machine": "x86_64"},
    "windows_amd64": {"platform_system": "Windows", "sys_platform": "win32", "platform_machine": "AMD64"},
}


def _delegate(line: str, version: str, env: dict[str, str]) -> str | None:
    """'tensorflow-intel==2.15.1' when the line pulls another TF build of this version on this platform."""
    try:
        req = Requirement(line)
    except InvalidRequirement:
        return None
    pinned = exact_pin(line)
    if pinned is None or not pinned[0].lower().startswith("tensorflow-") or pinned[1] != version:
        return None
    if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
        return None
    return f"{pinned[0]}=={pinned[1]}"


def _requested(resolved: list[resolve.Resolved]) -> resolve.Resolved:
    for item in resolved:
        if item.requested or item.name == PACKAGE:
            return item
    raise resolve.PipError("pip report lists no tensorflow wheel")


def _wheel(ctx: Context, version: str, python: str, entry: dict[str, Any]) -> None:
    ctx.log(f"  {version}: downloading the cp{python.replace('.', '')} Linux x86_64 wheel")
    wheel = resolve.download(ctx.pip, f"{PACKAGE}=={version}", python, LINUX_X86_64, ctx.workdir)
    try:
        facts = file_facts(wheel)
        entry["wheel"] = {**facts.to_json(), "python": python}
        expected = entry.get("python_wheels", {}).get(python, {}).get("sha256")
        if expected and expected != facts.sha256:
            entry.setdefault("notes", []).append(
                f"downloaded sha256 differs from the dry-run report ({python})"
            )
        with zipfile.ZipFile(wheel) as zf:
            meta = read_metadata(zf)
            entry["requires_python"] = meta.requires_python
            entry["and_cuda_requires"] = extra_requires(meta.requires_dist, "and-cuda")
            entry["build_info"] = read_build_info(zf)
        libs = scan_wheel_libraries(wheel, ctx.workdir, progress=lambda m: ctx.log(f"  {version}: {m}"))
        summarize_into(entry, libs)
        ctx.log(f"  {version}: SASS {entry['sass']} PTX {entry['ptx']}")
    finally:
        ctx.discard(wheel)


def summarize_into(entry: dict[str, Any], libs: dict[str, Scan]) -> None:
    """Union of archs over the libraries, plus each library that holds any GPU code."""
    total = Scan()
    for found in libs.values():
        total.merge(found)
    entry["sass"] = sorted(total.sass, key=arch_key)
    entry["ptx"] = ptx_list(total.ptx)
    entry["ptx_text"] = ptx_list(total.ptx_text)
    entry["libs"] = {name: found.to_json() for name, found in sorted(libs.items()) if not found.empty}


def ptx_list(counter: Counter[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"arch": a, "isa": isa} for a, isa in sorted(counter, key=lambda k: (arch_key(k[0]), k[1]))]


def _and_cuda(ctx: Context, version: str, python: str, entry: dict[str, Any]) -> None:
    """What pip installs for tensorflow[and-cuda]; when a non-nvidia extra (tensorrt) has no wheel
    for the target, the nvidia-* lines are resolved on their own and a note says so."""
    entry.pop("and_cuda_note", None)
    resolved = resolve.dry_run(ctx.pip, f"{PACKAGE}[and-cuda]=={version}", python, LINUX_X86_64, deps=True)
    if resolved is None:
        lines = [r for r in entry["and_cuda_requires"] if r.lower().startswith("nvidia-")]
        others = sorted(set(entry["and_cuda_requires"]) - set(lines))
        resolved = resolve.dry_run(ctx.pip, lines, python, LINUX_X86_64, deps=True)
        if resolved is None:
            raise resolve.PipError(f"tensorflow[and-cuda]=={version} does not resolve for Python {python}")
        entry["and_cuda_note"] = (
            f"tensorflow[and-cuda]=={version} does not resolve with wheels only "
            f"(no wheel for {', '.join(others) or 'a requirement'}); the nvidia-* lines were resolved alone"
        )
    entry["pip_resolved_and_cuda"] = {r.name: r.to_json() for r in resolved if r.name.startswith("nvidia-")}
    entry["and_cuda_target"] = {"python": python, "linux_glibc": f"2.{LINUX_GLIBC}", "arch": "x86_64"}
    summary = ", ".join(f"{k} {v['version']}" for k, v in sorted(entry["pip_resolved_and_cuda"].items()))
    ctx.log(f"  {version}[and-cuda] -> {summary}")
