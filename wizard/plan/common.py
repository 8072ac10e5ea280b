"""Steps every plan shares: Python tooling, the venv, the TensorFlow install, the verify.

Checks are small programs given their values as arguments (`bash -c PROG _ ARG...`,
`python -c PROG ARG...`), never pasted into the program text, so a path with
spaces or quotes, or an odd GPU name, cannot turn into shell code.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePath

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import Candidate, DriverNeed
from wizard.choose.driver_floors import DRIVER_FLOOR_LINUX, DRIVER_FLOOR_WSL, driver_at_least
from wizard.choose.driver_view import need_floor_words, step_title
from wizard.choose.resolver import required_driver
from wizard.plan.gpucheck import check_args, check_script
from wizard.plan.installer import PIP, Installer, choose_installer
from wizard.plan.model import Check, Plan, PlanInputs, Step
from wizard.plan.programs import program
from wizard.profile import UNKNOWN, MachineProfile
from wizard.text import t

# Estimated downloads in MiB (wheel and package sizes of the current releases, rounded up).
SIZE_MIB = {
    "tensorflow": 620,
    "tensorflow-cpu": 260,
    "and-cuda": 2700,  # the nvidia-*-cu12 wheels: cuDNN, cuBLAS, cuFFT, cuSPARSE, NCCL, ...
    "driver": 450,
    "cuda-toolkit": 3000,
    "cudnn": 900,
    "miniforge": 90,
    "conda-cuda": 2500,
    "python": 40,
    "venv-tooling": 5,
    "pip": 2,
}


APT_DISTROS = ("ubuntu", "debian", "linuxmint", "pop")

# `printf min have | sort -V -C` exits 0 when min <= have: a version test with coreutils only.
DRIVER_AT_LEAST_SH = (
    'v=$("$1" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1) '
    '&& [ -n "$v" ] && printf "%s\\n" "$2" "$v" | sort -V -C'
)

# Creating a throwaway venv is the only sure test that venv + ensurepip work (Debian
# ships the venv module without ensurepip's wheels until python3-venv is installed).
VENV_WORKS_SH = 'd=$(mktemp -d) && "$1" -m venv "$d/v" >/dev/null 2>&1; r=$?; rm -rf "$d"; exit "$r"'

# "check REQ..." exits 0 when every requirement ("name[extras]==version" or "name") is installed with
# every file its RECORD lists, for it and for the packages it needs: a regular file of the recorded
# size and sha256 (as rpm -V). A kill during the unpack, a truncated file or a same-size overwrite
# must not pass. "repair REQ..." uninstalls the damaged ones (so the install that follows puts them
# back).
INSTALLED_OK = "installed_ok.py"

# Writes its arguments after the path as the file's lines, whole or not at all (temp, fsync, rename).
WRITE_LINES_PY = (
    "import os, pathlib, sys; p = pathlib.Path(sys.argv[1]); p.parent.mkdir(parents=True, exist_ok=True); "
    "tmp = p.with_name(p.name + '.tmp'); f = open(tmp, 'w', encoding='utf-8'); "
    "f.write(''.join(a + chr(10) for a in sys.argv[2:])); f.flush(); os.fsync(f.fileno()); f.close(); "
    "os.replace(tmp, p)"
)


# TensorFlow once for the verify and the hello proof (assets/programs/tf_proof.py): `cpu HELLO`.
TF_PROOF = "tf_proof.py"
# The verify's proof kept with what it proved (lock, RECORDs, files, driver, GPUs): env_proof.py.
ENV_PROOF = "env_proof.py"

# Run in the target environment's Python, never imported by the wizard (native Windows' CPU plan).
# One line (pasted from `plan` it runs as printed); a CPU set has no GPU to place it elsewhere.
VERIFY_CPU_PY = (
    "import os; os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1'); import tensorflow as tf; "
    "print('TensorFlow', tf.__version__); a = tf.random.uniform((512, 512)); b = tf.matmul(a, a); "
    "print('matmul on', b.device, 'ok, sum =', float(tf.reduce_sum(b)))"
)


def mm(version: str) -> str:
    """'3.12.4' -> '3.12'."""
    return ".".join(version.split(".")[:2])


def cuda_major(cuda: str | None) -> int:
    try:
        return Version(cuda or "12").major
    except InvalidVersion:
        return 12


def driver_floor(candidate: Candidate, wsl: bool) -> str:
    """The resolver's (sourced) minimum driver for this set; the table above when it has none."""

    try:
        floor = required_driver(candidate, "wsl2" if wsl else "linux")
    except Exception:  # a broken knowledge file must not stop the plan view
        floor = None
    if floor:
        return floor
    table = DRIVER_FLOOR_WSL if wsl else DRIVER_FLOOR_LINUX
    return table.get(cuda_major(candidate.set.cuda), table[12])


