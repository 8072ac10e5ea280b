"""Plans for native Linux (pip-and-cuda, system-cuda) and the cpu plan for every platform."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import Version

from wizard.choose.choice import Candidate
from wizard.choose.driver_view import need_paragraph, step_title
from wizard.choose.lock import LINUX_X86_64, family_of, lock_for, machine_lock
from wizard.plan import shellblock
from wizard.plan.common import (
    SIZE_MIB,
    apt_install,
    apt_update,
    assemble_plan,
    driver_check,
    driver_ok,
    env_python,
    machine_fix_step,
    python_steps,
    tensorflow_step,
    venv_step,
    verify_step,
    version_at_least,
)
from wizard.plan.gpucheck import known_driver_cuda
from wizard.plan.installer import PIP, choose_installer
from wizard.plan.last_mile import HELLO, last_mile_steps
from wizard.plan.locked import locked_environment_step, locked_tensorflow_step, unlocked_note
from wizard.plan.model import Check, Plan, PlanError, PlanInputs, Step
from wizard.plan.programs import program
from wizard.plan.wsl import set_floor, windows_steps
from wizard.profile import UNKNOWN, MachineProfile
from wizard.text import t

# Driver branches the Ubuntu archive carries, oldest first; the plan takes the oldest
# one that is new enough (the well-trodden one, not the newest) for the CUDA in the set.
UBUNTU_BRANCHES = ("550", "570", "580")
DEBIAN_CODENAMES = {"11": "bullseye", "12": "bookworm", "13": "trixie"}

CUDA_ENV_BODY = (
    'export PATH="/usr/local/cuda/bin${PATH:+:$PATH}"\n'
    'export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n'
)
# The verify runs outside an interactive shell, so it sets what the ~/.bashrc block sets
# (on one line, as every program a plan shows: pasted from `plan` it runs as printed).
CUDA_ENV_EXEC_SH = CUDA_ENV_BODY.replace("\n", "; ") + 'exec "$@"'

CUDNN_VERSION_SH = (
    'v=$(dpkg-query -W -f="\\${Version}" "$1" 2>/dev/null) || exit 1; '
    'case "$v" in "$2"*) exit 0 ;; esac; '
    "exit 1"
)
CUDA_DEFAULT_SH = 'test "$(readlink -f /usr/local/cuda)" = "$(readlink -f "$1")"'
WRITE_AS_ROOT_SH = 'printf "%s\\n" "$2" > "$1"'
# apt offers this package from some configured repository (a Candidate other than "(none)").
APT_CANDIDATE_SH = 'apt-cache policy "$1" 2>/dev/null | grep -Eq "Candidate: [0-9]"'


def driver_branch(floor: str, last: int | None = None) -> str:
    """The oldest archive branch new enough for the floor; a GPU whose last branch is older
    (Kepler stops at 470) gets that last branch, which still meets the floor (the resolver
    never gives such a GPU a set above it)."""
    if (
        last is not None
        and last < int(UBUNTU_BRANCHES[0])
        and Version(str(last)) >= Version(floor.split(".")[0])
    ):
        return str(last)
    for branch in UBUNTU_BRANCHES:
        if Version(branch) >= Version(floor.split(".")[0]):
            return branch
    return UBUNTU_BRANCHES[-1]


def last_branch(profile: MachineProfile) -> int | None:
    """The newest driver branch every GPU here runs (architectures.toml); None: today's branches."""
    from wizard.choose.knowledge import load_knowledge
    from wizard.choose.resolver import _cc

    kb = load_knowledge()
    branches = []
    for gpu in profile.gpus:
        cc = _cc(gpu.compute_capability)
        arch = kb.architecture(cc) if cc is not None else None
        if arch is None or arch.last_driver_branch is None:
            return None
        branches.append(arch.last_driver_branch)
    return max(branches) if branches else None


