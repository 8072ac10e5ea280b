"""The whole-environment locks: every package `tensorflow==X` pulls, resolved by uv for one target
(Python and a platform: Linux x86_64 or aarch64 at a manylinux glibc, macOS arm64 or x86_64 from
macOS 12, Windows x86_64), each with the one wheel file that installs it there.

uv resolves for a foreign target (`uv pip compile --python-version --python-platform`) and writes
the result as a PEP 751 pylock.toml, which names every wheel with its sha256. Only the file name,
size and sha256 are kept: the URL (and so the index host) is dropped on reading. The nvidia-*
wheels are not in these locks: they depend on the GPU and come from the nvidia section of the
harvest, chosen per GPU by wizard.choose.wheelset; the wizard joins the two (wizard.choose.lock).

assets/knowledge/locks.json:
  wheels: {file name: {sha256, size}}            every file once
  locks:  {distribution: {version: {python: {platform: {glibc, uv, packages: {name: {version, file}}}}}}}
          (distribution: "tensorflow" for GPU plans and CPU plans off Linux x86_64, "tensorflow-cpu"
          for CPU plans on Linux x86_64; platform: uv's --python-platform, x86_64-manylinux_2_28,
          aarch64-manylinux_2_28, aarch64-apple-darwin (with "macos": the lowest macOS it serves),
          x86_64-pc-windows-msvc; glibc "0" off Linux)
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

from maint.harvest.resolve import canonical, manylinux_platforms, strip_urls, url_file_name
from wizard.tomlcompat import tomllib

TOOL = "maint.harvest"
# uv knows these manylinux targets (`uv pip compile --help`); a lock is resolved at the lowest one
# that the TensorFlow wheel allows, so it holds on every machine with that glibc or newer.
UV_GLIBCS = (17, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)
# The default target: glibc 2.28 (Debian 10, RHEL 8); older machines compile a lock themselves.
DEFAULT_GLIBC = 28
# The GPU plans install tensorflow (its nvidia-* wheels come from the GPU's own set); CPU plans
# on Linux x86_64 install tensorflow-cpu.
DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu")
# TF 2.10-2.15 wheels were built against NumPy 1.x and some do not say so in their metadata: the
# plan installs them with numpy<2 (wizard.plan.common.constraints_for), and so is their lock.
NUMPY_1_BEFORE = Version("2.16")


def requirements_for(dist: str, tf: str) -> list[str]:
    lines = [f"{dist}=={tf}"]
    if Version(tf) < NUMPY_1_BEFORE:
        lines.append("numpy<2")
    return lines


class LockError(RuntimeError):
    pass


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


# The lowest macOS a macOS lock serves: uv resolves for it (MACOSX_DEPLOYMENT_TARGET); TensorFlow's
# arm64 wheels are macosx_12_0 since 2.13.
MACOS = "12.0"


@dataclass(frozen=True)
class Platform:
    """A target the locks are resolved for: `key` is harvest.json's platforms key."""

    key: str  # "linux_x86_64", "linux_aarch64", "macos_arm64", "macos_x86_64", "windows_amd64"
    system: str  # "linux" | "macos" | "windows"
    arch: str  # "x86_64" | "aarch64" (uv's spelling; macOS's arm64 is aarch64 here)

    def uv(self, glibc: int = 0) -> str:
        """uv's --python-platform for this target."""
        if self.system == "macos":
            return f"{self.arch}-apple-darwin"
        if self.system == "windows":
            return f"{self.arch}-pc-windows-msvc"
        return f"{self.arch}-manylinux2014" if glibc == 17 else f"{self.arch}-manylinux_2_{glibc}"

    def platform_tags(self, glibc: int) -> list[str]:
        if self.system == "macos":
            major, minor = (int(x) for x in MACOS.split("."))
            return list(mac_platforms((major, minor), "arm64" if self.arch == "aarch64" else self.arch))
        if self.system == "windows":
            return ["win_amd64"]
        return manylinux_platforms(self.arch, glibc)


