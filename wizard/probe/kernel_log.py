"""This boot's kernel log, read once and shared: dmesg, else the journal's copy (`journalctl -k`
implies -b), which a user in the adm/systemd-journal group reads where dmesg_restrict hides dmesg.
Its lines are read whatever the exit code (a pasted log shows none; a refusal prints no line)."""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext, command_evidence, file_evidence
from wizard.profile import Evidence
from wizard.sysio import CommandResult

# NVRM's line as the module loads: "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.05 ..."
# or "... UNIX Open Kernel Module for x86_64  570.158.01 ..." (the words /proc/driver/nvidia/version
# holds while it is loaded).
_LOADING = re.compile(
    r"NVRM: loading NVIDIA UNIX .*?Kernel Module(?: for \S+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?)"
)


def kernel_log(ctx: ProbeContext) -> tuple[list[str], CommandResult] | None:
    if "dmesg" not in ctx.seen:
        argv = ["dmesg"]
        result = ctx.system.run(argv, timeout=3.0)
        if not result.stdout.strip():
            journal = ["journalctl", "-k"]
            again = ctx.system.run(journal, timeout=5.0)
            if again.stdout.strip() and not again.missing:
                argv, result = journal, again
        ctx.seen["dmesg"] = (argv, result)
    found = ctx.seen.get("dmesg")
    return found if isinstance(found, tuple) else None


def _live_text(ctx: ProbeContext) -> str:
    found = kernel_log(ctx)
    if not found or found[1].missing or found[1].timed_out:
        return ""
    return found[1].stdout


# The system logger's copy of the kernel's lines (rsyslog's kern.log/syslog, messages): "Dec  2
# 11:49:53 host kernel: [  885.242168] NVRM: ...". Where neither dmesg nor the journal answers
# (dmesg_restrict, no journal, a pasted log), its last boot is this boot's log: a running logger
# writes this boot last.
SAVED_KERNEL_LOGS = ("/var/log/kern.log", "/var/log/syslog", "/var/log/messages")
_SAVED_LIMIT = 1 << 20  # the most read (and kept by --dump) of one log
_KERNEL_LINE = re.compile(r"\bkernel: ")
_STAMP = re.compile(r"kernel: \[\s*([0-9]+\.[0-9]+)\]")
_BOOT = re.compile(r"kernel: (?:\[\s*0\.0+\] )?Linux version ")


def last_boot(text: str) -> str:
    """The kernel's lines of the last boot a saved system log holds: after its last "Linux version"
    line or the last point where the kernel's uptime stamp went back (a restart). "" where the lines
    show no boot at all (neither a boot line nor uptime stamps): which boot they are is not known."""
    lines = [x for x in text.splitlines() if _KERNEL_LINE.search(x)]
    start, before, booted = 0, -1.0, False
    for i, line in enumerate(lines):
        stamp = _STAMP.search(line)
        now = float(stamp.group(1)) if stamp else None
        if _BOOT.search(line) or (now is not None and now < before):
            start = i
        if now is not None:
            before = now
        booted = booted or bool(stamp) or bool(_BOOT.search(line))
    return "".join(x + "\n" for x in lines[start:]) if booted else ""


_RELEASE = re.compile(r"Linux version (\S+)")


def _other_kernel(text: str, running: str) -> bool:
    """True where the saved boot names its kernel and that is not the running one (/proc/version):
    a logger that stopped writing left an older boot last, and its lines are not this boot's."""
    saved, now = _RELEASE.search(text), _RELEASE.search(running)
    return bool(saved and now and saved.group(1) != now.group(1))


def saved_kernel_log(ctx: ProbeContext) -> tuple[str, str] | None:
    """(path, the last boot's kernel lines) of the first saved system log that holds any, read once
    and only where dmesg and the journal show nothing."""
    if "saved_kernel_log" not in ctx.seen:
        found: tuple[str, str] | None = None
        if not _live_text(ctx).strip():
            for path in SAVED_KERNEL_LOGS:
                whole = ctx.system.read_text(path, _SAVED_LIMIT) or ""
                # Read from its start: a file longer than what was read has its last boot unread.
                text = last_boot(whole) if len(whole) < _SAVED_LIMIT else ""
                if _other_kernel(text, ctx.system.read_text("/proc/version", 4096) or ""):
                    text = ""
                if text.strip():
                    found = (path, text)
                    break
        ctx.seen["saved_kernel_log"] = found
    saved = ctx.seen.get("saved_kernel_log")
    return saved if isinstance(saved, tuple) else None


def kernel_log_text(ctx: ProbeContext) -> str:
    """This boot's kernel lines: dmesg, else the journal's, else a saved system log's last boot."""
    text = _live_text(ctx)
    if text.strip():
        return text
    saved = saved_kernel_log(ctx)
    return saved[1] if saved else ""


def kernel_evidence(ctx: ProbeContext, line: str) -> list[Evidence]:
    """The kernel log's line as evidence: the command that printed it, or the saved log's path."""
    if not line:
        return []
    found = kernel_log(ctx)
    if found and _live_text(ctx).strip():
        return [command_evidence(found[0], found[1], line)]
    saved = saved_kernel_log(ctx)
    return [file_evidence(saved[0], line)] if saved else []


def loaded_module_line(text: str) -> tuple[str, str] | None:
    """The last module load this boot's log shows: (its line, its version)."""
    found = None
    for line in text.splitlines():
        m = _LOADING.search(line)
        if m:
            found = (line.strip(), m.group(1))
    return found
