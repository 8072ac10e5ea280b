"""The one download: every wheel of every class's locks, fetched once on the control node.

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

from wizard.choose.lock import Lock, LockLine
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


def wheels_for(lock: Lock, have: dict[str, str]) -> tuple[list[str], list[LockLine]]:
    """The wheel files that satisfy the lock, and the packages none satisfies yet."""
    found: list[str] = []
    missing: list[LockLine] = []
    for package in lock.lines:
        name = next((have[f.sha256] for f in package.files if f.sha256 in have), None)
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


def class_bundle(
    folder: Path, name: str, wheels: list[str], lock_text: str, marker: str
) -> tuple[Path, bool]:
    """One uncompressed tar of a class's wheels and its lock (as `marker`), made the same
    way every time: the playbook copies one file to a host, and a rerun compares one checksum
    instead of one per wheel. Returns (its path, whether it was written now)."""
    import io
    import tarfile

    bundle = folder / "bundles" / f"{name}.tar"
    try:
        with tarfile.open(bundle) as tar:
            if sorted(tar.getnames()) == sorted([*wheels, marker]):
                member = tar.extractfile(marker)
                if member is not None and member.read() == lock_text.encode():
                    return bundle, False
    except (OSError, tarfile.TarError):
        pass
    bundle.parent.mkdir(parents=True, exist_ok=True)
    part = bundle.with_suffix(".part")

    def info(arcname: str, size: int) -> tarfile.TarInfo:
        entry = tarfile.TarInfo(arcname)
        entry.size, entry.mode, entry.mtime = size, 0o644, 0
        return entry

    with tarfile.open(part, "w", format=tarfile.PAX_FORMAT) as tar:
        for wheel in sorted(wheels):
            path = folder / wheel
            with open(path, "rb") as f:
                tar.addfile(info(wheel, path.stat().st_size), f)
        data = lock_text.encode()
        tar.addfile(info(marker, len(data)), io.BytesIO(data))
    os.replace(part, bundle)
    return bundle, True


def pip_command(uv: str | None) -> tuple[str, ...]:
    """pip in the wizard's own environment; where that has none (made by uv), pip run by uv."""
    import importlib.util

    if importlib.util.find_spec("pip") is not None or uv is None:
        return (sys.executable, "-m", "pip")
    return (uv, "tool", "run", "--from", "pip", "pip")


def fetch_missing(
    folder: Path,
    missing: list[LockLine],
    *,
    python: str,
    arch: str,
    glibc: str,
    index_args: tuple[str, ...] = (),
    pip: tuple[str, ...] | None = None,
) -> Fetched:
    """Download exactly the missing packages' wheels (hash-checked) into the wheelhouse."""
    fetched = Fetched()
    if not missing:
        return fetched
    pip = pip or pip_command(None)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".incoming-", dir=folder) as tmp:
        req = Path(tmp) / "missing.txt"
        req.write_text(Lock(tuple(missing)).text(), encoding="utf-8")
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