def version_at_least(text: str, floor: str) -> bool:
    """An OS release against a floor ("22.04"). False, not an error, for one that does not parse."""
    try:
        return Version(text) >= Version(floor)
    except InvalidVersion:
        return False


def driver_ok(profile: MachineProfile, floor: str) -> bool:
    return profile.driver is not None and driver_at_least(profile.driver.version, floor)


def env_python(env_dir: PurePath, windows: bool = False) -> str:
    return str(env_dir / "Scripts" / "python.exe") if windows else str(env_dir / "bin" / "python")


def base_python(profile: MachineProfile, want: str) -> str:
    """The interpreter that creates the venv: the detected one when it is the right minor."""
    exe = profile.python.executable
    if exe not in ("", UNKNOWN) and mm(profile.python.version) == want and profile.python.env != "conda":
        return exe
    return f"python{want}"


def needs_python_change(profile: MachineProfile, candidate: Candidate) -> bool:
    return mm(profile.python.version) != candidate.set.python


def python_steps(
    profile: MachineProfile, candidate: Candidate, installer: Installer | None = None
) -> list[Step]:
    """Install the wanted Python when it is not the current one, and venv/pip tooling."""
    want = candidate.set.python
    installer = installer or choose_installer(profile)
    if installer.is_uv:
        # uv makes venvs without ensurepip and brings a Python of its own: no root needed.
        return [_uv_python_step(installer, want)] if needs_python_change(profile, candidate) else []
    py = base_python(profile, want)
    check = Check(("bash", "-c", VENV_WORKS_SH, "_", py), t("plan.python.proves", python=py))
    if needs_python_change(profile, candidate):
        return [_python_step(profile, want, check)]
    if profile.python.venv_module is True and profile.python.pip is not False:
        return []
    return [_venv_tooling_step(profile, want, py, check)]


def _python_step(profile: MachineProfile, want: str, check: Check) -> Step:
    """The wanted Python: from the deadsnakes PPA on Ubuntu; elsewhere the user installs it."""
    commands: tuple[tuple[str, ...], ...] = ()
    if profile.os.id == "ubuntu":
        why_key, where, manual = "plan.python.why_deadsnakes", "root", None
        commands = (
            ("add-apt-repository", "-y", "ppa:deadsnakes/ppa"),
            apt_install(f"python{want}", f"python{want}-venv"),
        )
    else:
        why_key, where, manual = "plan.python.why_manual", "user", t("plan.python.manual", version=want)
    return Step(
        id="python",
        title=t("plan.python.title", version=want),
        why=t(why_key, version=want, have=profile.python.version),
        where=where,
        commands=commands,
        check=check,
        manual=manual,
        download_mib=SIZE_MIB["python"],
    )


def _uv_python_step(installer: Installer, want: str) -> Step:
    """Python `want` from uv: a standalone build in the home directory, no root, no PPA."""
    return Step(
        id="python",
        title=t("plan.python.title", version=want),
        why=t("plan.python.why_uv", version=want),
        where="user",
        commands=(installer.python_install_command(want),),
        check=Check(installer.python_find_command(want), t("plan.python.proves_uv", version=want)),
        download_mib=SIZE_MIB["python"],
    )


