"""The doctor's reasoning from the facts a log holds (wizard.doctor.facts), beside the catalogue's rows.

    decide(facts, causes) -> Reasoning

A cause is named only where the facts decide it; otherwise the answer is "not sure", with the facts
read and the one command that would decide. Never two fixes that contradict each other: a decision
names the ids it rules out (`drop`), and codes that name different causes are not sure.

  * Both sides of a driver mismatch (NVRM's client and kernel module, TensorFlow's libcuda "DSO" and
    kernel versions): libraries newer than the running module is an update waiting for a reboot;
    inside a container it is the image's forward-compatibility libcuda on an older host driver
    (update the host driver; a reboot changes nothing); libraries older than the module are stale
    user-space files (reinstall the driver of the module's version).
  * An error code whose documented meaning names one cause (assets/doctor/code_families.toml):
    that cause, where no message of the catalogue named another.
  * CUDA's 803 beside a forward-compatibility libcuda on the path (cuda-compat): that copy, not the
    module's, is loaded; off the path, the driver's own is.
  * ptxas refusing an instruction the target lacks (bfloat16 below sm_80) where a program compiles
    for the GPU it runs on: the GPU is older than that code; never in a build for a list of targets.
  * One side of a mismatch only, or neither with no driver update said: what was read and the command
    that shows the other side.
  * Facts judged by Choose's own functions (wizard.doctor.judge): "no kernel image" with the GPU and
    the build's code (too new, too old, PTX the driver cannot compile; a release that serves the
    GPU is never called either), pip's "no matching distribution" with the Python, the driver
    against the floor of the CUDA a build needs on its platform.
  * WSL2, CUDA's unknown error and the Windows driver's version: that driver release (fixed on
    Windows); without the version, "not sure" with nvidia-smi.
  * A scheduler that gave the job no GPU (SLURM's CUDA_VISIBLE_DEVICES=NoDevFiles, or empty).
  * A GPU in an exclusive compute mode beside "busy or unavailable": held by another process; an
    Exclusive_Thread or Prohibited mode beside a failure, with no code: held by that mode.
  * Inside a container of a GPU image, the driver's libcuda not found and nothing that gives the
    container a GPU: the container was given none (ahead of a CUDA library missing beside it).
  * WSL2 and a Windows driver below the oldest CUDA's WSL2 floor beside a GPU not seen: too old.
  * A GPU in an exclusive compute mode (nvidia-smi's, deviceQuery's or said in words) beside CUDA
    failing to create or bind a context: the mode refused a second context (gpu-busy); 101 while a
    context was made, with no mode shown: not sure, `nvidia-smi -q -d COMPUTE`; an exclusive mode
    beside another failure: not sure, the query of who holds the GPU.
  * nvidia-smi -q's fabric state "In Progress" beside no GPU: the Fabric Manager; the Fabric Manager
    only named beside no GPU (it fails harmlessly where there is no NVSwitch): not sure, with the
    Fabric Manager user guide's command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields

from packaging.version import InvalidVersion, Version

from wizard.choose.gpu_generation import toolkit_too_old
from wizard.choose.knowledge import load_knowledge
from wizard.doctor.facts import Facts
from wizard.doctor.host_reason import HostDecision, decide_host
from wizard.doctor.judge import (
    COVERAGE_IDS,
    DECIDE_BUILD,
    coverage,
    coverage_served,
    coverage_undecided,
    decide_open,
    driver_floor,
    driver_serves,
    gpus_disagree,
    python_fit,
    shown_gpus,
)
from wizard.doctor.setup_reason import SetupDecision, decide_setup
from wizard.doctor.stack_reason import decide_stack, stack_open
from wizard.text import t

# What each cause's fix would do, to see two that contradict: a reboot, a driver update, ...
REBOOT_IDS = ("driver-library-mismatch",)
UPDATE_DRIVER_IDS = ("driver-too-old",)
DECIDE_MISMATCH = "cat /proc/driver/nvidia/version; nvidia-smi"
# In WSL2: every copy of the driver's libraries the loader finds (the Windows driver's are in
# /usr/lib/wsl/lib; Linux has no NVIDIA kernel module there, so no /proc/driver/nvidia/version).
DECIDE_WSL_LIBS = "ldconfig -p | grep -E 'libnvidia-ml|libcuda'"
MODULE_BEHIND_SEEN = "Frogging-Family/nvidia-all#394 (595.84 installed; the module loaded at boot is 595.80)"
WSL_GUIDE = (
    "NVIDIA's CUDA on WSL user guide (the Windows driver's libraries in /usr/lib/wsl/lib;"
    " no Linux driver inside WSL)"
)
# A forward-compatibility libcuda (cuda-compat) beside CUDA's 803: which libcuda the program loads and
# the kernel module's version.
DECIDE_COMPAT = 'echo "$LD_LIBRARY_PATH"; ls /usr/local/cuda*/compat; cat /proc/driver/nvidia/version'
COMPAT_GUIDE = (
    "NVIDIA's CUDA Compatibility guide, Forward Compatibility (cuda-compat-<major>-<minor>: data-center GPUs"
    ' and an older driver only); deepjavalibrary/djl-serving#1278 ("Use CUDA compat with old drivers, not'
    ' new ones"); ggml-org/llama.cpp#17542 (803 gone with cuda-compat-12.9 off the path)'
)
# An operation refused by the program's own check (PyTorch's FP8 matrix multiply below 8.9).
OP_REFUSED_SEEN = (
    "PyTorch's torch._scaled_mm check (FP8: compute capability 8.9 or 9.0);"
    " kijai/ComfyUI-PyramidFlowWrapper#43 (an RTX 3050), kijai/ComfyUI-HunyuanVideoWrapper#98"
    " (an RTX 3090), aredden/flux-fp8-api#30 (an RTX 6000 of compute capability 8.6)"
)
PTX_FEATURE_SEEN = (
    "facebookresearch/chameleon#39 (V100: 'cvt.bf16.f32' requires .target sm_80); ModelTC/LightLLM#1029"
    " (V100, compute capability 7.0, and bfloat16)"
)
SYSTEM_DRIVER_MISMATCH = 803  # CUDA_ERROR_SYSTEM_DRIVER_MISMATCH / cudaErrorSystemDriverMismatch
DECIDE_DEFAULT = (
    "tf-gpu-wizard doctor --run python -c "
    "\"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\""
)
# PyTorch's own answer to the same question, where the text is PyTorch's and not TensorFlow's.
DECIDE_TORCH = (
    "tf-gpu-wizard doctor --run python -c "
    '"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"'
)
# A text of neither: the program's own check is not known, the driver and its GPUs are what any needs.
DECIDE_ANY_PROGRAM = "nvidia-smi"
DECIDE_MODE = "nvidia-smi -q -d COMPUTE"
DECIDE_HOLDERS = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"
# The GPU's registration with the NVLink fabric (nvidia-smi -q's "Fabric" block: In Progress, Completed).
DECIDE_FABRIC = "nvidia-smi -q -i 0 | grep -i -A 2 Fabric"  # NVIDIA's Fabric Manager user guide
# A command per symptom family, where the symptom alone leaves the cause open.
DECIDE_BY_FAMILY = {
    "no-device": "nvidia-smi",
    "driver": "nvidia-smi",
    "memory": "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
    "cudnn-status": "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
    "conv-algo": "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
    "arch": "nvidia-smi --query-gpu=name,compute_cap --format=csv",
}
# Causes a code names that the catalogue's own rows already word better where they matched.
GENERIC = frozenset({"no-device"})
# Causes a container given no driver outranks: CUDA libraries missing beside libcuda, no driver found.
CONTAINER_BESIDE = frozenset(
    {"missing-cudnn", "missing-cudart", "driver-too-old", "no-device", "cuinit-failed", "container-no-gpu"}
)
# Compute modes that stop a program by themselves (nvidia-smi's short and long names).
MODE_KEYS = {
    "E. Thread": "doctor.reason.mode_thread",
    "Exclusive_Thread": "doctor.reason.mode_thread",
    "Prohibited": "doctor.reason.mode_prohibited",
}
_NO_GPU_VISIBLE = re.compile(r"^(NoDevFiles|none|-1|)$", re.I)
# What the reasoning names beyond the catalogue's rows: its verdicts (a Diagnosis' `verdict`, the
# doctor.toml section of its words) and the causes only reasoning decides. A corpus label may name
# one; each has its title, why and fix in assets/text/*/doctor.toml.
VERDICT_IDS = (
    "cover-too-old",
    "cover-gap",
    "cover-open",
    "driver-userspace-older",
    "driver-mismatch-one-side",
    "driver-mismatch-wsl",
    "driver-compat-libcuda",
    "gpu-lacks-feature",
    "driver-module-behind",
    "cuda-after-suspend",
    "cuda-libs-open",
)
REASONED_IDS = (*VERDICT_IDS, "wsl-windows-driver", "macos")
# Verdicts that name, more narrowly, the cause another verdict names: a label may name the wider one
# (an instruction the GPU lacks is the GPU too old for that code).
REFINES: dict[str, str] = {"gpu-lacks-feature": "cover-too-old"}
# Verdicts that leave the deciding fact open: they name the failure ("no code for this GPU", "the
# libraries and the module differ") and the one command that tells its sides apart, never one side's
# fix. Each is "not sure" about the causes it keys, which it neither names nor contradicts.
OPEN_VERDICTS: dict[str, frozenset[str]] = {
    "cover-open": frozenset({"unsupported-cc", "cover-too-old", "cover-gap", "gpu-too-new"}),
    "driver-mismatch-one-side": frozenset({"driver-library-mismatch", "driver-userspace-older"}),
    "driver-mismatch-wsl": frozenset({"driver-library-mismatch", "driver-userspace-older"}),
    # Which side is newer stays open; its fix (the compat copy off the path) serves both.
    "driver-compat-libcuda": frozenset(
        {"driver-library-mismatch", "driver-userspace-older", "driver-mismatch-one-side"}
    ),
    "cuda-libs-open": frozenset({"missing-cudart", "missing-cudnn"}),
}


@dataclass(frozen=True)
class Decision:
    id: str  # the diagnosis id the facts decide
    key: str  # doctor.reason.* text that says why, filled with `fields`
    fields: dict[str, str]
    line: int | None = None
    drop: tuple[str, ...] = ()  # ids whose fix this one contradicts
    over_causes: bool = False  # decided by versions: outranks a message's cause
    texts: str = ""  # the doctor.toml section of its title, why and fix, where not the id's own
    said: str = ""  # the evidence line's text, where it is not a code's (wizard.doctor.setup_reason)
    evidence: tuple[int, str] | None = None  # the line that shows the failure, where no code names it
    fix_fields: dict[str, str] = field(default_factory=dict)  # values its fix text names
    harmless: bool = False  # the message is what this machine should print (wizard.doctor.host_reason)
    # Its own fix already says what the machine's line would add (sharpen): that line is not kept.
    says_machine_line: bool = False


_DECISION_FIELDS = frozenset(f.name for f in fields(Decision))


def _as_decision(made: HostDecision | SetupDecision) -> Decision:
    """A decision of the modules below this one (they stay below it: they cannot build a Decision),
    every field they share carried over whole (a host decision's command and note are not a cause's)."""
    return Decision(**{k: v for k, v in vars(made).items() if k in _DECISION_FIELDS})


@dataclass
class Reasoning:
    decisions: list[Decision] = field(default_factory=list)
    command: str = ""  # where nothing is decided: the one command that would decide
    drop: tuple[str, ...] = ()  # causes that contradict each other with nothing to decide between them
    on_host: bool = False  # the command runs on the container's host, not inside it
    why: str = ""  # doctor.* text that says why a cause was ruled out (leads the not-sure note)
    why_fields: dict[str, str] = field(default_factory=dict)
    note: bool = False  # the not-sure note even beside a symptom row's own fix (its cause is open)


def _mismatch(facts: Facts) -> Decision | None:
    side = facts.mismatch()
    if side == 0 or _container_newer(facts):
        return None
    fields = {"library": facts.driver_library, "kernel": facts.driver_kernel}
    if side > 0 and facts.mismatch_boot_seconds is not None:
        # Met as the machine started: it restarted after the update and still loads the old module.
        return Decision(
            "driver-library-mismatch",
            "doctor.judge59.mismatch_at_boot",
            _sourced({**fields, "seconds": str(facts.mismatch_boot_seconds)}, MODULE_BEHIND_SEEN),
            drop=UPDATE_DRIVER_IDS,
            over_causes=True,
            texts="driver-module-behind",
            fix_fields={"library": facts.driver_library},
        )
    if side > 0:
        return Decision(
            "driver-library-mismatch",
            "doctor.reason.library_newer",
            fields,
            drop=UPDATE_DRIVER_IDS,
            over_causes=True,
        )
    # Still a driver/library mismatch, but one a reboot does not mend: its own title and fix.
    return Decision(
        "driver-library-mismatch",
        "doctor.reason.library_older",
        fields,
        drop=UPDATE_DRIVER_IDS,
        over_causes=True,
        texts="driver-userspace-older",
    )


def _container_newer(facts: Facts) -> bool:
    """TensorFlow's (or NVML's) libcuda inside a container newer than the host's module: the image's
    forward-compatibility libcuda (update the host driver) or the host's own new libcuda mounted before
    its reboot (reboot). Only the host's nvidia-smi tells them apart."""
    return facts.mismatch() > 0 and facts.mismatch_from in ("dso", "nvml") and "container" in facts.platforms


