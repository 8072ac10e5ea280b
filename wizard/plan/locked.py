"""The locked install: the lock file beside the environment, then exactly its wheels.

Whole-environment lock (recorded for this TensorFlow, Python and glibc; wizard.choose.lock):
1. `lockfile.py place SRC DEST SHA256` copies the lock (every package, `==` and sha256) from
   the wizard's programs folder to <venv>/tf-gpu-wizard.lock.txt, refusing a file whose digest
   is not the one the plan shows; `plan --script` carries the lock text inside itself;
2. `lockfile.py repair DEST`: a package an interrupted install left half-unpacked is removed;
3. `pip install --require-hashes --no-deps -r DEST`: those files and no others.
The check (`lockfile.py check DEST SHA256`) proves the lock is the plan's and every package in it
is installed whole, so applying the plan again skips the step and downloads nothing.

No lock recorded (another Python, an old glibc): with uv, `lockfile.py compile` resolves one on
the machine (the uv command is printed) from TensorFlow and the nvidia pins, then installs it the
same way; with pip, the nvidia-only lock is installed hashed and TensorFlow's other packages after.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from wizard.choose.lock import LOCK_NAME, Lock, family_of
from wizard.plan.common import (
    INSTALLED_OK,
    SIZE_MIB,
    constraint_commands,
    constraints_for,
    env_python,
)
from wizard.plan.installer import Installer, choose_installer
from wizard.plan.model import Check, PlanInputs, Step
from wizard.plan.programs import lock_source, program
from wizard.profile import MachineProfile
from wizard.text import t

LOCKFILE = "lockfile.py"
# uv's --python-platform names for Linux x86_64 (`uv pip compile --help`).
UV_GLIBCS = (17, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)
PACKAGES_SHOWN = 60  # the plan lists every package of a lock up to this many


def lock_path(inputs: PlanInputs) -> str:
    return str(inputs.venv / LOCK_NAME)


def listing(lock: Lock) -> str:
    """`absl-py 2.5.1, astunparse 1.6.3, ...`: what the plan shows of the lock."""
    shown = [f"{line.name} {line.version}" for line in lock.lines[:PACKAGES_SHOWN]]
    more = len(lock.lines) - len(shown)
    return ", ".join(shown) + (f", … (+{more})" if more > 0 else "")


def repair_command(py: str, path: str, installer: Installer) -> tuple[str, ...]:
    """Uninstall what an interrupted install left damaged; with uv, a damaged file linked from its
    cache means the cached copy is damaged too: `--uv` cleans those packages from the cache, so the
    install fetches them again instead of linking the same damaged bytes back."""
    uv_opt = ("--uv", installer.uv) if installer.is_uv and installer.uv else ()
    return (py, program(LOCKFILE), "repair", *uv_opt, path)


def place_commands(py: str, lock: Lock, path: str, installer: Installer) -> list[tuple[str, ...]]:
    return [
        (py, program(LOCKFILE), "place", lock_source(lock.text()), path, lock.digest),
        repair_command(py, path, installer),
    ]


def locked_environment_step(
    profile: MachineProfile,
    inputs: PlanInputs,
    lock: Lock,
    installer: Installer | None = None,
    *,
    python: str | None = None,
) -> Step:
    """Install a whole-environment lock (GPU or CPU); `python`: the environment's interpreter
    where it is not <venv>/bin/python (native Windows, a conda environment)."""
    cand = inputs.candidate
    py = python or env_python(inputs.venv, profile.platform == "windows")
    installer = installer or choose_installer(profile)
    path = lock_path(inputs)
    nvidia = sum(1 for line in lock.lines if line.name.startswith("nvidia-"))
    target = lock.target
    fields = {
        "version": cand.set.tensorflow,
        "count": len(lock.lines),
        "nvidia": nvidia,
        "rest": len(lock.lines) - nvidia,
        "python": target.python if target else cand.set.python,
        "glibc": target.glibc if target else "?",
        "path": path,
        "digest": lock.digest[:16],
        "packages": listing(lock),
        "cuda": cand.set.cuda or "?",
        "cudnn": cand.set.cudnn or "?",
        "target": _target_words(lock),
    }
    gpu = cand.set.method == "pip-and-cuda"
    why_key = "plan.lock.why" if gpu else "plan.lock.why_cpu"
    if cand.set.method in ("system-cuda", "conda"):
        why_key = (
            "plan.lock_routes.why_system"
            if cand.set.method == "system-cuda"
            else "plan.lock_routes.why_conda"
        )
    elif not gpu and target is not None and target.family != "linux-x86_64":
        why_key = "plan.lock_routes.why_cpu_other"
    commands = [
        *place_commands(py, lock, path, installer),
        installer.install_command(py, "--require-hashes", "--no-deps", "-r", path),
    ]
    size = SIZE_MIB["tensorflow"] + SIZE_MIB["and-cuda"] if gpu else SIZE_MIB["tensorflow-cpu"]
    if not gpu and not any(line.name == "tensorflow-cpu" for line in lock.lines):
        size = SIZE_MIB["tensorflow"]  # the whole tensorflow wheel (macOS, aarch64, Windows; CUDA routes)
    return Step(
        id="tensorflow",
        title=t("plan.lock.title" if gpu or cand.set.method != "cpu" else "plan.lock.title_cpu", **fields),
        why=t(why_key, **fields),
        where="user",
        commands=tuple(commands),
        check=Check((py, program(LOCKFILE), "check", path, lock.digest), t("plan.lock.proves", **fields)),
        download_mib=size,
    )


def _target_words(lock: Lock) -> str:
    """ "Python 3.12 on macOS 12.0+ (arm64)", "Python 3.11 on Linux aarch64 with glibc 2.28 or newer"."""
    target = lock.target
    if target is None:
        return "?"
    system, _, arch = target.family.partition("-")
    if system == "macos" and arch == "aarch64":
        arch = "arm64"  # Apple's word for it
    if system == "linux":
        return t("plan.lock_routes.target_linux", python=target.python, arch=arch, glibc=target.glibc)
    return t("plan.lock_routes.target_other", python=target.python, arch=arch, system=target.system)


def unlocked_note(profile: MachineProfile, inputs: PlanInputs) -> str:
    """One line where a plan installs TensorFlow without a recorded lock, with why."""
    cand = inputs.candidate
    if family_of(profile.platform, profile.arch) is None:
        why = t("plan.lock_routes.no_family", platform=profile.platform, arch=profile.arch)
    else:
        why = t("plan.lock_routes.not_recorded", version=cand.set.tensorflow, python=cand.set.python)
    return t("plan.lock_routes.unlocked", why=why)


def uv_platform(glibc: str) -> str:
    """The newest uv Linux x86_64 target this glibc runs ("2.35" -> x86_64-manylinux_2_35)."""
    try:
        minor = Version(glibc).minor if Version(glibc).major == 2 else 17
    except InvalidVersion:
        minor = 17
    best = max((g for g in UV_GLIBCS if g <= minor), default=17)
    return "x86_64-manylinux2014" if best == 17 else f"x86_64-manylinux_2_{best}"


def compiled_lock_step(profile: MachineProfile, inputs: PlanInputs, lock: Lock, installer: Installer) -> Step:
    """No recorded lock: uv resolves the whole environment here, hashed, then it is installed."""
    cand = inputs.candidate
    py = env_python(inputs.venv)
    path = lock_path(inputs)
    extra = [c for c in constraints_for(cand) if not c.startswith("nvidia-")]
    requirements = [*lock.requirements, *extra]
    fields = {
        "version": cand.set.tensorflow,
        "count": len(lock.lines) - 1,
        "python": cand.set.python,
        "glibc": profile.os.glibc,
        "path": path,
        "cuda": cand.set.cuda or "?",
        "cudnn": cand.set.cudnn or "?",
    }
    platform = uv_platform(profile.os.glibc)
    commands = [
        (py, program(LOCKFILE), "compile", path, installer.uv, cand.set.python, platform, *requirements),
        repair_command(py, path, installer),
        installer.install_command(py, "--require-hashes", "--no-deps", "-r", path),
    ]
    return Step(
        id="tensorflow",
        title=t("plan.lock.title_compile", **fields),
        why=t("plan.lock.why_compile", **fields),
        where="user",
        commands=tuple(commands),
        check=Check(
            (py, program(INSTALLED_OK), "check", *lock.requirements), t("plan.lock.proves_compile", **fields)
        ),
        download_mib=SIZE_MIB["tensorflow"] + SIZE_MIB["and-cuda"],
    )


def locked_tensorflow_step(
    profile: MachineProfile, inputs: PlanInputs, lock: Lock, installer: Installer | None = None
) -> Step:
    """The pip-and-cuda install from its lock: whole when recorded, else compiled here (uv) or the
    nvidia-only lock with TensorFlow's other packages after it (pip)."""
    installer = installer or choose_installer(profile)
    if lock.complete:
        return locked_environment_step(profile, inputs, lock, installer)
    if installer.is_uv and installer.uv:
        return compiled_lock_step(profile, inputs, lock, installer)
    cand = inputs.candidate
    py = env_python(inputs.venv)
    path = lock_path(inputs)
    wanted = lock.requirements
    nvidia = len(wanted) - 1
    hashes = ("--require-hashes",) if lock.hashed else ()
    commands: list[tuple[str, ...]] = [
        # A package an interrupted pip left half-unpacked is uninstalled first, so pip puts it back.
        (py, program(INSTALLED_OK), "repair", *wanted),
        (py, program(LOCKFILE), "place", lock_source(lock.text()), path, lock.digest),
        installer.install_command(py, *hashes, "--no-deps", "-r", path),
    ]
    rest = list(installer.install_command(py))
    why = t(
        "plan.tensorflow.why_lock" if lock.hashed else "plan.tensorflow.why_lock_unhashed",
        path=path,
        version=cand.set.tensorflow,
        missing=", ".join(lock.missing),
    )
    written, options, reasons = constraint_commands(cand, inputs, py)
    commands += written
    rest += options
    why += reasons
    commands.append((*rest, f"tensorflow=={cand.set.tensorflow}"))
    return Step(
        id="tensorflow",
        title=t(
            "plan.tensorflow.title_lock",
            version=cand.set.tensorflow,
            count=nvidia,
            cuda=cand.set.cuda or "?",
            cudnn=cand.set.cudnn or "?",
        ),
        why=why,
        where="user",
        commands=tuple(commands),
        check=Check(
            (py, program(INSTALLED_OK), "check", *wanted),
            t("plan.tensorflow.proves_lock", version=cand.set.tensorflow, count=nvidia, path=path),
        ),
        download_mib=SIZE_MIB["tensorflow"] + SIZE_MIB["and-cuda"],
    )
