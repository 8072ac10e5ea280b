"""Decisions from the CUDA stack a log shows (wizard.doctor.stack_facts), beside wizard.doctor.reason's.

    decide_stack(facts, causes, symptoms) -> SetupDecision | None

Each names a cause only where the text holds the evidence that decides it:
  * the driver's own library (libcuda.so.<driver version>, nvcuda.dll) lacks an entry point the
    program calls: the driver predates the CUDA the program was built for (each CUDA release adds
    driver entry points, cuCtxCreate_v3 and the like, and a driver exports those of its own CUDA):
    the driver is too old, not two CUDA installs mixed (that is libraries of the toolkit, not the
    driver's). Driver and CUDA are named from Choose's table (kb.cuda_for_driver);
  * the Fabric Manager refusing a driver of another version: it starts only beside a driver of its
    own version, and without it CUDA on NVSwitch boards reports 802 (system not yet initialized);
  * CUDA's unknown error (999) where the text says the machine was suspended or slept: cuInit fails
    after a resume until the driver's unified-memory module is reloaded (or the machine restarted);
  * a GPU whose architecture came after the CUDA of the libraries a program loads or names, a whole
    CUDA major before the first CUDA that builds code for it (Choose's architectures table,
    ptxas_cuda), beside a GPU library's failure: those libraries (cuBLAS, cuDNN) have no code for
    it, so the GPU is too new for the build;
  * WSL2 and a GPU in TCC mode where the text names no other cause: WSL2 reaches WDDM GPUs only.
"""

from __future__ import annotations

from packaging.version import Version

from wizard.choose.driver_floors import normalize_driver
from wizard.choose.knowledge import KnowledgeBase, load_knowledge
from wizard.doctor.facts import Facts
from wizard.doctor.setup_facts import Evidence
from wizard.doctor.setup_reason import SetupDecision

KEY = "doctor.reason.stack."
# Causes the catalogue names for an undefined symbol, which the driver's own library decides between.
SYMBOL_CAUSES = frozenset({"cuda-libs-mixed", "driver-too-old"})
# Causes a Fabric Manager that refused the driver explains.
FM_CAUSES = frozenset({"fabric-manager", "driver-library-mismatch", "driver-too-old"})
# A GPU library's failure, or "no kernel image": what a GPU newer than its libraries' CUDA shows.
LIB_FAILURES = frozenset({"gpu-lib-init-failed", "conv-algo-failed", "unsupported-cc", "gpu-too-new"})
UNKNOWN = 999  # CUDA_ERROR_UNKNOWN / cudaErrorUnknown
# Which libcuda was loaded, and the driver's version: decides an entry point libcuda lacks.
DECIDE_LIBCUDA = "ldconfig -p | grep libcuda.so; nvidia-smi"


def _decision(
    diag_id: str, key: str, fields: dict[str, str], at: Evidence | None, drop: tuple[str, ...] = ()
) -> SetupDecision:
    line, said = at if at is not None else (None, "")
    return SetupDecision(diag_id, KEY + key, fields, line, said, drop)


def _driver_symbol(facts: Facts, causes: list[str], kb: KnowledgeBase) -> SetupDecision | None:
    s = facts.stack
    if s.driver_symbol_at is None or not set(causes) <= SYMBOL_CAUSES:
        return None
    fields = {"symbol": s.driver_symbol, "library": s.driver_symbol_lib}
    # The driver's version from the library's file name, else the one driver the text shows (its
    # module's /proc version, nvidia-smi's): libcuda.so.1 is that driver's.
    shown = {v for v in (facts.driver_library, facts.driver_smi, facts.driver_kernel) if v}
    version = s.driver_symbol_version or (next(iter(shown)) if len(shown) == 1 else "")
    driver = normalize_driver(version) if version else None
    if driver is None and not s.driver_symbol_lib.lower().endswith(".dll"):
        return None  # libcuda.so(.1) without the driver's version: stack_open says what decides
    key = "driver_symbol"
    if driver is not None:
        cuda = kb.cuda_for_driver(driver, windows=False)
        fields |= {"driver": version}
        if cuda is not None:
            key, fields = "driver_symbol_cuda", {**fields, "cuda": str(cuda)}
    return _decision("driver-too-old", key, fields, s.driver_symbol_at, drop=("cuda-libs-mixed",))


def _fm_refused(facts: Facts, causes: list[str]) -> SetupDecision | None:
    s = facts.stack
    if s.fm_at is None or not set(causes) <= FM_CAUSES:
        return None
    fm, driver = normalize_driver(s.fm_version), normalize_driver(s.fm_driver)
    if fm is None or driver is None or fm == driver:
        return None
    fields = {"fm": s.fm_version, "driver": s.fm_driver}
    return _decision(
        "fabric-manager", "fm_version", fields, s.fm_at, drop=("driver-library-mismatch", "driver-too-old")
    )