def _sourced(fields: dict[str, str], source: str) -> dict[str, str]:
    """A judged decision cites the knowledge row that decided it (shown as the diagnosis' source)."""
    return {**fields, "source": source} if source else fields


def _mismatch_one_side(facts: Facts, causes: list[str]) -> Decision | None:
    """A driver/library mismatch where the text shows one side's version only: which side is newer
    decides the fix (reboot, or mend older libraries), so the doctor says what it read and the one
    command that shows the other side, never a fix it cannot choose."""
    if not causes or causes[0] not in REBOOT_IDS or facts.mismatch() != 0:
        return None
    if "WSL2" in facts.platforms and "container" not in facts.platforms:
        return _mismatch_in_wsl(facts)
    if facts.driver_smi:
        return _mismatch_in_container(facts)
    if facts.driver_library and facts.driver_kernel:
        return None  # both, and equal: the catalogue's own answer stands
    if not facts.driver_library and not facts.driver_kernel:
        # Neither version: a driver update (or a reboot that mended it) said beside the message shows
        # the libraries are the newer side, and the catalogue's reboot stands; else nothing decides.
        if facts.host.updated_at is not None:
            return None
        return Decision(
            "driver-library-mismatch",
            "doctor.judge27.mismatch_no_side",
            {},
            drop=UPDATE_DRIVER_IDS,
            texts="driver-mismatch-one-side",
            evidence=facts.failure_line,
            fix_fields={"command": DECIDE_MISMATCH},
        )
    side = "library" if facts.driver_library else "kernel"
    fields = {"version": facts.driver_library or facts.driver_kernel}
    line = facts.mismatch_line
    return Decision(
        "driver-library-mismatch",
        f"doctor.judge.mismatch_{side}_only",
        fields,
        drop=UPDATE_DRIVER_IDS,
        texts="driver-mismatch-one-side",
        evidence=line,
        fix_fields={"command": DECIDE_MISMATCH},
    )


