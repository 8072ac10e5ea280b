"""The locked install of a pip-and-cuda plan: the lock file, then exactly its wheels.

1. the lock (TensorFlow and every nvidia-* wheel, `==` and sha256) is written beside the
   environment, <venv>/tf-gpu-wizard.lock.txt;
2. `pip install --require-hashes --no-deps -r` it: pip installs those files and no others;
3. `pip install tensorflow==X`: TensorFlow's other requirements (NumPy, Keras, ...); the
   nvidia wheels are in place already and the [and-cuda] extra is not asked for, so pip
   leaves them as they are.
The check proves the installed set is the lock's, so applying the plan again skips the
step and downloads nothing.
"""

from __future__ import annotations

from wizard.choose.lock import LOCK_NAME, Lock
from wizard.plan.common import (
    INSTALLED_OK,
    SIZE_MIB,
    WRITE_LINES_PY,
    constraint_commands,
    env_python,
)
from wizard.plan.installer import Installer, choose_installer
from wizard.plan.model import Check, PlanInputs, Step
from wizard.plan.programs import program
from wizard.profile import MachineProfile
from wizard.text import t


def lock_path(inputs: PlanInputs) -> str:
    return str(inputs.venv / LOCK_NAME)


def locked_tensorflow_step(
    profile: MachineProfile, inputs: PlanInputs, lock: Lock, installer: Installer | None = None
) -> Step:
    cand = inputs.candidate
    py = env_python(inputs.venv)
    installer = installer or choose_installer(profile)
    path = lock_path(inputs)
    wanted = lock.requirements
    nvidia = len(wanted) - 1
    hashes = ("--require-hashes",) if lock.hashed else ()
    commands: list[tuple[str, ...]] = [
        # A package an interrupted pip left half-unpacked is uninstalled first, so pip puts it back.
        (py, program(INSTALLED_OK), "repair", *wanted),
        (py, "-c", WRITE_LINES_PY, path, *lock.text().splitlines()),
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