def _after_suspend(facts: Facts, causes: list[str]) -> SetupDecision | None:
    s = facts.stack
    if causes or s.suspend_at is None or "WSL2" in facts.platforms:
        return None
    at = next(((n, ln) for c, n, ln in facts.codes if c.number == UNKNOWN), None)
    if at is None and not facts.cuda_unknown:
        return None
    if any(c.decides for c, _, _ in facts.codes):
        return None  # a code that names its own cause
    return _decision("cuinit-failed", "suspend", {}, at or facts.failure_line)


def _gpu_ccs(facts: Facts, kb: KnowledgeBase) -> dict[Version, str]:
    found: dict[Version, str] = {}
    for name in (*facts.gpus, *facts.stack.gpu_names):
        gpu = kb.gpu(name)
        if gpu is not None:
            found.setdefault(gpu.compute_capability, gpu.name)
    for text in facts.compute_capabilities:
        try:
            found.setdefault(Version(text), "")
        except ValueError:
            continue
    return found


def _cuda_before_gpu(
    facts: Facts, causes: list[str], symptoms: set[str], kb: KnowledgeBase
) -> SetupDecision | None:
    if causes and causes[0] not in LIB_FAILURES:
        return None
    if not (LIB_FAILURES & (set(causes) | symptoms)) and facts.no_kernel_line is None:
        return None
    cudas = set(facts.stack.lib_cudas)
    if facts.cuda_major is not None:
        cudas.add(facts.cuda_major)
    gpus = _gpu_ccs(facts, kb)
    if not cudas or not gpus:
        return None
    newest = max(cudas)
    firsts = []
    for cc in gpus:
        arch = kb.architecture(cc)
        if arch is None or arch.ptxas_cuda is None or newest >= arch.ptxas_cuda.major:
            return None  # one GPU the libraries' CUDA may serve: not decided
        firsts.append((cc, arch))
    cc, arch = firsts[0]
    fields = {
        "gpu": gpus[cc] or "GPU",
        "cc": str(cc),
        "arch": arch.name,
        "first": str(arch.ptxas_cuda),
        "cuda": ", ".join(str(c) for c in sorted(cudas)),
        "source": arch.source,
    }
    at = facts.stack.lib_failure_at or facts.no_kernel_line or facts.failure_line
    return _decision("gpu-too-new", "cuda_before_gpu", fields, at, drop=("unsupported-cc",))


def _tcc_in_wsl(facts: Facts, causes: list[str], symptoms: set[str]) -> SetupDecision | None:
    """WSL 2 named and nvidia-smi's row of a GPU in TCC mode, and no message naming another cause or a
    symptom (those go through wizard.doctor.reason's own TCC decision): the setup alone decides."""
    s = facts.stack
    if causes or symptoms or not facts.tcc or s.tcc_at is None or not s.wsl2_said:
        return None
    return _decision("wsl-tcc", "tcc", {}, s.tcc_at)


def stack_open(facts: Facts, causes: list[str]) -> tuple[tuple[str, ...], str] | None:
    """(causes to take out, the command that decides) where the stack's evidence rules the catalogue's
    cause out without deciding another: a driver API entry point (cuX) undefined, in a libcuda.so whose
    file name carries no driver version or in a library that links libcuda, is an old driver or a
    CUDA toolkit's stub libcuda on the library path (each needs its own fix); never two CUDA installs
    mixed, since only libcuda provides those entry points, not the toolkit's libraries."""
    s = facts.stack
    decided = s.driver_symbol_at is not None and (
        bool(s.driver_symbol_version) or s.driver_symbol_lib.lower().endswith(".dll")
    )
    if decided or (s.driver_symbol_at is None and s.driver_api_symbol_at is None):
        return None
    if not set(causes) <= SYMBOL_CAUSES:
        return None
    return tuple(SYMBOL_CAUSES), DECIDE_LIBCUDA


def decide_stack(facts: Facts, causes: list[str], symptoms: set[str]) -> SetupDecision | None:
    """The first decision the stack's evidence makes, or None (then wizard.doctor.reason goes on)."""
    kb = load_knowledge()
    return (
        _driver_symbol(facts, causes, kb)
        or _fm_refused(facts, causes)
        or _after_suspend(facts, causes)
        or _cuda_before_gpu(facts, causes, symptoms, kb)
        or _tcc_in_wsl(facts, causes, symptoms)
    )


__all__ = ["DECIDE_LIBCUDA", "decide_stack", "stack_open"]
