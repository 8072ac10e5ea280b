"""Decisions from what a text says about its machine (wizard.doctor.host_facts); reason.py asks them.

  decide_host(facts, causes, symptoms, wsl_driver) -> HostDecision | None

* cuInit failing where the text says the machine has no GPU and shows none (no GPU named, no driver
  version, no nvidia-smi, no container given a GPU): what CUDA answers on a machine without one, so
  the catalogue's harmless reading of cuInit, whatever words the person chose to say it.
* PyTorch's "driver on your system is too old (found version N)": N is cudaDriverGetVersion's
  1000 x major + 10 x minor, the newest CUDA the driver serves; PyTorch raises it where CUDA answered
  cudaErrorInsufficientDriver (35), so the driver is older than the CUDA of the build. Where the text
  shows that CUDA, Choose's floor for it (wizard.doctor.judge.cuda_floor) names the driver needed;
  where the build's CUDA is older than the driver's, the message contradicts the versions: not sure.
* WSL2, the Windows driver shown, and the failure said to be with (or to come back with) a driver
  release: CUDA and nvidia-smi in WSL2 are that driver's own files, so that release is at fault.
* i35j: cuInit failing where the person wants CUDA off and no GPU is shown: harmless; CUDA finding no
  device beside lspci's NVIDIA row with nothing hiding it: no-device; 46 on native Windows (WDDM: the
  Default compute mode only) with nothing that shows a mode or other work: not sure, nvidia-smi.
* i35k: on a machine said to have no GPU that shows none, CUDA_ERROR_NO_DEVICE read in cuInit's own
  line, libcuda not found, and a libcudart TensorFlow could not load beside its own hint to ignore that
  dlerror without a GPU are what such a machine prints too: harmless. 35's words ("CUDA driver version is
  insufficient") beside NVML failing to start, with no driver version shown: not sure, nvidia-smi.
  Out-of-memory words alone, no row read (no figures, no other work said): not sure, with the command
  that lists what holds the GPU's memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from wizard.choose.knowledge import driver_text, load_knowledge
from wizard.doctor.facts import Facts
from wizard.doctor.judge import cuda_floor

# PyTorch's own record of the CUDA it was built for, and the driver it reads: decides a contradiction.
# nvidia-smi shows whether the driver answers, each GPU's compute mode (Compute M.) and the processes on it.
DECIDE_BUSY = "nvidia-smi"
# i35k: run where the program ran; NVML failing there too means the driver is not reached at all.
DECIDE_NVML = "nvidia-smi"
# i35k: what holds the GPU's memory, and how much the GPU has: the work's own use against other holders.
DECIDE_MEMORY = (
    "nvidia-smi --query-gpu=memory.total,memory.used --format=csv; "
    "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"
)
DECIDE_TORCH_CUDA = 'nvidia-smi; python -c "import torch; print(torch.__version__, torch.version.cuda)"'


@dataclass(frozen=True)
class HostDecision:
    id: str = ""  # "" with a command: not sure
    key: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    evidence: tuple[int, str] | None = None
    drop: tuple[str, ...] = ()
    harmless: bool = False  # a message that is what this machine should print
    texts: str = ""
    fix_fields: dict[str, str] = field(default_factory=dict)
    command: str = ""  # where the facts contradict each other: the one command that decides
    note: bool = False  # not sure where no row named anything (the failure is read, its cause open)


def _gpu_shown(facts: Facts, *, asked: bool = True) -> bool:
    """Anything in the text that says a GPU is (or was meant to be) on this machine; `asked=False`
    leaves out a GPU only asked for (Docker's request, where the request itself is the failure)."""
    return bool(
        facts.gpus
        or facts.gpus_named
        or facts.host.gpus_named
        or facts.stack.gpu_names
        or facts.compute_capabilities
        or facts.driver_smi
        or facts.driver_library
        or facts.driver_kernel
        or facts.smi_cuda
        or (asked and facts.gpu_asked)
        or facts.setup.smi_version
        or facts.host.pci_at
    )


def _no_gpu_host(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    if causes or symptoms != {"cuinit-failed"} or facts.host.no_gpu_at is None or _gpu_shown(facts):
        return None
    return HostDecision(
        "cuinit-failed",
        "doctor.judge27.no_gpu_host",
        {"said": facts.host.no_gpu_said},
        harmless=True,
    )


def _no_gpu_host_more(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """i35k: the machine said to have no GPU (and none shown), where more than cuInit's failure was read:
    CUDA_ERROR_NO_DEVICE in cuInit's own line (cuda.h: "no CUDA-capable devices were detected by the
    installed CUDA driver", which is this machine), libcuda.so.1 not found (no driver on a machine with no
    GPU), and a libcudart not loaded where TensorFlow's own next line says "Ignore above cudart dlerror if
    you do not have a GPU set up on your machine" (stream_executor/cuda/cudart_stub.cc). Anything else
    harmful keeps its reading."""
    h = facts.host
    if h.no_gpu_at is None or _gpu_shown(facts):
        return None
    allowed = {"missing-cudart"} if h.stub_hint_at is not None else set()
    if not set(causes) <= allowed or not symptoms <= {"cuinit-failed", "no-device"}:
        return None
    if any(c.decides != "no-device" or "cuinit" not in line.lower() for c, _, line in facts.codes):
        return None
    if "cuinit-failed" not in symptoms and not facts.codes:
        return None
    key, fields = "doctor.judge27.no_gpu_host", {"said": h.no_gpu_said}
    if causes:
        key = "doctor.judge29k.no_gpu_stub"
    return HostDecision("cuinit-failed", key, fields, drop=("no-device", "missing-cudart"), harmless=True)


def _nvml_down(facts: Facts, causes: list[str]) -> HostDecision | None:
    """i35k: 35's words ("CUDA driver version is insufficient for CUDA runtime version") beside NVML
    failing to start with no reason. NVML is the driver's own library (libnvidia-ml, nvml.h's nvmlInit:
    NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_LIBRARY_NOT_FOUND) and does not depend on the CUDA
    runtime's version, so a driver merely older than the runtime still starts it: here the driver was
    not reached at all (a container given no GPU, no driver loaded) or is too old, and no driver version
    in the text decides which. Not sure: nvidia-smi where the program ran shows which."""
    if causes != ["driver-too-old"] or facts.host.nvml_failed_at is None:
        return None
    if facts.driver_smi or facts.driver_library or facts.driver_kernel or facts.smi_cuda:
        return None
    if facts.host.found_cuda or facts.setup.smi_version:
        return None
    return HostDecision(drop=("driver-too-old",), command=DECIDE_NVML)


def _oom_open(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """i35k: "CUDA out of memory" with nothing that any row reads: PyTorch's allocator prints, when it
    can, the GPU's total, what is free and what PyTorch holds (c10/cuda/CUDACachingAllocator.cpp); with
    those figures, or another process said, the catalogue decides the work's own use (tensor-oom)
    against memory held elsewhere (memory-held). Without them neither is decided: not sure."""
    if causes or symptoms or facts.host.oom_at is None or facts.codes:
        return None
    return HostDecision(command=DECIDE_MEMORY, note=True)


def _oom_worked_before(facts: Facts, causes: list[str]) -> HostDecision | None:
    """Out of memory read as the work's own tensors (tensor-oom) where the text says the same work ran
    before: its size did not change, so what changed is the memory free to it (another process, a
    smaller GPU given, a leak); neither is decided. Not sure, with the command that shows the holders."""
    if causes != ["tensor-oom"] or facts.host.worked_before_at is None:
        return None
    return HostDecision(drop=("tensor-oom",), command=DECIDE_MEMORY, note=True)


def _cuda_unwanted(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """cuInit failing where the person says they want CUDA or the GPU off and the text shows no GPU: no
    GPU is expected, which the catalogue's cuinit-failed calls harmless (the program runs on the CPU)."""
    h = facts.host
    if causes or symptoms != {"cuinit-failed"} or h.unwanted_at is None or _gpu_shown(facts):
        return None
    return HostDecision(
        "cuinit-failed", "doctor.judge28.cuda_unwanted", {"said": h.unwanted_said}, harmless=True
    )


def _gpu_on_bus(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """CUDA finding no device (cuInit, the runtime's cudaErrorNoDevice) where lspci shows an NVIDIA GPU on
    the PCI bus and nothing hides it (no CUDA_VISIBLE_DEVICES, no container, scheduler, WSL2, TCC or
    MIG): the GPU is there, so the driver is not loaded or cannot reach it (no-device), not "no GPU"."""
    h = facts.host
    if causes or h.pci_at is None or "cuinit-failed" not in symptoms or facts.failure_line is None:
        return None
    if not symptoms <= {"cuinit-failed", "no-device"} or facts.visible_devices is not None:
        return None
    if {"container", "WSL2", "scheduler"} & set(facts.platforms) or facts.tcc or facts.mig:
        return None
    return HostDecision(
        "no-device",
        "doctor.judge28.pci_gpu",
        {"gpu": h.pci_name},
        evidence=facts.failure_line,
        drop=("cuinit-failed",),
    )


def _busy_on_windows(facts: Facts, causes: list[str]) -> HostDecision | None:
    """46, "all CUDA-capable devices are busy or unavailable", on native Windows with nothing that shows
    its causes: driver_types.h documents it as the Prohibited or Exclusive Process compute mode, or
    other CUDA work filling the GPU (nvidia_cuda_runtime_cu12-12.5.82's, sha256 3e79a060..., as
    harvested in error_codes.json), and nvml.h says "Under windows compute mode may only be set to
    DEFAULT when running in WDDM" (nvmlDeviceSetComputeMode; nvidia_nvml_dev_cu12-12.9.79's,
    sha256 8bb36791...). With no TCC/WDM/MCDM, no compute mode, no other work and no nvidia-smi table
    shown, neither is decided: not sure, with the command that shows the mode and the processes (and
    whether the driver answers at all)."""
    if not causes or causes[0] != "gpu-busy" or "Windows" not in facts.platforms:
        return None
    if {"WSL2", "scheduler", "container"} & set(facts.platforms) or facts.tcc or facts.mig:
        return None
    if facts.compute_mode or facts.mode_words or facts.exclusive or facts.driver_smi:
        return None
    if facts.host.other_work_at is not None or facts.host.not_wddm_at is not None:
        return None
    return HostDecision(drop=("gpu-busy",), command=DECIDE_BUSY)


def _build_cuda(facts: Facts) -> tuple[Version, bool] | None:
    """The CUDA the program was built for, where the text shows it (PyTorch's "CUDA used to build",
    a runtime's file name or a wheel's +cuXY), and whether its minor is known."""
    try:
        if facts.setup.cuda_built:
            return Version(facts.setup.cuda_built), True
    except InvalidVersion:
        return None
    return (Version(f"{facts.cuda_major}.0"), False) if facts.cuda_major is not None else None


def _found_version(facts: Facts, causes: list[str]) -> HostDecision | None:
    h = facts.host
    if not h.found_cuda or (causes and causes[0] != "driver-too-old"):
        return None
    driver_cuda = Version(h.found_cuda)
    fields = {"found": h.found_version, "cuda": h.found_cuda}
    found = HostDecision("driver-too-old", "doctor.judge27.found", fields, evidence=h.found_at)
    built = _build_cuda(facts)
    if built is None:
        return found
    build, minor_known = built
    older = build.major < driver_cuda.major or (
        minor_known
        and build.major < 11
        and (build.major, build.minor) <= (driver_cuda.major, driver_cuda.minor)
    )
    if older:
        # A build whose CUDA the driver serves (an older major; before CUDA 11 each minor has its own
        # floor) said to need a newer driver: another libcuda answered PyTorch (a stub, a container's).
        return HostDecision(drop=("driver-too-old",), command=DECIDE_TORCH_CUDA)
    if build.major == driver_cuda.major and (build.major >= 11 or not minor_known):
        return found  # the same major: the floor of minor-version compatibility would not show why
    floor = cuda_floor(build, None, load_knowledge())
    if floor is None:
        return found
    fields = {
        **fields,
        "build": f"{build.major}.{build.minor}",
        "floor": driver_text(floor[0]),
        "source": floor[1],
    }
    return HostDecision("driver-too-old", "doctor.judge27.found_floor", fields, evidence=h.found_at)


def _wsl_release(facts: Facts, causes: list[str], wsl_driver: str) -> HostDecision | None:
    if causes or facts.host.blamed_at is None or "WSL2" not in facts.platforms or not wsl_driver:
        return None
    if facts.tcc:
        return None
    fields = {"driver": wsl_driver, "said": facts.host.blamed_said}
    return HostDecision(
        "wsl-windows-driver",
        "doctor.judge27.wsl_release",
        fields,
        evidence=facts.host.blamed_at,
        drop=("no-device", "cuinit-failed"),
        fix_fields={"driver": wsl_driver},
    )


def _no_gpu_insufficient(facts: Facts, causes: list[str]) -> HostDecision | None:
    """35's words ("CUDA driver version is insufficient for CUDA runtime version") on a machine the text
    says has no (NVIDIA) GPU, none shown: the CUDA runtime answers cudaErrorInsufficientDriver where it
    finds no NVIDIA driver at all (no libcuda to ask), so on such a machine it says no driver, not an
    old one; updating a driver there changes nothing."""
    if causes not in ([], ["driver-too-old"]) or facts.host.no_gpu_at is None or _gpu_shown(facts):
        return None
    if not causes and not any(c.decides == "driver-too-old" for c, _, _ in facts.codes):
        return None  # no row and no code read a driver too old
    if facts.host.found_cuda:  # PyTorch read a driver's CUDA: a driver answered
        return None
    return HostDecision(
        "no-nvidia-gpu",
        "doctor.judge33.no_gpu_35",
        {"said": facts.host.no_gpu_said},
        evidence=facts.host.no_gpu_at,
        drop=("driver-too-old",),
        texts="no-nvidia-gpu-said",
    )


def _no_gpu_docker(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """Docker's "could not select device driver "nvidia" with capabilities: [[gpu]]" on a machine the
    text says has no NVIDIA GPU (none shown): the container asks for a GPU the machine does not have,
    so no toolkit or driver install helps; run it without the GPU request (on the CPU)."""
    h = facts.host
    if causes or not symptoms <= {"no-device"} or h.no_runtime_at is None:
        return None
    if h.no_gpu_at is None or _gpu_shown(facts, asked=False):
        return None
    return HostDecision(
        "no-nvidia-gpu",
        "doctor.judge37.no_gpu_docker",
        {"said": h.no_gpu_said},
        evidence=h.no_gpu_at,
        drop=("no-device",),
        texts="no-nvidia-gpu-docker",
    )


def _no_gpu_no_device(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """A program finding no CUDA device or driver (PyTorch's "Found no NVIDIA driver on your system")
    on a machine the text says has no GPU, none shown: that is the machine, not a driver to install;
    its answer is the CPU. A code that names another cause keeps its reading."""
    h = facts.host
    if causes or symptoms != {"no-device"} or h.no_gpu_at is None or _gpu_shown(facts, asked=False):
        return None
    if any(c.decides != "no-device" for c, _, _ in facts.codes):
        return None
    return HostDecision(
        "no-nvidia-gpu",
        "doctor.judge44.no_gpu_said",
        {"said": h.no_gpu_said},
        evidence=h.no_gpu_at,
        drop=("no-device",),
        texts="no-nvidia-gpu-said",
    )


# A sole cause that a machine said to have no NVIDIA GPU (none shown) explains, and why: a framework's
# CPU build ("Torch not compiled with CUDA enabled": the program asked for CUDA where there is none to
# use, and a CUDA build would find no GPU either), nvidia-smi not found (it comes with NVIDIA's driver,
# which such a machine has no use for). The answer is the program's CPU mode, not another install.
_NO_GPU_EXPLAINS = {
    "cpu-only-wheel": "doctor.judge53.no_gpu_cpu_build",
    "nvidia-smi-missing": "doctor.judge67.no_gpu_smi",
}


def _no_gpu_sole_cause(facts: Facts, causes: list[str]) -> HostDecision | None:
    h = facts.host
    key = _NO_GPU_EXPLAINS.get(causes[0]) if len(causes) == 1 else None
    if key is None or h.no_gpu_at is None or _gpu_shown(facts, asked=False):
        return None
    return HostDecision(
        "no-nvidia-gpu",
        key,
        {"said": h.no_gpu_said},
        evidence=h.no_gpu_at,
        drop=(causes[0],),
        texts="no-nvidia-gpu-said",
    )


def _no_gpu_missing_lib(facts: Facts, causes: list[str], symptoms: set[str]) -> HostDecision | None:
    """A CUDA library not found (libcudart, libcublasLt: missing-cudart) on a machine the text says
    has no NVIDIA GPU, none shown: those libraries serve an NVIDIA GPU, so installing them gives the
    program no GPU to use; its answer is its CPU build or mode, as for a CPU build (above)."""
    h = facts.host
    if causes != ["missing-cudart"] or not symptoms <= {"no-device", "cuinit-failed"}:
        return None
    if h.no_gpu_at is None or _gpu_shown(facts, asked=False):
        return None
    return HostDecision(
        "no-nvidia-gpu",
        "doctor.judge57.no_gpu_missing_lib",
        {"said": h.no_gpu_said},
        evidence=h.no_gpu_at,
        drop=("missing-cudart", "no-device", "cuinit-failed"),
        texts="no-nvidia-gpu-said",
    )


def decide_host(facts: Facts, causes: list[str], symptoms: set[str], wsl_driver: str) -> HostDecision | None:
    """`wsl_driver`: the Windows driver a WSL2 text shows (reason._wsl_driver_seen), "" for none."""
    return (
        _no_gpu_host(facts, causes, symptoms)
        or _no_gpu_host_more(facts, causes, symptoms)
        or _nvml_down(facts, causes)
        or _no_gpu_insufficient(facts, causes)
        or _no_gpu_docker(facts, causes, symptoms)
        or _no_gpu_no_device(facts, causes, symptoms)
        or _no_gpu_sole_cause(facts, causes)
        or _no_gpu_missing_lib(facts, causes, symptoms)
        or _oom_open(facts, causes, symptoms)
        or _oom_worked_before(facts, causes)
        or _cuda_unwanted(facts, causes, symptoms)
        or _gpu_on_bus(facts, causes, symptoms)
        or _busy_on_windows(facts, causes)
        or _found_version(facts, causes)
        or _wsl_release(facts, causes, wsl_driver)
    )


__all__ = ["DECIDE_BUSY", "DECIDE_MEMORY", "DECIDE_NVML", "DECIDE_TORCH_CUDA", "HostDecision", "decide_host"]