LINUX_X86_64 = Platform("linux_x86_64", "linux", "x86_64")
# The platforms a lock is recorded for beside Linux x86_64 (the macOS, Jetson and Windows plans).
OTHER_PLATFORMS = (
    Platform("linux_aarch64", "linux", "aarch64"),
    Platform("macos_arm64", "macos", "aarch64"),
    Platform("macos_x86_64", "macos", "x86_64"),
    Platform("windows_amd64", "windows", "x86_64"),
)


def uv_platform(glibc: int, platform: Platform = LINUX_X86_64) -> str:
    return platform.uv(glibc)


def target_tags(python: str, glibc: int, platform: Platform = LINUX_X86_64) -> list[Tag]:
    """The wheel tags a CPython `python` on the platform (Linux: with glibc 2.`glibc`) accepts,
    best first."""
    major, minor = (int(x) for x in python.split(".")[:2])
    platforms = platform.platform_tags(glibc)
    return [
        *cpython_tags((major, minor), platforms=platforms),
        *compatible_tags((major, minor), platforms=platforms),
    ]


def best_wheel(files: Sequence[str], tags: Sequence[Tag]) -> str | None:
    """The file pip would take among `files` for a target with these tags (None: none fits)."""
    rank = {tag: i for i, tag in enumerate(tags)}
    best: tuple[int, str] | None = None
    for name in files:
        try:
            _, _, _, file_tags = parse_wheel_filename(name)
        except InvalidWheelFilename:
            continue
        got = [rank[t] for t in file_tags if t in rank]
        if got and (best is None or min(got) < best[0]):
            best = (min(got), name)
    return best[1] if best else None


def glibc_of(file: str) -> int:
    """The glibc minor a wheel file needs (0 for a pure or non-Linux wheel)."""
    try:
        _, _, _, tags = parse_wheel_filename(file)
    except InvalidWheelFilename:
        return 0
    found = []
    for tag in tags:
        plat = tag.platform
        if plat.startswith("manylinux_2_"):
            found.append(int(plat.split("_")[2]))
        elif plat.startswith("manylinux2014"):
            found.append(17)
        elif plat.startswith("manylinux2010"):
            found.append(12)
        elif plat.startswith("manylinux1"):
            found.append(5)
    return min(found) if found else 0


@dataclass(frozen=True)
class LockedWheel:
    name: str
    version: str
    file: str
    sha256: str
    size: int | None


def read_pylock(text: str, python: str, glibc: int, platform: Platform = LINUX_X86_64) -> list[LockedWheel]:
    """Each package of a uv-written pylock.toml with the wheel the target takes; no URL is kept."""
    data = tomllib.loads(text)
    tags = target_tags(python, glibc, platform)
    out = []
    for pkg in data.get("packages", []):
        name, version = canonical(str(pkg.get("name", ""))), str(pkg.get("version", ""))
        wheels: dict[str, Mapping[str, Any]] = {}
        for wheel in pkg.get("wheels", []) or []:
            file = str(wheel.get("name") or url_file_name(str(wheel.get("url") or wheel.get("path") or "")))
            if file:
                wheels[file] = wheel
        chosen = best_wheel(sorted(wheels), tags)
        if chosen is None:
            raise LockError(f"{name} {version} has no wheel for Python {python}, {platform.uv(glibc)}")
        sha = (wheels[chosen].get("hashes") or {}).get("sha256")
        if not sha:
            raise LockError(f"{chosen}: no sha256 in uv's lock")
        size = wheels[chosen].get("size")
        out.append(LockedWheel(name, version, chosen, str(sha), size if isinstance(size, int) else None))
    return sorted(out, key=lambda w: w.name)


