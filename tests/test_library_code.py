"""Library code for the GPU (issue 20 point 4): the harvest reads which architectures every library
TensorFlow loads carries (cuDNN, cuBLAS, cuFFT, cuRAND, cuSOLVER, cuSPARSE, NCCL, CUPTI), and the
set pinned for a GPU never holds a library wheel without code for it: it is bounded to a version
that has it, or the set says which library blocks it.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from wizard.choose.gpucode import fit
from wizard.choose.harvest import load_harvest
from wizard.choose.knowledge import load_knowledge
from wizard.choose.wheelset import LOADED, PROFILER_ONLY, GpuTarget, choose_set

KB = load_knowledge()
HARVEST = load_harvest()
FAMILIES = ("cufft", "curand", "cusolver", "cusparse", "nccl", "cuda-cupti")
# Kepler (3.5, 3.7), Maxwell, Pascal (6.0, 6.1), Volta, Turing, Ampere, Ada, Hopper, Blackwell.
CCS = ("3.5", "3.7", "5.0", "5.2", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "12.0")


def test_every_pinned_library_wheel_was_read() -> None:
    for rel in KB.releases:
        extra = KB.extra(rel)
        if extra is None or rel.version < Version("2.15"):
            continue
        for req in extra.requires:
            name = req.name.lower()
            if not any(f"nvidia-{f}-cu" in name for f in FAMILIES):
                continue
            versions = [v for (n, v) in HARVEST.nvidia if n == name]
            assert versions, f"{rel.version}: {name} was never harvested"
            read = [HARVEST.package(name, v) for v in versions if req.specifier.contains(v, prereleases=True)]
            assert read and all(p is not None and p.libs for p in read), (rel.version, name)


def _runs(name: str, version: str, cc: Version, driver: Version) -> bool:
    pkg = HARVEST.package(name, version)
    if pkg is None:
        return True  # not read: nothing known against it (nvcc: ptxas has its own rule)
    return all(
        fit(cc, code.sass, code.ptx, driver).runs
        for lib, code in pkg.libs.items()
        if not code.empty and LOADED.match(lib)
    )


@pytest.mark.parametrize("cc", CCS)
def test_no_gpu_gets_a_library_wheel_without_its_code(cc: str) -> None:
    driver = Version("12.8")
    for rel in KB.releases:
        choice = choose_set(KB, rel, [GpuTarget("GPU", Version(cc))], driver)
        if choice.wset is None:
            continue
        blocked = {p.name for p in choice.blockers}
        for name, version in choice.wset.pins:
            if name in blocked:
                continue  # the set says so: it is refused for this GPU, not installed
            if name.startswith(PROFILER_ONLY):
                continue  # training never loads it (CUPTI: the profiler's); the set says so (issue 33)
            assert _runs(name, version, Version(cc), driver), (rel.version, cc, name, version)


def test_pascal_keeps_every_library_of_2_21_with_machine_code() -> None:
    rel = KB.release("2.21")
    assert rel is not None
    choice = choose_set(KB, rel, [GpuTarget("GTX 1060", Version("6.1"))], Version("12.8"))
    assert choice.wset is not None and choice.blockers == []
    pins = dict(choice.wset.pins)
    assert pins["nvidia-cudnn-cu12"] == "9.3.0.75"  # 9.28 starts at 7.5
    for name, version in pins.items():
        pkg = HARVEST.package(name, version)
        if pkg is None:
            continue
        for lib, code in pkg.libs.items():
            if code.empty or not LOADED.match(lib):
                continue
            assert fit(Version("6.1"), code.sass, code.ptx, Version("12.8")).kind == "sass", (name, lib)


def test_a_maxwell_gpu_is_told_nccl_2_32_has_no_code_for_it() -> None:
    # NCCL 2.32.3 (2.21's range is >=2.27.7) carries sm_60 and newer: nothing for a 5.2 GPU.
    pkg = HARVEST.package("nvidia-nccl-cu12", "2.32.3")
    assert pkg is not None and min(a.cc for a in pkg.code.sass) == Version("6.0")
    rel = KB.release("2.21")
    assert rel is not None
    choice = choose_set(KB, rel, [GpuTarget("GTX 970", Version("5.2"))], Version("12.8"))
    assert "nvidia-nccl-cu12" in {p.name for p in choice.blockers}


def test_cufftw_and_cusolvermg_do_not_bound_the_set() -> None:
    # libcufftw carries one sm_52 kernel only; TensorFlow never loads it.
    pkg = HARVEST.package("nvidia-cufft-cu12", "11.2.3.61")
    assert pkg is not None and "libcufftw.so.11" in pkg.libs
    assert not LOADED.match("libcufftw.so.11") and not LOADED.match("libcusolverMg.so.11")
    assert LOADED.match("libcufft.so.11") and LOADED.match("libnccl.so.2") and LOADED.match("libcupti.so.12")


def test_cupti_without_code_for_an_rtx_50_no_longer_refuses_tf_2_15() -> None:
    """Training never loads CUPTI (the profiler does): TF 2.14/2.15's CUPTI has no code for
    compute capability 12.0, and the set is offered with the profiler caveat, as its conda twin."""
    rel = KB.release("2.15")
    assert rel is not None
    choice = choose_set(KB, rel, [GpuTarget("GeForce RTX 5090", Version("12.0"))], Version("12.8"))
    assert not any(p.name.startswith("nvidia-cuda-cupti") for p in choice.blockers)
    profiler = [p for p in choice.caveats if p.kind == "profiler"]
    assert profiler and "trains" in profiler[0].text and "CUPTI" in profiler[0].text
