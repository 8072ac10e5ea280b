"""The Windows-host steps of every WSL2 plan; the in-WSL steps are the native Linux ones.

WSL2 uses the Windows driver through /usr/lib/wsl/lib; a Linux NVIDIA driver
inside WSL only breaks that, so this plan never installs one and offers to
remove one that was installed.
"""

from __future__ import annotations

from wizard.choose.choice import Candidate
from wizard.choose.driver_view import need_paragraph, step_title
from wizard.plan.common import driver_check, driver_floor, driver_ok, machine_fix_step
from wizard.plan.model import Check, PlanInputs, Step
from wizard.plan.programs import program
from wizard.probe.state_view import WINDOWS_DRIVER_FIXES, removed_by_plan_words
from wizard.profile import MachineProfile
from wizard.text import t

WSL_NVIDIA_SMI = "/usr/lib/wsl/lib/nvidia-smi"
WSL_GPU_SH = "test -e /dev/dxg && test -e /usr/lib/wsl/lib/libcuda.so.1"

# assets/programs: purge the packages that own exact files (patterns refused), keeping their names.
REMOVE_DRIVER = "remove_linux_driver.sh"
NONE_EXIST_SH = 'for p in "$@"; do if [ -e "$p" ]; then exit 1; fi; done'

# assets/programs: memory= and processors= merged into [wsl2]; every other line kept.
WSLCONFIG = "wslconfig.sh"
# After `wsl --shutdown` the VM has the new limits: all processors, and at least 90% of the memory.
WSLCONFIG_CHECK_SH = (
    '[ "$(nproc)" -eq "$2" ] && kib=$(awk "/^MemTotal:/ {print \\$2}" /proc/meminfo) '
    '&& [ "$kib" -ge $(( $1 * 1024 * 1024 * 9 / 10 )) ]'
)


def linux_driver_files(profile: MachineProfile) -> list[str]:
    """libcuda copies outside /usr/lib/wsl/lib: a Linux driver installed inside WSL. Exact paths only
    (MachineProfile.linux_driver_in_wsl: the resolver's fact, the plan's step, one list)."""
    return list(profile.linux_driver_in_wsl)


def _gpu_name(profile: MachineProfile) -> str:
    """The GPU's name, bounded as detect and recommend bound it: a profile's string is data, and a
    5,000-character name must not flood the plan, its JSON or its script."""
    from wizard.plan.common import bounded

    return bounded(profile.gpus[0].name) if profile.gpus else t("plan.windows_driver.your_gpu")


def set_floor(candidate: Candidate, *, wsl: bool) -> str:
    """The driver floor the resolver computed for this set (one fact, one place)."""
    return candidate.driver.floor if candidate.driver is not None else driver_floor(candidate, wsl=wsl)


def where_to_get(profile: MachineProfile, floor: str) -> str:
    """Where a student gets a Windows driver for this GPU: a laptop's first (its maker may
    ship its own), a desktop card's from NVIDIA."""
    gpu = _gpu_name(profile)
    laptop = "laptop" in gpu.lower() or "notebook" in gpu.lower() or gpu.lower().rstrip().endswith("m")
    return t(f"plan.h17_driver.where_{'laptop' if laptop else 'desktop'}", floor=floor, gpu=gpu)


def windows_driver_why(profile: MachineProfile, candidate: Candidate, fallback: str) -> str:
    return need_paragraph(candidate.driver) if candidate.driver is not None else fallback


def windows_driver_step(
    profile: MachineProfile,
    floor: str,
    *,
    why: str,
    manual: str,
    check: Check,
    restart: str | None = None,
    title: str | None = None,
) -> Step:
    """The NVIDIA driver on Windows, installed by hand: the version to get, where, and a check
    (from inside WSL, or from Windows before WSL exists)."""
    ok = driver_ok(profile, floor)
    return Step(
        id="windows-driver",
        title=title or t("plan.windows_driver.title", floor=floor),
        why=why,
        where="windows-host",
        commands=(),
        manual=manual,
        check=check,
        restart=restart,
        download_mib=0 if ok else 700,
        presumed_done=ok,
    )


def windows_steps(profile: MachineProfile, inputs: PlanInputs) -> list[Step]:
    cand = inputs.candidate
    floor = set_floor(cand, wsl=True)
    have = profile.driver.version if profile.driver else t("plan.driver.none")
    fix = cand.driver.fix if cand.driver is not None else None
    # A stopped machine's fix, except where installing the Windows driver is that fix (its download).
    fixing = fix is not None and fix.reason not in WINDOWS_DRIVER_FIXES
    steps = [
        machine_fix_step("windows-driver", cand.driver, driver_check(floor, WSL_NVIDIA_SMI))
        if fixing and cand.driver is not None
        else windows_driver_step(
            profile,
            floor,
            title=step_title(cand.driver) if cand.driver is not None else None,
            why=windows_driver_why(profile, cand, t("plan.windows_driver.why", floor=floor, have=have)),
            manual=where_to_get(profile, floor) + t("plan.h17_driver.after_wsl", floor=floor),
            check=driver_check(floor, WSL_NVIDIA_SMI),
            # WSL maps the Windows driver's files when it starts: it sees a new one after a restart.
            restart="wsl-shutdown",
        ),
        Step(
            id="wsl-update",
            title=t("plan.wsl_update.title"),
            why=t("plan.wsl_update.why"),
            where="windows-host",
            commands=(("wsl", "--update"),),
            check=Check(("bash", "-c", WSL_GPU_SH), t("plan.wsl_update.proves")),
            restart="wsl-shutdown",
        ),
    ]
    ram = profile.resources.ram_mib
    cpus = profile.resources.cpu_count
    if ram and cpus:
        # WSL2 gives the VM half the host's memory by default; what it sees now is that half.
        memory_gb = max(4, round(ram * 1.5 / 1024))
        steps.append(
            Step(
                id="wslconfig",
                title=t("plan.wslconfig.title", memory=memory_gb, cpus=cpus),
                why=t("plan.wslconfig.why", memory=memory_gb, cpus=cpus),
                where="user",
                commands=(("bash", program(WSLCONFIG), str(memory_gb), str(cpus)),),
                check=Check(
                    ("bash", "-c", WSLCONFIG_CHECK_SH, "_", str(memory_gb), str(cpus)),
                    t("plan.wslconfig.proves", memory=memory_gb, cpus=cpus),
                ),
                restart="wsl-shutdown",
                optional=True,
                enabled=False,
            )
        )
    files = linux_driver_files(profile)
    if files:
        said = removed_by_plan_words(profile)  # None: a profile from before states
        title = (
            t("plan.remove_linux_driver.title_state", title=said.title)
            if said
            else t("plan.remove_linux_driver.title")
        )
        why = t("plan.remove_linux_driver.why", files=", ".join(files))
        if said:
            why = t("plan.remove_linux_driver.why_state", fix=said.fix, files=", ".join(files))
        steps.append(
            Step(
                id="remove-linux-driver",
                title=title,
                why=why,
                where="root",
                commands=(("bash", program(REMOVE_DRIVER), *files),),
                check=Check(("bash", "-c", NONE_EXIST_SH, "_", *files), t("plan.remove_linux_driver.proves")),
                confirm=t("plan.remove_linux_driver.confirm", files=", ".join(files)),
            )
        )
    return steps
