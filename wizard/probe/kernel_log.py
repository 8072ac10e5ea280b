"""This boot's kernel log, read once and shared: dmesg, else the journal's copy (`journalctl -k`
implies -b), which a user in the adm/systemd-journal group reads where dmesg_restrict hides dmesg.
Its lines are read whatever the exit code (a pasted log shows none; a refusal prints no line)."""

from __future__ import annotations

import re

from wizard.probe.context import ProbeContext
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


def kernel_log_text(ctx: ProbeContext) -> str:
    found = kernel_log(ctx)
    if not found or found[1].missing or found[1].timed_out:
        return ""
    return found[1].stdout


def loaded_module_line(text: str) -> tuple[str, str] | None:
    """The last module load this boot's log shows: (its line, its version)."""
    found = None
    for line in text.splitlines():
        m = _LOADING.search(line)
        if m:
            found = (line.strip(), m.group(1))
    return found
