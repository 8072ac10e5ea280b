"""The conda plan: an existing conda, or Miniforge in the home directory; CUDA libraries
from conda-forge; TensorFlow from pip inside the environment; environment.yml exported."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from wizard.choice import Candidate
from wizard.plan import Check, Plan, PlanInputs, Step
from wizard.plan_common import (
    SIZE_MIB,
    WRITE_FILE_PY,
    cuda_major,
    env_python,
    tensorflow_step,
    verify_step,
)
from wizard.plan_linux import _plan, host_steps
from wizard.profile import UNKNOWN, MachineProfile
from wizard.text import t

MINIFORGE_URL = "https://github.com/conda-forge/miniforge/releases/latest/download/Miniforge3-Linux-{arch}.sh"
MINIFORGE_SH = (
    'set -e; d=$(mktemp -d); curl -fsSLo "$d/miniforge.sh" "$1"; '
    'bash "$d/miniforge.sh" -b -u -p "$2"; rm -rf "$d"'
)
HAS_PACKAGE_SH = 'ls "$1"/conda-meta/"$2"-[0-9]*.json >/dev/null 2>&1'

# What `conda activate` sets: TF finds the conda-forge CUDA libraries and libdevice.
ACTIVATE_BODY = (
    'export LD_LIBRARY_PATH="$CONDA_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n'
    'export XLA_FLAGS="--xla_gpu_cuda_data_dir=$CONDA_PREFIX"\n'
)


def existing_conda(profile: MachineProfile) -> str | None:
    """conda of the detected conda Python (…/envs/NAME/bin/python or …/bin/python)."""
    exe = profile.python.executable
    if profile.python.env != "conda" or exe in ("", UNKNOWN):
        return None
    parts = Path(exe).parts
    base = Path(*parts[: parts.index("envs")]) if "envs" in parts else Path(exe).parent.parent
    return str(base / "bin" / "conda")


def cuda_packages(candidate: Candidate, cuda: str, cudnn: str) -> list[str]:
    from wizard.resolver import conda_packages

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
    prefix = str(inputs.venv)
    steps, notes = host_steps(profile, inputs)
    conda = existing_conda(profile)
    if conda is None:
        base = inputs.home / "miniforge3"
        conda = str(base / "bin" / "conda")
        arch = "aarch64" if profile.arch == "aarch64" else "x86_64"
        steps.append(
            Step(
                id="miniforge",
                title=t("plan.miniforge.title"),
                why=t("plan.miniforge.why", path=str(base)),
                where="user",
                commands=(("bash", "-c", MINIFORGE_SH, "_", MINIFORGE_URL.format(arch=arch), str(base)),),
                check=Check(("test", "-x", conda), t("plan.miniforge.proves", path=conda)),
                download_mib=SIZE_MIB["miniforge"],
            )
        )
    else:
        notes.append(t("plan.conda.existing", conda=conda))
    cuda, cudnn = cand.set.cuda or "12.5", cand.set.cudnn or "9.3"
    steps.append(
        Step(
            id="conda-env",
            title=t("plan.conda_env.title", python=cand.set.python, cuda=cuda, cudnn=cudnn),
            why=t("plan.conda_env.why", path=prefix),
            where="user",
            # conda-forge only: no Anaconda terms-of-service prompt, and one channel's builds.
            commands=(
                (
                    conda,
                    "create",
                    "-y",
                    "-p",
                    prefix,
                    "--override-channels",
                    "-c",
                    "conda-forge",
                    f"python={cand.set.python}",
                    "pip",
                    *cuda_packages(cand, cuda, cudnn),
                ),
            ),
            check=Check(
                ("bash", "-c", HAS_PACKAGE_SH, "_", prefix, "cudnn"), t("plan.conda_env.proves", path=prefix)
            ),
            download_mib=SIZE_MIB["conda-cuda"],
        )
    )
    activate = str(inputs.venv / "etc" / "conda" / "activate.d" / "tf-gpu-wizard.sh")
    steps.append(
        Step(
            id="conda-activate",
            title=t("plan.conda_activate.title"),
            why=t("plan.conda_activate.why"),
            where="user",
            commands=((env_python(inputs.venv), "-c", WRITE_FILE_PY, activate, ACTIVATE_BODY),),
            check=Check(("test", "-f", activate), t("plan.conda_activate.proves", path=activate)),
        )
    )
    steps.append(tensorflow_step(profile, inputs))
    # `conda run` activates the env (the activate.d script included), as the student's shell will.
    run = (conda, "run", "--no-capture-output", "-p", prefix)
    steps.append(verify_step(inputs, gpu=True, prefix=run, python="python"))
    yml = str(inputs.venv / "environment.yml")
    steps.append(
        Step(
            id="environment-yml",
            title=t("plan.environment_yml.title"),
            why=t("plan.environment_yml.why", path=yml),
            where="user",
            commands=((conda, "env", "export", "-p", prefix, "--file", yml),),
            check=Check(("test", "-s", yml), t("plan.environment_yml.proves", path=yml)),
        )
    )
    return _plan(profile, inputs, steps, notes)


# Checks on native Windows cannot use bash or coreutils; the Python that runs the wizard can.
EXISTS_PY = "import glob, sys; sys.exit(0 if glob.glob(sys.argv[1]) else 1)"


def windows_conda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    """TensorFlow 2.10, the last release with GPU support on native Windows, from conda-forge CUDA."""
    cand = inputs.candidate
    prefix = str(inputs.venv)
    checker = profile.python.executable if profile.python.executable not in ("", UNKNOWN) else "python"
    steps: list[Step] = []
    conda = existing_conda(profile)
    notes = [t("plan.conda.windows_note")]
    if conda is None:
        conda = str(inputs.home / "miniforge3" / "Scripts" / "conda.exe")
        steps.append(
            Step(
                id="miniforge",
                title=t("plan.miniforge.title"),
                why=t("plan.miniforge.why", path=str(inputs.home / "miniforge3")),
                where="user",
                commands=(),
                manual=t("plan.miniforge.manual_windows"),
                check=Check((checker, "-c", EXISTS_PY, conda), t("plan.miniforge.proves", path=conda)),
                download_mib=SIZE_MIB["miniforge"],
            )
        )
    else:
        notes.append(t("plan.conda.existing", conda=conda))
    cuda, cudnn = cand.set.cuda or "11.2", cand.set.cudnn or "8.1"
    steps.append(
        Step(
            id="conda-env",
            title=t("plan.conda_env.title", python=cand.set.python, cuda=cuda, cudnn=cudnn),
            why=t("plan.conda_env.why", path=prefix),
            where="user",
            commands=(
                (
                    conda,
                    "create",
                    "-y",
                    "-p",
                    prefix,
                    "--override-channels",
                    "-c",
                    "conda-forge",
                    f"python={cand.set.python}",
                    "pip",
                    *cuda_packages(cand, cuda, cudnn),
                ),
            ),
            check=Check(
                (checker, "-c", EXISTS_PY, str(inputs.venv / "conda-meta" / "cudnn-*.json")),
                t("plan.conda_env.proves", path=prefix),
            ),
            download_mib=SIZE_MIB["conda-cuda"],
        )
    )
    python = str(inputs.venv / "python.exe")  # a conda env on Windows keeps python.exe at its top
    steps.append(tensorflow_step(profile, inputs, python=python))
    run = (conda, "run", "--no-capture-output", "-p", prefix)
    steps.append(verify_step(inputs, gpu=True, prefix=run, python="python"))
    yml = str(inputs.venv / "environment.yml")
    steps.append(
        Step(
            id="environment-yml",
            title=t("plan.environment_yml.title"),
            why=t("plan.environment_yml.why", path=yml),
            where="user",
            commands=((conda, "env", "export", "-p", prefix, "--file", yml),),
            check=Check((checker, "-c", EXISTS_PY, yml), t("plan.environment_yml.proves", path=yml)),
        )
    )
    plan = _plan(profile, inputs, steps, notes)
    return replace(plan, python=python)


def windows_system_cuda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    """TensorFlow 2.10 on native Windows with NVIDIA's CUDA and cuDNN installers (by hand)."""
    cand = inputs.candidate
    cuda, cudnn = cand.set.cuda or "11.2", cand.set.cudnn or "8.1"
    checker = profile.python.executable if profile.python.executable not in ("", UNKNOWN) else "python"
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
                (checker, "-c", EXISTS_PY, f"{cuda_bin}/cudart64_*.dll"),
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
                (checker, "-c", EXISTS_PY, f"{cuda_bin}/cudnn64_*.dll"),
                t("plan.cudnn.proves", package="cudnn64_8.dll", version=cudnn),
            ),
            download_mib=SIZE_MIB["cudnn"],
        ),
    ]
    from wizard.plan_common import venv_step

    first = ("py", f"-{cand.set.python}")
    venv = venv_step(profile, inputs, windows=True)
    steps.append(replace(venv, commands=((*first, *venv.commands[0][1:]), *venv.commands[1:])))
    steps.append(tensorflow_step(profile, inputs))
    steps.append(verify_step(inputs, gpu=True, windows=True))
    return _plan(profile, inputs, steps, [t("plan.conda.windows_note")])
