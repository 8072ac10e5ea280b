"""Detect this machine: `detect()` -> MachineProfile.

Each part is independent and fails soft: an exception inside a part becomes a
note naming the part, never a crash. Parts run in order because later ones use
earlier answers (the kernel part compares the loaded module with the driver).
`on_part(name, profile)` is called after each, so a UI can show the profile grow.
"""

from __future__ import annotations

from collections.abc import Callable

from wizard.nvml import NvmlBackend
from wizard.probe.context import ProbeContext, PythonFacts
from wizard.probe.cuda import probe_cuda
from wizard.probe.kernel import probe_kernel
from wizard.probe.nvidia import probe_nvidia
from wizard.probe.os_platform import probe_platform
from wizard.probe.overrides import apply_overrides
from wizard.probe.python_env import probe_python
from wizard.probe.resources import probe_resources
from wizard.probe.states import probe_states
from wizard.probe.tensorflow import probe_tensorflow
from wizard.profile import MachineProfile
from wizard.sysio import System

Part = Callable[[ProbeContext, MachineProfile], str]

PARTS: list[tuple[str, Part]] = [
    ("platform", probe_platform),
    ("python", probe_python),
    ("nvidia", probe_nvidia),
    ("kernel", probe_kernel),
    ("cuda", probe_cuda),
    ("states", probe_states),
    ("tensorflow", probe_tensorflow),
    ("resources", probe_resources),
]


def detect(
    system: System | None = None,
    nvml: NvmlBackend | None = None,
    on_part: Callable[[str, MachineProfile], None] | None = None,
    python: PythonFacts | None = None,
    context: ProbeContext | None = None,
) -> MachineProfile:
    ctx = context or ProbeContext()
    if system is not None:
        ctx.system = system
    if nvml is not None:
        backend = nvml
        ctx.nvml_factory = lambda: backend
    if python is not None:
        ctx.python = python
    profile = MachineProfile()
    for name, part in PARTS:
        try:
            profile.probe_layers[name] = part(ctx, profile)
        except Exception as exc:  # a probe bug must not stop the others
            profile.probe_layers[name] = "failed"
            ctx.note("probe.part_failed", part=name, error=f"{type(exc).__name__}: {exc}")
        profile.notes = list(ctx.notes)
        if on_part is not None:
            on_part(name, profile)
    apply_overrides(profile, ctx.system.environ)
    return profile