def driver_install_commands(profile: MachineProfile, floor: str) -> tuple[tuple[str, ...], ...]:
    """The commands (run as root) that install a driver of `floor` or newer here: the plan's driver
    step runs them and the doctor's fix shows them. Empty where the driver is installed by hand."""
    distro, version = profile.os.id, profile.os.version
    if distro == "ubuntu":
        branch = driver_branch(floor, last_branch(profile))
        # ubuntu-drivers picks the signed, prebuilt kernel modules (Secure Boot friendly) when they exist.
        install = (
            ("ubuntu-drivers", "install", f"nvidia:{branch}")
            if version_at_least(version, "22.04")
            else apt_install(f"nvidia-driver-{branch}")
        )
        return (apt_update(), install)
    if distro == "debian":
        headers = "linux-headers-arm64" if profile.arch == "aarch64" else "linux-headers-amd64"
        return (apt_install(headers, "nvidia-driver", "firmware-misc-nonfree"),)
    return ()


def driver_steps(profile: MachineProfile, inputs: PlanInputs) -> list[Step]:
    """Nothing when the driver is new enough; else the distribution's packages and a reboot."""
    cand = inputs.candidate
    floor = set_floor(cand, wsl=False)
    if cand.driver is not None and cand.driver.fix is not None:  # installed but stopped: its fix
        return [machine_fix_step("driver", cand.driver, driver_check(floor))]
    if driver_ok(profile, floor):
        return []
    if cand.driver is not None and cand.driver.restart_only:
        return [_restart_step(profile, cand, floor)]
    have = profile.driver.version if profile.driver else t("plan.driver.none")
    why = (
        need_paragraph(cand.driver)
        if cand.driver is not None
        else t("plan.driver.why", floor=floor, have=have)
    )
    if profile.driver is not None:  # a working driver (and the desktop on it) is replaced
        why += " " + t("plan.h17_driver.linux_risky")
    distro = profile.os.id
    if profile.kernel.secure_boot:
        # Ubuntu's packages are signed by Canonical; Debian's DKMS signs with a key of its own.
        why += " " + t("plan.driver.secure_boot_debian" if distro == "debian" else "plan.driver.secure_boot")
    branch = driver_branch(floor, last_branch(profile))
    commands = driver_install_commands(profile, floor)
    if distro == "ubuntu":
        return [_driver_step(floor, _title(cand, "plan.driver.title", branch), why, commands)]
    if distro == "debian":
        return [
            _debian_non_free_step(profile),
            _driver_step(floor, _title(cand, "plan.driver.title_debian", branch), why, commands),
        ]
    manual = t("plan.driver.manual", floor=floor)
    return [_driver_step(floor, _title(cand, "plan.driver.title", branch), why, (), manual=manual)]


def _title(cand: Candidate, key: str, branch: str) -> str:
    """The step's title names the floor the set needs (the same words as Detect and Choose),
    then how it is met here: the branch, or Debian's packages."""
    if cand.driver is None:
        return t(key, branch=branch)
    how = "plan.h17_driver.how_debian" if key.endswith("_debian") else "plan.h17_driver.how_branch"
    return t("plan.h17_driver.linux_title", step=step_title(cand.driver), how=t(how, branch=branch))


def _driver_step(
    floor: str, title: str, why: str, commands: tuple[tuple[str, ...], ...], manual: str | None = None
) -> Step:
    """The driver install, however it is done: as root, proven by nvidia-smi, then a reboot."""
    return Step(
        id="driver",
        title=title,
        why=why,
        where="root",
        commands=commands,
        check=driver_check(floor),
        restart="reboot",
        download_mib=SIZE_MIB["driver"],
        manual=manual,
    )


