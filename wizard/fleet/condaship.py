"""The conda route in a lab: the class's explicit conda lock and the pinned Miniforge installer,
fetched once on the control node and shipped in the class's bundle, each file checked by sha256.

The conda route solves once and installs from an explicit lock (`conda list --explicit --sha256`,
assets/programs/condalock.py). A fleet solves nowhere: the lab puts the lock for the class's
environment into DIR/conda/ (its name says which subdir and which specs it answers; `no lock`
gives the one command that makes it), the control node downloads every package file it names
into DIR/wheelhouse, keeps only those whose sha256 is the lock's, and the hosts install from those
files offline (`condalock.py create --packages`, which checks each sha256 again before conda runs).
The Miniforge installer, where the plan installs it, is fetched the same way and checked against
the sha256 its release publishes (assets/knowledge/installers.toml) on both sides.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import tempfile
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType

from wizard.assets import asset
from wizard.fleet.wheelhouse import sha256_file
from wizard.plan.model import Plan, Step
from wizard.text import t

CONDA_DIR = "conda"  # DIR/conda/: the classes' explicit locks, as the lab made them
SOLVE_PREFIX = "/tmp/tf-gpu-wizard-solve"
DOWNLOAD_TIMEOUT_S = 600
# The host's installer run: the shipped file, checked against the pinned sha256 before it runs.
LOCAL_MINIFORGE_SH = 'set -e; echo "$3  $1" | sha256sum -c -; bash "$1" -b -u -p "$2"'


class ShipError(RuntimeError):
    """The class's conda files cannot be shipped; one line for the user."""


@dataclass(frozen=True)
class CondaNeeds:
    """What a conda plan installs, read from its steps."""

    conda: str
    prefix: str
    lock: str  # where the host's environment lock lives (the step's LOCK)
    specs: tuple[str, ...]
    subdir: str  # linux-64 | linux-aarch64
    installer: tuple[str, str] | None = None  # (URL, sha256) of the pinned Miniforge, where the plan runs it

    @property
    def lock_name(self) -> str:
        """The lab's lock file for exactly this solve: the subdir and the specs, in its name."""
        key = hashlib.sha256("\n".join((self.subdir, *self.specs)).encode()).hexdigest()[:16]
        return f"{self.subdir}-{key}.conda-lock.txt"

    @property
    def installer_file(self) -> str:
        return self.installer[0].rsplit("/", 1)[-1] if self.installer else ""


@dataclass
class Shipped:
    lock_text: str
    lock_digest: str
    lock_file: str  # relative to the project: conda/NAME
    files: list[str] = field(default_factory=list)  # in DIR/wheelhouse: the packages, the installer
    fetched: int = 0
    fetched_bytes: int = 0


