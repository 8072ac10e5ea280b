"""The machine the text was written on, where the doctor knows it: a step's output, `doctor --run`.

    with_machine(facts, profile) -> Facts

A text pasted into the doctor may come from any machine, so the profile of the machine the doctor
runs on stays apart from the text's facts. Where the doctor ran the command itself (a plan step, a
`--run` command), the machine is the one that wrote the text, and its platform (WSL2, a container,
Windows) joins the text's facts, so the reasoning decides as it would have with the text saying it.
"""

from __future__ import annotations

from dataclasses import replace

from wizard.doctor.facts import Facts
from wizard.profile import MachineProfile

_PLATFORM_NAMES = {"wsl2": "WSL2", "windows": "Windows"}


def machine_platforms(profile: MachineProfile) -> list[str]:
    """The doctor's platform names (facts._PLATFORMS) for what detect found."""
    out = [_PLATFORM_NAMES[profile.platform]] if profile.platform in _PLATFORM_NAMES else []
    if profile.states_of("container"):
        out.append("container")
    return out


def with_machine(facts: Facts, profile: MachineProfile) -> Facts:
    """`facts` with the machine's platforms added (the text's own stay first)."""
    added = [name for name in machine_platforms(profile) if name not in facts.platforms]
    if not added:
        return facts
    return replace(facts, platforms=[*facts.platforms, *added])
