"""The small programs a plan's steps run (assets/programs/), as files a command can name.

A step names its program by path (`bash .../shellblock.sh add ...`, `python .../installed_ok.py
check ...`), so every command `plan` prints pastes and runs as printed: no multi-line `-c` text.
The files live in the wizard's data folder (`paths.data_dir()/programs`), written whole when
missing or different, so they stay where the commands say even if the wizard is reinstalled
elsewhere; where that folder cannot be written, the installed asset itself is named. The
exported script carries the programs inside itself (`embedded`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePath, PureWindowsPath

from wizard.assets import asset, list_assets
from wizard.paths import data_dir
from wizard.plan.demo_paths import demo_home, demo_programs_dir, is_demo_programs_dir
from wizard.safe.atomic import WriteError, write_bytes_atomic

FOLDER = "programs"
# Lock files a plan installs from (wizard.choose.lock), beside the programs: `locks/<sha256>.txt`.
LOCKS = "locks"
# Programs that run another of ours (by its path beside them): the script carries both.
NEEDS = {
    "lockfile.py": ("installed_ok.py",),
    "env_proof.py": ("installed_ok.py",),
    "tf_proof.py": ("installed_ok.py",),  # its state-file opener (no_wait) is installed_ok.py's
    "tf_gpu_check.py": ("tf_cuda_libs.py", "tf_train_probe.py"),
}


def names() -> list[str]:
    return [n for n in list_assets(FOLDER) if n.endswith((".py", ".sh"))]


def program_bytes(name: str) -> bytes:
    if name.startswith(LOCKS + "/"):
        return (programs_dir() / name).read_bytes()
    return asset(f"{FOLDER}/{name}").read_bytes()


def lock_source(text: str) -> str:
    """The path of a lock's text in the programs folder, named by its sha256 (written when missing).

    The plan's step copies it beside the environment after checking that digest, so the command
    stays short and the file installed is the one the plan showed."""
    data = text.encode("utf-8")
    name = f"{LOCKS}/{hashlib.sha256(data).hexdigest()[:16]}.txt"
    target = programs_dir() / name
    try:
        if not target.is_file() or target.read_bytes() != data:
            write_bytes_atomic(target, data, mode=0o644, make_parents=True, follow_links=False)
    except (OSError, WriteError):
        pass  # the step's own digest check then fails with one clear line
    return _shown(name, str(target))


def _shown(name: str, real: str) -> str:
    """`real`, or in a demo plan the same program in the demo user's programs folder."""
    home = demo_home()
    return str(demo_programs_dir(home).joinpath(*name.split("/"))) if home is not None else real


def programs_dir() -> Path:
    """The data folder's programs/, or TF_GPU_WIZARD_PROGRAMS (one shared folder: a lab image, tests)."""
    shared = os.environ.get("TF_GPU_WIZARD_PROGRAMS")
    return Path(shared) if shared else data_dir() / FOLDER


def program(name: str) -> str:
    """The path of program `name`, written into the data folder first when it is not there as shipped."""
    if name not in names():
        raise KeyError(name)
    for needed in NEEDS.get(name, ()):  # run by path from beside it: it must be there too
        program(needed)
    data = program_bytes(name)
    target = programs_dir() / name
    try:
        if not target.is_file() or target.read_bytes() != data:
            write_bytes_atomic(target, data, mode=0o644, make_parents=True, follow_links=False)
        return _shown(name, str(target))
    except (OSError, WriteError):
        return _shown(name, str(asset(f"{FOLDER}/{name}")))


def program_name(arg: str) -> str | None:
    """`arg`'s program name when it is the path of one of ours (for the exported script): in this
    machine's programs folder, the installed assets, or a demo plan's programs folder."""
    path: PurePath = PureWindowsPath(arg) if "\\" in arg else Path(arg)
    ours = (programs_dir(), Path(str(asset(FOLDER))))
    if path.parent.name == LOCKS and path.suffix == ".txt":
        mine = path.parent.parent == programs_dir() or is_demo_programs_dir(path.parent.parent)
        return f"{LOCKS}/{path.name}" if mine and (programs_dir() / LOCKS / path.name).is_file() else None
    if path.name not in names():
        return None
    return path.name if path.parent in ours or is_demo_programs_dir(path.parent) else None


def embedded(argvs: list[tuple[str, ...]]) -> list[str]:
    """The programs these commands name, in order of first use."""
    seen: list[str] = []
    for argv in argvs:
        for arg in argv:
            name = program_name(arg)
            for needed in (*NEEDS.get(name or "", ()), name):
                if needed and needed not in seen:
                    seen.append(needed)
    return seen
