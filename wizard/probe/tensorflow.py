"""TensorFlow in the current Python, read from package metadata; never imported."""

from __future__ import annotations

from wizard.probe.context import ProbeContext
from wizard.profile import MachineProfile, TensorflowInfo

TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel")
# Any of these beside TF means the CUDA libraries came as pip wheels (tensorflow[and-cuda]).
AND_CUDA_MARKERS = ("nvidia-cudnn-cu12", "nvidia-cudnn-cu11", "nvidia-cuda-runtime-cu12")


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def probe_tensorflow(ctx: ProbeContext, profile: MachineProfile) -> str:
    dists = {_norm(name): version for name, version in ctx.distributions()}
    for name in TF_DISTRIBUTIONS:
        if name in dists:
            profile.tensorflow = TensorflowInfo(
                version=dists[name],
                distribution=name,
                and_cuda=any(m in dists for m in AND_CUDA_MARKERS),
            )
            break
    return "metadata"
