"""A hybrid laptop's graphics switch set to the integrated GPU alone.

    integrated_mode(ctx) -> (evidence, tool) | None

Ubuntu's nvidia-prime (`prime-select query` prints "intel", "nvidia" or "on-demand"), Pop!_OS's
system76-power (`system76-power graphics` prints "integrated", "hybrid", "nvidia" or "compute") and
EnvyControl (`envycontrol --query` prints "integrated", "hybrid" or "nvidia" since 3.0, "Current
graphics mode is: integrated" before; its integrated mode blacklists the NVIDIA modules and removes
the GPU from the PCI bus at boot).
In "intel" / "integrated" mode the NVIDIA GPU is powered off or its driver kept unloaded, so no
driver answers although one is installed: the GPU is switched off, and the tool switches it on.
"""

from __future__ import annotations

from wizard.probe.context import ProbeContext, command_evidence
from wizard.profile import Evidence

PRIME_QUERY = ["prime-select", "query"]
SYSTEM76_GRAPHICS = ["system76-power", "graphics"]
ENVYCONTROL_QUERY = ["envycontrol", "--query"]
# Each tool's answer for "the integrated GPU only" (EnvyControl's in both its wordings).
_INTEGRATED_ONLY: tuple[tuple[list[str], tuple[str, ...]], ...] = (
    (PRIME_QUERY, ("intel",)),
    (SYSTEM76_GRAPHICS, ("integrated",)),
    (ENVYCONTROL_QUERY, ("integrated", "Current graphics mode is: integrated")),
)


def integrated_mode(ctx: ProbeContext) -> tuple[Evidence, str] | None:
    """(the tool's answer as evidence, the tool's name) where a switching tool says the integrated
    GPU alone is in use; None where none is installed or each says another mode."""
    for argv, words in _INTEGRATED_ONLY:
        result = ctx.system.run(argv, timeout=3.0)
        # -1: a pasted answer whose exit code was not shown (wizard.probe.dump)
        if result.missing or result.timed_out or result.returncode not in (0, -1):
            continue
        lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
        if lines[-1:] and lines[-1] in words:
            return command_evidence(argv, result, lines[-1]), argv[0]
    return None


__all__ = ["ENVYCONTROL_QUERY", "PRIME_QUERY", "SYSTEM76_GRAPHICS", "integrated_mode"]