def _restart_step(profile: MachineProfile, cand: Candidate, floor: str) -> Step:
    """The driver's packages are installed and its module is on disk for the running kernel, but
    not loaded (the install's reboot has not happened): a restart loads it, and blacklists
    nouveau where that holds the GPU now. Reinstalling would download it again for nothing."""
    assert cand.driver is not None
    why = need_paragraph(cand.driver)
    if profile.kernel.nouveau_loaded:
        why += " " + t("plan.driver.restart_nouveau")
    return Step(
        id="driver",
        title=step_title(cand.driver),
        why=why,
        where="user",
        commands=(),
        check=driver_check(floor),
        restart="reboot",
    )


def _debian_non_free_step(profile: MachineProfile) -> Step:
    """Debian's driver packages live in non-free, which a default install does not enable.
    The line reuses the archive mirror the machine's apt sources already name; with none
    found the step is done by hand (no mirror is guessed)."""
    major = profile.os.version.split(".")[0]
    codename = DEBIAN_CODENAMES.get(major, "bookworm")
    sources = "/etc/apt/sources.list.d/tf-gpu-wizard-non-free.list"
    # non-free-firmware exists from bookworm (12) on.
    components = "main contrib non-free" + (" non-free-firmware" if codename != "bullseye" else "")
    mirror = profile.os.apt_mirror
    check = Check(("apt-cache", "show", "nvidia-driver"), t("plan.debian_non_free.proves"))
    # Data from the machine goes into a root-owned apt file: one plain URI or nothing.
    if not re.fullmatch(r"(https?|file|cdrom):[A-Za-z0-9+.:/_~%@=-]+", mirror):
        return Step(
            id="debian-non-free",
            title=t("plan.debian_non_free.title"),
            why=t("plan.debian_non_free.why_manual"),
            where="root",
            commands=(),
            check=check,
            manual=t("plan.debian_non_free.manual", codename=codename, components=components),
        )
    line = f"deb {mirror} {codename} {components}"
    return Step(
        id="debian-non-free",
        title=t("plan.debian_non_free.title"),
        why=t("plan.debian_non_free.why", file=sources, mirror=mirror),
        where="root",
        commands=(("bash", "-c", WRITE_AS_ROOT_SH, "_", sources, line), apt_update()),
        check=check,
    )


def host_steps(profile: MachineProfile, inputs: PlanInputs) -> tuple[list[Step], list[str]]:
    """What the machine below Linux needs: the driver natively, the Windows side on WSL2."""
    if profile.platform == "wsl2":
        return windows_steps(profile, inputs), [t("plan.wsl.note")]
    return driver_steps(profile, inputs), _driver_note(profile, inputs, wsl=False)


def _driver_note(profile: MachineProfile, inputs: PlanInputs, wsl: bool) -> list[str]:
    floor = set_floor(inputs.candidate, wsl=wsl)
    if driver_ok(profile, floor) and profile.driver is not None:
        return [t("plan.driver.ok_note", have=profile.driver.version, floor=floor)]
    return []


def pip_and_cuda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    """Native Linux and WSL2 alike: the host's steps, then CUDA and cuDNN as pip wheels."""
    steps, notes = host_steps(profile, inputs)
    steps += python_steps(profile, inputs.candidate)
    steps.append(venv_step(profile, inputs))
    # The nvidia-* wheels the harvest read are Linux x86_64's: elsewhere no lock can be joined.
    x86 = family_of(profile.platform, profile.arch) == LINUX_X86_64
    lock = lock_for(inputs.candidate, glibc=profile.os.glibc) if x86 else None
    if lock is not None:
        steps.append(locked_tensorflow_step(profile, inputs, lock))
    else:
        steps.append(tensorflow_step(profile, inputs, extra="[and-cuda]"))
        notes.append(unlocked_note(profile, inputs))
    steps.append(verify_step(inputs, gpu=True, driver_cuda=known_driver_cuda(profile, steps)))
    steps += last_mile_steps(
        inputs, gpu=True, python=env_python(inputs.venv), installer=choose_installer(profile)
    )
    return assemble_plan(profile, inputs, steps, notes)


