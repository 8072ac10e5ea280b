"""Platform: native Linux, WSL2, WSL1, Windows or macOS; distro, kernel, arch."""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext
from wizard.profile import MachineProfile, Note, note

WSL_LIB = "/usr/lib/wsl/lib"
APT_SOURCES_D = "/etc/apt/sources.list.d"


def parse_os_release(text: str) -> dict[str, str]:
    """os-release is KEY=value lines with optional quotes (freedesktop.org spec)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out[key.strip()] = value
    return out


def glibc_of(libc: str) -> str:
    """'glibc 2.35' -> '2.35'; 'unknown' for another C library (TensorFlow's wheels need glibc)."""
    name, _, version = libc.strip().partition(" ")
    return version if name == "glibc" and version else "unknown"


def debian_mirror(ctx: ProbeContext) -> str | None:
    """The URI of the Debian archive in the machine's apt sources (one-line .list files and
    deb822 .sources files alike); None when none names one."""
    files = ["/etc/apt/sources.list"]
    for pattern in ("*.list", "*.sources"):
        files += sorted(ctx.system.glob(APT_SOURCES_D, pattern))
    for path in files:
        text = ctx.system.read_text(path) or ""
        found = _deb822_uri(text) if path.endswith(".sources") else _list_uri(text)
        if found:
            return found
    return None


def _is_archive(uri: str, suite: str) -> bool:
    # The main archive, not the security archive or a backports/updates suite of it.
    return uri.rstrip("/").endswith("/debian") and "-" not in suite and "/" not in suite


def _list_uri(text: str) -> str | None:
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if words[:1] != ["deb"]:
            continue
        words = words[1:]
        if words and words[0].startswith("["):  # [arch=amd64 signed-by=...] options
            while words and not words[0].endswith("]"):
                words = words[1:]
            words = words[1:]
        if len(words) >= 2 and _is_archive(words[0], words[1]):
            return words[0].rstrip("/")
    return None


def _deb822_uri(text: str) -> str | None:
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            key, sep, value = line.partition(":")
            if sep and not line.startswith((" ", "\t", "#")):
                fields[key.strip().lower()] = value.strip()
        if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
            continue
        for uri in fields.get("uris", "").split():
            if any(_is_archive(uri, suite) for suite in fields.get("suites", "").split()):
                return uri.rstrip("/")
    return None


def _linux_flavour(ctx: ProbeContext, kernel: str, proc_version: str) -> str:
    sysd = ctx.system
    microsoft = "microsoft" in proc_version.lower() or "microsoft" in kernel.lower()
    if not microsoft and not ctx.system.environ.get("WSL_DISTRO_NAME"):
        return "linux"
    # WSL2 has a real Linux kernel with a GPU paravirtualisation device (/dev/dxg);
    # WSL1 translates syscalls, has no /dev/dxg and reports a "Microsoft" 4.4 kernel.
    # Microsoft's own Linux kernels ("4.19.104-microsoft-standard", "5.15...-microsoft-standard-WSL2")
    # run only under WSL2, with or without a GPU device; WSL1 shows "4.4.0-19041-Microsoft".
    wsl2_kernel = "wsl2" in kernel.lower() or "microsoft-standard" in (kernel + proc_version).lower()
    if sysd.exists("/dev/dxg") or sysd.is_dir(WSL_LIB) or wsl2_kernel:
        return "wsl2"
    return "wsl1"


def wsl1_fix(distro: str) -> Note:
    """The PowerShell line that converts this distribution to WSL2 (how to find its name when unknown)."""
    from wizard.profile_view import wsl1_distro_arg

    arg = wsl1_distro_arg(distro)
    return note("probe.wsl1", distro=arg) if arg else note("probe.wsl1_unknown")


def probe_platform(ctx: ProbeContext, profile: MachineProfile) -> str:
    py = ctx.python
    arch = {"amd64": "x86_64", "x64": "x86_64"}.get(py.machine.lower(), py.machine or "unknown")
    profile.arch = arch
    if py.platform == "win32":
        profile.platform = "windows"
        profile.os.id = "windows"
        return "python"
    if py.platform == "darwin":
        profile.platform = "macos"
        profile.os.id = "macos"
        result = ctx.system.run(["sw_vers", "-productVersion"], timeout=2.0)
        if result.ok:
            profile.os.version = result.stdout.strip()
            profile.os.name = f"macOS {profile.os.version}"
        return "python"

    proc_version = ctx.system.read_text("/proc/version") or ""
    kernel = (ctx.system.read_text("/proc/sys/kernel/osrelease") or "").strip()
    if not kernel and proc_version:
        parts = proc_version.split()
        kernel = parts[2] if len(parts) > 2 else ""
    profile.os.kernel = kernel or "unknown"
    profile.platform = _linux_flavour(ctx, kernel, proc_version)
    profile.os.glibc = glibc_of(py.libc)

    release = ctx.system.read_text("/etc/os-release") or ctx.system.read_text("/usr/lib/os-release")
    if release is None:
        ctx.note("probe.no_os_release")
    else:
        info = parse_os_release(release)
        profile.os.id = info.get("ID", "unknown") or "unknown"
        profile.os.version = info.get("VERSION_ID", "unknown") or "unknown"
        profile.os.name = info.get("PRETTY_NAME", profile.os.id)
        if profile.os.id == "debian":
            profile.os.apt_mirror = debian_mirror(ctx) or "unknown"
    name = ctx.system.environ.get("WSL_DISTRO_NAME", "")
    if profile.platform in ("wsl1", "wsl2") and name:
        profile.os.wsl_distro = name
    if profile.platform == "wsl1":
        ctx.add(wsl1_fix(profile.os.wsl_distro))
    return "procfs"
