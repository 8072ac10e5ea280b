"""TensorFlow in the current Python, read from package metadata; never imported."""

from __future__ import annotations

from wizard.probe.context import ProbeContext
from wizard.profile import MachineProfile, TensorflowInfo

TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel")
# Any of these beside TF means the CUDA libraries came as pip wheels (tensorflow[and-cuda]).
AND_CUDA_MARKERS = ("nvidia-cudnn-cu12", "nvidia-cudnn-cu11", "nvidia-cuda-runtime-cu12")


def probe_tensorflow(ctx: ProbeContext, profile: MachineProfile) -> str:
    for name in TF_DISTRIBUTIONS:
        version = ctx.installed(name)
        if version:
            profile.tensorflow = TensorflowInfo(
                version=version,
                distribution=name,
                and_cuda=any(ctx.installed(m) for m in AND_CUDA_MARKERS),
            )
            break
    return "metadata"
