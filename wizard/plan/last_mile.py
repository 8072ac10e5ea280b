"""Steps that leave the new environment ready to work in, after the verify step.

- `hello`: a ready hello-GPU script in the environment, proven by running it;
- `cuda-cache`: when this GPU runs the set only through PTX, the environment's activate
  script sets CUDA_CACHE_MAXSIZE so the driver's compiled kernels (minutes of work on the
  first start) stay cached instead of being compiled again;
- `jupyter` (optional, off by default): the environment as a Jupyter kernel.

`next_steps` (wizard/plan/next_steps.py) tells the student about each of them.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath, PureWindowsPath

from wizard.plan import shellblock
from wizard.plan.common import CUDA_CACHE_BYTES, TF_PROOF, cache_env
from wizard.plan.installer import PIP, Installer
from wizard.plan.model import Check, PlanInputs, Step
from wizard.plan.programs import program
from wizard.text import t

HELLO = "hello_gpu.py"  # assets/programs
COPY_FILE = "copy_file.py"  # assets/programs: copies a file whole (temp, fsync, rename), any platform
CUDA_CACHE_BLOCK = "cuda-cache"

# The kernel spec Jupyter would start is this environment's Python, and its launcher imports there.
KERNEL_OK = "kernel_ok.py"  # assets/programs


def _path(venv: PurePath | str) -> PurePath:
    """The environment's folder in its own flavour: a Windows machine's plan keeps Windows paths."""
    if isinstance(venv, PurePath):
        return venv
    return PureWindowsPath(venv) if re.match(r"^([A-Za-z]:\\|%)", venv) else PurePath(venv)


def hello_path(venv: PurePath | str) -> str:
    return str(_path(venv) / "share" / "tf-gpu-wizard" / "hello_gpu.py")


def activate_script(venv: PurePath | str) -> str:
    return str(_path(venv) / "bin" / "activate")


def kernel_name(venv: PurePath | str) -> str:
    """The Jupyter kernel's name: the environment folder's name, in the characters Jupyter allows."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", _path(venv).name).strip("-.").lower()
    return name or "tf-gpu"


def kernel_json(home: PurePath, venv: PurePath | str) -> str:
    return str(home / ".local" / "share" / "jupyter" / "kernels" / kernel_name(venv) / "kernel.json")


def hello_step(
    inputs: PlanInputs,
    *,
    gpu: bool,
    python: str,
    run_prefix: tuple[str, ...] = (),
    run_python: str = "",
    proven_by_verify: bool = False,
) -> Step:
    """Copy the hello script into the environment; its check runs it as the student will.

    `python` copies the file; `run_prefix` + `run_python` run it (e.g. `conda run -p ENV python`).
    `proven_by_verify` (CPU plans, whose verify step runs this script after its matmul): the check
    is `tf_proof.py hello`, which passes on the verify run's record when the file and the
    environment are unchanged since, and otherwise runs the script itself."""
    dest = hello_path(inputs.venv)
    args = () if gpu else ("--cpu",)
    proof = "_verified" if proven_by_verify and not gpu else ""
    if proof:
        argv: tuple[str, ...] = (*run_prefix, run_python or python, program(TF_PROOF), "hello", dest, *args)
    else:
        # A PTX-only GPU: this is TensorFlow's second start, after the verify filled the driver's
        # compile cache; the script fails if it compiles again (TF_GPU_WIZARD_SECOND_START).
        env = cache_env(inputs, second_start=True) if gpu else ()
        argv = (*env, *run_prefix, run_python or python, dest, *args)
    return Step(
        id="hello",
        title=t("plan.hello.title_gpu" if gpu else "plan.hello.title_cpu"),
        why=t("plan.hello.why_verified" if proven_by_verify else "plan.hello.why", path=dest),
        where="user",
        # A shipped program and two paths: a command a student can read (no `python -c` text).
        commands=((python, program(COPY_FILE), program(HELLO), dest),),
        check=Check(argv, t(f"plan.hello.proves_{'gpu' if gpu else 'cpu'}{proof}", path=dest)),
    )


def cuda_cache_step(inputs: PlanInputs) -> Step | None:
    """Only when the chosen set reaches this GPU through PTX (the resolver's `jit_ptx`)."""
    ptx = inputs.candidate.jit_ptx
    if not ptx or inputs.candidate.set.method == "cpu":
        return None
    activate = Path(activate_script(inputs.venv))
    body = f"export CUDA_CACHE_MAXSIZE={CUDA_CACHE_BYTES}\n"
    return Step(
        id="cuda-cache",
        title=t("plan.cuda_cache.title"),
        why=t("plan.cuda_cache.why", ptx=ptx, path=str(activate), size="4 GB"),
        where="user",
        commands=(shellblock.add_command(activate, CUDA_CACHE_BLOCK, body),),
        check=shellblock.present_check(activate, CUDA_CACHE_BLOCK),
    )


def jupyter_step(inputs: PlanInputs, *, python: str, installer: Installer = PIP) -> Step:
    """Optional: ipykernel in the environment, registered for the user's Jupyter."""
    name = kernel_name(inputs.venv)
    display = t("plan.jupyter.display_name", tensorflow=inputs.candidate.set.tensorflow, name=name)
    spec = kernel_json(inputs.home, inputs.venv)
    return Step(
        id="jupyter",
        title=t("plan.jupyter.title"),
        why=t("plan.jupyter.why", name=display),
        where="user",
        commands=(
            installer.install_command(python, "ipykernel"),
            (python, "-m", "ipykernel", "install", "--user", "--name", name, "--display-name", display),
        ),
        check=Check((python, program(KERNEL_OK), spec), t("plan.jupyter.proves", name=display)),
        optional=True,
        enabled=False,
        download_mib=30,
    )


def last_mile_steps(
    inputs: PlanInputs,
    *,
    gpu: bool,
    python: str,
    installer: Installer = PIP,
    run_prefix: tuple[str, ...] = (),
    run_python: str = "",
    activate_block: bool = True,
    jupyter: bool = True,
    proven_by_verify: bool = False,
) -> list[Step]:
    """The steps above, in order, for one plan (Jupyter's kernel folder is the Linux one)."""
    hello = hello_step(
        inputs,
        gpu=gpu,
        python=python,
        run_prefix=run_prefix,
        run_python=run_python,
        proven_by_verify=proven_by_verify,
    )
    steps = [hello]
    cache = cuda_cache_step(inputs) if gpu and activate_block else None
    if cache is not None:
        steps.append(cache)
    if jupyter:
        steps.append(jupyter_step(inputs, python=python, installer=installer))
    return steps