def _mismatch_in_wsl(facts: Facts) -> Decision:
    """A mismatch in WSL2: the driver is the Windows driver, whose libraries are /usr/lib/wsl/lib;
    there is no kernel module to reboot into, so neither a reboot nor /proc's version decides. The
    copies of the libraries the loader finds do: another copy shadows the Windows driver's."""
    return Decision(
        "driver-library-mismatch",
        "doctor.judge59.mismatch_wsl",
        _sourced({}, WSL_GUIDE),
        drop=UPDATE_DRIVER_IDS,
        texts="driver-mismatch-wsl",
        evidence=facts.mismatch_line or facts.failure_line,
        fix_fields={"command": DECIDE_WSL_LIBS},
        says_machine_line=True,  # the WSL2 machine's line (sharpen.mismatch_wsl) says the same
    )


# Inside a container: the driver libraries it loads, by their versioned file names (the NVIDIA
# Container Toolkit mounts the host's; an image may carry its own, a forward-compatibility libcuda
# under /usr/local/cuda*/compat among them).
DECIDE_CONTAINER_LIBS = "find /usr -name 'libcuda.so.*' -o -name 'libnvidia-ml.so.*'"


def _mismatch_in_container(facts: Facts) -> Decision | None:
    """A container's mismatch beside nvidia-smi's own driver in the text: that nvidia-smi worked, so
    where it ran the libraries and the module agree; the container's NVML does not, so its libraries
    are not the module's version (an image that carries its own). A reboot of the host is not shown
    to mend that, nor which side is newer: the versions the container loads decide."""
    if "container" not in facts.platforms or facts.driver_library or facts.driver_kernel:
        return None  # elsewhere a working nvidia-smi beside the mismatch is the reboot that mended it
    if facts.host.updated_at is not None:
        return None  # a driver update (or a reboot that mended it) said: the catalogue's reboot stands
    return Decision(
        "driver-library-mismatch",
        "doctor.judge31.mismatch_container",
        {"version": facts.driver_smi},
        drop=UPDATE_DRIVER_IDS + REBOOT_IDS,
        texts="driver-mismatch-one-side",
        evidence=facts.mismatch_line or facts.failure_line,
        fix_fields={"command": DECIDE_CONTAINER_LIBS},
    )


def _compat_libcuda(facts: Facts, causes: list[str]) -> Decision | None:
    """CUDA's 803 (the display driver and the CUDA driver of different versions) where the text puts a
    forward-compatibility libcuda on the path (cuda-compat, /usr/local/cuda*/compat): that libcuda is
    not the kernel module's. It serves only data-center GPUs beside an older module of a branch NVIDIA
    lists, so off the path the driver's own libcuda is loaded; a CUDA too new for that driver then says
    so (35), and the driver update is that answer. Not in WSL2, whose libcuda is the Windows driver's."""
    at = facts.stack.compat_at
    if at is None or "WSL2" in facts.platforms or set(causes) - set(REBOOT_IDS + UPDATE_DRIVER_IDS):
        return None
    code = next(((n, ln) for c, n, ln in facts.codes if c.number == SYSTEM_DRIVER_MISMATCH), None)
    if code is None:
        return None
    return Decision(
        "driver-library-mismatch",
        "doctor.judge62.compat_libcuda",
        _sourced({"compat": facts.stack.compat}, COMPAT_GUIDE),
        drop=REBOOT_IDS + UPDATE_DRIVER_IDS,
        texts="driver-compat-libcuda",
        evidence=at,
        fix_fields={"command": DECIDE_COMPAT},
    )


def _coverage(facts: Facts, causes: list[str]) -> Decision | None:
    """ "No kernel image" with the GPU and the build's code in the text: Choose's code coverage
    decides too new, too old, or PTX the driver cannot compile (wizard.doctor.judge)."""
    if causes and causes[0] not in COVERAGE_IDS:
        return None
    verdict = coverage(facts, load_knowledge())
    line = facts.no_kernel_line or facts.below_minimum_line
    if verdict is None or line is None:
        return None
    return Decision(
        verdict.id,
        verdict.key,
        _sourced(verdict.fields, verdict.source),
        drop=verdict.drop,
        texts=verdict.texts,
        evidence=line,
        fix_fields={"cc": verdict.fields.get("cc", "")},
    )


def _coverage_open(facts: Facts, causes: list[str]) -> Decision | None:
    """ "No kernel image" with no GPU in the text: the build has no code for it, but too old or too
    new is not shown. The catalogue's general answer keeps its id; its words say which is open and
    the one command that decides, never one side's fix."""
    if not causes or not coverage_undecided(facts, load_knowledge()):
        return None
    # The catalogue's "too new" keyed by one GPU's name, where the text shows another of a different
    # capability: which of them ran is open too.
    keyed_by_name = causes[0] == "gpu-too-new" and gpus_disagree(facts, load_knowledge())
    if causes[0] != "unsupported-cc" and not keyed_by_name:
        return None
    return Decision(
        "unsupported-cc",
        "doctor.judge.cover_open",
        {},
        texts="cover-open",
        evidence=facts.no_kernel_line,
        fix_fields={"command": decide_open(facts, load_knowledge())},
        drop=("gpu-too-new",),
    )


# cuDNN's support matrices: 9 (and 8 for CUDA 12) serve compute capability 5.0 and newer, 8 for CUDA
# 11 from 3.5, 7 from 3.0. A GPU shown at 5.0 or above is below no cuDNN: its mismatch is left to
# the rows.
_CUDNN_SERVES_ALL_FROM = Version("5.0")


