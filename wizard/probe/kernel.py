"""Kernel side: which GPU modules are loaded, module vs userspace version, Secure Boot."""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext
from wizard.probe.kernel_log import kernel_log
from wizard.profile import MachineProfile


def loaded_modules(text: str) -> set[str]:
    return {line.split()[0] for line in text.splitlines() if line.strip()}


EFIVARS = "/sys/firmware/efi/efivars"


def _efi_secure_boot(ctx: ProbeContext, profile: MachineProfile) -> None:
    """Where mokutil is not installed: the firmware's SecureBoot variable (4 attribute bytes, then
    1 = on, 0 = off); a file of any other length decides nothing."""
    for path in ctx.system.glob(EFIVARS, "SecureBoot-*"):
        text = ctx.system.read_text(path, 64)
        if text is None or len(text) != 5 or text[4] not in "\x00\x01":
            continue
        profile.kernel.secure_boot = text[4] == "\x01"
        ctx.seen["efi_secure_boot"] = (path, "SecureBoot " + ("enabled" if text[4] == "\x01" else "disabled"))
        return


# The kernel's own line at boot (arch/x86/kernel/setup.c, pr_fmt "secureboot: "): "Secure boot
# enabled", "Secure boot disabled" ("could not be determined" decides nothing).
_KERNEL_SECURE_BOOT = re.compile(r"secureboot: Secure boot (enabled|disabled)")


def _kernel_says_secure_boot(ctx: ProbeContext, profile: MachineProfile) -> None:
    """Where neither mokutil nor the firmware variable answered: this boot's kernel log."""
    log = kernel_log(ctx)
    if not log or log[1].missing or log[1].timed_out:
        return
    line = next((x.strip() for x in log[1].stdout.splitlines() if _KERNEL_SECURE_BOOT.search(x)), "")
    if line:
        profile.kernel.secure_boot = "enabled" in line
        ctx.seen["efi_secure_boot"] = (" ".join(log[0]), line)


def probe_kernel(ctx: ProbeContext, profile: MachineProfile) -> str:
    if profile.platform != "linux":
        # WSL2's GPU goes through /dev/dxg, not a kernel module; other OSes have no /proc.
        return "none"
    km = profile.kernel
    modules_text = ctx.system.read_text("/proc/modules")
    if modules_text is not None:
        mods = loaded_modules(modules_text)
        km.nvidia_loaded = "nvidia" in mods
        km.nouveau_loaded = "nouveau" in mods
    version = (ctx.system.read_text("/sys/module/nvidia/version") or "").strip()
    km.loaded_version = version or None
    if km.loaded_version and profile.driver and profile.driver.version not in ("unknown", km.loaded_version):
        ctx.note("probe.module_mismatch", loaded=km.loaded_version, userspace=profile.driver.version)
    if km.nvidia_loaded is not True:
        # The module the running kernel would load (modinfo looks under /lib/modules/$(uname -r)).
        info = ctx.system.run(["modinfo", "-F", "version", "nvidia"], timeout=2.0)
        ctx.seen["modinfo"] = (["modinfo", "-F", "version", "nvidia"], info)
        first = (info.stdout.strip().splitlines() or [""])[0].strip()
        # A bare version on stdout is modinfo's answer (a pasted output shows no exit code).
        if not info.missing and not info.timed_out and re.fullmatch(r"[0-9]+(\.[0-9]+){1,2}", first):
            km.module_for_kernel, km.module_version = True, first
        elif not info.missing and not info.timed_out and "not found" in info.stderr.lower():
            km.module_for_kernel = False
    result = ctx.system.run(["mokutil", "--sb-state"], timeout=2.0)
    ctx.seen["mokutil"] = (["mokutil", "--sb-state"], result)
    if result.ok or result.stdout:
        text = (result.stdout + result.stderr).lower()
        # mokutil prints "SecureBoot validation is disabled in shim" under "SecureBoot enabled" where
        # MokSBState is set: shim then tells the kernel not to enforce module signatures.
        if "secureboot enabled" in text and "validation is disabled in shim" in text:
            km.secure_boot = False
        elif "secureboot enabled" in text:
            km.secure_boot = True
        elif "secureboot disabled" in text:
            km.secure_boot = False
    if km.secure_boot is None:
        _efi_secure_boot(ctx, profile)
    if km.secure_boot is None:
        _kernel_says_secure_boot(ctx, profile)
    if profile.nvidia_pci_devices and km.nvidia_loaded is False and profile.driver is None:
        if km.nouveau_loaded:
            ctx.note("probe.nouveau_loaded")
    return "procfs"
