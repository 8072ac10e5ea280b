"""Whether the benchmark's XLA phase can run on this machine, decided from facts.

A real `bench` runs in an environment the wizard may not have planned this session: the GPUs
come from the probe (NVML and its fallbacks) and the TensorFlow is the one installed in the
Python the benchmark runs in (its dist metadata, TensorFlow never imported). The verdict is
the resolver's own rule, wizard.choose.gpu_generation.xla_limit, so the plan's caveat, the
app's monitor and the CLI cannot disagree: TF 2.21's XLA on an RTX 50 aborts the process.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from packaging.version import InvalidVersion, Version

from wizard.choose.choice import XlaLimit
from wizard.choose.gpu_generation import xla_limit
from wizard.choose.knowledge import KnowledgeBase, load_knowledge
from wizard.probe.context import ProbeContext
from wizard.profile import GpuInfo, MachineProfile

# The distributions that carry the `tensorflow` package; the first installed one is it.
TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tf-nightly")
_VERSION_OF = (
    "import importlib.metadata as m, sys\n"
    "for n in sys.argv[1:]:\n"
    "    try:\n"
    "        print(m.version(n)); break\n"
    "    except m.PackageNotFoundError:\n"
    "        pass\n"
)


def installed_tensorflow(python: Path, timeout: float = 30.0) -> str | None:
    """The TensorFlow version installed for `python` (its metadata, not an import); None where
    none is installed or that Python does not answer in time."""
    try:
        done = subprocess.run(  # an argument list, never a shell
            [str(python), "-c", _VERSION_OF, *TF_DISTRIBUTIONS],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    line = done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else ""
    try:
        return str(Version(line)) if line else None
    except InvalidVersion:
        return None


def probed_gpus(context: ProbeContext | None = None) -> list[GpuInfo]:
    """This machine's GPUs as the probe reads them (NVML, then nvidia-smi and the rest)."""
    from wizard.probe.nvidia import probe_nvidia
    from wizard.probe.os_platform import probe_platform

    ctx = context or ProbeContext()
    profile = MachineProfile()
    try:
        probe_platform(ctx, profile)  # which fallbacks apply (WSL2's nvidia-smi, no PCI scan on macOS)
        probe_nvidia(ctx, profile)
    except Exception:  # a probe failure: no GPU known, nothing predicted (the run itself tells)
        return list(profile.gpus)
    return list(profile.gpus)


def limit_for(
    gpus: list[GpuInfo], tensorflow: str | None, kb: KnowledgeBase | None = None
) -> XlaLimit | None:
    """The first GPU this TensorFlow's XLA cannot compile for; None where it can, or where the
    version, the release or a GPU's compute capability is not known (nothing is guessed)."""
    if not tensorflow or not gpus:
        return None
    try:
        version = Version(tensorflow)
    except InvalidVersion:
        return None
    kb = kb or load_knowledge()
    # By series: a patch release (2.21.1) is built with its series' CUDA.
    rel = kb.release(f"{version.major}.{version.minor}")
    if rel is None:
        return None
    for gpu in gpus:
        try:
            cc = Version(gpu.compute_capability)
        except InvalidVersion:
            continue
        found = xla_limit(kb, rel, gpu.name, cc)
        if found is not None:
            return found
    return None