def _cudnn_arch(facts: Facts, causes: list[str]) -> Decision | None:
    """cuDNN's CUDNN_STATUS_ARCH_MISMATCH: in cuDNN's API reference, "the function requires a feature
    absent from the current GPU device": the GPU is below what this cuDNN serves. Decided where the
    text shows no GPU, or only GPUs below compute capability 5.0; another cause read keeps its row."""
    if facts.cudnn_arch is None or set(causes) - {"gpu-lib-init-failed", "unsupported-cc"}:
        return None
    gpus = shown_gpus(facts, load_knowledge())
    if any(cc >= _CUDNN_SERVES_ALL_FROM for _, cc in gpus):
        return None
    named = [f"{name} ({cc})" if name else str(cc) for name, cc in gpus]
    gpu = ", ".join(named) if named else t("doctor.judge53.the_gpu")
    cc = ", ".join(str(cc) for _, cc in gpus) or t("doctor.judge53.cc_unknown")
    return Decision(
        "unsupported-cc",
        "doctor.judge53.cudnn_arch",
        {"gpu": gpu},
        texts="cover-too-old",
        evidence=facts.cudnn_arch,
        fix_fields={"cc": cc},
        drop=("gpu-lib-init-failed", "gpu-too-new"),
    )


def _ptx_feature(facts: Facts, causes: list[str]) -> Decision | None:
    """ptxas refusing an instruction the target lacks ("Feature '.bf16' requires .target sm_80 or
    higher") where a program compiles for the GPU it runs on (JAX/XLA, Triton): the GPU is older than
    that instruction, so code that uses it (bfloat16 on a V100 or a T4) cannot run there. Not decided in
    a build for a list of architectures (the refused target may be the list's), nor where the text
    shows a GPU that has the instruction."""
    s = facts.stack
    if s.ptx_feature_at is None or s.build_step or set(causes) - set(COVERAGE_IDS):
        return None
    need = Version(s.ptx_feature_cc)
    gpus = shown_gpus(facts, load_knowledge())
    if any(cc >= need for _, cc in gpus):
        return None
    named = [f"{name} ({cc})" if name else str(cc) for name, cc in gpus]
    fields = {
        "feature": s.ptx_feature,
        "need": s.ptx_feature_cc,
        "gpu": ", ".join(named) if named else t("doctor.judge62.the_target", need=s.ptx_feature_cc),
    }
    return Decision(
        "unsupported-cc",
        "doctor.judge62.ptx_feature",
        _sourced(fields, OP_REFUSED_SEEN if s.ptx_feature_op else PTX_FEATURE_SEEN),
        texts="gpu-lacks-feature",
        evidence=s.ptx_feature_at,
        fix_fields={"need": s.ptx_feature_cc},
        drop=COVERAGE_IDS,
    )


def _nvcc_too_old(facts: Facts, causes: list[str]) -> Decision | None:
    """nvcc refusing an architecture the build asks for: its CUDA release predates that GPU
    generation. The architecture's row (knowledge: architectures) names the CUDA from which nvcc
    knows every GPU of it; an architecture the tables lack keeps the row's own words."""
    if causes[:1] != ["ptxas-too-old"] or facts.nvcc_arch_line is None:
        return None
    try:
        cc = Version(facts.nvcc_arch_cc)
    except InvalidVersion:
        return None
    arch = load_knowledge().architecture(cc)
    if arch is None or arch.ptxas_cuda is None:
        return None
    first = f"{arch.ptxas_cuda.major}.{arch.ptxas_cuda.minor}"
    fields = {"arch": "compute_" + facts.nvcc_arch_cc.replace(".", ""), "cc": str(cc), "name": arch.name}
    return Decision(
        "ptxas-too-old",
        "doctor.judge49.nvcc_old",
        _sourced({**fields, "first": first}, arch.source),
        texts="nvcc-too-old",
        evidence=facts.nvcc_arch_line,
    )


def _nvrtc_too_old(facts: Facts) -> Decision | None:
    """NVRTC refusing the GPU's architecture ("invalid value for --gpu-architecture"), with the
    toolkit's CUDA in the text, on GPUs whose architecture came after it (knowledge: architectures,
    the first CUDA whose compilers build for it): the runtime compiler is older than the GPU. The
    GPU below that CUDA's floor is the other side (judge's nvrtc_below)."""
    if facts.nvrtc_arch_line is None or not facts.nvrtc_cuda:
        return None
    try:
        cuda = Version(facts.nvrtc_cuda)
    except InvalidVersion:
        return None
    kb = load_knowledge()
    gpus = shown_gpus(facts, kb)
    # Choose's own test of a toolkit against a GPU's generation: the same answer for a log and a machine.
    firsts = [toolkit_too_old(kb, cc, cuda) for _, cc in gpus]
    if not gpus or any(f is None for f in firsts):
        return None
    name, cc = gpus[0]
    arch = kb.architecture(cc)
    assert arch is not None and firsts[0] is not None
    first = f"{firsts[0].major}.{firsts[0].minor}"
    fields = {"gpu": name or "GPU", "cc": str(cc), "name": arch.name, "cuda": facts.nvrtc_cuda}
    return Decision(
        "ptxas-too-old",
        "doctor.judge54.nvrtc_old",
        _sourced({**fields, "first": first}, arch.source),
        texts="nvcc-too-old",
        evidence=facts.nvrtc_arch_line,
        drop=("gpu-too-new", "unsupported-cc"),
    )


# What prints ONNX Runtime's version and build (its CUDA provider's requirements are by version).
ORT_VERSION = 'python -c "import onnxruntime as ort; print(ort.__version__, ort.get_build_info())"'


def _ort_libs_open(facts: Facts, causes: list[str]) -> Decision | None:
    """ONNX Runtime's CUDA provider not loaded where the text names none of the libraries it needs
    (error 126, the CUDA_PATH notice): a CUDA library or cuDNN of the versions its build wants is
    missing, and which is not shown. Its words say so and how to see which, never one side's fix."""
    if causes[:1] != ["missing-cudart"] or facts.ort_unnamed is None:
        return None
    return Decision(
        "missing-cudart",
        "doctor.judge49.ort_open",
        {},
        texts="cuda-libs-open",
        evidence=facts.ort_unnamed,
        fix_fields={"command": ORT_VERSION},
        drop=("missing-cudnn",),
    )


def _python(facts: Facts, causes: list[str]) -> Decision | None:
    if causes and causes[0] != "python-unsupported":
        return None
    verdict = python_fit(facts, load_knowledge())
    if verdict is None:
        return None
    return Decision(
        verdict.id, verdict.key, _sourced(verdict.fields, verdict.source), evidence=facts.failure_line
    )


def _native_windows(facts: Facts, causes: list[str], symptoms: set[str]) -> Decision | None:
    """TensorFlow 2.11 or newer on native Windows (Windows named; WSL, a container and Linux not): its
    Windows wheels have no GPU support (knowledge: platforms), so no driver, CUDA or cuDNN makes it use
    the GPU; the GPU route is WSL2. Every TensorFlow the text names must be one of them, the text must
    speak of the GPU (a notice alone on such a machine asks nothing of it), and no row may have read
    anything in it: a message's own cause (a CPU build, a removed package) keeps its reading. A
    complaint in words ("won't see my gpu", a fallback row) is what the decision explains: it is not
    counted (decide passes the causes without the worded ones)."""
    if "Windows" not in facts.platforms or {"WSL2", "container"} & set(facts.platforms) or facts.linux_named:
        return None
    if causes or symptoms or not facts.gpu_word:
        return None
    try:
        versions = [Version(v) for v in facts.tf_versions]
    except InvalidVersion:
        return None
    rows = [row for row in load_knowledge().wheels if row.platform == "windows"]
    cpu_only = [
        next((row for row in rows if row.tensorflow.contains(v, prereleases=True)), None) for v in versions
    ]
    if not cpu_only or any(row is None or row.gpu for row in cpu_only):
        return None
    return Decision(
        "native-windows",
        "doctor.judge53.native_windows",
        _sourced({"tf": facts.tf_versions[0]}, cpu_only[0].source if cpu_only[0] else ""),
        evidence=facts.tf_version_at,
    )


