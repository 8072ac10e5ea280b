"""The conda plan: an existing conda, or Miniforge in the home directory (one pinned release,
checked against its published sha256 before it runs); CUDA libraries from conda-forge through an
explicit lock (assets/programs/condalock.py: solved once on the first machine, then every install
from `conda list --explicit --sha256`); TensorFlow from pip inside the environment, from the
recorded lock when there is one; environment.yml exported."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path, PurePath

from wizard.choose.choice import Candidate
from wizard.choose.installers import pinned, release
from wizard.choose.lock import machine_lock
from wizard.choose.resolver import conda_packages
from wizard.plan.common import (
    SIZE_MIB,
    WRITE_LINES_PY,
    assemble_plan,
    cuda_major,
    env_python,
    tensorflow_step,
    venv_step,
    verify_step,
)
from wizard.plan.last_mile import CUDA_CACHE_BYTES, last_mile_steps
from wizard.plan.linux import host_steps
from wizard.plan.locked import locked_environment_step, unlocked_note
from wizard.plan.model import Check, Plan, PlanInputs, Step
from wizard.plan.programs import program
from wizard.profile import UNKNOWN, MachineProfile
from wizard.text import t

# $1 the pinned release's URL, $2 the prefix, $3 its sha256: the installer runs only if it matches.
MINIFORGE_SH = (
    'set -e; d=$(mktemp -d); trap \'rm -rf "$d"\' EXIT; curl -fsSLo "$d/miniforge.sh" "$1"; '
    'echo "$3  $d/miniforge.sh" | sha256sum -c -; bash "$d/miniforge.sh" -b -u -p "$2"'
)
CONDA_LOCK = "condalock.py"

# What `conda activate` sets: TF finds the conda-forge CUDA libraries and libdevice.
ACTIVATE_BODY = (
    'export LD_LIBRARY_PATH="$CONDA_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n'
    'export XLA_FLAGS="--xla_gpu_cuda_data_dir=$CONDA_PREFIX"\n'
)

# Checks on native Windows cannot use bash or coreutils; the Python that runs the wizard can.
EXISTS_PY = "import glob, sys; sys.exit(0 if glob.glob(sys.argv[1]) else 1)"

# TensorFlow 2.10, the last release with GPU support on native Windows, was built against these.
WINDOWS_CUDA, WINDOWS_CUDNN = "11.2", "8.1"


def existing_conda(profile: MachineProfile) -> str | None:
    """conda of the detected conda Python (…/envs/NAME/bin/python or …/bin/python)."""
    exe = profile.python.executable
    if profile.python.env != "conda" or exe in ("", UNKNOWN):
        return None
    parts = Path(exe).parts
    base = Path(*parts[: parts.index("envs")]) if "envs" in parts else Path(exe).parent.parent
    return str(base / "bin" / "conda")


def cuda_packages(candidate: Candidate, cuda: str, cudnn: str) -> list[str]:

    # The resolver's list is the reference; it starts with python=X, which the plan adds itself.
    specs = [s for s in conda_packages(candidate) if not s.startswith("python=")]
    if specs:
        return specs
    if cuda_major(cuda) < 12:
        return [f"cudatoolkit={cuda}", f"cudnn={cudnn}"]
    # CUDA 12 on conda-forge is split into one package per library, tied by cuda-version.
    return [
        f"cuda-version={cuda}",
        "cuda-cudart",
        "cuda-cupti",
        "cuda-nvcc",
        "cuda-nvrtc",
        "libcublas",
        "libcufft",
        "libcurand",
        "libcusolver",
        "libcusparse",
        f"cudnn={cudnn}",
        "nccl",
    ]


def conda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    if profile.platform == "windows":
        return windows_conda_plan(profile, inputs)
    cand = inputs.candidate
    steps, notes = host_steps(profile, inputs)
    conda = existing_conda(profile)
    if conda is None:
        base = inputs.home / "miniforge3"
        conda = str(base / "bin" / "conda")
        arch = "aarch64" if profile.arch in ("aarch64", "arm64") else "x86_64"
        pin = pinned("miniforge", f"Linux-{arch}")
        if pin is not None:
            install = ("bash", "-c", MINIFORGE_SH, "_", pin.url, str(base), pin.sha256)
            steps.append(_miniforge_step(base, conda, ("test", "-x", conda), commands=(install,)))
            notes.append(
                t(
                    "plan.lock_routes.miniforge_pinned",
                    version=pin.version,
                    file=pin.file,
                    sha256=pin.sha256[:16],
                    source=pin.source.split(" ")[0],
                )
            )
        else:  # no published sha256 recorded: never run an unchecked installer
            manual = t("plan.lock_routes.miniforge_no_hash", arch=arch)
            steps.append(_miniforge_step(base, conda, ("test", "-x", conda), manual=manual))
            notes.append(manual)
    else:
        notes.append(t("plan.conda.existing", conda=conda))
    cuda, cudnn = cand.set.cuda or "12.5", cand.set.cudnn or "9.3"
    checker = str(PurePath(conda).parent / "python")  # conda's own Python: there before the env
    steps.append(_conda_env_step(conda, inputs, cuda, cudnn, checker))
    notes.append(t("plan.lock_routes.conda_unlocked", lock=conda_lock_path(inputs)))
    steps.append(_conda_activate_step(inputs))
    steps.append(_tensorflow_step(profile, inputs, notes, env_python(inputs.venv)))
    steps.append(_conda_verify_step(conda, inputs))
    steps += last_mile_steps(
        inputs,
        gpu=True,
        python=env_python(inputs.venv),
        run_prefix=_conda_run(conda, inputs),
        run_python="python",
        activate_block=False,  # conda: the activate.d script sets it (see _conda_activate_step)
    )
    yml = _environment_yml(inputs)
    steps.append(_environment_yml_step(conda, inputs, ("test", "-s", yml)))
    return assemble_plan(profile, inputs, steps, notes)


def windows_conda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    """TensorFlow 2.10, the last release with GPU support on native Windows, from conda-forge CUDA."""
    cand = inputs.candidate
    checker = _windows_checker(profile)
    steps: list[Step] = []
    conda = existing_conda(profile)
    notes = [t("plan.conda.windows_note")]
    if conda is None:
        base = inputs.home / "miniforge3"
        conda = str(base / "Scripts" / "conda.exe")
        manual = t("plan.lock_routes.miniforge_manual_windows", version=release("miniforge") or "?")
        steps.append(_miniforge_step(base, conda, _exists_argv(checker, conda), manual=manual))
        notes.append(t("plan.lock_routes.miniforge_no_hash", arch="Windows x86_64"))
    else:
        notes.append(t("plan.conda.existing", conda=conda))
    cuda, cudnn = cand.set.cuda or WINDOWS_CUDA, cand.set.cudnn or WINDOWS_CUDNN
    steps.append(_conda_env_step(conda, inputs, cuda, cudnn, checker))
    notes.append(t("plan.lock_routes.conda_unlocked", lock=conda_lock_path(inputs)))
    python = str(inputs.venv / "python.exe")  # a conda env on Windows keeps python.exe at its top
    steps.append(_tensorflow_step(profile, inputs, notes, python))
    steps.append(_conda_verify_step(conda, inputs))
    steps += last_mile_steps(
        inputs,
        gpu=True,
        python=python,
        run_prefix=_conda_run(conda, inputs),
        run_python="python",
        activate_block=False,
        jupyter=False,
    )
    steps.append(_environment_yml_step(conda, inputs, _exists_argv(checker, _environment_yml(inputs))))
    plan = assemble_plan(profile, inputs, steps, notes)
    return replace(plan, python=python)


def windows_system_cuda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    """TensorFlow 2.10 on native Windows with NVIDIA's CUDA and cuDNN installers (by hand)."""
    cand = inputs.candidate
    cuda, cudnn = cand.set.cuda or WINDOWS_CUDA, cand.set.cudnn or WINDOWS_CUDNN
    checker = _windows_checker(profile)
    cuda_bin = f"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v{cuda}/bin"
    steps = [
        Step(
            id="cuda-toolkit",
            title=t("plan.cuda_toolkit.title", version=cuda),
            why=t("plan.cuda_toolkit.why_windows", version=cuda, tf=cand.set.tensorflow),
            where="user",
            commands=(),
            manual=t("plan.cuda_toolkit.manual_windows", version=cuda),
            check=Check(
                _exists_argv(checker, f"{cuda_bin}/cudart64_*.dll"),
                t("plan.cuda_toolkit.proves", path=cuda_bin),
            ),
            download_mib=SIZE_MIB["cuda-toolkit"],
        ),
        Step(
            id="cudnn",
            title=t("plan.cudnn.title", version=cudnn),
            why=t("plan.cudnn.why", version=cudnn, cuda=cuda),
            where="user",
            commands=(),
            manual=t("plan.cudnn.manual_windows", version=cudnn, cuda=cuda, bin=cuda_bin),
            check=Check(
                _exists_argv(checker, f"{cuda_bin}/cudnn64_*.dll"),
                t("plan.cudnn.proves", package="cudnn64_8.dll", version=cudnn),
            ),
            download_mib=SIZE_MIB["cudnn"],
        ),
    ]
    steps.append(venv_step(profile, inputs, windows=True))
    notes = [t("plan.conda.windows_note")]
    steps.append(_tensorflow_step(profile, inputs, notes, env_python(inputs.venv, True)))
    steps.append(verify_step(inputs, gpu=True, windows=True))
    # No activate block: native Windows has no bash, and its venv keeps scripts in Scripts, not bin.
    steps += last_mile_steps(
        inputs, gpu=True, python=env_python(inputs.venv, True), jupyter=False, activate_block=False
    )
    return assemble_plan(profile, inputs, steps, notes)