def _venv_tooling_step(profile: MachineProfile, want: str, py: str, check: Check) -> Step:
    """venv and pip for the base Python: apt packages on Debian's family; elsewhere by hand."""
    commands: tuple[tuple[str, ...], ...] = ()
    if profile.os.id in APT_DISTROS:
        pkg = "python3-venv" if py == "python3" or profile.python.executable == py else f"python{want}-venv"
        commands = (apt_install(pkg, "python3-pip"),)
        where, manual, size = "root", None, SIZE_MIB["venv-tooling"]
    else:
        where, manual, size = "user", t("plan.venv_tooling.manual"), 0
    return Step(
        id="python-venv",
        title=t("plan.venv_tooling.title"),
        why=t("plan.venv_tooling.why"),
        where=where,
        commands=commands,
        check=check,
        manual=manual,
        download_mib=size,
    )


def apt_install(*packages: str) -> tuple[str, ...]:
    # env: sudo drops the caller's environment; noninteractive stops debconf from waiting on a prompt.
    return ("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", *packages)


def apt_update() -> tuple[str, ...]:
    return ("apt-get", "update")


def venv_step(
    profile: MachineProfile, inputs: PlanInputs, windows: bool = False, installer: Installer | None = None
) -> Step:
    want = inputs.candidate.set.python
    py = env_python(inputs.venv, windows)
    installer = PIP if windows else (installer or choose_installer(profile))
    if windows:
        # The Windows launcher picks the minor version; python3.X does not exist there.
        commands: tuple[tuple[str, ...], ...] = (
            ("py", f"-{want}", "-m", "venv", str(inputs.venv)),
            (py, "-m", "pip", "install", "--upgrade", "pip"),
        )
    else:
        creator = base_python(profile, want)
        if installer.is_uv and creator == f"python{want}":
            creator = want  # a version: uv finds that Python, or the one it installed
        # With uv: a damaged pip file linked from uv's cache is cleaned from it (--uv), so the
        # install after the repair fetches pip whole rather than relinking the damaged copy.
        uv_opt = ("--uv", installer.uv) if installer.is_uv else ()
        repair = (program(INSTALLED_OK), "repair-env", *uv_opt)
        commands = installer.venv_commands(creator, str(inputs.venv), py, repair)
    # The env's pip proven by running it and by its RECORD digests, not by `import pip` finding a
    # folder: a kill of pip's own upgrade leaves one that imports and does not run.
    check = Check(
        (py, program(INSTALLED_OK), "env", want), t("plan.venv.proves", path=str(inputs.venv), version=want)
    )
    return Step(
        id="venv",
        title=t("plan.venv.title_uv" if installer.is_uv else "plan.venv.title"),
        why=t("plan.venv.why", path=str(inputs.venv)),
        where="user",
        commands=commands,
        check=check,
        download_mib=SIZE_MIB["pip"],
    )


def constraints_for(candidate: Candidate) -> list[str]:
    """The resolver's constraints, plus numpy<2 for releases built before NumPy 2 existed."""
    lines = list(candidate.constraints)
    try:
        old = Version(candidate.set.tensorflow) < Version("2.16")
    except InvalidVersion:
        old = False
    if old and not any(line.startswith("numpy") for line in lines):
        # TF 2.10-2.15 wheels were built against NumPy 1.x; some do not say so in their metadata.
        lines.append("numpy<2")
    return lines


def constraint_commands(
    cand: Candidate, inputs: PlanInputs, py: str
) -> tuple[list[tuple[str, ...]], list[str], str]:
    """The pip constraints this set needs, as (commands that write them, install options, why text)."""
    constraints = constraints_for(cand)
    if not constraints:
        return [], [], ""
    cfile = str(inputs.venv / "tf-gpu-wizard-constraints.txt")
    reasons = list(cand.constraint_reasons)
    if len(constraints) > len(cand.constraints):
        reasons.append(t("plan.tensorflow.numpy_reason"))
    why = " " + t("plan.tensorflow.why_constraints", reasons=" ".join(reasons))
    return [(py, "-c", WRITE_LINES_PY, cfile, *constraints)], ["-c", cfile], why


