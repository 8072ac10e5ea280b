"""Native Windows, a GPU set newer than TF 2.10: the plan sets up WSL2 and hands over.

The steps run on Windows, in PowerShell, shown to copy (`windows-host`): a new enough
Windows driver (WSL2 uses it), `wsl --install` with Ubuntu and a restart, the first
start of Ubuntu (its own user), then the wizard copied into Ubuntu and started there
with its install.sh; inside WSL it detects a WSL2 machine and installs TensorFlow.
Checks run with the Windows Python that runs the wizard, on one line each.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path, PurePath, PureWindowsPath

from wizard.choose.driver_view import step_title
from wizard.choose.wsl_command import DISTRO, WSL_INSTALL, wsl_install_shown
from wizard.plan.common import assemble_plan
from wizard.plan.model import Check, Plan, PlanInputs, Step, powershell_join
from wizard.plan.wsl import set_floor, where_to_get, windows_driver_step, windows_driver_why
from wizard.profile import UNKNOWN, MachineProfile
from wizard.text import t

LINUX_VENV = "~/.venvs/tf-gpu"  # the wizard's default environment, in the Ubuntu home
# DISTRO and WSL_INSTALL, the one command that installs WSL2 with that Ubuntu, live in
# wizard.choose.wsl_command: the plan's step runs it, recommend's hint and the doctor's fix for
# native Windows show it, so all three say the same.
__all__ = ["DISTRO", "WSL_INSTALL", "wsl_install_shown"]

# Each check is one line run by the Windows Python; a missing wsl.exe or nvidia-smi is a plain "no".
# `wsl --list --verbose` prints UTF-16; exit 0 when the distribution is there on WSL version 2.
WSL_DISTRO_PY = (
    "import shutil, subprocess, sys; w = shutil.which('wsl'); "
    "out = subprocess.run([w, '--list', '--verbose'], capture_output=True).stdout if w else b''; "
    "text = out.decode('utf-16-le', 'replace').replace(chr(0), ''); "
    "sys.exit(0 if any(line.replace('*', ' ').split()[:1] == [sys.argv[1]] and line.split()[-1:] == ['2'] "
    "for line in text.splitlines()) else 1)"
)
# Exit 0 when a program runs inside the distribution: its first start (the Linux user) is done.
WSL_RUNS_PY = (
    "import shutil, subprocess, sys; w = shutil.which('wsl'); "
    "sys.exit(subprocess.run([w, '-d', sys.argv[1], '--exec', 'true'], capture_output=True).returncode "
    "if w else 1)"
)
# Exit 0 when install.sh left the launcher in the Linux home.
WSL_WIZARD_PY = (
    "import shutil, subprocess, sys; w = shutil.which('wsl'); "
    "sys.exit(subprocess.run([w, '-d', sys.argv[1], '--', 'sh', '-c', "
    "'test -x \"$HOME/.local/bin/tf-gpu-wizard\"'], capture_output=True).returncode if w else 1)"
)
DRIVER_OK_PY = (
    "import shutil, subprocess, sys; n = shutil.which('nvidia-smi'); "
    "r = subprocess.run([n, '--query-gpu=driver_version', '--format=csv,noheader'], capture_output=True, "
    "text=True) if n else None; v = (r.stdout.split() or ['0'])[0] if r else '0'; "
    "key = lambda s: [int(p) for p in s.split('.') if p.isdigit()]; "
    "sys.exit(0 if r and r.returncode == 0 and key(v) >= key(sys.argv[1]) else 1)"
)


def windows_home(profile: MachineProfile) -> PureWindowsPath:
    """The Windows user's folder: this user's own on Windows; from the detected Python's path
    (C:\\Users\\NAME\\...) for a saved profile; else PowerShell's $HOME, which PowerShell
    expands (never %USERPROFILE%, which it does not)."""
    if os.name == "nt" and not profile.simulated:
        return PureWindowsPath(Path.home())
    exe = profile.python.executable
    if exe not in ("", UNKNOWN):
        parts = PureWindowsPath(exe).parts
        if len(parts) >= 3 and parts[1].lower() == "users":
            return PureWindowsPath(*parts[:3])
    return PureWindowsPath("$HOME")


def wsl_path(path: PurePath) -> str:
    """C:\\Users\\alex\\x -> /mnt/c/Users/alex/x: the same folder, seen from WSL."""
    win = PureWindowsPath(path)
    if not win.drive or not win.drive.endswith(":"):
        return str(path).replace("\\", "/")
    return "/mnt/" + win.drive[0].lower() + "/" + "/".join(win.parts[1:])


def wizard_folder(profile: MachineProfile) -> PureWindowsPath:
    """The wizard's own folder on Windows: the running checkout on a real Windows machine; for a
    saved or demo profile, the folder a clone has in that user's home."""
    if os.name == "nt" and not profile.simulated:
        return PureWindowsPath(Path(__file__).resolve().parent.parent.parent)
    return windows_home(profile) / "tf-gpu-wizard"