def _tensorflow_step(profile: MachineProfile, inputs: PlanInputs, notes: list[str], python: str) -> Step:
    """TensorFlow into the environment from the recorded lock (its own packages, hashed; CUDA is
    conda's or the system's), else by name with a note that says why it is not locked."""
    lock = machine_lock(inputs.candidate, profile)
    if lock is not None:
        return locked_environment_step(profile, inputs, lock, python=python)
    notes.append(unlocked_note(profile, inputs))
    return tensorflow_step(profile, inputs, python=python)


def conda_lock_path(inputs: PlanInputs) -> str:
    """The environment's explicit conda lock, beside it (conda creates the prefix folder itself)."""
    return str(inputs.venv.parent / f"{inputs.venv.name}.conda-lock.txt")


def _windows_checker(profile: MachineProfile) -> str:
    """The Python that runs the checks on native Windows: the detected one, else `python` on PATH."""
    exe = profile.python.executable
    return exe if exe not in ("", UNKNOWN) else "python"


def _exists_argv(checker: str, pattern: str) -> tuple[str, ...]:
    return (checker, "-c", EXISTS_PY, pattern)


def _environment_yml(inputs: PlanInputs) -> str:
    return str(inputs.venv / "environment.yml")


def _miniforge_step(
    base: PurePath,
    conda: str,
    check_argv: tuple[str, ...],
    *,
    commands: tuple[tuple[str, ...], ...] = (),
    manual: str | None = None,
) -> Step:
    """Miniforge into `base`: by its installer script on Linux, by hand on Windows."""
    return Step(
        id="miniforge",
        title=t("plan.miniforge.title"),
        why=t("plan.miniforge.why", path=str(base)),
        where="user",
        commands=commands,
        manual=manual,
        check=Check(check_argv, t("plan.miniforge.proves", path=conda)),
        download_mib=SIZE_MIB["miniforge"],
    )


