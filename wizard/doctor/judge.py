"""A log's facts judged by the functions Choose itself uses: no second model of the machine.

    coverage(facts, kb) -> Verdict | None      "no kernel image": does this build serve this GPU?
    python_fit(facts, kb) -> Verdict | None    pip found no TensorFlow: is this Python the reason?
    driver_floor(facts, kb) -> Verdict | None  the driver against the floor of the CUDA a build needs
    cuda_floor(cuda, platform, kb)             that floor: the one both of the doctor's readings use

Each answers only where the text holds every fact it needs and they decide; otherwise None (the
doctor then keeps the catalogue's answer or says "not sure"). The code coverage is
wizard.choose.gpucode.fit (machine code: same major, equal or higher minor; PTX on newer GPUs where
the driver's CUDA allows; sm_90a-style targets never forward), the Python ranges are the releases'
(wizard.choose.knowledge.Release: python, nearest_python), the floors Choose's knowledge (minor_floor,
toolkit) and the resolver's required_floor, by platform. Values in `fields` are log data or table data.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from packaging.version import InvalidVersion, Version

from wizard.choose.driver_floors import normalize_driver
from wizard.choose.gpucode import NONE, PTX_DRIVER_TOO_OLD, fit
from wizard.choose.harvest import Arch, Ptx
from wizard.choose.knowledge import KnowledgeBase, Release, driver_text
from wizard.choose.resolver import required_floor
from wizard.doctor.facts import Facts
from wizard.doctor.gpu_names import table_cc
from wizard.text import t

# The diagnosis ids a coverage verdict names, and those it rules out (their fixes contradict it).
TOO_NEW, TOO_OLD, PTX_DRIVER = "gpu-too-new", "unsupported-cc", "ptx-too-new-for-driver"
COVERAGE_IDS = (TOO_NEW, TOO_OLD, PTX_DRIVER)
DECIDE_CC = "nvidia-smi --query-gpu=name,compute_cap --format=csv"
# The installed TensorFlow's own build list and the GPUs it sees: decides what a log leaves open.
DECIDE_BUILD = (
    'tf-gpu-wizard doctor --run python -c "import tensorflow as tf; '
    "print(tf.sysconfig.get_build_info()); print(tf.config.list_physical_devices('GPU'))\""
)
UNKNOWN_ISA = Version("0")  # a PTX a log lists has no ISA with it: isa_cuda() knows no CUDA for it
# PyTorch's own build list, where the text is PyTorch's: decides what a log leaves open.
DECIDE_TORCH_BUILD = 'python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list())"'
# No published build's lowest code was ever above compute capability 7.x (TensorFlow's, knowledge
# tensorflow.toml: 3.5-6.0; PyTorch's and CUDA 13's: Turing 7.5 and up), so a GPU of 8.0 or newer
# (Ampere on) that a build has no code for is newer than that build, never too old for it; the
# catalogue's rows for RTX 30xx/40xx/50xx, A100, H100 say the same. A build of one's own may
# start anywhere (built on an H100 for sm_90 alone), so it is not judged so.
NEVER_TOO_OLD = Version("8.0")
# The other end: machine code runs on its own major from its minor up, and PTX on every newer GPU, so
# a build is too new for a GPU only where all its code is of an older major with no PTX. Below 5.0
# (Kepler, Fermi) that is a build for Fermi (2.x) or Tesla (1.x) alone, which CUDA 9 on cannot make
# (knowledge: nvcc_floor) and no published build was: a GPU of major 3 or older with no kernel image
# is older than the build's lowest code, whatever the build.
ALWAYS_TOO_OLD_BELOW = Version("5.0")


@dataclass(frozen=True)
class Verdict:
    id: str  # the diagnosis the facts decide
    key: str  # doctor.judge.* text that says why
    fields: dict[str, str] = field(default_factory=dict)
    drop: tuple[str, ...] = ()  # ids whose fix this one contradicts
    texts: str = ""  # the doctor.toml section of its title, why and fix, where not the id's own
    source: str = ""  # the knowledge row that decided (its wheel and sha256, or its page)


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


# ---- code coverage ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Build:
    label: str  # "TensorFlow 2.16" or "the build" (its own list)
    code: str  # the list as build_info writes it
    sass: tuple[Arch, ...]
    ptx: tuple[Ptx, ...]
    every_ptx: bool  # TensorFlow's wheels: each PTX listed is some kernels' only code
    source: str = ""  # the knowledge row it was read from; "" for the text's own list
    own: bool = False  # compiled here: its list was chosen, not dated (a GPU above it is left out)


def _listed_build(facts: Facts) -> Build | None:
    sass = tuple(a for w in facts.build_code if w.startswith("sm_") and (a := Arch.parse(w)) is not None)
    ptx = tuple(
        Ptx(a, UNKNOWN_ISA)
        for w in facts.build_code
        if w.startswith("compute_") and (a := Arch.parse(w.replace("compute_", "sm_"))) is not None
    )
    if not sass and not ptx:
        return None
    label = t("doctor.fact.listed_build")
    return Build(label, " ".join(facts.build_code), sass, ptx, every_ptx=False, own=facts.own_build)


def _built_on_build(facts: Facts, kb: KnowledgeBase) -> Build | None:
    """A build the text says was compiled on another GPU than the one it ran on: PyTorch's extension
    builder, given no TORCH_CUDA_ARCH_LIST, compiles for the GPU it sees (torch.utils.cpp_extension:
    that GPU's sm_XY and its PTX), so the build's code is the compiling GPU's."""
    if facts.built_on is None or facts.build_code:
        return None
    cc = table_cc(facts.built_on[0], kb)
    arch = Arch.parse(f"sm_{cc.major}{cc.minor}") if cc is not None else None
    if arch is None:
        return None
    label = t("doctor.judge25.built_on", gpu=facts.built_on[0])
    return Build(
        label,
        f"sm_{arch.cc.major}{arch.cc.minor} compute_{arch.cc.major}{arch.cc.minor}",
        (arch,),
        (Ptx(arch, UNKNOWN_ISA),),
        every_ptx=False,
        own=True,
    )


def _tf_build(facts: Facts, kb: KnowledgeBase) -> Build | None:
    release = _one_release(facts, kb)
    build = kb.build(release) if release is not None else None
    if release is None or build is None:
        return None
    return Build(
        f"TensorFlow {release.series}", build.label(), build.sass_archs, build.ptx, True, build.source
    )


def _one_release(facts: Facts, kb: KnowledgeBase) -> Release | None:
    """The release the text names, where it names one series only (two decide nothing)."""
    found = {rel.series: rel for v in facts.tf_versions if (rel := kb.release(v)) is not None}
    series = {".".join(v.split(".")[:2]) for v in facts.tf_versions}
    if len(found) != 1 or len(series) != 1:
        return None
    return next(iter(found.values()))


def _gpu_names(facts: Facts) -> list[str]:
    """The GPU it ran on, where a sentence names the one the build was compiled on; else the GPUs
    named strictly (a listing, nvidia-smi), else as people write them ("5070Ti", "tesla v100")."""
    return [facts.built_on[1]] if facts.built_on else facts.gpus or facts.gpus_named


def _named_cc(name: str, kb: KnowledgeBase) -> tuple[str, Version] | None:
    """A GPU's name as Choose's GPU table writes it and its compute capability; None where unknown."""
    gpu = kb.gpu(name)
    if gpu is not None:
        return gpu.name, gpu.compute_capability
    cc = table_cc(name, kb)
    return (name, cc) if cc is not None else None


def _gpu_ccs(facts: Facts, kb: KnowledgeBase) -> list[tuple[str, Version]]:
    """(name, compute capability) of every GPU the text shows: its own capability figures and the
    names Choose's GPU table knows, together (a capability a sentence claims beside a GPU's name
    then counts too, and the verdicts must agree for both)."""
    found: dict[Version, str] = {}
    names = _gpu_names(facts)
    for name in names:
        if (known := _named_cc(name, kb)) is not None:
            found.setdefault(known[1], known[0])
    for text in facts.compute_capabilities:
        cc = _version(text)
        if cc is not None:
            found.setdefault(cc, "")
    if len(found) == 1 and len(names) == 1:  # one GPU, one capability: that GPU's own
        return [(next(iter(found.values())) or names[0], next(iter(found)))]
    return [(name, cc) for cc, name in found.items()]


def _driver_cuda(facts: Facts, kb: KnowledgeBase) -> Version | None:
    """The newest CUDA the driver serves: nvidia-smi's own figure, else Choose's table of it."""
    if facts.smi_cuda:
        return _version(facts.smi_cuda)
    driver = normalize_driver(facts.driver_smi) if facts.driver_smi else None
    if driver is None:
        return None
    return kb.cuda_for_driver(driver, windows=bool(facts.windows_driver))


def _judge_one(name: str, cc: Version, build: Build, driver_cuda: Version | None) -> Verdict | None:
    got = fit(cc, build.sass, build.ptx, driver_cuda, every_ptx=build.every_ptx)
    fields = {"gpu": name or "GPU", "cc": str(cc), "build": build.label, "code": build.code}
    if got.kind == PTX_DRIVER_TOO_OLD:
        fields |= {"ptx": got.via, "needs": str(got.needs_cuda), "driver_cuda": str(driver_cuda)}
        return Verdict(PTX_DRIVER, "doctor.judge.cover_ptx_driver", fields, (TOO_NEW, TOO_OLD))
    if got.kind != NONE:
        return None  # the build serves this GPU: "no kernel image" has another cause
    archs = [a.cc for a in build.sass] + [p.arch.cc for p in build.ptx if not p.arch.specific]
    lowest = min(archs)
    if cc < lowest:
        fields |= {"minimum": str(lowest)}
        return Verdict(TOO_OLD, "doctor.judge.cover_too_old", fields, (TOO_NEW, PTX_DRIVER), "cover-too-old")
    if got.missing:
        fields |= {"ptx": got.via, "missing": got.missing}
        return Verdict(TOO_NEW, "doctor.judge.cover_partial", fields, (TOO_OLD, PTX_DRIVER))
    if cc > max(archs) and build.own:
        # A list chosen here, not a release's: it left this GPU out (rebuild with its capability).
        return Verdict(TOO_OLD, "doctor.judge.cover_gap", fields, (TOO_NEW, PTX_DRIVER), "cover-gap")
    if cc > max(archs):
        fields |= {"newest": str(max(archs))}
        return Verdict(TOO_NEW, "doctor.judge.cover_too_new", fields, (TOO_OLD, PTX_DRIVER))
    return Verdict(TOO_OLD, "doctor.judge.cover_gap", fields, (TOO_NEW, PTX_DRIVER), "cover-gap")


def _coverage_verdicts(facts: Facts, kb: KnowledgeBase) -> list[Verdict | None] | None:
    """One verdict per GPU and build source the text shows (None: that build serves that GPU);
    None where the text lacks the failure, the GPU or the build's code."""
    if facts.no_kernel_line is None:
        return None
    gpus = _gpu_ccs(facts, kb)
    builds = [b for b in (_listed_build(facts), _built_on_build(facts, kb), _tf_build(facts, kb)) if b]
    if not gpus or not builds:
        return None
    driver_cuda = _driver_cuda(facts, kb)
    return [_judge_one(name, cc, b, driver_cuda) for name, cc in gpus for b in builds]


def shown_gpus(facts: Facts, kb: KnowledgeBase) -> list[tuple[str, Version]]:
    """(name, compute capability) of every GPU the text shows (names Choose's table knows, figures)."""
    return _gpu_ccs(facts, kb)


def coverage(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """Where the text says the GPU found no code for it and shows both the GPU and the build's code
    (its own list, or a TensorFlow release Choose knows): too new, too old, or PTX the driver is too
    old for. Every GPU and every build source the text shows must agree."""
    verdicts = _coverage_verdicts(facts, kb)
    if verdicts is None:
        return (
            _below_minimum(facts, kb)
            or _below_toolkit(facts, kb)
            or _nvrtc_below(facts, kb)
            or _above_toolkit(facts, kb)
            or _gpu_alone(facts, kb)
        )
    if any(v is None for v in verdicts) or len({v.id for v in verdicts if v}) != 1:
        return None
    tf = _tf_build(facts, kb)
    first = verdicts[0]
    assert first is not None
    return replace(first, source=tf.source) if tf is not None else first


def _below_minimum(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """A build that says only its lowest compute capability ("The minimum cuda capability supported
    by this library is 3.7", TensorFlow's "minimum required Cuda capability"): a GPU below it is too
    old; one above it is not judged (no upper bound)."""
    lowest = _version(facts.build_minimum) if facts.build_minimum else None
    gpus = _gpu_ccs(facts, kb)
    if facts.ptx_below and facts.below_minimum_line is not None:
        # The build's own check: it has no code at or below this GPU's capability.
        fields = {"cc": facts.ptx_below}
        return Verdict(TOO_OLD, "doctor.judge41.ptx_below", fields, (TOO_NEW, PTX_DRIVER), "cover-too-old")
    failed = facts.no_kernel_line or facts.below_minimum_line  # "no kernel image", or the build's words
    if lowest is not None and not gpus and facts.below_minimum_line is not None:
        # The build's own check said this GPU is below its lowest, naming no GPU: it read the GPU.
        fields = {"minimum": str(lowest)}
        return Verdict(TOO_OLD, "doctor.judge33.below_said", fields, (TOO_NEW, PTX_DRIVER), "cover-too-old")
    highest = _version(facts.build_maximum) if facts.build_maximum else None
    above = [(name, cc) for name, cc in gpus if cc > highest] if highest is not None else []
    if failed is not None and above and len(above) == len(gpus):
        # The build's own range ends below every GPU the text shows: each is newer than the build.
        name, cc = above[0]
        fields = {"gpu": name or "GPU", "cc": str(cc), "build": t("doctor.fact.listed_build")}
        fields |= {"code": f"<= {highest}", "newest": str(highest)}
        return Verdict(TOO_NEW, "doctor.judge.cover_too_new", fields, (TOO_OLD, PTX_DRIVER))
    below = [(name, cc) for name, cc in gpus if cc < lowest] if lowest is not None else []
    if failed is None or lowest is None or not below:
        return None
    # A GPU at or above the floor beside it leaves "no kernel image" open (which GPU ran it is not
    # shown); the build's own refusal names a GPU below its floor, so one of the GPUs is that one.
    if len(below) < len(gpus) and facts.below_minimum_line is None:
        return None
    name, cc = below[0]
    fields = {"gpu": name or "GPU", "cc": str(cc), "build": t("doctor.fact.listed_build")}
    fields |= {"code": f">= {lowest}", "minimum": str(lowest)}
    return Verdict(TOO_OLD, "doctor.judge.cover_too_old", fields, (TOO_NEW, PTX_DRIVER), "cover-too-old")


def _below_floor(facts: Facts, kb: KnowledgeBase, cuda: str, key: str) -> Verdict | None:
    """GPUs below the lowest compute capability that CUDA `cuda`'s compilers build for (knowledge:
    nvcc_floor): too old for what that CUDA compiles. A GPU at or above that floor is not judged."""
    floor = kb.nvcc_floor(Version(cuda))
    gpus = _gpu_ccs(facts, kb)
    if floor is None or not gpus or any(cc >= floor.lowest for _, cc in gpus):
        return None
    name, cc = gpus[0]
    fields = {"gpu": name or "GPU", "cc": str(cc), "cuda": cuda, "minimum": str(floor.lowest)}
    return Verdict(TOO_OLD, key, fields, (TOO_NEW, PTX_DRIVER), "cover-too-old", floor.source)


def _below_toolkit(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """ "No kernel image" from a build whose CUDA the text shows (PyTorch's +cu118) on GPUs below that
    CUDA's nvcc floor: no list that CUDA could make holds code for them, so they are too old for it
    (the build's own list decides above the floor)."""
    if facts.no_kernel_line is None or not facts.build_cuda or facts.build_code or facts.build_minimum:
        return None
    return _below_floor(facts, kb, facts.build_cuda, "doctor.judge40.below_toolkit")


def _nvrtc_below(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """NVRTC refusing the GPU's architecture, with the toolkit's CUDA in the text (NVRTC ships with and
    follows nvcc), on GPUs below that CUDA's nvcc floor: the runtime compiler has no target for them."""
    if facts.nvrtc_arch_line is None or not facts.nvrtc_cuda:
        return None
    return _below_floor(facts, kb, facts.nvrtc_cuda, "doctor.judge45.nvrtc_below")


def _above_toolkit(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """ "No kernel image" from a build whose CUDA the text shows, on GPUs of an architecture that CUDA
    predates: the first CUDA that builds for it (knowledge: architectures, ptxas_cuda) is of a later
    major. Every target that CUDA knows is older than the GPU, so the build has no code it runs (its
    PTX would have run: the failure says there is none) and the GPU is newer than the build, never
    too old for it. Compared by major only: within one (Ampere's 8.0 from 11.0, 8.6 from 11.1) the
    row's first CUDA is that of the architecture's newest member."""
    if facts.no_kernel_line is None or not facts.build_cuda or facts.build_code or facts.build_minimum:
        return None
    built = Version(facts.build_cuda)
    gpus = _gpu_ccs(facts, kb)
    archs = [(name, cc, kb.architecture(cc)) for name, cc in gpus]
    firsts = [a.ptxas_cuda if a is not None else None for _, _, a in archs]
    if not archs or not all(first is not None and first.major > built.major for first in firsts):
        return None
    name, cc, arch = archs[0]
    assert arch is not None and arch.ptxas_cuda is not None
    fields = {"gpu": name or "GPU", "cc": str(cc), "arch": arch.name, "cuda": facts.build_cuda}
    fields["first"] = f"{arch.ptxas_cuda.major}.{arch.ptxas_cuda.minor}"
    return Verdict(TOO_NEW, "doctor.judge45.above_toolkit", fields, (TOO_OLD, PTX_DRIVER), "", arch.source)


def _gpu_alone(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """ "No kernel image" with one GPU and no build's code in the text: a GPU of NEVER_TOO_OLD or
    newer is newer than the build (no published build starts above it), one below
    ALWAYS_TOO_OLD_BELOW older than it (no build of CUDA 9 on ends below it); one between is not
    decided (too old for a new build, or too new for an old one), nor is a newer GPU under a build of
    one's own."""
    gpus = _gpu_ccs(facts, kb)
    if facts.no_kernel_line is None or len(gpus) != 1 or facts.own_build or facts.build_minimum:
        return None
    if facts.arch_named:
        return None  # an sm_XY the text names may be this GPU's own, or a build's: not the GPU alone
    if facts.build_code or facts.tf_versions:
        return None  # a build the text names is judged by its code (coverage), not by the GPU alone
    name, cc = gpus[0]
    if cc < ALWAYS_TOO_OLD_BELOW:
        fields = {"gpu": name or "GPU", "cc": str(cc)}
        key = "doctor.judge48.cover_gpu_old"
        return Verdict(TOO_OLD, key, fields, (TOO_NEW, PTX_DRIVER), "cover-too-old")
    if cc < NEVER_TOO_OLD:
        return None
    fields = {"gpu": name or "GPU", "cc": str(cc), "floor": str(NEVER_TOO_OLD)}
    # Only "too old" is ruled out: with no build's code in the text, PTX newer than the driver stays open.
    return Verdict(TOO_NEW, "doctor.judge25.cover_gpu_new", fields, (TOO_OLD,))


def coverage_served(facts: Facts, kb: KnowledgeBase) -> bool:
    """The TensorFlow release the text names has code this GPU runs (Choose's coverage): "no kernel
    image" then has another cause than this build and this GPU (another library, a build of one's
    own), so neither "too new" nor "too old" may be named. A build's own list is not judged so: its
    PTX has no ISA in the text, and PyTorch checks its list more strictly than the driver does."""
    if facts.no_kernel_line is None or _tf_build(facts, kb) is None or facts.build_code:
        return False
    verdicts = _coverage_verdicts(facts, kb)
    return bool(verdicts) and all(v is None for v in verdicts or ())


def coverage_undecided(facts: Facts, kb: KnowledgeBase) -> bool:
    """ "No kernel image" where the GPU is not in the text (its compute capability decides), or where
    the GPU is but no build's code is and the GPU alone does not decide (the build's list decides)."""
    if facts.no_kernel_line is None:
        return False
    if not _gpu_ccs(facts, kb):
        return True
    return _coverage_verdicts(facts, kb) is None and coverage(facts, kb) is None


def gpus_disagree(facts: Facts, kb: KnowledgeBase) -> bool:
    """The text shows GPUs of different compute capabilities, one of them older than NEVER_TOO_OLD
    ("built on an RTX 3090, run on a 2080 Ti"): which one met the build is not shown, so "too new"
    keyed by one GPU's name decides nothing."""
    # Named GPUs only: a capability figure may be a build's range.
    known = {found[1] for name in _gpu_names(facts) if (found := _named_cc(name, kb)) is not None}
    # GPUs all of NEVER_TOO_OLD or newer are each newer than a build without their code: that agrees.
    return len(known) > 1 and min(known) < NEVER_TOO_OLD


def decide_open(facts: Facts, kb: KnowledgeBase) -> str:
    """The one command that decides an open "no kernel image": the GPU's capability where the text
    lacks it, else the build's own list (PyTorch's where the text is PyTorch's)."""
    if not _gpu_ccs(facts, kb):
        return DECIDE_CC
    return DECIDE_TORCH_BUILD if facts.torch else DECIDE_BUILD


# ---- Python ranges ---------------------------------------------------------------------------


def python_fit(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """pip found no TensorFlow and the text shows the Python: where the release asked for does not
    take that Python (or, with none asked for, no release does), the Python is the reason; the
    nearest release that takes it and the Python that release asks for are named."""
    python = _version(facts.python) if facts.python else None
    if not facts.pip_tf or python is None or not kb.releases:
        return None
    fitting = [r for r in kb.releases if python in r.python]  # newest first
    fields = {"python": str(python)}
    if facts.pip_tf_wanted:
        wanted = kb.release(facts.pip_tf_wanted)
        if wanted is None or python in wanted.python:
            return None  # a release the tables lack, or this Python fits it: pip failed for another reason
        near = wanted.nearest_python(python)
        fields |= {"tf": facts.pip_tf_wanted, "range": wanted.python_range(), "fits": str(near)}
        if fitting:
            nearest = min(fitting, key=lambda r: (abs(_distance(r, wanted)), -r.version.minor))
            fields |= {"nearest": nearest.series, "nearest_range": nearest.python_range()}
            return Verdict("python-unsupported", "doctor.judge.python_wanted", fields, source=wanted.source)
        return Verdict("python-unsupported", "doctor.judge.python_wanted_none", fields, source=wanted.source)
    newest = kb.releases[0]
    oldest_python = min(p for r in kb.releases for p in r.pythons())
    if fitting or python < oldest_python:
        # A Python some release takes (pip failed for another reason: 32-bit, the platform), or one
        # older than every release the tables hold (older releases may have had wheels for it).
        return None
    fits = newest.nearest_python(python)
    fields |= {"tf": newest.series, "range": newest.python_range(), "fits": str(fits)}
    return Verdict("python-unsupported", "doctor.judge.python_none", fields, source=newest.source)


def _distance(a: Release, b: Release) -> int:
    return (a.version.major - b.version.major) * 100 + a.version.minor - b.version.minor


# ---- driver floors ---------------------------------------------------------------------------


def cuda_floor(cuda: Version, platform: str | None, kb: KnowledgeBase) -> tuple[Version, str] | None:
    """The lowest driver that runs a program built for CUDA `cuda`, and the knowledge row's source:
    its own toolkit's floor before CUDA 11 (each minor has one, release notes' Table 3), its major's
    minor-version compatibility floor from 11 on (Table 2), on `platform` ("linux", "windows",
    "wsl2": the Windows driver's). Platform unknown (None): the lower of the two, so a driver is
    never called too old for the wrong platform. The one floor both the doctor's readings use."""
    row = kb.minor_floor(cuda.major) if cuda.major >= 11 else kb.toolkit(cuda)
    if row is None:
        return None
    if platform == "linux":
        return row.linux, row.source
    if platform in ("windows", "wsl2"):
        return row.windows, row.source
    return min(row.linux, row.windows), row.source


PLATFORM_SHOWN = {"linux": "Linux", "wsl2": "WSL2", "windows": "Windows"}  # text_platform's, as shown


def text_platform(facts: Facts) -> str:
    """Whose driver a log's nvidia-smi is: Windows' where the text names a Windows driver (WSL2's
    included), Linux's otherwise."""
    if not facts.windows_driver:
        return "linux"
    return "wsl2" if "WSL2" in facts.platforms else "windows"


def driver_floor(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """nvidia-smi's driver below the floor of the CUDA the program loads (its runtime's file name,
    a wheel's +cuXY) or of the TensorFlow release the text names, on the text's platform: Windows'
    floor where the driver is Windows' (WSL2 included), Linux's otherwise."""
    if not facts.driver_smi or normalize_driver(facts.driver_smi) is None:
        return None
    platform = text_platform(facts)
    floor: str | None = None
    cuda = source = ""
    if facts.cuda_major is not None:
        found_floor = cuda_floor(Version(f"{facts.cuda_major}.0"), platform, kb)
        if found_floor is not None:
            floor, source = driver_text(found_floor[0]), found_floor[1]
        cuda = str(facts.cuda_major)
    else:
        release = _one_release(facts, kb)
        found = required_floor(kb, release, "pip-and-cuda", platform) if release is not None else None
        if release is not None and found is not None:
            floor, cuda = driver_text(found), f"{release.cuda_major} (TensorFlow {release.series})"
            row = kb.driver_floor(release)
            source = row.source if row is not None else ""
    key = "doctor.judge.floor"
    if floor is None and platform == "wsl2":
        # No CUDA named: CUDA in WSL2 begins at CUDA 11, so a Windows driver below the oldest
        # major's WSL2 floor serves no CUDA there at all.
        oldest = cuda_floor(Version("11.0"), platform, kb)
        if oldest is not None:
            floor, source = driver_text(oldest[0]), oldest[1]
            cuda, key = "11", "doctor.judge.wsl_floor"
    if floor is None:
        return None
    have, need = normalize_driver(facts.driver_smi), normalize_driver(floor)
    if have is None or need is None or have >= need:
        return None
    fields = {"driver": facts.driver_smi, "cuda": cuda, "floor": floor, "platform": PLATFORM_SHOWN[platform]}
    return Verdict("driver-too-old", key, fields, source=source)


def driver_serves(facts: Facts, kb: KnowledgeBase) -> Verdict | None:
    """CUDA's 35 ("driver version is insufficient") beside a driver that runs the program's CUDA: from
    its major's minor-version floor on, a driver runs every runtime of that major, so it is not older
    than this program's runtime. Where the program's CUDA is not shown, only a driver at or above the
    newest major's floor runs every CUDA program; below it the code's own meaning (a runtime newer
    than the driver) stays open. The driver: nvidia-smi's, else the loaded module's (no mismatch).
    The verdict names no cause (id ""): it rules driver-too-old out (its `drop`)."""
    shown_driver = facts.driver_smi or ("" if facts.mismatch() else facts.driver_kernel)
    have = normalize_driver(shown_driver) if shown_driver else None
    majors = sorted({m.cuda_major for m in kb.minor_compat}, reverse=True)
    if have is None or not majors:
        return None
    platform = text_platform(facts)
    key = "doctor.judge41.driver_serves"
    major = facts.cuda_major
    if major is None:
        major, key = majors[0], "doctor.judge41.driver_serves_all"
    found = cuda_floor(Version(f"{major}.0"), platform, kb)
    need = normalize_driver(found[0]) if found is not None else None
    if found is None or need is None or have < need:
        return None
    fields = {"driver": shown_driver, "platform": PLATFORM_SHOWN[platform], "cuda": str(major)}
    fields["floor"] = driver_text(found[0])
    return Verdict("", key, fields, ("driver-too-old",), source=found[1])


__all__ = [
    "COVERAGE_IDS",
    "DECIDE_BUILD",
    "DECIDE_CC",
    "Verdict",
    "coverage",
    "coverage_served",
    "coverage_undecided",
    "cuda_floor",
    "decide_open",
    "driver_floor",
    "driver_serves",
    "gpus_disagree",
    "python_fit",
]
