"""The kernel module's own word on a driver mismatch: NVRM's "API mismatch" message.

The loaded nvidia module prints it (open-gpu-kernel-modules, src/nvidia/arch/nvalloc/unix/src/
osapi.c, RmCheckVersion) when a user-space driver component of another version opens it:

    NVRM: API mismatch: the client '%s' (pid %u)
    NVRM: has the version %s, but this kernel module has
    NVRM: the version %s.  Please make sure that this
    NVRM: kernel module and all NVIDIA driver components
    NVRM: have the same version.

Older drivers print the same facts without the client's name ("NVRM: API mismatch: the client has
the version %s, but / NVRM: this kernel module has the version %s.  Please ..."). The first version
is the libraries' (the client's), the second the loaded module's. The message spans lines, each
behind its own prefix as the log shows it (dmesg's timestamp, the journal's "kernel:", rsyslog's
#012 for the line breaks), so the lines are joined before they are read. The user-space side words
the same refusal "NVIDIA: API mismatch: the NVIDIA kernel module has version %s, but this NVIDIA
driver component has version %s." (the X server's log, a GL program's stderr).

A log may be older than the machine's state: a later "NVRM: loading" line (the module loaded again),
a module loaded now of another version, or library files none of which has the client's version
show it is past, and then it decides nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.probe.container_marks import host_only
from wizard.probe.context import ProbeContext
from wizard.probe.cuda import LIB_DIRS
from wizard.probe.failure_words import SAVED_LOGS
from wizard.probe.kernel_log import kernel_log, loaded_module_line

_VERSION = r"[0-9]+(?:\.[0-9]+)+"
_SAID = re.compile(
    rf"API mismatch: the client(?: '.*?' \(pid [0-9]+\))? has the version ({_VERSION}),? but "
    rf"this kernel module has the version ({_VERSION})"
)
# The same refusal as the user-space component (the X driver, libGL) words it on its side, on stderr
# and in the X server's log ("(EE) NVIDIA: API mismatch: ..."): the module's version first.
_CLIENT_SAID = re.compile(
    rf"API mismatch: the NVIDIA kernel module has (?:the )?version ({_VERSION}),? but "
    rf"th(?:is|e) NVIDIA driver component has (?:the )?version ({_VERSION})",
    re.IGNORECASE,
)
XORG_LOG = "/var/log/Xorg.0.log"
_LIB_VERSION = re.compile(r"\.so\.([0-9]+\.[0-9]+(?:\.[0-9]+)?)$")


@dataclass(frozen=True)
class ApiMismatch:
    source: str  # the command or file it was read from
    line: str  # the message on one line
    library: str  # the client's (user-space) version
    module: str  # the loaded kernel module's version
    argv: tuple[str, ...] = ()  # the command, where a command's output held it


def read_api_mismatch(text: str) -> tuple[str, str, str] | None:
    """(the message on one line, the libraries' version, the module's version) of the last API
    mismatch in a log, unless a later line shows the module loaded again; else None."""
    text = text.replace("#012", "\n")
    found = None
    for start in (m.start() for m in re.finditer("API mismatch", text)):
        # Each continuation line's prefix (timestamp, host, indentation) up to its "NVRM:" goes.
        piece = re.sub(r"\n[^\n]*?(?:NVRM|NVIDIA):", " ", text[start : start + 600])
        joined = " ".join(piece.split())
        if m := _SAID.match(joined):
            end = joined.find(".", m.end())
            found = (start, "NVRM: " + (joined[: end + 1] if end > 0 else m.group(0)), m.group(1), m.group(2))
        elif m := _CLIENT_SAID.match(joined):
            end = joined.find(".", m.end())
            found = (
                start,
                "NVIDIA: " + (joined[: end + 1] if end > 0 else m.group(0)),
                m.group(2),
                m.group(1),
            )
    if found is None:
        return None
    start, line, library, module = found
    if loaded_module_line(text[start:]):  # the module loaded again after it: a past state
        return None
    return line, library, module


def _library_versions(ctx: ProbeContext) -> set[str]:
    versions: set[str] = set()
    for d in LIB_DIRS:
        for name in ("libnvidia-ml", "libcuda"):
            for path in ctx.system.glob(d, f"{name}.so.*"):
                if (m := _LIB_VERSION.search(path)) and "/stubs/" not in path:
                    versions.add(m.group(1))
    return versions


def _past(ctx: ProbeContext, library: str, module: str) -> bool:
    """The machine as read now contradicts the logged mismatch."""
    loaded = (ctx.system.read_text("/sys/module/nvidia/version") or "").strip()
    if loaded and loaded != module:
        return True
    modules = ctx.system.read_text("/proc/modules")
    if modules is not None and "nvidia" not in {x.split()[0] for x in modules.splitlines() if x.strip()}:
        return True
    versions = _library_versions(ctx)
    return bool(versions) and library not in versions


def api_mismatch(ctx: ProbeContext) -> ApiMismatch | None:
    """nvidia-smi's own output, else this boot's kernel log (dmesg, else journalctl -k), else a saved
    log, where it holds an API mismatch the machine as read now does not contradict (memoised)."""
    if "api_mismatch" in ctx.seen:
        found = ctx.seen["api_mismatch"]
        return found if isinstance(found, ApiMismatch) else None
    result: ApiMismatch | None = None
    if host_only(ctx):  # a container given no GPU: the kernel log and the logs under /var are the host's
        ctx.seen["api_mismatch"] = "none"
        return None
    for key in ("smi_query", "smi"):  # a program that printed the user-space side's words just now
        found = ctx.seen.get(key)
        if result is None and isinstance(found, tuple):
            if said := read_api_mismatch(found[1].stdout + "\n" + found[1].stderr):
                result = ApiMismatch(" ".join(found[0]), *said, argv=tuple(found[0]))
    if result is not None:
        ctx.seen["api_mismatch"] = result
        return result
    log = kernel_log(ctx)
    read = bool(log and not log[1].missing and not log[1].timed_out and log[1].stdout.strip())
    if log and read:
        if said := read_api_mismatch(log[1].stdout):
            result = ApiMismatch(" ".join(log[0]), *said, argv=tuple(log[0]))
    else:  # this boot's log unread: the X server's, a saved one, older boots too (the guards below)
        for path in (XORG_LOG, *SAVED_LOGS):
            if said := read_api_mismatch(ctx.system.read_text(path) or ""):
                result = ApiMismatch(path, *said)
                break
    if result is not None and _past(ctx, result.library, result.module):
        result = None
    ctx.seen["api_mismatch"] = result if result is not None else "none"
    return result