def _conda_env_step(conda: str, inputs: PlanInputs, cuda: str, cudnn: str, checker: str) -> Step:
    """The environment with Python, pip and the CUDA libraries, from its explicit lock (solved once
    where there is none yet); the check proves the environment holds exactly the lock's packages.
    `checker`: a Python that exists before the environment does (conda's own, or the machine's)."""
    cand = inputs.candidate
    prefix = str(inputs.venv)
    lock = conda_lock_path(inputs)
    # conda-forge only: no Anaconda terms-of-service prompt, and one channel's builds.
    specs = (f"python={cand.set.python}", "pip", *cuda_packages(cand, cuda, cudnn))
    return Step(
        id="conda-env",
        title=t("plan.conda_env.title", python=cand.set.python, cuda=cuda, cudnn=cudnn),
        why=t("plan.conda_env.why", path=prefix)
        + " "
        + t("plan.lock_routes.conda_env_why_lock", path=prefix, lock=lock),
        where="user",
        commands=((checker, program(CONDA_LOCK), "create", conda, prefix, lock, *specs),),
        check=Check(
            (checker, program(CONDA_LOCK), "check", conda, prefix, lock),
            t("plan.lock_routes.conda_env_proves", path=prefix, lock=lock),
        ),
        download_mib=SIZE_MIB["conda-cuda"],
    )


def _conda_activate_step(inputs: PlanInputs) -> Step:
    activate = str(inputs.venv / "etc" / "conda" / "activate.d" / "tf-gpu-wizard.sh")
    lines = ACTIVATE_BODY.splitlines()
    why = t("plan.conda_activate.why")
    if inputs.candidate.jit_ptx:
        # This GPU runs the set through PTX: keep the driver's compiled kernels (see last_mile).
        lines.append(f"export CUDA_CACHE_MAXSIZE={CUDA_CACHE_BYTES}")
        why += " " + t("plan.conda_activate.why_cache", ptx=inputs.candidate.jit_ptx)
    return Step(
        id="conda-activate",
        title=t("plan.conda_activate.title"),
        why=why,
        where="user",
        commands=((env_python(inputs.venv), "-c", WRITE_LINES_PY, activate, *lines),),
        check=Check(("test", "-f", activate), t("plan.conda_activate.proves", path=activate)),
    )


def _conda_run(conda: str, inputs: PlanInputs) -> tuple[str, ...]:
    # `conda run` activates the env (the activate.d script included), as the student's shell will.
    return (conda, "run", "--no-capture-output", "-p", str(inputs.venv))


def _conda_verify_step(conda: str, inputs: PlanInputs) -> Step:
    return verify_step(inputs, gpu=True, prefix=_conda_run(conda, inputs), python="python")


def _environment_yml_step(conda: str, inputs: PlanInputs, check_argv: tuple[str, ...]) -> Step:
    yml = _environment_yml(inputs)
    return Step(
        id="environment-yml",
        title=t("plan.environment_yml.title"),
        why=t("plan.environment_yml.why", path=yml),
        where="user",
        commands=((conda, "env", "export", "-p", str(inputs.venv), "--file", yml),),
        check=Check(check_argv, t("plan.environment_yml.proves", path=yml)),
    )