def _wsl_windows_driver(facts: Facts, causes: list[str]) -> Decision | None:
    """WSL2 where CUDA fails with its unknown error (999) or nvidia-smi shows "CUDA Version: ERR!":
    CUDA there is the Windows driver's, so with that driver's version in the text the fix is on
    Windows (roll it back or take another branch), never a Linux driver inside WSL2."""
    if "WSL2" not in facts.platforms or facts.tcc or not (facts.cuda_unknown or facts.smi_cuda_err):
        return None
    # nvidia-smi's driver in Windows' form, or the Windows driver the text names in words.
    windows = facts.windows_driver or facts.setup.windows_driver
    if (causes and causes[0] not in GENERIC) or not windows:
        return None
    line = next(((n, ln) for c, n, ln in facts.codes if c.number == 999), None) or facts.failure_line
    fields = {"driver": windows, "what": "CUDA Version: ERR!" if facts.smi_cuda_err else "999"}
    # "No CUDA device" and cuInit's symptom words say "update the driver" or "check detect": the
    # Windows driver's own release is the cause, so their fixes leave the report.
    return Decision(
        "wsl-windows-driver",
        "doctor.judge.wsl_driver",
        fields,
        drop=("no-device", "cuinit-failed"),
        evidence=line,
        fix_fields=fields,
    )


_WINDOWS_FORM = re.compile(r"^[0-9]{3}\.[0-9]{2}$")
_LINUX_FORM = re.compile(r"^[0-9]{3}\.[0-9]{2,3}\.[0-9]{2}$")


def _wsl_driver_seen(facts: Facts) -> str:
    """The Windows driver a WSL2 text shows: named so beside WSL2, or nvidia-smi's own pair in WSL2's
    form (its version the Linux side's 555.42.03, its "Driver Version" the Windows driver's 555.85, one
    branch: native Linux prints one version twice, native Windows the Windows one twice)."""
    if facts.windows_driver and "WSL2" in facts.platforms:
        return facts.windows_driver
    if facts.setup.windows_driver and "WSL2" in facts.platforms:  # named as the Windows driver
        return facts.setup.windows_driver
    smi, driver = facts.setup.smi_version, facts.driver_smi
    if _LINUX_FORM.match(smi) and _WINDOWS_FORM.match(driver) and smi.split(".")[0] == driver.split(".")[0]:
        return driver
    return ""


def _wsl_libcuda_crash(facts: Facts, causes: list[str]) -> Decision | None:
    """A crash whose frames are in the libcuda.so WSL's Windows driver provides
    (/usr/lib/wsl/drivers/<its folder>/libcuda.so): the driver's own library crashed the program, so
    the fix is on Windows (another driver release), never in Linux."""
    if facts.wsl_libcuda_crash is None or (causes and causes[0] not in GENERIC):
        return None
    windows = facts.windows_driver or facts.setup.windows_driver
    return Decision(
        "wsl-windows-driver",
        "doctor.judge53.wsl_libcuda_crash",
        {},
        drop=("no-device", "cuinit-failed"),
        evidence=facts.wsl_libcuda_crash,
        fix_fields={"driver": windows or t("doctor.judge53.the_installed")},
    )


def _wsl_smi_crash(facts: Facts, causes: list[str]) -> Decision | None:
    """nvidia-smi crashing in WSL2 (a segmentation fault), nothing else named: nvidia-smi and the NVML
    library it loads there are the Windows driver's own files (/usr/lib/wsl/lib), so that driver
    release is at fault; the fix is on Windows (another release), never a Linux driver in WSL2."""
    if causes or facts.smi_crash is None:
        return None
    driver = _wsl_driver_seen(facts)
    if not driver:
        return None
    fields = {"driver": driver, "smi": facts.setup.smi_version}
    return Decision(
        "wsl-windows-driver",
        # Without nvidia-smi's own version the Windows driver is the one the text names as such.
        "doctor.judge25.wsl_smi_crash" if fields["smi"] else "doctor.judge27.wsl_smi_crash_named",
        fields,
        drop=("no-device", "cuinit-failed"),
        evidence=facts.smi_crash,
        fix_fields={"driver": driver},
    )


# A Mac named as where the program is not, or where it works ("I'm not on macOS", "runs fine on my
# Mac Studio"): the failing machine is another one.
_MAC_ELSEWHERE = re.compile(
    r"\bnot (?:on |using |running )?(?:an? |my |the )?(?:mac|macOS)\b"
    r"|\b(?:works?|worked|runs?|ran|fine|ok)\b[^.\n]{0,30}\bon (?:an? |my |the )?(?:mac|macOS)\b",
    re.I,
)


def _macos(facts: Facts, causes: list[str]) -> Decision | None:
    """A text that says it ran on a Mac and that CUDA is not there, naming no NVIDIA GPU and no other
    cause: macOS has no NVIDIA CUDA (CUDA 10.2 was its last; Apple silicon has no NVIDIA GPU), so the
    message is what a Mac gives, and the program runs on the CPU. Not where the text names the Mac as
    where it is not or where it works."""
    if facts.mac is None or facts.gpus or facts.gpus_named:
        return None
    if _MAC_ELSEWHERE.search(facts.mac[1]):
        return None
    if facts.cuda_absent is None:
        return _macos_pip(facts, causes)
    # PyTorch's "not compiled with CUDA" on a Mac is the Mac's own wheel (no CUDA build exists for
    # macOS since CUDA 10.2): the Mac is the cause, not a CPU wheel chosen by mistake.
    if set(causes) - {"cpu-only-wheel"}:
        return None
    return Decision("macos", "doctor.judge25.macos", {}, evidence=facts.cuda_absent, drop=("cpu-only-wheel",))


# What pip's failure to find a GPU-only package reads as elsewhere: on a Mac, the Mac is why.
_PIP_ON_MAC = frozenset({"python-unsupported", "tensorflow-gpu-removed", "cpu-only-wheel"})


def _macos_pip(facts: Facts, causes: list[str]) -> Decision | None:
    """pip finding no build of a package made for NVIDIA GPUs only (tensorflow-gpu, NVIDIA's CUDA
    wheels) in a text that says it ran on a Mac: the index has no macOS build of it, because macOS
    has no NVIDIA CUDA; not the Python's version, nor the package's removal."""
    if facts.pip_gpu_only is None or set(causes) - _PIP_ON_MAC:
        return None
    return Decision(
        "macos",
        "doctor.judge59.macos_pip",
        {"line": facts.pip_gpu_only[1]},
        evidence=facts.pip_gpu_only,
        drop=tuple(_PIP_ON_MAC),
    )


