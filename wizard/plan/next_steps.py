"""What to do with the new environment, once a plan has run: one text for the Run screen's
finish, `apply`'s last lines and the end of the exported script.

Everything is derived from the plan itself (its platform, environment, steps), so the
three places cannot disagree: how to activate the environment, the hello script, Jupyter
(on WSL2: Windows' browser reaches it on localhost), the interpreter for VS Code, the
exact-versions file, and the CUDA cache when the plan sets it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath

from wizard.choose.lock import LOCK_NAME  # the exact versions with hashes, beside the environment
from wizard.paths import VENV_IN_HOME
from wizard.plan.last_mile import hello_path, kernel_name
from wizard.plan.model import Plan, Step, powershell_join
from wizard.plan.wsl_setup import start_again_command
from wizard.safe.profile_hint import keep_profile
from wizard.text import t


def lock_path(venv: str) -> str:
    return str(Path(venv) / LOCK_NAME)


def _step(plan: Plan, step_id: str) -> Step | None:
    for s in plan.active_steps:
        if s.id == step_id:
            return s
    return None


def _conda(plan: Plan) -> str | None:
    """The conda program of a conda plan (the first word of its environment step)."""
    step = _step(plan, "conda-env")
    return step.commands[0][0] if step and step.commands else None


def activate_line(plan: Plan) -> str:
    """The command that activates the environment in the student's shell."""
    conda = _conda(plan)
    if plan.platform == "windows":
        if conda:
            return f"conda activate {plan.venv}"
        return str(PureWindowsPath(plan.venv) / "Scripts" / "activate")
    if conda:
        base = Path(conda).parent.parent
        return "source " + shlex.join([str(base / "bin" / "activate"), plan.venv])
    return "source " + shlex.quote(str(Path(plan.venv) / "bin" / "activate"))


def kernel_display(step: Step, venv: str) -> str:
    """The kernel's name as Jupyter lists it: the --display-name the plan's step registers."""
    for argv in step.commands:
        if "--display-name" in argv[:-1]:
            return argv[argv.index("--display-name") + 1]
    return kernel_name(venv)


# A command or path the student copies stands on its own line, indented under its sentence: on a
# narrow screen a wrap would otherwise part `source` from its path or cut the path mid-name.
COPY_INDENT = "    "


def _then(sentence: str, copy: str) -> list[str]:
    return [sentence, COPY_INDENT + copy]


def xla_limit_of(plan: Plan) -> tuple[str, str, str] | None:
    """(compute capability, PTX XLA writes, PTX the GPU needs) when the plan's verify is told that
    XLA cannot compile for the GPU (--xla-limit 12.0=8.5<8.7, from Candidate.xla_limit)."""
    step = _step(plan, "verify")
    for argv in step.commands if step else ():
        if "--xla-limit" in argv[:-1]:
            cc, _, rest = argv[argv.index("--xla-limit") + 1].partition("=")
            isa, _, needs = rest.partition("<")
            return cc, isa, needs
    return None


def _series(plan: Plan) -> str:
    return ".".join(plan.set.tensorflow.split(".")[:2])


def jupyter_command(plan: Plan, quote: Callable[[str], str] = shlex.quote) -> str:
    """`apply` that switches the Jupyter step on for this plan's own set and folder: a bare
    `apply --with jupyter` plans the recommended set, which may be another method (pip where the
    student chose conda) in the same folder."""
    s = plan.set
    venv = "" if _default_folder(plan) else f" --venv {quote(plan.venv)}"
    pins = f"--tf {_series(plan)} --method {s.method} --python {s.python}{venv}"
    return f"tf-gpu-wizard apply {pins} --with jupyter"


def _default_folder(plan: Plan) -> bool:
    """The plan's environment is the folder `apply` picks by itself (~/.venvs/tf-gpu in the
    machine's home): the hint leaves --venv out, so it stays one line a student copies. For this
    machine the home is known; a demo's plan is in the demo machine's home, which `--profile` names."""
    if plan.platform == "windows":
        return False
    venv = PurePosixPath(plan.venv)
    home = venv.parent.parent if plan.simulated else PurePosixPath(Path.home())
    return venv == home / VENV_IN_HOME.as_posix()


def next_steps(plan: Plan, exists: Callable[[str], bool] | None = None) -> list[str]:
    """Lines for people, in order. `exists` tells whether a file is there now (a finished
    real run); without it only what the plan itself makes is named."""
    gpu = plan.set.method != "cpu"
    if plan.hands_over:
        # Native Windows handed over to the wizard inside Ubuntu: the environment is made there.
        return [t("next.title_wsl"), *_then(t("next.wsl_handover"), powershell_join(start_again_command()))]
    quote = (lambda s: s) if plan.platform == "windows" else shlex.quote
    lines = [t("next.title"), *_then(t("next.activate"), activate_line(plan))]
    if _step(plan, "hello") is not None:
        hello = hello_path(plan.venv)
        run = f"python {quote(hello)}" + ("" if gpu else " --cpu")
        lines += _then(t("next.hello_gpu" if gpu else "next.hello_cpu"), run)
    limit = xla_limit_of(plan)
    if limit is not None:  # the one line a student needs for their own models on this GPU
        lines.append(t("gpuroute.next_xla", cc=limit[0], isa=limit[1], needs=limit[2], tf=_series(plan)))
    conda_activate = _step(plan, "conda-activate")
    if _step(plan, "cuda-cache") is not None or (
        conda_activate is not None and "CUDA_CACHE_MAXSIZE" in " ".join(conda_activate.commands[0])
    ):
        lines.append(t("next.cuda_cache"))
    jupyter = _step(plan, "jupyter")
    if jupyter is not None:  # the name the plan registers is the one Jupyter's picker shows
        lines.append(t("next.jupyter_kernel", name=kernel_display(jupyter, plan.venv)))
    elif any(s.id == "jupyter" for s in plan.steps):  # there, but switched off
        lines += _then(t("next.jupyter_how"), keep_profile(jupyter_command(plan, quote)))
    else:
        lines.append(t("next.jupyter_plain"))
    if plan.platform == "wsl2":
        lines.append(t("next.jupyter_wsl"))
    lines += _then(t("next.vscode"), plan.python)
    if plan.platform == "wsl2":
        lines.append(t("next.vscode_wsl"))
    if plan.platform == "wsl1":  # the CPU set here; WSL2 is what gives this laptop's GPU
        lines.append(t("keys.next.wsl1_gpu", command=t("profile.wsl1.command_unknown")))
    lock = lock_path(plan.venv)
    writes_lock = any(lock in argv for s in plan.active_steps for argv in s.commands)
    if writes_lock or (exists is not None and exists(lock)):
        lines += _then(t("next.lock"), lock)
    env_step = _step(plan, "environment-yml")
    if env_step is not None:
        lines += _then(t("next.environment_yml"), str(Path(plan.venv) / "environment.yml"))
    return lines
