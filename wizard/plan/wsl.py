"""The Windows-host steps of every WSL2 plan; the in-WSL steps are the native Linux ones.

WSL2 uses the Windows driver through /usr/lib/wsl/lib; a Linux NVIDIA driver
inside WSL only breaks that, so this plan never installs one and offers to
remove one that was installed.
"""

from __future__ import annotations

from wizard.plan.common import driver_check, driver_floor, driver_ok
from wizard.plan.model import Check, PlanInputs, Step
from wizard.profile import MachineProfile
from wizard.text import t

WSL_NVIDIA_SMI = "/usr/lib/wsl/lib/nvidia-smi"
WSL_GPU_SH = "test -e /dev/dxg && test -e /usr/lib/wsl/lib/libcuda.so.1"

# Purge the packages that own the given files; keep their names for a reinstall.
REMOVE_DRIVER_SH = """\
mapfile -t pkgs < <(dpkg -S "$@" 2>/dev/null | cut -d: -f1 | sed "s/, /\\n/g" | sort -u)
if [ "${#pkgs[@]}" -gt 0 ]; then
  printf "%s\\n" "${pkgs[@]}" > /var/backups/tf-gpu-wizard-removed-nvidia-packages.txt
  env DEBIAN_FRONTEND=noninteractive apt-get purge -y "${pkgs[@]}"
fi
for p in "$@"; do
  if [ -e "$p" ]; then
    echo "still there (not from a package, maybe from the NVIDIA .run installer: try nvidia-uninstall): $p"
  fi
done
"""
NONE_EXIST_SH = 'for p in "$@"; do if [ -e "$p" ]; then exit 1; fi; done'

# .wslconfig lives in the Windows home; reach it through WSL interop (cmd.exe, wslpath).
WSLCONFIG_SH = """\
set -e
win=$(cmd.exe /c "echo %USERPROFILE%" 2>/dev/null | tr -d "\\r")
dir=$(wslpath -u "$win")
f="$dir/.wslconfig"
if [ -f "$f" ]; then cp -p -- "$f" "$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S).bak"; fi
printf "[wsl2]\\nmemory=%sGB\\nprocessors=%s\\n" "$1" "$2" > "$f"
echo "wrote $f"
"""
# After `wsl --shutdown` the VM has the new limits: all processors, and at least 90% of the memory.
WSLCONFIG_CHECK_SH = (
    '[ "$(nproc)" -eq "$2" ] && kib=$(awk "/^MemTotal:/ {print \\$2}" /proc/meminfo) '
    '&& [ "$kib" -ge $(( $1 * 1024 * 1024 * 9 / 10 )) ]'
)


def linux_driver_files(profile: MachineProfile) -> list[str]:
    """libcuda copies outside /usr/lib/wsl/lib: a Linux driver installed inside WSL."""
    return sorted(
        {lib.path for lib in profile.libcuda if not lib.inside_wsl_lib and "/stubs/" not in lib.path}
    )


def windows_steps(profile: MachineProfile, inputs: PlanInputs) -> list[Step]:
    floor = driver_floor(inputs.candidate, wsl=True)
    have = profile.driver.version if profile.driver else t("plan.driver.none")
    steps = [
        Step(
            id="windows-driver",
            title=t("plan.windows_driver.title", floor=floor),
            why=t("plan.windows_driver.why", floor=floor, have=have),
            where="windows-host",
            commands=(),
            manual=t("plan.windows_driver.manual", floor=floor),
            check=driver_check(floor, WSL_NVIDIA_SMI),
            download_mib=0 if driver_ok(profile, floor) else 700,
            presumed_done=driver_ok(profile, floor),
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
                commands=(("bash", "-c", WSLCONFIG_SH, "_", str(memory_gb), str(cpus)),),
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
        steps.append(
            Step(
                id="remove-linux-driver",
                title=t("plan.remove_linux_driver.title"),
                why=t("plan.remove_linux_driver.why", files=", ".join(files)),
                where="root",
                commands=(("bash", "-c", REMOVE_DRIVER_SH, "_", *files),),
                check=Check(("bash", "-c", NONE_EXIST_SH, "_", *files), t("plan.remove_linux_driver.proves")),
                confirm=t("plan.remove_linux_driver.confirm", files=", ".join(files)),
            )
        )
    return steps