def cuda_repo_name(profile: MachineProfile) -> str:
    distro, version = profile.os.id, profile.os.version
    if profile.platform == "wsl2":
        return "wsl-ubuntu"  # NVIDIA's WSL repository: the toolkit without any Linux driver
    if distro == "ubuntu":
        return "ubuntu" + version.replace(".", "")
    if distro == "debian":
        return "debian" + version.split(".")[0]
    raise PlanError(t("plan.system_cuda.unsupported", distro=profile.os.name))


def system_cuda_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    cand = inputs.candidate
    cuda = cand.set.cuda or "12.2"
    cudnn = cand.set.cudnn or "8.9"
    cuda_dir = f"/usr/local/cuda-{cuda}"
    bashrc = inputs.home / ".bashrc"
    steps, notes = host_steps(profile, inputs)
    steps += [
        _cuda_repo_step(profile, cuda),
        _cuda_toolkit_step(cand, cuda, cuda_dir),
        _cudnn_step(cuda, cudnn),
        _cuda_default_step(profile, cuda, cuda_dir),
        _shell_env_step(Path(bashrc)),
    ]
    steps += python_steps(profile, cand)
    steps.append(venv_step(profile, inputs))
    lock = machine_lock(cand, profile)
    if lock is not None:  # TensorFlow's own packages, hashed; CUDA is the system's
        steps.append(locked_environment_step(profile, inputs, lock))
    else:
        steps.append(tensorflow_step(profile, inputs))
        notes.append(unlocked_note(profile, inputs))
    cuda_env = ("bash", "-c", CUDA_ENV_EXEC_SH, "_")
    driver_cuda = known_driver_cuda(profile, steps)
    steps.append(verify_step(inputs, gpu=True, prefix=cuda_env, driver_cuda=driver_cuda))
    steps += last_mile_steps(
        inputs,
        gpu=True,
        python=env_python(inputs.venv),
        installer=choose_installer(profile),
        run_prefix=cuda_env,
    )
    notes.append(t("plan.shell_env.remove_note", file=str(bashrc)))
    return assemble_plan(profile, inputs, steps, notes)


def _cuda_repo_step(profile: MachineProfile, cuda: str) -> Step:
    """NVIDIA's CUDA apt repository, by hand: we name no package host, and the machine's own apt
    configuration names none for CUDA until its owner adds it. Satisfied (skipped) when apt
    already offers the toolkit package."""
    repo_arch = "sbsa" if profile.arch == "aarch64" else "x86_64"
    toolkit = "cuda-toolkit-" + cuda.replace(".", "-")
    return Step(
        id="cuda-repo",
        title=t("plan.cuda_repo.title"),
        why=t("plan.cuda_repo.why", package=toolkit),
        where="root",
        commands=(),
        check=Check(
            ("bash", "-c", APT_CANDIDATE_SH, "_", toolkit), t("plan.cuda_repo.proves", package=toolkit)
        ),
        manual=t("plan.cuda_repo.manual", repo=cuda_repo_name(profile), arch=repo_arch),
    )


def _cuda_toolkit_step(cand: Candidate, cuda: str, cuda_dir: str) -> Step:
    toolkit = "cuda-toolkit-" + cuda.replace(".", "-")
    return Step(
        id="cuda-toolkit",
        title=t("plan.cuda_toolkit.title", version=cuda),
        why=t("plan.cuda_toolkit.why", version=cuda, tf=cand.set.tensorflow, package=toolkit),
        where="root",
        commands=(apt_install(toolkit),),
        check=Check(("test", "-x", f"{cuda_dir}/bin/nvcc"), t("plan.cuda_toolkit.proves", path=cuda_dir)),
        download_mib=SIZE_MIB["cuda-toolkit"],
    )