def tensorflow_step(
    profile: MachineProfile,
    inputs: PlanInputs,
    *,
    extra: str = "",
    distribution: str = "tensorflow",
    python: str | None = None,
    installer: Installer | None = None,
) -> Step:
    """pip (or uv) install TensorFlow into the environment, with the resolver's constraints file."""
    cand = inputs.candidate
    py = python or env_python(inputs.venv, profile.platform == "windows")
    requirement = f"{distribution}{extra}=={cand.set.tensorflow}"
    commands: list[tuple[str, ...]] = []
    installer = installer or choose_installer(profile)
    install = list(installer.install_command(py))
    why = t(f"plan.tensorflow.why{'_and_cuda' if extra else ''}", version=cand.set.tensorflow)
    written, options, reasons = constraint_commands(cand, inputs, py)
    commands += written
    install += options
    why += reasons
    commands.append((*install, requirement))
    wanted = [f"{distribution}=={cand.set.tensorflow}"]
    if extra == "[and-cuda]":
        wanted.append(f"nvidia-cudnn-cu{cuda_major(cand.set.cuda)}")
    size = SIZE_MIB.get(distribution, SIZE_MIB["tensorflow"]) + (SIZE_MIB["and-cuda"] if extra else 0)
    # The requirement with its extra: the check follows the [and-cuda] wheels too.
    checked = [requirement, *wanted[1:]]
    # First: a package an interrupted pip left half-unpacked is uninstalled, so pip puts it back.
    # With uv: a damaged file linked from uv's cache means the cached copy is damaged too (--uv).
    uv_opt = ("--uv", installer.uv) if installer.is_uv else ()
    commands.insert(0, (py, program(INSTALLED_OK), "repair", *uv_opt, *checked))
    return Step(
        id="tensorflow",
        title=t(f"plan.tensorflow.title{'_uv' if installer.is_uv else ''}", requirement=requirement),
        why=why,
        where="user",
        commands=tuple(commands),
        check=Check(
            (py, program(INSTALLED_OK), "check", *checked),
            t("plan.tensorflow.proves", what=", ".join(wanted)),
        ),
        download_mib=size,
    )


# The driver's compile cache for a GPU that runs TensorFlow through PTX (Candidate.jit_ptx): 4 GiB,
# set for the verify (the first start, which fills it) and the hello proof (the second, which
# must find it full); the default 1 GiB is too small for a TF build's PTX compiled for one GPU.
CUDA_CACHE_BYTES = "4294967296"
# The hello script's proof that the cache held: the second start must train within this many seconds.
SECOND_START_LIMIT_S = "300"


def cache_env(inputs: PlanInputs, *, second_start: bool = False) -> tuple[str, ...]:
    """`env CUDA_CACHE_MAXSIZE=...` before a command that starts TensorFlow on a PTX-only GPU."""
    cand = inputs.candidate
    if not cand.jit_ptx or cand.set.method == "cpu" or re.match(r"^([A-Za-z]:\\|%)", str(inputs.venv)):
        return ()
    limit = (f"TF_GPU_WIZARD_SECOND_START={SECOND_START_LIMIT_S}",) if second_start else ()
    return ("env", f"CUDA_CACHE_MAXSIZE={CUDA_CACHE_BYTES}", *limit)