def _condalock() -> ModuleType:
    """The host's program, so both sides read an explicit lock by the same rules."""
    path = str(asset("programs/condalock.py"))
    spec = importlib.util.spec_from_file_location("tf_gpu_wizard_condalock", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def subdir_of(arch: str) -> str:
    return "linux-aarch64" if arch in ("aarch64", "arm64") else "linux-64"


def conda_needs(plan: Plan, arch: str) -> CondaNeeds | None:
    """The conda route's facts from the plan's conda-env (and miniforge) step; None for other routes."""
    step = next((s for s in plan.active_steps if s.id == "conda-env"), None)
    if step is None or not step.commands:
        return None
    argv = list(step.commands[0])
    if "create" not in argv:
        return None
    rest = argv[argv.index("create") + 1 :]
    if rest[:1] == ["--channel"]:
        rest = rest[2:]
    if len(rest) < 3:
        return None
    installer = None
    forge = next((s for s in plan.active_steps if s.id == "miniforge"), None)
    if forge is not None and forge.commands and len(forge.commands[0]) >= 7:
        url, sha = forge.commands[0][4], forge.commands[0][6]
        installer = (url, sha)
    return CondaNeeds(rest[0], rest[1], rest[2], tuple(rest[3:]), subdir_of(arch), installer)


def solve_command(needs: CondaNeeds) -> str:
    """The one command that makes the class's lock, on one machine of its subdir with conda."""
    specs = " ".join(shlex.quote(s) for s in needs.specs)
    return (
        f"conda create -y -p {SOLVE_PREFIX} --override-channels -c conda-forge {specs} && "
        f"conda list --explicit --sha256 -p {SOLVE_PREFIX} > {shlex.quote(needs.lock_name)}"
    )


def _package_name(file_name: str) -> str:
    base = file_name.removesuffix(".conda").removesuffix(".tar.bz2")
    return base.rsplit("-", 2)[0]


def read_lock(text: str, needs: CondaNeeds) -> list[tuple[str, str, str]]:
    """(URL, file name, sha256) of every package line; ShipError where the text is not an explicit
    lock with a sha256 on every line, or not the solve of these specs for this subdir."""
    lock = _condalock()
    if lock.packages(text) is None:
        raise ShipError(t("fleet.conda_ship.not_explicit", file=needs.lock_name))
    out = []
    for raw in text.splitlines():
        m = lock._LINE.match(raw.strip())
        if m is not None:
            url = m.group("url")
            out.append((url, url.rsplit("/", 1)[-1], m.group("sha")))
    other = sorted({u.rsplit("/", 2)[-2] for u, _, _ in out} - {needs.subdir, "noarch"})
    if other:
        raise ShipError(
            t("fleet.conda_ship.other_subdir", file=needs.lock_name, subdir=needs.subdir, other=other[0])
        )
    names = {_package_name(name) for _, name, _ in out}
    absent = [s for s in needs.specs if s.split("=", 1)[0].split(" ", 1)[0] not in names]
    if absent:
        raise ShipError(t("fleet.conda_ship.not_this_solve", file=needs.lock_name, spec=absent[0]))
    return out


def on_channel(url: str, channel: str | None) -> str:
    """`url` fetched from a mirror of its channel: same subdir and file name."""
    if not channel:
        return url
    subdir, name = url.rsplit("/", 2)[-2:]
    return f"{channel.rstrip('/')}/{subdir}/{name}"


def fetch_checked(url: str, sha256: str, folder: Path, name: str) -> int:
    """`folder/name` with this sha256: kept where it is there already, else downloaded whole into
    a temporary file, checked, and moved in. Returns the bytes fetched (0: kept). A file whose
    sha256 differs is refused (ShipError) and never lands in `folder`."""
    target = folder / name
    if target.is_file() and sha256_file(target) == sha256:
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".incoming-", dir=folder)
    try:
        size = 0
        try:
            with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as got, os.fdopen(fd, "wb") as out:
                for chunk in iter(lambda: got.read(1 << 20), b""):
                    out.write(chunk)
                    size += len(chunk)
        except (OSError, ValueError) as exc:
            raise ShipError(t("fleet.conda_ship.download_failed", file=name, error=str(exc)[:300])) from None
        have = sha256_file(Path(tmp))
        if have != sha256:
            raise ShipError(t("fleet.conda_ship.refused", file=name, got=have, want=sha256))
        os.replace(tmp, target)
        return size
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def ship(project: Path, needs: CondaNeeds, channel: str | None = None) -> Shipped:
    """Fetch the class's lock's packages and its installer into DIR/wheelhouse, each checked."""
    rel = f"{CONDA_DIR}/{needs.lock_name}"
    try:
        text = (project / rel).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ShipError(
            t(
                "fleet.conda_ship.no_lock",
                subdir=needs.subdir,
                command=solve_command(needs),
                folder=str(project / CONDA_DIR),
            )
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ShipError(t("fleet.conda_ship.not_explicit", file=f"{rel} ({exc})")) from None
    wheelhouse = project / "wheelhouse"
    shipped = Shipped(text, hashlib.sha256(text.encode("utf-8")).hexdigest(), rel)
    wanted = [(on_channel(url, channel), name, sha) for url, name, sha in read_lock(text, needs)]
    if needs.installer:
        wanted.append((needs.installer[0], needs.installer_file, needs.installer[1]))
    for url, name, sha in wanted:
        got = fetch_checked(url, sha, wheelhouse, name)
        shipped.fetched += 1 if got else 0
        shipped.fetched_bytes += got
        shipped.files.append(name)
    return shipped


def offline_step(step: Step, wheelhouse: str) -> Step:
    """A conda plan's step as a host runs it: the installer and the packages from `wheelhouse`
    (what the bundle unpacked), each checked by its sha256 there before it is used."""
    if step.id == "miniforge" and step.commands and len(step.commands[0]) >= 7:
        run = step.commands[0]
        local = f"{wheelhouse}/{run[4].rsplit('/', 1)[-1]}"
        return replace(step, commands=(("bash", "-c", LOCAL_MINIFORGE_SH, "_", local, run[5], run[6]),))
    if step.id == "conda-env" and step.commands and "create" in step.commands[0]:
        argv = list(step.commands[0])
        at = argv.index("create") + 1
        rest = argv[at:]
        if rest[:1] == ["--channel"]:
            rest = rest[2:]
        offline = (*argv[:at], "--packages", wheelhouse, *rest)
        return replace(step, commands=(offline, *step.commands[1:]))
    return step