def _cudnn_step(cuda: str, cudnn: str) -> Step:
    cudnn_major = cudnn.split(".")[0]
    if cudnn_major == "8":
        pkgs = ("libcudnn8", "libcudnn8-dev")
        pin = f"={cudnn}.*-1+cuda{cuda}"
    else:
        cuda_major = cuda.split(".")[0]
        pkgs = (f"libcudnn{cudnn_major}-cuda-{cuda_major}", f"libcudnn{cudnn_major}-dev-cuda-{cuda_major}")
        pin = f"={cudnn}.*"
    return Step(
        id="cudnn",
        title=t("plan.cudnn.title", version=cudnn),
        why=t("plan.cudnn.why", version=cudnn, cuda=cuda),
        where="root",
        # hold: the CUDA repository carries newer cuDNN builds an upgrade would switch to.
        commands=(apt_install(*(p + pin for p in pkgs)), ("apt-mark", "hold", *pkgs)),
        check=Check(
            ("bash", "-c", CUDNN_VERSION_SH, "_", pkgs[0], cudnn + "."),
            t("plan.cudnn.proves", package=pkgs[0], version=cudnn),
        ),
        download_mib=SIZE_MIB["cudnn"],
    )


def _cuda_default_step(profile: MachineProfile, cuda: str, cuda_dir: str) -> Step:
    """Point /usr/local/cuda at this toolkit; asks first when another one is the default now."""
    other_default = [
        tk.version for tk in profile.cuda_toolkits if tk.default and tk.version not in (cuda, UNKNOWN)
    ]
    return Step(
        id="cuda-default",
        title=t("plan.cuda_default.title", version=cuda),
        why=t("plan.cuda_default.why", path=cuda_dir),
        where="root",
        commands=(("update-alternatives", "--set", "cuda", cuda_dir),),
        check=Check(
            ("bash", "-c", CUDA_DEFAULT_SH, "_", cuda_dir), t("plan.cuda_default.proves", path=cuda_dir)
        ),
        confirm=t("plan.cuda_default.confirm", old=other_default[0], new=cuda) if other_default else None,
    )


def _shell_env_step(bashrc: Path) -> Step:
    return Step(
        id="shell-env",
        title=t("plan.shell_env.title"),
        why=t("plan.shell_env.why", file=str(bashrc)),
        where="user",
        commands=(shellblock.add_command(bashrc, "cuda", CUDA_ENV_BODY),),
        check=shellblock.present_check(bashrc, "cuda"),
    )


def cpu_plan(profile: MachineProfile, inputs: PlanInputs) -> Plan:
    windows = profile.platform == "windows"
    linux_x86 = profile.platform in ("linux", "wsl2", "wsl1") and profile.arch in ("x86_64", "amd64")
    # tensorflow-cpu is the same code without the CUDA kernels: a 260 MB download instead of 620.
    distribution = "tensorflow-cpu" if linux_x86 else "tensorflow"
    steps = [] if windows else python_steps(profile, inputs.candidate)
    steps.append(venv_step(profile, inputs, windows=windows))
    # Every package pinned with its sha256 (wizard.choose.lock): Linux x86_64 and aarch64, macOS, Windows.
    lock = machine_lock(inputs.candidate, profile)
    unlocked = []
    if lock is not None:
        steps.append(locked_environment_step(profile, inputs, lock, PIP if windows else None))
    else:
        steps.append(tensorflow_step(profile, inputs, distribution=distribution))
        unlocked.append(unlocked_note(profile, inputs))
    # One start of TensorFlow proves both the verify and the hello script (assets/programs/tf_proof.py).
    steps.append(verify_step(inputs, gpu=False, windows=windows, hello="" if windows else program(HELLO)))
    steps += last_mile_steps(
        inputs,
        gpu=False,
        python=env_python(inputs.venv, windows),
        installer=PIP if windows else choose_installer(profile),
        jupyter=profile.platform in ("linux", "wsl2", "wsl1"),
        proven_by_verify=not windows,
    )
    notes = [t("plan.cpu.note")] if profile.has_nvidia_gpu else []
    return assemble_plan(profile, inputs, steps, notes + unlocked)