@dataclass(frozen=True)
class Uv:
    argv: tuple[str, ...] = ("uv",)
    verbose: bool = False

    def version(self) -> str:
        try:
            out = subprocess.run([*self.argv, "--version"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return "unknown"
        words = out.stdout.split()
        return words[1] if len(words) > 1 else "unknown"

    def compile(
        self,
        requirements: Sequence[str],
        python: str,
        glibc: int,
        timeout: float = 900,
        platform: Platform = LINUX_X86_64,
    ) -> str:
        """`uv pip compile` for the target, as pylock.toml text."""
        with tempfile.TemporaryDirectory(prefix="harvest-lock-") as tmp:
            src, out = Path(tmp) / "requirements.in", Path(tmp) / "pylock.toml"
            src.write_text("".join(r + "\n" for r in requirements), encoding="utf-8")
            cmd = [
                *self.argv,
                "pip",
                "compile",
                str(src),
                "--python-version",
                python,
                "--python-platform",
                platform.uv(glibc),
                "--only-binary",
                ":all:",
                "--no-header",
                "--quiet",
                "-o",
                str(out),
            ]
            if self.verbose:
                print("  $ uv " + " ".join(cmd[len(self.argv) :]), file=sys.stderr, flush=True)
            env = {**os.environ, "NO_COLOR": "1", "MACOSX_DEPLOYMENT_TARGET": MACOS}
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
            if proc.returncode != 0 or not out.exists():
                tail = "\n".join(proc.stderr.strip().splitlines()[-6:])
                raise LockError(f"uv pip compile failed (exit {proc.returncode}): {strip_urls(tail)}")
            return out.read_text(encoding="utf-8")


def lock_glibc(tf_tag: str) -> int:
    """The lowest uv target at or above what the TF wheel needs, never below DEFAULT_GLIBC."""
    need = max(glibc_of(f"x-1-py3-none-{tf_tag}.whl"), DEFAULT_GLIBC)
    return next(g for g in UV_GLIBCS if g >= need)


def other_targets(entry: Mapping[str, Any], platform: Platform) -> list[tuple[str, int]]:
    """(Python, glibc) for each Python the release has a wheel for on this platform (glibc 0 off
    Linux): harvest.json's platforms entry names the Pythons and one wheel file."""
    found = (entry.get("platforms") or {}).get(platform.key) or {}
    pythons = [str(p) for p in found.get("pythons") or []]
    glibc = 0
    if platform.system == "linux":
        need = max(glibc_of(str(found.get("file") or "")), DEFAULT_GLIBC)
        glibc = next(g for g in UV_GLIBCS if g >= need)
    return [(p, glibc) for p in pythons]


@dataclass
class LockStore:
    """assets/knowledge/locks.json, written deterministically after each lock."""

    path: Path
    data: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> LockStore:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        data.setdefault("tool", TOOL)
        data.setdefault("wheels", {})
        data.setdefault("locks", {})
        return cls(path, data)

    def has(self, dist: str, tf: str, python: str, glibc: int, platform: Platform = LINUX_X86_64) -> bool:
        return platform.uv(glibc) in self.data["locks"].get(dist, {}).get(tf, {}).get(python, {})

    def put(
        self,
        dist: str,
        tf: str,
        python: str,
        glibc: int,
        uv: str,
        wheels: Sequence[LockedWheel],
        platform: Platform = LINUX_X86_64,
    ) -> None:
        packages = {}
        for w in wheels:
            self.data["wheels"][w.file] = {"sha256": w.sha256, **({"size": w.size} if w.size else {})}
            packages[w.name] = {"version": w.version, "file": w.file}
        entry = {
            "requirements": requirements_for(dist, tf),
            "glibc": f"2.{max([glibc_of(w.file) for w in wheels] + [0])}"
            if platform.system == "linux"
            else "0",
            "uv": uv,
            "resolved": today(),
            "packages": packages,
        }
        if platform.system == "macos":
            entry["macos"] = MACOS
        versions = self.data["locks"].setdefault(dist, {})
        versions.setdefault(tf, {}).setdefault(python, {})[platform.uv(glibc)] = entry

    def prune(self, keep: set[str]) -> None:
        """Drop the locks of TF versions the harvest no longer holds, then unused wheels."""
        locks = self.data["locks"]
        for dist in list(locks):
            locks[dist] = {v: e for v, e in locks[dist].items() if v in keep}
        used = {
            p["file"]
            for versions in locks.values()
            for pys in versions.values()
            for plats in pys.values()
            for entry in plats.values()
            for p in entry["packages"].values()
        }
        self.data["wheels"] = {f: w for f, w in self.data["wheels"].items() if f in used}

    def save(self) -> None:
        self.data["harvested"] = today()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)


def harvest_locks(
    tensorflow: Mapping[str, Any],
    store: LockStore,
    uv: Uv,
    log: Callable[[str], None],
    force: bool = False,
    versions: set[str] | None = None,
) -> dict[str, str]:
    """A lock for every harvested TF version x Python with a Linux x86_64 wheel; errors by key."""
    errors: dict[str, str] = {}
    uv_version = uv.version()
    for tf, entry in sorted(tensorflow.items()):
        if versions is not None and tf not in versions:
            continue
        for python, tag in sorted((entry.get("python_tags") or {}).items()):
            glibc = lock_glibc(str(tag))
            for dist in DISTRIBUTIONS:
                if store.has(dist, tf, python, glibc) and not force:
                    continue
                started = time.monotonic()
                try:
                    wheels = read_pylock(uv.compile(requirements_for(dist, tf), python, glibc), python, glibc)
                except (LockError, subprocess.TimeoutExpired, tomllib.TOMLDecodeError) as exc:
                    errors[f"{dist} {tf} cp{python}"] = str(exc)
                    log(f"  ! lock {dist} {tf} Python {python}: {exc}")
                    continue
                store.put(dist, tf, python, glibc, uv_version, wheels)
                store.save()
                took = time.monotonic() - started
                where = f"{dist} {tf} Python {python} {uv_platform(glibc)}"
                log(f"  lock {where}: {len(wheels)} packages ({took:.1f} s)")
    errors.update(harvest_other_locks(tensorflow, store, uv, log, force, versions))
    store.prune(set(tensorflow))
    store.save()
    return errors


def harvest_other_locks(
    tensorflow: Mapping[str, Any],
    store: LockStore,
    uv: Uv,
    log: Callable[[str], None],
    force: bool = False,
    versions: set[str] | None = None,
    platforms: Sequence[Platform] = OTHER_PLATFORMS,
    jobs: int = 6,
) -> dict[str, str]:
    """The `tensorflow` lock for every release x Python with a wheel on each other platform (the
    macOS, aarch64 and Windows plans install it from these); uv runs `jobs` at a time (it waits on
    the index, not the CPU)."""
    from concurrent.futures import ThreadPoolExecutor

    uv_version = uv.version()
    todo = []
    for tf, entry in sorted(tensorflow.items()):
        if versions is not None and tf not in versions:
            continue
        for platform in platforms:
            for python, glibc in other_targets(entry, platform):
                if force or not store.has("tensorflow", tf, python, glibc, platform):
                    todo.append((tf, python, glibc, platform))

    def one(item: tuple[str, str, int, Platform]) -> tuple[str, list[LockedWheel] | str]:
        tf, python, glibc, platform = item
        try:
            text = uv.compile(requirements_for("tensorflow", tf), python, glibc, platform=platform)
            return tf, read_pylock(text, python, glibc, platform)
        except (LockError, subprocess.TimeoutExpired, tomllib.TOMLDecodeError) as exc:
            return tf, str(exc)

    errors: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for item, (tf, got) in zip(todo, pool.map(one, todo)):  # noqa: B905
            _, python, glibc, platform = item
            where = f"tensorflow {tf} Python {python} {platform.uv(glibc)}"
            if isinstance(got, str):
                errors[where] = got
                log(f"  ! lock {where}: {got}")
                continue
            store.put("tensorflow", tf, python, glibc, uv_version, got, platform)
            store.save()
            log(f"  lock {where}: {len(got)} packages")
    return errors


def find_uv() -> tuple[str, ...]:
    found = shutil.which("uv")
    if found:
        return (found,)
    return (sys.executable, "-m", "uv")
