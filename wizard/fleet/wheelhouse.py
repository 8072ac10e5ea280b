"""The one download: every wheel of every class's lock, fetched once on the control node.

Wheels already in the wheelhouse whose sha256 the lock names are kept (a rerun downloads
nothing); the missing ones are fetched with pip (`download --require-hashes --no-deps
--only-binary :all:` for the class's Python and platform), which reads the control node's own
pip configuration and takes the chosen mirror as its index. Each download lands in a temporary
folder first and is moved in whole, so a killed download leaves no partial wheel behind.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from wizard.fleet.lockfile import EnvLock, LockedPackage
from wizard.text import t

DOWNLOAD_TIMEOUT_S = 3600


class WheelhouseError(RuntimeError):
    """A wheel could not be fetched; one line for the user."""


@dataclass
class Fetched:
    files: int = 0
    bytes: int = 0
    names: list[str] = field(default_factory=list)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def digests(folder: Path) -> dict[str, str]:
    """sha256 -> wheel file name, for every wheel in the folder."""
    out: dict[str, str] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.whl")):
            out[sha256_file(path)] = path.name
    return out


def wheels_for(lock: EnvLock, have: dict[str, str]) -> tuple[list[str], list[LockedPackage]]:
    """The wheel files that satisfy the lock, and the packages none satisfies yet."""
    found: list[str] = []
    missing: list[LockedPackage] = []
    for package in lock.packages:
        name = next((have[h] for h in package.sha256 if h in have), None)
        if name is None:
            missing.append(package)
        else:
            found.append(name)
    return found, missing


def pip_platforms(arch: str, glibc: str) -> list[str]:
    """pip's --platform values for a glibc host: every manylinux tag it runs (pip does not widen
    manylinux_2_36 to the older tags by itself)."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch)
    try:
        major, minor = (int(x) for x in glibc.split(".")[:2])
    except ValueError:
        major, minor = 2, 17
    tags = [f"manylinux_{major}_{m}_{machine}" for m in range(minor, 4, -1)]
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    tags += [f"{name}_{machine}" for m, name in legacy.items() if m <= minor and major == 2]
    return tags


def fetch_missing(
    folder: Path,
    missing: list[LockedPackage],
    *,
    python: str,
    arch: str,
    glibc: str,
    index_args: tuple[str, ...] = (),
    pip: tuple[str, ...] = (sys.executable, "-m", "pip"),
) -> Fetched:
    """Download exactly the missing packages' wheels (hash-checked) into the wheelhouse."""
    fetched = Fetched()
    if not missing:
        return fetched
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".incoming-", dir=folder) as tmp:
        req = Path(tmp) / "missing.txt"
        lines = [
            f"{p.name}=={p.version} " + " ".join(f"--hash=sha256:{h}" for h in p.sha256) for p in missing
        ]
        req.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out = Path(tmp) / "wheels"
        argv = [
            *pip,
            "download",
            "--quiet",
            "--no-deps",
            "--require-hashes",
            "--only-binary",
            ":all:",
            "--python-version",
            python,
            "--implementation",
            "cp",
            *[a for tag in pip_platforms(arch, glibc) for a in ("--platform", tag)],
            *index_args,
            "-d",
            str(out),
            "-r",
            str(req),
        ]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise WheelhouseError(t("fleet.wheelhouse.failed", error=str(exc))) from None
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["?"])[-1]
            raise WheelhouseError(t("fleet.wheelhouse.failed", error=tail[:400]))
        for path in sorted(out.glob("*.whl")):
            fetched.files += 1
            fetched.bytes += path.stat().st_size
            fetched.names.append(path.name)
            os.replace(path, folder / path.name)
    return fetched
