"""Ask pip, as this machine configures it, what exists and what it would install.

Only pip's own commands are used (``index versions``, ``install --dry-run --report``, ``download``),
so whatever index and mirrors the machine is set up with apply. Nothing here names an index: a
wheel is cited by file name and sha256, and every URL is stripped from what pip prints or reports.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>)]+")
NO_MATCH = ("No matching distribution found", "Could not find a version that satisfies")


def strip_urls(text: str) -> str:
    """Replace URLs with their last path part (a file name at most) so no index host is kept."""
    return URL.sub(lambda m: "<" + (url_file_name(m.group(0)) or "url") + ">", text)


def url_file_name(url: str) -> str:
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def manylinux_platforms(arch: str = "x86_64", glibc_max: int = 35) -> list[str]:
    """Every manylinux tag a host with glibc 2.<glibc_max> accepts, most specific first (as pip does)."""
    tags: list[str] = []
    for minor in range(glibc_max, 4, -1):
        tags.append(f"manylinux_2_{minor}_{arch}")
        legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}.get(minor)
        if legacy and (minor == 17 or arch in ("x86_64", "i686")):
            tags.append(f"{legacy}_{arch}")
    return tags


# Platforms for which only existence (and one file) is recorded.
OTHER_PLATFORMS: dict[str, list[str]] = {
    "linux_aarch64": manylinux_platforms("aarch64"),
    "macos_arm64": ["macosx_15_0_arm64"],  # pip widens this to 11.0 .. 15.0 and universal2
    "macos_x86_64": ["macosx_15_0_x86_64"],
    "windows_amd64": ["win_amd64"],
}


class PipError(RuntimeError):
    pass


@dataclass(frozen=True)
class Pip:
    """How pip is run; fast_deps lets a new pip read metadata by range requests instead of downloading."""

    argv: tuple[str, ...] = (sys.executable, "-m", "pip")
    fast_deps: bool = True
    verbose: bool = False

    def run(self, args: Sequence[str], timeout: float = 3600) -> subprocess.CompletedProcess[str]:
        cmd = [*self.argv, *args]
        if self.verbose:
            print("  $ pip " + " ".join(args), file=sys.stderr, flush=True)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)

    def version(self) -> str:
        out = self.run(["--version"]).stdout.split()
        return out[1] if len(out) > 1 else "unknown"


def _target_args(python_version: str, platforms: Sequence[str]) -> list[str]:
    args = ["--only-binary=:all:", "--python-version", python_version]
    for tag in platforms:
        args += ["--platform", tag]
    return args


def _fail(proc: subprocess.CompletedProcess[str], what: str) -> PipError:
    tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
    return PipError(f"pip {what} failed (exit {proc.returncode}): {strip_urls(tail)}")


def _no_match(proc: subprocess.CompletedProcess[str]) -> bool:
    text = proc.stderr + proc.stdout
    return any(marker in text for marker in NO_MATCH)


def parse_index_versions(text: str) -> list[str]:
    for line in text.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
    return []


def index_versions(pip: Pip, package: str, python_version: str, platforms: Sequence[str]) -> list[str]:
    """Versions that have a wheel for this Python and these platforms (no download); pre-releases
    too (the harvest records a coming release as a preview; the wizard shows it only when asked)."""
    proc = pip.run(["index", "versions", package, "--pre", *_target_args(python_version, platforms)])
    if proc.returncode != 0:
        if _no_match(proc) or "No matching distribution" in proc.stderr:
            return []
        raise _fail(proc, f"index versions {package}")
    return parse_index_versions(proc.stdout)


@dataclass(frozen=True)
class Resolved:
    """One line of a pip report: what pip would install, cited without its URL."""

    name: str
    version: str
    file: str
    sha256: str | None
    requires_python: str | None = None
    requires_dist: tuple[str, ...] = field(default_factory=tuple)
    requested: bool = False

    def to_json(self) -> dict[str, object]:
        return {"version": self.version, "file": self.file, "sha256": self.sha256}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_report(report: Mapping[str, Any]) -> list[Resolved]:
    """The install list of a ``pip install --report`` (version 1) without any URL."""
    if str(report.get("version")) != "1":
        raise PipError(f"unknown pip report version {report.get('version')!r}")
    items = report.get("install")
    if not isinstance(items, list):
        raise PipError("pip report has no install list")
    out = []
    for item in items:
        meta = item.get("metadata", {})
        info = item.get("download_info", {})
        hashes = info.get("archive_info", {}).get("hashes", {})
        sha = hashes.get("sha256")
        if sha is None and "hash" in info.get("archive_info", {}):
            algo, _, value = info["archive_info"]["hash"].partition("=")
            sha = value if algo == "sha256" else None
        out.append(
            Resolved(
                name=canonical(meta.get("name", "")),
                version=str(meta.get("version", "")),
                file=url_file_name(str(info.get("url", ""))),
                sha256=sha,
                requires_python=meta.get("requires_python"),
                requires_dist=tuple(meta.get("requires_dist", []) or []),
                requested=bool(item.get("requested")),
            )
        )
    return sorted(out, key=lambda r: r.name)


def dry_run(
    pip: Pip,
    requirement: str | Sequence[str],
    python_version: str,
    platforms: Sequence[str],
    deps: bool = False,
) -> list[Resolved] | None:
    """``pip install --dry-run --report`` for a foreign target; None when no wheel matches."""
    with tempfile.TemporaryDirectory(prefix="harvest-dry-") as tmp:
        report = Path(tmp) / "report.json"
        args = [
            "install",
            "--dry-run",
            "--ignore-installed",
            "--no-cache-dir",
            "--quiet",
            *_target_args(python_version, platforms),
            "--target",
            str(Path(tmp) / "target"),
            "--report",
            str(report),
        ]
        if pip.fast_deps:
            args.append("--use-feature=fast-deps")
        if not deps:
            args.append("--no-deps")
        requirements = [requirement] if isinstance(requirement, str) else list(requirement)
        proc = pip.run([*args, *requirements])
        if proc.returncode != 0:
            if _no_match(proc):
                return None
            raise _fail(proc, f"install --dry-run {' '.join(requirements)}")
        return read_report(json.loads(report.read_text()))


def download(pip: Pip, requirement: str, python_version: str, platforms: Sequence[str], dest: Path) -> Path:
    """``pip download --no-deps`` of exactly one wheel into a fresh folder under dest.

    The caller deletes the wheel's folder when done (wheels run to gigabytes).
    """
    dest.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="wheel-", dir=dest))
    args = ["download", "--no-deps", "--no-cache-dir", "--quiet", "-d", str(folder)]
    proc = pip.run([*args, *_target_args(python_version, platforms), requirement])
    wheels = sorted(folder.glob("*.whl"))
    if proc.returncode != 0 or len(wheels) != 1:
        shutil.rmtree(folder, ignore_errors=True)
        if proc.returncode != 0:
            raise _fail(proc, f"download {requirement}")
        raise PipError(f"expected one wheel for {requirement}, got {[p.name for p in wheels]}")
    return wheels[0]