SUSPEND_SEEN = (
    "tensorflow/tensorflow#5777 (the GPU unavailable after the computer wakes; reloading nvidia_uvm"
    " mends it); pop-os/default-settings#64 (CUDA fails after resume until nvidia_uvm is reloaded);"
    " pytorch/pytorch#49081; ollama/ollama#2934"
)


def _after_suspend(facts: Facts, causes: list[str]) -> Decision | None:
    """CUDA's unknown error in a text that says the computer suspended and woke before it, or a line
    that says CUDA fails after a suspend until nvidia_uvm is reloaded (facts.suspend_uvm), with no
    other cause shown: the driver's unified-memory module (nvidia_uvm) came back unusable from the
    suspend, a known fault that reloading the module (or a restart) mends. Not in WSL2, where the
    Windows driver answers CUDA."""
    if facts.suspend_at is None or causes or "WSL2" in facts.platforms:
        return None
    return Decision(
        "cuinit-failed",
        "doctor.judge66.after_suspend_uvm" if facts.suspend_uvm else "doctor.judge59.after_suspend",
        _sourced({"said": facts.suspend_at[1]}, SUSPEND_SEEN),
        texts="cuda-after-suspend",
        evidence=facts.suspend_at,
    )


def _scheduler(facts: Facts, symptoms: set[str]) -> Decision | None:
    no_gpu = {"no-device", "gpu-list-empty", "cuinit-failed"} & symptoms or any(
        c.decides == "no-device" for c, _, _ in facts.codes
    )
    if "scheduler" not in facts.platforms or not no_gpu:
        return None
    if facts.visible_devices is None and facts.srun_no_gpu_at is not None:
        # A step run by srun asking for no GPU, where CUDA then finds none: SLURM gave it none.
        return Decision(
            "scheduler-no-gpu",
            "doctor.reason.scheduler_srun",
            {"line": facts.srun_no_gpu_at[1]},
            evidence=facts.srun_no_gpu_at,
        )
    if facts.visible_devices is None or not _NO_GPU_VISIBLE.match(facts.visible_devices):
        return None
    if facts.visible_set:  # set by the text's own command: not what the scheduler gave the job
        return None
    return Decision(
        "scheduler-no-gpu",
        "doctor.reason.scheduler",
        {"value": facts.visible_devices or '""'},
        evidence=facts.visible_at,
    )


def _no_gpu_seen(facts: Facts, symptoms: set[str]) -> bool:
    return (
        bool({"no-device", "gpu-list-empty", "cuinit-failed"} & symptoms)
        or any(c.decides == "no-device" for c, _, _ in facts.codes)
        or facts.setup.gpu_missing is not None
    )


def _container_no_compute(facts: Facts, causes: list[str], symptoms: set[str]) -> Decision | None:
    """A container given the GPU with driver capabilities that leave out compute (the NVIDIA Container
    Toolkit's README: "compute: required for CUDA and OpenCL applications"; "utility" brings nvidia-smi
    and NVML only) where CUDA then finds no driver or no GPU: the toolkit mounted no libcuda."""
    if not facts.no_compute or facts.no_compute_at is None or "WSL2" in facts.platforms:
        return None
    if not set(causes) <= CONTAINER_BESIDE:
        return None
    if facts.libcuda_missing is None and not _no_gpu_seen(facts, symptoms) and not causes:
        return None
    return Decision(
        "container-no-gpu",
        "doctor.reason.no_compute",
        {"value": facts.no_compute},
        drop=("driver-too-old", "no-device"),
        texts="container-no-compute",
        evidence=facts.no_compute_at,
    )


def _container_no_device(facts: Facts, causes: list[str], symptoms: set[str]) -> Decision | None:
    """Inside a container, TensorFlow's own diagnosis that the driver's device node is absent
    ("/dev/nvidia0 does not exist") where CUDA found no device and nothing else failed: the
    container was started without the GPU (the NVIDIA Container Toolkit creates /dev/nvidia* only in
    a container given GPUs), whatever the host has."""
    if facts.dev_node_missing is None or "container" not in facts.platforms or "WSL2" in facts.platforms:
        return None
    if causes or not symptoms <= {"cuinit-failed", "no-device"}:
        return None
    if any(c.decides != "no-device" for c, _, _ in facts.codes):
        return None
    return Decision(
        "container-no-gpu",
        "doctor.judge57.container_no_device",
        {},
        drop=("cuinit-failed", "no-device"),
        evidence=facts.dev_node_missing,
    )


def _container_libcuda(facts: Facts, causes: list[str]) -> Decision | None:
    """Inside a container of an image built for the GPU (the text names it), the driver's own libcuda
    not found and nothing in the text that gives the container a GPU: the NVIDIA Container Toolkit
    mounts libcuda only into a container that asks for GPUs, so the host's driver never reached it.
    A CUDA library missing beside it (cuDNN, cuBLAS) is not the cause: no GPU is used without the
    driver. A CPU image's missing libcuda is no fault (the catalogue's cuInit row says so)."""
    if facts.libcuda_missing is None or "container" not in facts.platforms or facts.gpu_asked:
        return None
    if not facts.gpu_image:
        return None
    # nvidia-smi not found there is the same absence: the toolkit mounts it with the driver's libraries.
    if "WSL2" in facts.platforms or not set(causes) <= CONTAINER_BESIDE | {"nvidia-smi-missing"}:
        return None
    return Decision(
        "container-no-gpu",
        "doctor.reason.container_libcuda",
        {},
        drop=("driver-too-old", "no-device", "nvidia-smi-missing"),
        evidence=facts.libcuda_missing,
    )


def _mode_alone(facts: Facts, causes: list[str]) -> Decision | None:
    """nvidia-smi's compute mode in the text beside a failure and no cause named: Exclusive_Thread
    lets one thread of one process use the GPU (TensorFlow's runtime uses several), Prohibited lets
    no program use it. Exclusive_Process serves one process and decides nothing alone."""
    if causes or facts.failure_line is None:
        return None
    key = MODE_KEYS.get(facts.compute_mode)
    if key is None:
        return None
    # The mode's own line is the evidence: the failure said beside it decides nothing alone.
    return Decision("gpu-busy", key, {"mode": facts.compute_mode}, evidence=facts.compute_mode_at)


# Codes a context refused by an exclusive compute mode comes back as: 101's "the action requested is
# invalid for the specified device" (older drivers), 46 (busy or unavailable), 216 (bound to another
# thread).
MODE_CONTEXT_CODES = frozenset({101, 46, 216})