def wizard_source(profile: MachineProfile) -> tuple[str, bool]:
    """Where the wizard lives on Windows, as WSL sees it, and whether it is a git checkout."""
    folder = wizard_folder(profile)
    if os.name == "nt" and not profile.simulated:
        return wsl_path(folder), (Path(str(folder)) / ".git").exists()
    return wsl_path(folder), True


# assets/programs: inside WSL, copy the wizard from its Windows folder (wslpath) into ~/tf-gpu-wizard.
TAKE_WIZARD = "assets/programs/wsl_take_wizard.sh"


def handover_commands(profile: MachineProfile) -> tuple[tuple[str, ...], ...]:
    """The two PowerShell lines that put the wizard into Ubuntu and start it there. Every path is
    this PC's own, filled in; the Windows one is quoted for PowerShell and turned into a WSL path
    by wslpath inside Ubuntu; `~` is only ever an argument wsl.exe reads (--cd '~'), quoted so
    PowerShell leaves it alone; --exec runs each program without a shell in between."""
    folder = str(wizard_folder(profile))
    return (
        ("wsl", "-d", DISTRO, "--cd", folder, "--exec", "sh", TAKE_WIZARD, folder),
        ("wsl", "-d", DISTRO, "--cd", "~", "--exec", "sh", "tf-gpu-wizard/install.sh"),
    )


def start_line(profile: MachineProfile | None, args: tuple[str, ...] = ()) -> str:
    """What a person types to start this wizard again on the machine the plan is for, with `args`
    (a demo's --profile, --lang): on Windows the wizard's own .exe in its folder, in PowerShell's
    quoting (a plan made elsewhere for a Windows profile never shows this machine's Linux path);
    elsewhere paths.start_command(), in the shell's."""
    import shlex

    from wizard.paths import start_command
    from wizard.safe.profile_hint import profile_args

    if "--profile" not in args and profile is not None and profile.simulated:
        args = (*profile_args(), *args)  # a session on a profile starts again on it, never on this machine
    if profile is not None and profile.platform == "windows":
        if os.name == "nt" and not profile.simulated:
            exe = start_command()
        else:
            exe = str(wizard_folder(profile) / ".venv" / "Scripts" / "tf-gpu-wizard.exe")
        line = powershell_join((exe, *args))
        return "& " + line if line.startswith("'") else line  # a quoted path runs only with &
    return " ".join([start_command(), *(shlex.quote(a) for a in args)])


def start_again_command() -> tuple[str, ...]:
    """Starting the wizard inside Ubuntu again from PowerShell (the launcher install.sh wrote)."""
    return ("wsl", "-d", DISTRO, "--cd", "~", "--exec", ".local/bin/tf-gpu-wizard")


def windows_to_wsl_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    cand = inputs.candidate
    checker = profile.python.executable if profile.python.executable not in ("", UNKNOWN) else "python"
    floor = set_floor(cand, wsl=True)
    have = profile.driver.version if profile.driver else t("plan.driver.none")
    source = str(wizard_folder(profile))
    steps = [
        windows_driver_step(
            profile,
            floor,
            title=step_title(cand.driver) if cand.driver is not None else None,
            why=windows_driver_why(profile, cand, t("plan.wsl_setup.driver_why", floor=floor, have=have)),
            manual=where_to_get(profile, floor) + t("plan.h17_driver.after_windows", floor=floor),
            check=Check((checker, "-c", DRIVER_OK_PY, floor), t("plan.wsl_setup.driver_proves", floor=floor)),
        ),
        Step(
            id="wsl-install",
            title=t("plan.wsl_setup.install_title"),
            why=t("plan.wsl_setup.install_why", tf=cand.set.tensorflow, distro=DISTRO),
            where="windows-host",
            commands=(WSL_INSTALL,),
            check=Check(
                (checker, "-c", WSL_DISTRO_PY, DISTRO), t("plan.wsl_setup.install_proves", distro=DISTRO)
            ),
            restart="reboot",
            download_mib=600,
        ),
        Step(
            id="wsl-first-start",
            title=t("plan.wsl_setup.user_title"),
            why=t("plan.wsl_setup.user_why"),
            where="windows-host",
            commands=(),
            manual=t("plan.wsl_setup.user_manual", distro=DISTRO),
            check=Check((checker, "-c", WSL_RUNS_PY, DISTRO), t("plan.wsl_setup.user_proves", distro=DISTRO)),
        ),
        Step(
            id="wsl-wizard",
            title=t("plan.wsl_setup.wizard_title"),
            why=t("plan.wsl_setup.wizard_why", tf=cand.set.tensorflow, source=source),
            where="windows-host",
            commands=handover_commands(profile),
            check=Check((checker, "-c", WSL_WIZARD_PY, DISTRO), t("plan.wsl_setup.wizard_proves")),
        ),
    ]
    notes = [
        t("plan.wsl_setup.note_alternative"),
        t("plan.wsl_setup.note_inside", command=powershell_join(start_again_command())),
    ]
    plan = assemble_plan(profile, inputs, steps, notes)
    # The environment this leads to is the one the wizard inside Ubuntu makes.
    return replace(plan, venv=LINUX_VENV, python=LINUX_VENV + "/bin/python")