def verify_step(
    inputs: PlanInputs,
    *,
    gpu: bool,
    prefix: tuple[str, ...] = (),
    windows: bool = False,
    python: str | None = None,
    driver_cuda: str | None = None,
    hello: str = "",
) -> Step:
    """The GPU check (assets/checks/tf_gpu_check.py) or a CPU matmul; the command is its own
    check, so the runner runs it once. `hello` (a CPU plan): the hello script's path, run by
    tf_proof.py in the same process after the matmul, so that TensorFlow starts once for both
    proofs (the hello step's check then finds it recorded: last_mile.hello_step)."""
    py = python or env_python(inputs.venv, windows)
    if gpu:
        argv = (*cache_env(inputs), *prefix, py, check_script(), *check_args(inputs.candidate, driver_cuda))
    elif hello:
        argv = (*prefix, py, program(TF_PROOF), "cpu", hello)
    else:
        argv = (*prefix, py, "-c", VERIFY_CPU_PY)
    proves = t("plan.verify.proves_gpu" if gpu else "plan.verify.proves_cpu")
    recheck: Check | None = None  # without: the command is its own check, run once, always
    if not prefix and not windows:
        # A re-apply with nothing changed starts no TensorFlow: the proof is kept with what it
        # proved (assets/programs/env_proof.py), and runs again when one of those changed.
        mode = "gpu" if gpu else "cpu"
        kept = t("plan.verify_proof.proves", proves=proves)
        recheck = Check((py, program(ENV_PROOF), "check", mode, "--", *argv), kept)
        argv = (py, program(ENV_PROOF), "prove", mode, "--", *argv)
    return Step(
        id="verify",
        title=t("plan.verify.title_gpu" if gpu else "plan.verify.title_cpu"),
        why=t(
            "plan.verify.why_gpu" if gpu else "plan.verify.why_cpu_hello" if hello else "plan.verify.why_cpu"
        ),
        where="user",
        commands=(argv,),
        check=Check(argv, proves),
        check_before=recheck is not None,
        recheck=recheck,
        alongside_previous_check=True,  # it only reads the environment the step before proves
    )


def driver_check(floor: str, nvidia_smi: str = "nvidia-smi") -> Check:
    return Check(
        ("bash", "-c", DRIVER_AT_LEAST_SH, "_", nvidia_smi, floor),
        t("plan.driver.proves", floor=floor),
    )


def machine_fix_step(step_id: str, need: DriverNeed, check: Check) -> Step:
    """The step that fixes a stopped machine (a DriverNeed with a state's fix): the state's title,
    its fix as the why, the exact commands to copy as the manual part; a restart where that is the
    fix. Nothing is installed over the installed driver, and nothing runs unseen: the commands
    (Secure Boot's key, a container's --gpus all) are the person's to type."""
    fix = need.fix
    assert fix is not None
    where = fix.where if fix.where in ("user", "root", "windows-host") else "user"
    return Step(
        id=step_id,
        title=step_title(need),  # "Fix first: <the state>": the why does not say the state again
        why=t("fixstep.why", fix=fix.fix, need=need_floor_words(need)),
        where=where,
        commands=(),
        check=check,
        restart=fix.restart,
        manual=fix.manual or None,
        manual_copy=fix.copy,
    )


# A name from a machine or a profile (a GPU's, a label) in a plan: the same bound detect and
# recommend give it (wizard.safe.display's default), so no output of the plan floods.
NAME_LIMIT = 200


def bounded(value: str) -> str:
    """A profile's string as the plan carries it: control characters visible, at most NAME_LIMIT."""
    from wizard.safe.display import safe

    return safe(value, NAME_LIMIT)


def machine_label(profile: MachineProfile) -> str:
    if profile.label:
        return bounded(profile.label)
    parts = [profile.os.name if profile.os.name != UNKNOWN else profile.platform]
    parts += [g.name for g in profile.gpus[:1]]
    return bounded(", ".join(parts))


def assemble_plan(profile: MachineProfile, inputs: PlanInputs, steps: list[Step], notes: list[str]) -> Plan:
    """The Plan of a builder's steps and notes; step ids are unique (`Plan.step` finds steps by id)."""
    ids = [s.id for s in steps]
    assert len(ids) == len(set(ids)), f"duplicate step ids: {ids}"
    windows = profile.platform == "windows"
    if windows:  # typed in PowerShell: its quoting, its prompt
        steps = [replace(s, console="powershell") for s in steps]
    return Plan(
        set=inputs.candidate.set,
        platform=profile.platform,
        venv=str(inputs.venv),
        python=env_python(inputs.venv, windows),
        steps=tuple(steps),
        notes=tuple(notes + inputs.extra_notes),
        simulated=profile.simulated,
        label=machine_label(profile),
    )