def _mode_context(facts: Facts, causes: list[str]) -> Decision | None:
    """A GPU in an exclusive compute mode (nvidia-smi's, or said in words) beside CUDA failing to
    create or bind a context: that mode lets one context use the GPU at a time (cuda.h's
    CU_COMPUTEMODE_EXCLUSIVE_PROCESS: "Only one context used by a single process can be present on this
    device at a time"), so a second one, of another process or of
    the same program, is refused; the code it comes back with (101, 46, 216) says no more than that.
    Not where a code on that line names another cause, nor an invalid ordinal (101's other meaning)."""
    if not facts.exclusive or facts.context_failure is None:
        return None
    if causes and causes[0] != "gpu-busy":
        return None
    number, _ = facts.context_failure
    on_line = [c for c, n, _ in facts.codes if n == number]
    if any(c.number not in MODE_CONTEXT_CODES for c in on_line):
        return None
    if any(c.decides and c.decides != "gpu-busy" for c, _, _ in facts.codes):
        return None
    return Decision(
        "gpu-busy", "doctor.reason.mode_context", {"mode": facts.exclusive}, evidence=facts.context_failure
    )


def _fabric_state(facts: Facts, causes: list[str], symptoms: set[str]) -> Decision | None:
    """nvidia-smi -q's fabric state "In Progress" beside CUDA finding no GPU: the GPU is not yet
    registered with the NVLink fabric, which the Fabric Manager does; CUDA starts only after it
    (NVIDIA's Fabric Manager user guide)."""
    if facts.fabric_in_progress is None or (causes and causes[0] != "fabric-manager"):
        return None
    if not _no_gpu_seen(facts, symptoms) and facts.failure_line is None:
        return None
    return Decision("fabric-manager", "doctor.reason.fabric_state", {}, evidence=facts.fabric_in_progress)


# The driver API's answers where CUDA has no device to use: none visible, none initialised.
_NONE_VISIBLE_CODES = {"CUDA_ERROR_NO_DEVICE", "CUDA_ERROR_NOT_INITIALIZED", "CUDA_ERROR_INVALID_DEVICE"}


def _visible_none(facts: Facts, symptoms: set[str]) -> Decision | None:
    """CUDA_VISIBLE_DEVICES set to nothing ("", -1, none) where the program ran, outside a scheduler,
    and CUDA then finding no device: the variable hides every GPU (CUDA's programming guide), so the
    failure is the setting, not the driver; unset it where a GPU is wanted."""
    if facts.visible_devices is None or not _NO_GPU_VISIBLE.match(facts.visible_devices):
        return None
    if "scheduler" in facts.platforms or facts.visible_devices.lower() == "nodevfiles":
        return None
    codes = any(c.name in _NONE_VISIBLE_CODES for c, _, _ in facts.codes)
    if not codes and not _no_gpu_seen(facts, symptoms):
        return None
    return Decision(
        "no-device",
        "doctor.judge53.visible_none",
        {"value": facts.visible_devices or '""'},
        evidence=facts.visible_at,
        texts="visible-devices-none",
    )


def _platform(facts: Facts, symptoms: set[str]) -> Decision | None:
    """A device CUDA cannot see, explained by the platform the text shows: a GPU in TCC mode under
    WSL2 (WSL2 reaches only WDDM GPUs), MIG mode with no instance given to the program."""
    if not _no_gpu_seen(facts, symptoms):
        return None
    # Its evidence: the line that says no GPU was found (or the first failure), as the report shows.
    line, said = facts.setup.gpu_missing or facts.failure_line or (None, "")
    if facts.tcc and "WSL2" in facts.platforms:
        return Decision("wsl-tcc", "doctor.reason.tcc", {}, line=line, said=said)
    if facts.mig:
        return Decision("mig-no-instance", "doctor.reason.mig", {}, line=line, said=said)
    return None


# Where the program runs (inside its container): the driver it reaches, and whether libcuda is found.
DECIDE_REACHED = "nvidia-smi; ldconfig -p | grep libcuda"


def _container_unshown(facts: Facts) -> bool:
    """A container the text runs in, with neither the GPU given to it (--gpus, --nv, the NVIDIA runtime)
    nor any driver version shown."""
    shown = facts.driver_smi or facts.driver_kernel or facts.driver_library or facts.windows_driver
    return "container" in facts.platforms and not facts.gpu_asked and not shown


def _said_35(facts: Facts) -> bool:
    """CUDA's 35 by its number or its words, not a program's own check of the driver."""
    return facts.insufficient or any(c.table == "cudaerror" and c.number == 35 for c, _, _ in facts.codes)


def _driver_floor(facts: Facts, causes: list[str], symptoms: set[str]) -> Decision | None:
    """nvidia-smi's driver below the floor of the CUDA the program loads, on its platform (Choose's
    floors, wizard.doctor.judge.driver_floor): the driver is too old, whatever generic words came
    with it."""
    if causes and causes[0] not in UPDATE_DRIVER_IDS:
        return None
    if not causes and not _no_gpu_seen(facts, symptoms):
        return None
    verdict = driver_floor(facts, load_knowledge())
    if verdict is None:
        return None
    return Decision(verdict.id, verdict.key, _sourced(verdict.fields, verdict.source))


