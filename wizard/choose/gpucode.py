"""Whether a library's GPU code runs on a GPU, given the driver.

Two rules, from the CUDA compatibility model:
- machine code (SASS) built for sm_XY runs on a GPU of the same major with an
  equal or higher minor (sm_80 runs on 8.6, not on 9.0); arch-specific code
  (sm_90a) only on exactly that GPU, family-specific code (sm_120f) on its major;
- PTX for compute_XY is compiled by the driver for any GPU of compute
  capability >= X.Y, but only by a driver whose CUDA is at least the CUDA of
  that PTX's ISA (ISA 8.3 = CUDA 12.3 = driver 545 or newer).
When a library has both for a GPU the machine code is used; when several PTX
entries apply (kernels built by different compilers) the driver must take the
newest ISA among them.

TensorFlow's wheels are read with `every_ptx=True`: each PTX arch they list is the
only PTX of some of their kernels (2.16-2.20 build their ~1150 generated kernels
with sm_90a-specific PTX only, next to compute_90 PTX for the rest), so a GPU
without machine code runs the wheel only if every listed PTX applies to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from packaging.version import Version

from wizard.choose.harvest import Arch, Ptx, isa_cuda

SASS, PTX, PTX_DRIVER_UNKNOWN, PTX_DRIVER_TOO_OLD, NONE = (
    "sass",
    "ptx",
    "ptx-driver-unknown",
    "ptx-driver-too-old",
    "none",
)


@dataclass(frozen=True)
class Fit:
    kind: str  # one of SASS, PTX, PTX_DRIVER_UNKNOWN, PTX_DRIVER_TOO_OLD, NONE
    via: str = ""  # "sm_80" or "compute_90": what the GPU runs
    isa: Version | None = None  # the PTX ISA the driver must compile
    needs_cuda: Version | None = None  # the CUDA that ISA belongs to
    missing: str = ""  # every_ptx: the PTX some kernels carry that does not apply ("compute_90a")

    @property
    def runs(self) -> bool:
        return self.kind in (SASS, PTX, PTX_DRIVER_UNKNOWN)


def sass_runs(arch: Arch, cc: Version) -> bool:
    if arch.suffix == "a":
        return arch.cc == cc
    return arch.cc.major == cc.major and arch.cc.minor <= cc.minor


def ptx_applies(arch: Arch, cc: Version) -> bool:
    if arch.suffix == "a":
        return arch.cc == cc
    if arch.suffix == "f":
        return arch.cc.major == cc.major and arch.cc.minor <= cc.minor
    return arch.cc <= cc


def fit(
    cc: Version,
    sass: Iterable[Arch],
    ptx: Iterable[Ptx],
    driver_cuda: Version | None,
    *,
    every_ptx: bool = False,
) -> Fit:
    """How (and whether) code with these SASS and PTX entries runs on a GPU of compute capability `cc`."""
    machine = [a for a in sass if sass_runs(a, cc)]
    if machine:
        return Fit(SASS, via=max(machine).label())
    ptx = list(ptx)
    usable = [p for p in ptx if ptx_applies(p.arch, cc)]
    left_out = sorted({p.arch for p in ptx if not ptx_applies(p.arch, cc)})
    if every_ptx and usable and left_out:
        return Fit(NONE, via=max(p.arch for p in usable).label(ptx=True), missing=left_out[0].label(ptx=True))
    if not usable:
        return Fit(NONE)
    newest = max(usable, key=lambda p: (p.isa, p.arch))
    via = ", ".join(a.label(ptx=True) for a in sorted({p.arch for p in usable}))
    needs = isa_cuda(newest.isa)
    if needs is None:
        return Fit(PTX, via=via, isa=newest.isa)
    if driver_cuda is None:
        return Fit(PTX_DRIVER_UNKNOWN, via=via, isa=newest.isa, needs_cuda=needs)
    if driver_cuda >= needs:
        return Fit(PTX, via=via, isa=newest.isa, needs_cuda=needs)
    return Fit(PTX_DRIVER_TOO_OLD, via=via, isa=newest.isa, needs_cuda=needs)
