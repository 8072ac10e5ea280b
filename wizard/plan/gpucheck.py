"""The verify step's program: assets/programs/tf_gpu_check.py, run once with the environment's Python.

The check compares the compute capabilities the installed wheel was built for with every
GPU's, so it is told what it cannot read from TensorFlow: the PTX ISA of each PTX arch
in the wheel (from the harvest, compute.toml) and, when this plan leaves the driver as
it is, the CUDA version that driver supports. The check reads the driver itself first
(cuDriverGetVersion and the GPU list through /usr/lib/wsl/lib/libcuda.so.1 in WSL2 or
libcuda.so.1, else nvidia-smi), so a WSL plan, which passes no figure, is still verified,
and a GPU TensorFlow leaves out is found. It runs the ops and an XLA-compiled function on
every GPU, with a time limit on the first-start PTX compile.

Where the wheel's build info does not name its compute capabilities (2.22.0rc0), the harvest's
(`--built-for`, `--wheel-cuda`) stand in. Every CUDA library of the nvidia-* wheels TensorFlow
asks for (its and-cuda requirements, as installed) must load from the environment: the check
reads them from the environment itself (assets/programs/tf_cuda_libs.py), so the command stays short.
"""

from __future__ import annotations

from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import Candidate
from wizard.choose.knowledge import KnowledgeError, load_knowledge
from wizard.plan.model import Step
from wizard.plan.programs import program
from wizard.profile import MachineProfile

CHECK_PROGRAM = "tf_gpu_check.py"
# Steps after which the profile's driver is no longer the one the check meets.
DRIVER_STEPS = ("driver", "windows-driver")


def check_script() -> str:
    """The check as a file path (assets/programs, see wizard.plan.programs)."""
    return program(CHECK_PROGRAM)


def check_args(candidate: Candidate, driver_cuda: str | None = None) -> tuple[str, ...]:
    args: list[str] = []
    try:
        kb = load_knowledge()
    except KnowledgeError:  # a broken table must not stop the plan; the check still runs
        kb = None
    kb = kb.with_previews() if kb else None  # a --pre plan's release (2.22.0rc0) too
    rel = kb.release(candidate.set.tensorflow) if kb else None
    build = kb.build(rel) if kb and rel else None
    for ptx in build.ptx if build else ():
        args += ["--ptx-isa", f"{ptx.arch.label(ptx=True)}={ptx.isa}"]
    if driver_cuda:
        args += ["--driver-cuda", driver_cuda]
    harvested = kb.harvest.release(candidate.set.tensorflow) if kb else None
    if build and rel and harvested is not None and not harvested.compute_capabilities:
        # The wheel's build info names none (2.22.0rc0): the harvest read them from its fatbins.
        args += ["--built-for", build.label(), "--wheel-cuda", str(rel.cuda)]
    return tuple(args)


def known_driver_cuda(profile: MachineProfile, steps: Iterable[Step]) -> str | None:
    """The driver's CUDA from the profile, unless the plan installs another driver first."""
    if profile.driver is None or any(s.id in DRIVER_STEPS for s in steps):
        return None
    try:
        v = Version(str(profile.driver.cuda))
    except InvalidVersion:
        return None
    return f"{v.major}.{v.minor}"