def decide(
    facts: Facts, causes: list[str], symptoms: set[str], worded: frozenset[str] | set[str] = frozenset()
) -> Reasoning:
    """`causes`: the output's harmful causes, ranked (ids of rows that are not symptoms);
    `symptoms`: the ids of its symptom rows. Decisions come first in the report, in this order."""
    out = Reasoning()
    mismatch = _mismatch(facts)
    if mismatch is not None:
        out.decisions.append(mismatch)
        return out
    contradicting = set(causes) & set(REBOOT_IDS) and set(causes) & set(UPDATE_DRIVER_IDS)
    if contradicting and facts.mismatch() == 0:
        # A mismatch whose sides are not shown beside an old driver's words (CUDA's 35): the mismatch
        # is certain, the old driver may be its consequence; "update the driver" would contradict the
        # mismatch's own answer (which side is newer decides), so it is taken out.
        out.drop = UPDATE_DRIVER_IDS
        causes = [c for c in causes if c not in UPDATE_DRIVER_IDS]
    elif facts.mismatch() > 0 and _container_newer(facts) and not contradicting:
        # The libraries and the module differ (both shown); which of two causes made the container's
        # newer is the host's to say: the open verdict, with the host's command.
        out.decisions.append(
            Decision(
                "driver-library-mismatch",
                "doctor.judge54.mismatch_container_newer",
                {"library": facts.driver_library, "kernel": facts.driver_kernel},
                drop=REBOOT_IDS + UPDATE_DRIVER_IDS,
                texts="driver-mismatch-one-side",
                evidence=facts.mismatch_line or facts.failure_line,
                fix_fields={"command": "nvidia-smi"},
            )
        )
        return out
    elif facts.mismatch() > 0 and contradicting:
        # Two fixes that contradict each other (reboot, update the driver) and versions that do
        # not decide between them: not sure, with the command that decides.
        out.drop = REBOOT_IDS + UPDATE_DRIVER_IDS
        out.command, out.on_host = "nvidia-smi", True
        return out
    judged = (
        _container_no_compute(facts, causes, symptoms)
        or _container_libcuda(facts, causes)
        or _container_no_device(facts, causes, symptoms)
        or _compat_libcuda(facts, causes)
        or _mismatch_one_side(facts, causes)
        or _nvrtc_too_old(facts)
        or _coverage(facts, causes)
        or _coverage_open(facts, causes)
        or _ort_libs_open(facts, causes)
        or _nvcc_too_old(facts, causes)
        or _cudnn_arch(facts, causes)
        or _ptx_feature(facts, causes)
        or _python(facts, causes)
        or _wsl_windows_driver(facts, causes)
        or _wsl_smi_crash(facts, causes)
        or _wsl_libcuda_crash(facts, causes)
        or _macos(facts, causes)
        or _after_suspend(facts, causes)
        or _native_windows(facts, [c for c in causes if c not in worded], symptoms)
    )
    if judged is not None:
        out.decisions.append(judged)
        return out
    if causes and causes[0] in COVERAGE_IDS and coverage_served(facts, load_knowledge()):
        # The release the text names serves this GPU: neither "too new" nor "too old" is true of it.
        out.drop, out.command = COVERAGE_IDS, DECIDE_BUILD
        return out
    # A scheduler, TCC or MIG hiding the GPU first; then a driver below its CUDA's floor.
    sched = _scheduler(facts, symptoms) or _visible_none(facts, symptoms) or _platform(facts, symptoms)
    sched = sched or _driver_floor(facts, causes, symptoms)
    if sched is not None and (not causes or causes[0] == sched.id):
        out.decisions.append(sched)
        return out
    served = driver_serves(facts, load_knowledge()) if causes[:1] == ["driver-too-old"] else None
    if served is not None and _said_35(facts):
        # The driver runs the program's CUDA: 35 is not its age. Which way the program missed the
        # driver is not shown: not sure, with what the program's own environment shows.
        out.drop, out.command = served.drop, DECIDE_REACHED
        out.why, out.why_fields = served.key, served.fields
        return out
    host = decide_host(facts, causes, symptoms, _wsl_driver_seen(facts))
    if host is not None and not host.id:  # the facts contradict each other: not sure
        out.drop, out.command, out.note = host.drop, host.command, host.note
        return out
    if host is not None:
        out.decisions.append(_as_decision(host))
        return out
    setup = decide_setup(facts, causes, symptoms) or decide_stack(facts, causes, symptoms)
    if setup is not None:
        out.decisions.append(_as_decision(setup))
        return out
    if causes[:1] == ["driver-too-old"] and _said_35(facts) and _container_unshown(facts):
        # 35 inside a container given no GPU the text shows, beside no driver's version: the runtime
        # says it where it finds no usable libcuda (a container started without the GPU) as much as
        # where the driver is older than it. Inside the container, nvidia-smi tells them apart.
        out.drop, out.command = ("driver-too-old",), DECIDE_REACHED
        out.why, out.why_fields = "doctor.judge46.container_35", {}
        return out
    fabric = _fabric_state(facts, causes, symptoms)
    if fabric is not None:
        out.decisions.append(fabric)
        return out
    held = _mode_context(facts, causes)
    if held is not None:
        out.decisions.append(held)
        return out
    unsettled = stack_open(facts, causes)
    if unsettled is not None:  # the catalogue's cause ruled out, the cause not decided: not sure
        out.drop, out.command = unsettled
        return out
    mode = _mode_alone(facts, causes)
    if mode is not None and not any(c.decides for c, _, _ in facts.codes):
        out.decisions.append(mode)
        return out
    if "WSL2" in facts.platforms and (facts.cuda_unknown or facts.smi_cuda_err) and not causes:
        # The Windows driver's version decides (a regression of that driver); nvidia-smi in WSL2 shows it.
        out.command, out.note = "nvidia-smi", True
        return out
    decided = {c.decides for c, _, _ in facts.codes if c.decides}
    if facts.compute_mode and any(c.decides == "gpu-busy" for c, _, _ in facts.codes):
        decided = {"gpu-busy"}
    if decided <= GENERIC and (causes or symptoms):
        decided = set()  # the catalogue's own rows already read a missing device
    if len(decided) == 1 and (not causes or causes[0] in decided):
        (cause,) = decided
        code, number, _ = next((c, n, ln) for c, n, ln in facts.codes if c.decides == cause)
        fields = {
            "name": code.name,
            "number": str(code.number),
            "meaning": code.meaning,
            "source": code.source(),
        }
        key = "doctor.reason.code"
        if cause == "gpu-busy" and facts.compute_mode:
            key, fields = "doctor.reason.code_mode", {**fields, "mode": facts.compute_mode}
        out.decisions.append(Decision(cause, key, fields, line=number))
        return out
    shown = facts.compute_mode or (facts.mode_words[1] if facts.mode_words else "")
    if causes and causes[0] == "gpu-busy" and shown and not decided:
        # 46's message beside the compute mode the text shows: the answer names that mode.
        out.decisions.append(Decision("gpu-busy", "doctor.reason.busy_mode", {"mode": shown}))
        return out
    if causes:
        return out
    if facts.fabric_manager_named and _no_gpu_seen(facts, symptoms) and not decided:
        # The Fabric Manager named beside no GPU, with no 802: it is needed only on NVSwitch servers (and
        # fails to start, harmlessly, elsewhere), so whether it is what stops CUDA is not shown.
        out.command, out.note = DECIDE_FABRIC, True
        return out
    undecided = [c for c, _, _ in facts.codes if c.decide_with]
    refused = facts.context_failure is not None and any(
        c.number == 101 and n == facts.context_failure[0] for c, n, _ in facts.codes
    )
    if coverage_undecided(facts, load_knowledge()):
        out.command = decide_open(facts, load_knowledge())
    elif refused and not facts.compute_mode and not facts.mode_words:
        # 101 where a context was being made, not a device number: the compute mode decides (an
        # exclusive mode refuses a second context; an ordinal that is not there is 101's other meaning).
        out.command = DECIDE_MODE
    elif facts.fabric_manager_named and not undecided and not decided:
        # The Fabric Manager failing to start (NV_WARN_NOTHING_TO_DO where there is no NVSwitch to
        # manage): whether the GPUs need it shows in their fabric state.
        out.command = DECIDE_FABRIC
    elif facts.exclusive and not undecided and not decided:
        # An exclusive mode beside a failure that is no refused context: who holds the GPU decides.
        out.command = DECIDE_HOLDERS
    elif undecided:
        out.command = undecided[0].decide_with
    elif len(decided) > 1:  # codes that name different causes: never two contradicting fixes
        out.command = "nvidia-smi"
    return out


def command_for(families: list[str], facts: Facts) -> str:
    for family in families:
        if family in DECIDE_BY_FAMILY:
            return DECIDE_BY_FAMILY[family]
    return program_check(facts)


def program_check(facts: Facts) -> str:
    """The command that asks the text's own program whether it reaches the GPU: TensorFlow's, PyTorch's,
    or (a text of neither) nvidia-smi, never another program's import that may not be installed."""
    if facts.program == "tensorflow":
        return DECIDE_DEFAULT
    return DECIDE_TORCH if facts.program == "torch" else DECIDE_ANY_PROGRAM


__all__ = [
    "DECIDE_ANY_PROGRAM",
    "DECIDE_DEFAULT",
    "DECIDE_MISMATCH",
    "DECIDE_TORCH",
    "REASONED_IDS",
    "VERDICT_IDS",
    "Decision",
    "Reasoning",
    "command_for",
    "decide",
    "program_check",
]
