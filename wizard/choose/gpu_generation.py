"""What a GPU's generation itself asks, whatever the TensorFlow set: reasoned from the tables.

- `generation_floor`: no driver older than the CUDA that added the GPU's architecture knows the
  GPU (architectures.toml `ptxas_cuda` -> that CUDA's driver in cuda.toml): RTX 50 (Blackwell,
  CUDA 12.8) -> the 570 branch. The set's floor is the higher of this and TensorFlow's own.
- `toolkit_too_old`: a system-wide CUDA older than that has no ptxas target and no library code
  for the GPU (CUDA 12.5 for an RTX 50).
- `xla_limit`: XLA writes the PTX ISA of the CUDA TensorFlow was built with (harvest -> the
  release's CUDA -> cuda.toml `ptx_isa`); LLVM refuses a target that needs a newer one
  (architectures.toml `ptx_isa_min`) and aborts the process. A future GPU or release is judged by
  the same rows; where a row is missing, nothing is predicted (the verify's probe tells).
"""

from __future__ import annotations

from packaging.version import Version

from wizard.choose.choice import XlaLimit
from wizard.choose.knowledge import KnowledgeBase, Release


def generation_floor(kb: KnowledgeBase, cc: Version, windows: bool) -> tuple[Version, Version] | None:
    """(the lowest driver that knows this GPU, the CUDA that added it); None where unknown."""
    arch = kb.architecture(cc)
    if arch is None or arch.ptxas_cuda is None:
        return None
    row = kb.toolkit(arch.ptxas_cuda)
    if row is None:
        return None
    return (row.windows if windows else row.linux), arch.ptxas_cuda


def toolkit_too_old(kb: KnowledgeBase, cc: Version, cuda: Version) -> Version | None:
    """The first CUDA for this GPU when `cuda` is older than it (a system-wide toolkit); else None."""
    arch = kb.architecture(cc)
    if arch is None or arch.ptxas_cuda is None:
        return None
    return arch.ptxas_cuda if Version(f"{cuda.major}.{cuda.minor}") < arch.ptxas_cuda else None


def xla_limit(kb: KnowledgeBase, rel: Release, name: str, cc: Version) -> XlaLimit | None:
    """XLA of `rel` cannot compile for compute capability `cc` (PTX too old for its target)."""
    arch = kb.architecture(cc)
    needs = arch.ptx_floor(cc) if arch is not None else None
    row = kb.toolkit(rel.cuda)
    isa = row.ptx_isa if row is not None else None
    if needs is None or isa is None or isa >= needs:
        return None
    return XlaLimit(name=name, cc=str(cc), tf=rel.series, isa=str(isa), needs=str(needs))
