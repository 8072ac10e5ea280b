"""Facts read out of a log: versions on both sides, GPUs, the platform, error codes.

    facts = read_facts(text)          a Facts: every field may stay empty (not in the text)
    facts.lines()                     the facts as short data lines ("driver library 550.54.14", ...)

What the text says, not what the machine is: the doctor's reasoning (wizard.doctor.reason) judges
these with the same functions Choose uses (wizard.choose.driver_floors), so a log and the machine
that wrote it get the same answer. Every value is data from a log: shown only through
wizard.safe.display.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.version import Version

from wizard.choose.driver_floors import normalize_driver
from wizard.doctor.codes import Code, codes_in
from wizard.doctor.gpu_names import built_on, named_gpus, own_build
from wizard.doctor.host_facts import HostFacts, read_host
from wizard.doctor.setup_facts import SetupFacts, read_setup
from wizard.doctor.stack_facts import StackFacts, read_stack
from wizard.safe.display import cut  # a cut line ends in '…', never mid-word as if whole

MAX_TEXT = 4 << 20  # a longer text is read at its tail (the CLI's log reader bounds it already)
MAX_GPUS = 8
VALUE_CHARS = 80  # a value read from a log is cut to this

_V = r"([0-9]{2,4}(?:\.[0-9]{1,4}){1,3})"
# NVRM's own words, wrapped by the kernel log ("#012NVRM:" or a new line with "NVRM:").
_NVRM = re.compile(
    r"client\s+(?:'[^']*'\s+\(pid\s+[0-9]+\)\s+)?has\s+the\s+version\s+"
    + _V
    + r",\s+but\s+this\s+kernel\s+module\s+has\s+the\s+version\s+"
    + _V,
    re.I,
)
_DSO = re.compile(r"kernel version " + _V + r" does not match DSO version " + _V, re.I)
_LIBCUDA = re.compile(r"libcuda\s+reported\s+version\s+is:?\s*" + _V, re.I)
_KERNEL = re.compile(r"kernel\s+reported\s+version\s+is:?\s*" + _V, re.I)
_NVML_LIB = re.compile(r"NVML library version:?\s*" + _V, re.I)
_SMI = re.compile(
    r"NVIDIA-SMI\s+" + _V + r"\s+Driver Version:\s*" + _V + r"(?:\s+CUDA Version:\s*([0-9]+\.[0-9]+))?", re.I
)
_SMI_DRIVER = re.compile(r"Driver Version:\s*" + _V, re.I)
# cudaGetErrorString(cudaErrorInsufficientDriver): 35 in its runtime's words.
_INSUFFICIENT = re.compile(r"CUDA driver version is insufficient for CUDA runtime version", re.I)
_TF = re.compile(
    r"\b(?:tensorflow(?:-gpu|-cpu)?(?:==|\s+version:?\s*|\s+)v?|TF\s+)"
    r"([0-9]\.[0-9]{1,2}(?:\.[0-9]{1,2})?)\b",
    re.I,
)
# Linux named beside Windows (a WSL or a dual-boot machine, a Linux server): "Windows" alone is not the
# platform the program ran on.
_LINUX_NAMED = re.compile(
    r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|Arch|manylinux\w*)\b|(?:^|\s)(?:/home/|/usr/|/opt/|~/)",
    re.M,
)
# A crash (a backtrace's frame, a fault's line) inside the libcuda.so the Windows driver gives WSL
# (/usr/lib/wsl/drivers/<its folder>/libcuda.so.1.1), with the crash's own words in the text.
_WSL_LIBCUDA_FRAME = re.compile(r"\bfrom /usr/lib/wsl/drivers/[^/\s]+/libcuda\.so[0-9.]*")
_CRASHED = re.compile(
    r"double free|Segmentation fault|\bSIGSEGV\b|\bSIGABRT\b|__GI_abort|core dumped|\bAborted\b"
)
_GPU_WORD = re.compile(r"\b(?:GPUs?|CUDA|cuDNN)\b|显卡", re.I)
_CUDNN_PAIR = re.compile(
    r"Loaded runtime CuDNN library:\s*([0-9]+\.[0-9]+\.[0-9]+)\s+"
    r"but source was compiled with:\s*([0-9]+\.[0-9]+\.[0-9]+)",
    re.I,
)
_CC = re.compile(
    # Not a requirement ("a CUDA-Enabled GPU (with at least compute capability 2.0)", "a minimum
    # compute capability 3.5"): that is a build's floor, not a GPU's figure.
    r"(?<!at least )(?<!minimum )(?<!minimal )(?<!required )"
    r"compute capability(?:\s*\(CC\))?(?:\s+is)?:?\s*([0-9]{1,2})\.([0-9])\b"
    r"(?!\s*(?:or|and)\s+(?:higher|above|newer|later))"
    r"|\bmajor:\s*([0-9]{1,2})\s+minor:\s*([0-9])\b",
    re.I,
)
_GPU_NAME = re.compile(
    r"\bname:\s*((?:NVIDIA\s+)?(?:GeForce|Tesla|Quadro|TITAN|RTX|GRID|A[0-9]{2,3}|H[0-9]{2,3}|L[0-9]{1,2}|T4|V100|P100|K[0-9]{2})[^,\n|]{0,40}?)(?=,|\s+major:|\s+pci|$)"
    r"|^\|\s+[0-9]+\s+((?:NVIDIA\s+)?(?:GeForce|Tesla|Quadro|TITAN|RTX|GRID|A[0-9]{2,3}|H[0-9]{2,3}|L[0-9]{1,2})[^|]{0,40}?)\s{2,}(?:On|Off)\b",
    re.I | re.M,
)
_GPU_WORDS = re.compile(
    r"\b((?:NVIDIA\s+)?(?:GeForce\s+(?:RTX|GTX|MX)\s?[0-9]{3,4}(?:\s?Ti|\s?SUPER)?(?:\s+Laptop GPU)?|"
    r"Tesla\s+[A-Z][0-9]+\w*|"
    r"Quadro\s+\w+|RTX\s+A?[0-9]{4}(?:\s+Ada)?|TITAN\s+\w+|[AHB][0-9]{2,3}(?:-SXM\w*|-PCIE\w*)?(?:-[0-9]+GB)?))\b"
)
_COMPUTE_MODE = re.compile(r"\b(E\.\s+Process|E\.\s+Thread|Prohibited|Exclusive_Process|Exclusive_Thread)\b")
# deviceQuery's "Compute Mode:" line (cuda-samples deviceQuery.cpp's sComputeMode), by nvidia-smi's name.
_DEVICEQUERY_MODE = re.compile(r"<\s*(Exclusive Process|Exclusive|Prohibited) \((?:many|only one|no) ")
_DEVICEQUERY_NAMES = {
    "Exclusive Process": "Exclusive_Process",
    "Exclusive": "Exclusive_Thread",
    "Prohibited": "Prohibited",
}
# Advice or a wish before the words ("you should set it to exclusive process mode") is no state.
_ADVICE = re.compile(
    r"\b(?:should|must|need|needs|could|can|try|trying|want|wants|how|if|whether|please)\b[^.\n]*$", re.I
)
# The compute mode said in words ("the GPUs are in compute exclusive mode", "set to exclusive process
# mode", "prohibited mode"): a statement, not a question, and not negated.
_MODE_WORDS = re.compile(
    r"(?<!not )(?<!n't )\b(?:in|into|to|uses?|using|runs? in|running in|set to)\s+(?:the\s+)?"
    r"(?P<mode>(?:compute[- ])?(?:exclusive|prohibited)(?:[- _](?:process|thread))?[- ]"
    r"(?:compute[- ])?mode)\b"
    r"(?![^.\n]{0,40}\?)",
    re.I,
)
# CUDA failing to create or bind a context (what an exclusive compute mode refuses to a second one):
# a program's words ("Error initializing Context", "failed to create CUDA context") or the driver
# calls that make or bind one. Not an invalid device ordinal (101's other meaning).
_CONTEXT_FAILURE = re.compile(
    r"\b(?:error|errors|fail\w*|unable to|could not|cannot|can't)\b[^\n]{0,40}?\b"
    r"(?:initiali[sz]\w*|creat\w*|bind\w*|mak\w*|retain\w*)\s+(?:an?\s+|the\s+)?(?:CUDA\s+|GPU\s+|device\s+|primary\s+)*"
    r"context\b"
    r"|\bcu(?:Ctx(?:Create|SetCurrent|PushCurrent)|DevicePrimaryCtxRetain)\w*\b[^\n]{0,80}?"
    r"\b(?:fail\w*|error|CUDA_ERROR_\w+|[1-9][0-9]{1,3})\b",
    re.I,
)
_ORDINAL = re.compile(r"invalid device ordinal", re.I)
_MIG = re.compile(
    r"\bMIG[- ](?:GPU-|[0-9a-f]{8}-)|\bMIG\s+[0-9]g\.[0-9]+gb\b|\bMIG mode is enabled\b|-MIG-[0-9]g\."
    # A data-centre GPU said to be partitioned: MIG is how an A100/A30/H100/H200/B200 is partitioned.
    r"|\bpartitioned\s+(?:\w+\s+){0,2}?(?:A100|A30|H100|H200|GH200|B200)\b"
    # nvidia-smi's "MIG devices:" table, printed only where MIG mode is on, with no instance in it
    # ("No MIG-enabled devices found" is the opposite: MIG off), and nvidia-smi -q's MIG Mode block.
    r"|\bNo MIG devices found\b|\bMIG Mode\s*\n\s*Current\s*:\s*Enabled\b",
    re.I,
)
# The value on its own line: "CUDA_VISIBLE_DEVICES=" with nothing after it is empty, not the next line.
_VISIBLE = re.compile(r"\bCUDA_VISIBLE_DEVICES[ \t]*[=:][ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']*)")
# SLURM's own value for a job given no GPU (its gres plugin sets CUDA_VISIBLE_DEVICES=NoDevFiles), as
# `echo $CUDA_VISIBLE_DEVICES` prints it too.
_NODEVFILES = re.compile(r"^\W{0,4}NoDevFiles\W{0,4}$", re.M)
# A job step started by srun that asks for no GPU (no --gres=gpu, --gpus, -G, --gpus-per-*): SLURM gives
# a job the GPUs it requests as generic resources (GRES) and, where cgroups constrain devices, hides the
# rest. A GPU asked for anywhere in the text (an #SBATCH or salloc line) leaves the step's share open.
# (BLAST-AI-ML/synapse#199: torch.cuda.is_available() True on the login node, False under a bare srun.)
_SRUN = re.compile(r"^[^\S\n]*(?:[\w@.~:/-]*[$#>][^\S\n]*)?srun\b[^\n]*$", re.M)
_SLURM_GPU_ASKED = re.compile(
    r"--gres[= ]\S*gpu|--gpus\b|--gpus-per-\w+|(?<!\S)-G[ =]?[0-9]|--tres-per-\w+=\S*gpu", re.I
)
# The variable set by the text's own command (export, os.environ, a prefix before the program): the
# person's (or the program's) choice, not what a scheduler gave the job.
_VISIBLE_SET = re.compile(
    r"\b(?:export|setenv|set|%env)\s+CUDA_VISIBLE_DEVICES\b|\benviron\W{1,4}CUDA_VISIBLE_DEVICES\b"
    r"|\bputenv\W{1,4}CUDA_VISIBLE_DEVICES\b|\bCUDA_VISIBLE_DEVICES=\S*\s+(?:python\w*|\./|bash|sh|torchrun|accelerate)\b",
    re.I,
)
_PLATFORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("WSL2", re.compile(r"\bWSL2?\b|microsoft-standard|/usr/lib/wsl\b", re.I)),
    (
        "container",
        re.compile(
            r"\bdocker\b|\bpodman\b|\bnvcr\.io\b|--gpus\b|\bkubernetes\b|\bk8s\b|\bcontainerd\b|\bsingularity\b|\bapptainer\b"
            # a GitHub Actions job container's work folder (the runner mounts it at /__w)
            r"|(?:^|[\s'\"=:])/__w/",
            re.I,
        ),
    ),
    ("conda", re.compile(r"\b(?:ana|mini|mamba)?conda3?\b|\bmamba\b|\bminiforge3?\b", re.I)),
    ("Windows", re.compile(r"\b[A-Z]:\\|\.dll\b|\bWindows\b|\bPowerShell\b|\bWin ?1[01]\b")),
    (
        "scheduler",
        re.compile(
            # LSF's job variables (LSB_JOBID, LSB_HOSTS; not lsb_release's); SLURM's NoDevFiles value
            r"\bSLURM\w*|\bsbatch\b|\bsrun\b|\bbsub\b|\bLSF\b|\bjsrun\b|\bPBS_\w+|\bqsub\b|(?-i:\bLSB_(?:JOBID|JOBNAME|HOSTS|MCPU_HOSTS|QUEUE|JOBINDEX|DJOB_\w+)\b)"
            r"|\bNoDevFiles\b",
            re.I,
        ),
    ),
)
# nvidia-container-cli's debug log asks on every host whether it runs "under Windows Subsystem for Linux
# (WSL)", and says "dxcore initialization failed, continuing assuming a non-WSL environment" wherever
# libdxcore.so does not load (native Linux, a container): neither line is a platform
# (libnvidia-container src/nvc.c nvc_init, src/dxcore.c dxcore_init_context).
_NVC_DXCORE_PROBE = re.compile(
    r"^.*(?:attempting to load dxcore to see if we are running under Windows Subsystem for Linux \(WSL\)"
    r"|dxcore initialization failed, continuing assuming a non-WSL environment).*$",
    re.M,
)
_MISMATCH_LINE = re.compile(
    r"API mismatch|has the version|does not match DSO|reported version is|NVML library version", re.I
)
_FAILURE = re.compile(
    r"\b(error|errors|failed|failure|fatal|exception|traceback|aborted|cannot|could not|unable)\b"
    r"|报错|错误|失败",
    re.I,
)
# A GPU row of Windows' nvidia-smi in TCC mode (its TCC/WDDM column; a reply may quote it with '> '),
# or the mode said in words.
_TCC = re.compile(
    r"^(?:>\s?)*\|\s+[0-9]+\s+[^|]*\bTCC\s+\||(?<!not )(?<!n't )\bin\s+TCC\s+mode\b"
    r"|\bdriver model[^\n]{0,20}\bTCC\b"
    # nvidia-smi -q's block ("Driver Model" then "Current : TCC" on the next line)
    r"|\bDriver Model\s*\n\s*Current\s*:\s*TCC\b"
    # a GPU said to run (or support) TCC only, or no WDDM: Tesla/data-centre boards (H100 PCIe) have no WDDM
    r"|(?<!not )(?<!n't )(?<!never )\b(?:only|supports?|runs?|running|uses?|using)\s+(?:in\s+)?(?:the\s+)?"
    r"TCC(?:\s+driver)?\s+(?:mode|model)\b"
    r"|\bTCC(?:\s+driver)?\s+(?:mode|model)\s+only\b"
    r"|\b(?:do|does|can) ?(?:n.?t|not)\s+support\s+(?:the\s+)?WDDM\b"
    r"|\bWDDM\s+(?:mode\s+)?(?:is\s+)?not\s+supported\b",
    re.I | re.M,
)
_QUOTED = re.compile(r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”")
# The CUDA major a program loads or was built for: its runtime's file name, a wheel's local tag.
_CUDA_NEED = re.compile(
    r"\blibcudart\.so\.([0-9]{2})\b|\bcudart64_([0-9]{2})[0-9]?\.dll\b|\+cu([0-9]{2})[0-9]\b|"
    r"\bCUDA runtime version ([0-9]{2})\.",
    re.I,
)
_FABRIC = re.compile(r"fabric\s*manager|nv-fabricmanager|nvidia-fabricmanager", re.I)
# nvidia-smi -q's Fabric block: "State : In Progress" is a GPU not yet registered with the NVLink fabric,
# which the Fabric Manager does (NVIDIA's Fabric Manager user guide: nvidia-smi -q -i 0 | grep -i -A 2 Fabric;
# "Completed" once registered).
# Retold on one line too ("The Fabric Manager state at job start ... shows State: In Progress").
_FABRIC_IN_PROGRESS = re.compile(
    r"\bFabric\s*\n\s*State\s*:\s*In Progress\b"
    r"|\bFabric(?: Manager)? state\b[^\n]{0,160}?\bState\s*:\s*In Progress\b"
)
# /proc/driver/nvidia/version: the running kernel module's version (the other side of a mismatch).
_PROC_MODULE = re.compile(
    r"NVRM version:[^\n]{0,60}?\bKernel Module(?:\s+for\s+[\w-]+)?\s+" + _V + r"(?![.0-9])", re.I
)
# The driver's user-space library not found, in the loaders' words (old TensorFlow's dso_loader and
# cuda_diagnostics, dlerror, cuda-python): no NVIDIA driver reached this program.
# TensorFlow's cuda_diagnostics.cc ("no NVIDIA GPU device is present: /dev/nvidia0 does not exist"):
# the driver's device node is absent where the program runs.
_DEV_NODE_MISSING = re.compile(r"/dev/nvidia[0-9]+ does not exist")
_LIBCUDA_MISSING = re.compile(
    r"Couldn.?t open CUDA library libcuda\.so|was unable to find libcuda\.so DSO"
    r"|libcuda\.so(?:\.[0-9]+)*(?::\s?|\s)cannot open shared object file|Failed to dlopen libcuda\.so",
    re.I,
)
# Anything in the text that gives (or tried to give) a container the GPU: the NVIDIA Container
# Toolkit's options and variables, nvidia-docker, compose's device reservation, CDI.
_GPU_ASKED = re.compile(
    r"--gpus\b|(?<!\S)--nv(?:ccli)?\b|\b(?:APPTAINER|SINGULARITY)_NV(?:CCLI)?\s*=|--runtime[= ]?nvidia\b"
    r"|NVIDIA_VISIBLE_DEVICES|\bnvidia-docker\b"
    r"|nvidia-container-|--device[= ]nvidia\.com/|capabilities:\s*\[\W{0,2}gpu"
    r"|\b(?:driver|runtime):\s*\W?nvidia\b",
    re.I,
)
# A container image built for the GPU (TensorFlow's -gpu tags, NVIDIA's CUDA images): meant to use one.
_GPU_IMAGE = re.compile(
    r"[\w./-]+:[\w.-]*-gpu\b|[\w./-]+-gpu:[\w.-]+|\bnvidia/cuda:|\bnvcr\.io/nvidia/|"
    # said in words: "I built the docker image with GPU support", "a GPU-enabled image"
    r"\b(?:docker |container )?image (?:built )?with (?:GPU|CUDA) support\b|"
    r"\bGPU-enabled (?:docker )?image\b|"
    # NVIDIA's CUDA images' own ENV (LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64),
    # where the container toolkit mounts the driver's libraries
    r"/usr/local/nvidia/lib64\b",
    re.I,
)
# The driver capabilities a container is given (the NVIDIA Container Toolkit's NVIDIA_DRIVER_CAPABILITIES,
# docker's --gpus '...,capabilities=...'): "compute: required for CUDA and OpenCL applications", "utility:
# nvidia-smi and NVML" (the toolkit's README); a list without compute (or all) mounts no libcuda.
_CAPABILITIES = re.compile(
    r"\bNVIDIA_DRIVER_CAPABILITIES[ \t]*[=:][ \t]*[\"']?([a-z0-9_, ]+)"
    r"|--gpus[= ]\W?[^\s\"']*?\bcapabilities=([a-z0-9_]+(?:[,;][a-z0-9_]+)*)",
    re.I,
)
_SMI_CUDA_ERR = re.compile(r"CUDA Version:\s*ERR!", re.I)
# The Python a log shows: its banner or version report, a traceback's site-packages, pip's refusal.
_PYTHON = re.compile(
    r"\bPython\s+(?:version\W{0,8}\s*)?(3\.[0-9]{1,2})(?:\.[0-9]{1,2})?\b(?!\.[0-9])"
    r"|[/\\]python(3\.[0-9]{1,2})[/\\](?:site|dist)-packages\b"
    r"|requires a different Python:\s*(3\.[0-9]{1,2})\.[0-9]+"
    r"|\bYou.?re using CPython (3\.[0-9]{1,2}) \(cp3[0-9]{1,2}\)",  # uv's hint
    re.I,
)
# A Python a sentence says something needs or supports ("requires Python 3.9", "Python 3.9-3.12") is
# not the Python that ran.
_PYTHON_CLAIM = re.compile(
    r"(?:support\w*|requir\w*|need\w*|only|up to|at least|range|[<>]=?|~=)\W{0,4}(?:\w+\W{1,3}){0,2}$", re.I
)
_PYTHON_RANGE = re.compile(r"\s*(?:\+|(?:-|–|~|to|or|and|/|,)\s*(?:python\s*)?3\.[0-9])", re.I)
# pip finding no build of a package that exists for NVIDIA GPUs only (TensorFlow's GPU package, JAX's CUDA
# builds, NVIDIA's CUDA wheels): on a Mac, none has a macOS build.
_PIP_GPU_ONLY = re.compile(
    r"(?:No matching distribution found for|Could not find a version that satisfies the requirement)\s+"
    r"(tensorflow-gpu|tensorflow\[and-cuda\]|nvidia-[a-z-]+-cu1[0-9]|jax-cuda1[0-9]-(?:plugin|pjrt)"
    # jaxlib's CUDA builds carry their CUDA in a local version ("jaxlib==0.4.25+cuda12.cudnn89")
    r"|jaxlib==[0-9.]+\+cuda[0-9][\w.]*)(?![\w-])",
    re.I,
)
# pip could not resolve TensorFlow itself (not tensorflow-gpu, tensorflow-io, ...): the version asked.
_PIP_TF = re.compile(
    r"(?:No matching distribution found for|Could not find a version that satisfies the requirement)\s+"
    r"tensorflow(?:\[and-cuda\])?(?:\s*==\s*([0-9]\.[0-9]{1,2}(?:\.[0-9]{1,2})?)\b)?(?![\w-])"
    r"|Package 'tensorflow' requires a different Python"
    # uv's words ("Distribution tensorflow-cpu==2.15.0 @ registry+... can't be installed because it
    # doesn't have a source distribution or wheel for the current platform"): TensorFlow's CPU package
    # has the same Pythons as TensorFlow's own
    r"|\bDistribution tensorflow(?:-cpu)?==([0-9]\.[0-9]{1,2}(?:\.[0-9]{1,2})?) @ \S+ can.?t be installed"
    r" because it does(?:n.?t| not) have a source distribution or wheel for the current platform",
    re.I,
)
# The code a build lists: PyTorch's "supports CUDA capabilities sm_50 ... compute_37", build_info's
# 'cuda_compute_capabilities': ['sm_35', ..., 'compute_80'], torch.cuda.get_arch_list()'s list.
_BUILD_LIST = re.compile(
    r"supports CUDA capabilities((?:\s+(?:sm|compute)_[0-9]{2,3}[af]?)+)"
    r"|cuda_compute_capabilities'?\W{0,6}\[((?:\s*'(?:sm|compute)_[0-9]{2,3}[af]?',?)+)\s*\]"
    r"|get_arch_list\(\)\W{0,8}\[((?:\s*'(?:sm|compute)_[0-9]{2,3}[af]?',?)+)\s*\]",
    re.I,
)
_ARCH_WORD = re.compile(r"\b(?:sm|compute)_[0-9]{2,3}[af]?\b", re.I)
# Paddle's own check of its build against the GPU (gpu_resources.cc): "The GPU architecture in your
# current machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86":
# the machine code its wheel carries.
_PADDLE_ARCH = re.compile(r"not compatible with Paddle installation with arch:((?:\s*[0-9]{2,3}\b)+)", re.I)
# The GPU's own capability as PyTorch names it ("with CUDA capability sm_86") or nvidia-smi's
# --query-gpu=name,compute_cap CSV ("NVIDIA GeForce RTX 5090, 12.0").
_CC_SM = re.compile(r"with CUDA capability sm_([0-9]{1,2})([0-9])\b", re.I)
# PyTorch's own check of an old GPU: "Found GPU0 GeForce GT 730 which is of cuda capability 3.5." and
# the build's floor beside it: "The minimum cuda capability supported by this library is 3.7."
_CC_FOUND = re.compile(
    r"Found GPU[0-9]+ (.{3,60}?) which is of cuda capability ([0-9]{1,2})\.([0-9])\b", re.I
)
_BUILD_MIN = re.compile(
    r"minimum cuda capability (?:supported by this library|that we support) is ([0-9]{1,2}\.[0-9])\b", re.I
)
# PyTorch 2.x's own range beside "Found GPU0 ... which is of cuda capability 6.0": "Minimum and Maximum
# cuda capability supported by this version of PyTorch is (7.0) - (12.0)".
_BUILD_RANGE = re.compile(
    r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s*"
    r"\(([0-9]{1,2}\.[0-9])\)\s*-\s*\(([0-9]{1,2}\.[0-9])\)",
    re.I,
)
# A build's own words that the GPU is below its lowest compute capability, each with both values:
# TensorFlow's gpu_device.cc ("Ignoring visible gpu device (...) with Cuda compute capability 3.0. The
# minimum required Cuda capability is 3.5."), StreamExecutor's "insufficient compute capability: 3.5
# required, device is 3.0", PyTorch's "PyTorch no longer supports this GPU because it is too old"
# (its lowest in "The minimum cuda capability supported by this library is 3.7").
_BELOW_MIN = (
    (
        re.compile(
            r"with Cuda compute capability ([0-9]{1,2}\.[0-9])\. "
            r"The minimum required Cuda capability is ([0-9]{1,2}\.[0-9])",
            re.I,
        ),
        1,
        2,
    ),
    (
        re.compile(
            r"insufficient compute capability: ([0-9]{1,2}\.[0-9]) required, device is ([0-9]{1,2}\.[0-9])",
            re.I,
        ),
        2,
        1,
    ),
    # Triton's check of the GPU (torch._inductor, triton's compiler): "Found NVIDIA GeForce GTX 1080 Ti
    # which is too old to be supported by the triton GPU compiler ... Triton only supports devices of
    # CUDA Capability >= 7.0, but your device is of CUDA capability 6.1".
    (
        re.compile(
            r"only supports devices of CUDA Capability >= ([0-9]{1,2}\.[0-9]), "
            r"but your device is of CUDA capability ([0-9]{1,2}\.[0-9])\b",
            re.I,
        ),
        2,
        1,
    ),
    # AliceVision's (Meshroom's) own check: "the compute capabilities is not enough." then the
    # device's and the requirement's figures on the lines after it.
    (
        re.compile(
            r"compute capabilit(?:y|ies) is not enough\W*?\n\s*-?\s*Device [0-9]+:\s*([0-9]{1,2}\.[0-9])\b"
            r"[^\n]*\n\s*-?\s*Requirements?:\s*([0-9]{1,2}\.[0-9])\b",
            re.I,
        ),
        1,
        2,
    ),
)
# xformers' operator checks (its fmha dispatch): "requires device with capability > (8, 0) but your GPU
# has capability (7, 5) (too old)" / "... < (8, 0) but your GPU has capability (12, 0) (too new)": the
# GPU's capability and which side of the operator's range it is on, in its own words.
_XFORMERS_CC = re.compile(
    r"requires device with capability (?:[<>=]=?) \(([0-9]{1,2}), ([0-9])\) "
    r"but your GPU has capability \(([0-9]{1,2}), ([0-9])\) \(too (old|new)\)"
)
# A program's own check that the GPU it read is too old, with the capability it read (Ollama's "CUDA
# GPU is too old. Falling back to CPU mode. Compute Capability detected: 5.2"): no code at or below it.
_GPU_TOO_OLD_DETECTED = re.compile(
    r"\bGPU is too old\b[^\n]{0,80}?\bCompute Capability detected:\s*([0-9]{1,2})\.([0-9])\b", re.I
)
_TOO_OLD_SAID = re.compile(r"no longer supports this GPU because it is too old", re.I)
# A build's refusal that names only its floor (vLLM's "GPUs with compute capability less than 7.0 are
# not supported"): the lowest it runs on, and a GPU of this machine below it.
_FLOOR_REFUSED = re.compile(
    r"GPUs? with compute capability (?:less than|below|lower than|<) ([0-9]{1,2}\.[0-9]) "
    r"(?:are|is) not supported",
    re.I,
)
# RAPIDS (cuDF, cuML) on import: "A GPU with NVIDIA Pascal™ (Compute Capability 6.0) or newer
# architecture is required." then "Detected GPU 0: Tesla M60" / "Detected Compute Capability: 5.2";
# a program's own "the 't' kernel requires 5.0 capability": the floor, and the GPU below it.
_FLOOR_REQUIRED = re.compile(
    r"\(Compute Capability ([0-9]{1,2}\.[0-9])\) or newer architecture is required"
    r"|\bkernel requires ([0-9]{1,2}\.[0-9]) (?:compute )?capability\b",
    re.I,
)
_CC_DETECTED = re.compile(r"\bDetected Compute Capability:\s*([0-9]{1,2})\.([0-9])\b", re.I)
# RAPIDS' check of its PTX against the GPU: "This cuDF installation is missing the necessary PTX files
# that are <=50": the build's code begins above this GPU's capability (5.0).
_PTX_BELOW = re.compile(r"missing the necessary PTX files that are <=\s?([0-9]{2,3})\b", re.I)
# A library's floor said as an architecture (FlashAttention's "FlashAttention only supports Ampere GPUs
# or newer"): the lowest compute capability of that architecture's first GPUs.
_ARCH_FLOOR = re.compile(
    r"\bonly supports? (Maxwell|Pascal|Volta|Turing|Ampere|Ada(?: Lovelace)?|Hopper|Blackwell) "
    r"GPUs? or newer\b",
    re.I,
)
# A build's floor said as an architecture with a plus ("only includes kernels for newer GPU
# architectures (sm_70+)", "supports sm_80+"): that compute capability and up.
_SM_PLUS = re.compile(r"(?<![A-Za-z0-9])sm_?([1-9][0-9]{1,2})\s?\+", re.A)
_ARCH_CC = {"maxwell": "5.0", "pascal": "6.0", "volta": "7.0", "turing": "7.5", "ampere": "8.0"}
_ARCH_CC |= {"ada": "8.9", "ada lovelace": "8.9", "hopper": "9.0", "blackwell": "10.0"}
_CC_CSV = re.compile(
    r"^\s*(?:NVIDIA\s+)?(?:GeForce|Tesla|Quadro|TITAN|RTX|[ABHL][0-9]{1,3}|T4|GH200)\b[\w -]{0,40},"
    r"\s*([0-9]{1,2})\.([0-9])\s*$",
    re.M,
)
# A driver version as Windows writes it: 566.36 (nvidia-smi there and in WSL2) or the driver
# store's 32.0.15.6636; a Linux driver inside WSL2 writes three parts (550.54.14).
_WINDOWS_DRIVER = re.compile(r"^(?:[0-9]{3}\.[0-9]{2}|[0-9]{2}\.[0-9]+\.[0-9]+\.[0-9]{4})$")
# CUDA's "unknown error" (999), by name, by cuInit's number, or in PyTorch's words.
_CUDA_UNKNOWN = re.compile(
    r"CUDA_ERROR_UNKNOWN|cudaErrorUnknown|\bcuInit\b[^\n]{0,60}\b999\b|\b999\b[^\n]{0,40}\bcuInit\b|"
    r"CUDA unknown error|\bCUDA error: unknown error\b"
    # cudaGetErrorString's words for it (its number was 30 before CUDA 10.1): deviceQuery's "-> unknown
    # error" line, Caffe's CHECK "error == cudaSuccess (30 vs. 0) unknown error"
    r"|(?m:^\s*->\s*unknown error\s*$)|\bcudaSuccess \([0-9]+ vs\. 0\)\s*unknown error\b",
    re.I,
)
# The computer suspended (or hibernated) and woke before the failure, as a person says it.
_AFTER_SUSPEND = re.compile(
    r"\b(?:suspend(?:ed|ing|s)?|hibernat\w*|standby|wak(?:e|es|ing) (?:it )?(?:up|from)|woke (?:up|from)"
    r"|resum(?:e|ed|es|ing) from|after resum\w*|(?:goes|went|go|put \w+) to sleep|sleep mode"
    r"|after (?:the )?sleep)\b"
    r"|休眠|睡眠|待机|唤醒",
    re.I,
)
# CUDA failing after a suspend and mended by reloading nvidia_uvm, said on one line (a sentence or a
# paragraph as pasted): "CUDA fails to initialize after resuming from suspend ... until we reload the
# nvidia_uvm module", "fails to reload CUDA after resume ... resolved using `sudo rmmod nvidia_uvm`".
# The suspend is a person's word, not the nvidia-suspend/-resume services' names; a reload said not
# to help is no mend.
_SUSPEND_SAID = re.compile(
    r"(?<![\w-])(?:suspend(?:ed|ing|s|sion)?|hibernat\w*|resum(?:e|ed|es|ing) from|wak(?:e|es|ing) up from"
    r"|woke (?:up )?from)\b|休眠|睡眠|待机|唤醒",
    re.I,
)
_CUDA_FAILS_SAID = re.compile(
    r"\bCUDA\b[^.\n]{0,60}\b(?:fail\w*|errors?|unavailable|not available|stops? working)\b"
    r"|\bfail\w*\b[^.\n]{0,40}\bCUDA\b",
    re.I,
)
_UVM = r"\W?nvidia[_-]uvm"
_UVM_MEND = re.compile(
    r"\buntil\b[^.\n]{0,30}\b(?:reload\w*|rmmod|modprobe)\b[^.\n]{0,20}"
    + _UVM
    + r"|\b(?:resolv\w*|fix\w*|solv\w*|mend\w*)\b[^.\n]{0,40}\b(?:reload\w*|rmmod|modprobe)\b[^.\n]{0,20}"
    + _UVM
    + r"|\b(?:reload\w*|rmmod|modprobe)\b[^.\n]{0,20}"
    + _UVM
    + r"\W?(?:\s+module)?[^.\n]{0,40}"
    r"\b(?:fix(?:es|ed)?|solv\w*|resolv\w*|works? again|brings? it back)\b",
    re.I,
)
_MEND_DENIED = re.compile(
    r"\b(?:did ?n.?t|does ?n.?t|do ?n.?t|not|never|no longer)\b[^.\n]{0,15}\b(?:help|work|fix)", re.I
)


def _suspend_mended(text: str) -> tuple[int, str] | None:
    """The line that says CUDA failed after a suspend and that reloading nvidia_uvm mends it."""
    for number, line in enumerate(text.splitlines(), start=1):
        said = _SUSPEND_SAID.search(line) and _CUDA_FAILS_SAID.search(line)
        if said and _UVM_MEND.search(line) and not _MEND_DENIED.search(line):
            return number, cut(line.strip(), 200)
    return None


# xmr-stak's ("miner not compiled for the gpu architecture 21") and CUDAnative's ("Device capability
# v1.1.0 not supported by available toolchain") refusals of a GPU its build has no code for.
_XMRSTAK_REFUSED = r"not compiled for the gpu architecture"
_CUDANATIVE_REFUSED = r"not supported by available toolchain"
# The fix PaddlePaddle's architecture check ends with, after the GPU's compute capability.
_PADDLE_FIX = r"Solution: Install the correct wheel package built for your GPU"
# Ollama's words for the same: its CUDA discovery skips a device its build has no code for.
_GGML_SKIPPED = r"compute capability not in (?:the )?compiled architectures"
_NO_KERNEL = re.compile(
    r"no kernel image is available|CUDA_ERROR_NO_BINARY_FOR_GPU|\bCuda\W?NoBinaryForGpu\b|"
    r"cudaErrorNoKernelImageForDevice|device kernel image is invalid|cudaErrorInvalidKernelImage|"
    r"invalid device function|cudaErrorInvalidDeviceFunction|"
    # a build's own words for the same (tiny-cuda-nn's torch binding, built per compute capability;
    # PaddlePaddle's check of its compiled architectures against the GPU's)
    r"Could not find compatible \S+ extension for compute capability|Mismatched GPU Architecture|"
    # the same check's message cut before its first sentence (its tail, the GPU and the fix)
    r"your current GPU is [0-9]{2,3}\W{0,4}" + _PADDLE_FIX + "|"
    # OpenCV's DNN module: its CUDA backend has no code for the device (CUDA_ARCH_BIN/PTX)
    r"OpenCV was not built to work with the selected device|" + _GGML_SKIPPED + "|"
    # Kokkos' start-up check of the architecture it was built for against the device's
    r"Kokkos::Cuda::initialize ERROR: (?:likely mismatch of architecture|running kernels compiled for)|"
    # ggml's assert where its CUDA build has no code for the device's architecture
    r"ggml was not compiled with support for this arch|"
    # xmr-stak's and CUDAnative's refusals (_ARCH_NOT_COMPILED, below): each names the GPU's compute
    # capability. A refused Kepler or newer may sit in a gap of the build's list (CUDA 8 still built
    # sm_20), which the GPU alone cannot tell from "too old": xmr-stak's is read for Tesla and Fermi
    # (1x, 2x) only.
     + _XMRSTAK_REFUSED + r" [12][0-9]\b|" + _CUDANATIVE_REFUSED + "|"
    # NVIDIA's NGC containers' start-up check of the GPU against the container's lowest architecture
    r"GPU, which is not supported by this container",
    re.I,
)
# PaddlePaddle's "Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 60 61
# 70 75 80 86 ,but your current GPU is 120": the build's machine code and the GPU's compute
# capability, each as major and minor run together.
_COMPILED_FOR = re.compile(
    r"was compiled for ((?:[0-9]{2,3}[ ,]+)*[0-9]{2,3})\s*,\s*but your current GPU is ([0-9]{2,3})\b", re.I
)
# Paddle's start-up warning of the same check (gpu_resources.cc): "The GPU architecture in your current
# machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86".
_PADDLE_ARCHS = re.compile(
    r"not compatible with Paddle installation with arch:\s*((?:[0-9]{2,3}[ ,]+)*[0-9]{2,3})\b", re.I
)
# Ollama's CUDA discovery skipping a device its build has no code for: the GPU and the build's list in
# ggml's notation, 100 x major + 10 x minor ("cc=860 archs=\"[750 890 1000 1200]\"": 8.6 against 7.5,
# 8.9, 10.0, 12.0).
_GGML_ARCHS = re.compile(r"\bcc=\W?([1-9][0-9]{2,3})\W?\s+archs=\W{0,3}\[((?:[1-9][0-9]{2,3}[ ,]*)+)\]", re.I)
# Its tail alone (the build's list cut off): the GPU's compute capability only.
_CURRENT_GPU = re.compile(r"\byour current GPU is ([0-9]{2,3})\W{0,4}" + _PADDLE_FIX, re.I)


def _sm_codes(words: str) -> list[str]:
    """A build's architectures as Paddle lists them ("60 61 70 75"): sm_60, sm_61, ... once each."""
    return list(dict.fromkeys(f"sm_{w}" for w in re.findall(r"[0-9]{2,3}", words)))


def _ggml_cc(value: str) -> str:
    """ggml's 100 x major + 10 x minor as a compute capability ("860" -> "8.6", "1200" -> "12.0")."""
    number = int(value)
    return f"{number // 100}.{number % 100 // 10}"


def _dotted(digits: str) -> str:
    """A version run together, its last digit the minor: Paddle's compute capability ("120" ->
    "12.0", "61" -> "6.1"), a wheel's CUDA tag (cu118 -> "11.8"), RAPIDS' "<=50" ("5.0")."""
    return f"{digits[:-1]}.{digits[-1]}"


def _add_cc(f: Facts, cc: str) -> None:
    """A compute capability the text shows, once, and no more than MAX_GPUS of them."""
    if cc not in f.compute_capabilities and len(f.compute_capabilities) < MAX_GPUS:
        f.compute_capabilities.append(cc)


def _cut(value: str) -> str:
    value = " ".join(value.split())
    return value[:VALUE_CHARS]


def _version(text: str) -> Version | None:
    """A driver version as Choose reads one ('535.154.5' and '535.154.05' are the same driver)."""
    parts = text.split(".")
    if len(parts) == 3 and len(parts[2]) == 1:  # TensorFlow prints 535.154.05 as 535.154.5
        text = f"{parts[0]}.{parts[1]}.0{parts[2]}"
    return normalize_driver(text)


@dataclass
class Facts:
    tf_version: str = ""
    cudnn_loaded: str = ""
    cudnn_built: str = ""
    driver_library: str = ""  # the user-space side: libcuda's / NVRM's client / NVML library
    driver_kernel: str = ""  # the kernel module's version
    driver_smi: str = ""  # nvidia-smi's "Driver Version"
    smi_cuda: str = ""  # nvidia-smi's "CUDA Version" (the highest CUDA the driver serves)
    gpus: list[str] = field(default_factory=list)
    compute_capabilities: list[str] = field(default_factory=list)
    platforms: list[str] = field(default_factory=list)
    compute_mode: str = ""
    compute_mode_at: tuple[int, str] | None = None  # the line nvidia-smi's compute mode was read from
    mode_words: tuple[int, str] | None = None  # the compute mode said in words: (line, its phrase)
    context_failure: tuple[int, str] | None = None  # CUDA failing to create or bind a context
    mig: bool = False
    tcc: bool = False  # a GPU in TCC mode (Windows), which WSL2 cannot see
    cuda_major: int | None = None  # the CUDA major the program loads or was built for
    fabric_manager_named: bool = False
    fabric_in_progress: tuple[int, str] | None = None  # nvidia-smi -q's "Fabric / State : In Progress"
    visible_devices: str | None = None
    visible_at: tuple[int, str] | None = None  # the line CUDA_VISIBLE_DEVICES' value was read from
    visible_set: bool = False  # the text's own command sets it (export, os.environ, a command prefix)
    srun_no_gpu_at: tuple[int, str] | None = None  # an srun line asking for no GPU, none asked in the text
    codes: list[tuple[Code, int, str]] = field(default_factory=list)  # (code, line number, line)
    mismatch_from: str = ""  # "nvrm" (the kernel's log), "dso" (TensorFlow's libcuda check), "nvml"
    mismatch_boot_seconds: int | None = None  # NVRM's mismatch in dmesg this many seconds after boot
    mismatch_line: tuple[int, str] | None = None  # where the two driver versions were read
    failure_line: tuple[int, str] | None = None  # the first line that says something failed
    tf_versions: list[str] = field(default_factory=list)  # every TensorFlow version the text names
    tf_version_at: tuple[int, str] | None = None  # the line naming the first of them
    linux_named: bool = False  # the text names Linux (a distribution, a Linux path): not Windows alone
    gpu_word: bool = False  # the text speaks of a GPU, CUDA or cuDNN at all
    python: str = ""  # the Python the text shows ("3.12"), where it shows one only
    pip_tf: bool = False  # pip could not resolve tensorflow
    pip_tf_wanted: str = ""  # the version it was asked for ("2.10.0"), "" for none
    pip_gpu_only: tuple[int, str] | None = None  # pip found no build of a GPU-only package (_PIP_GPU_ONLY)
    build_code: list[str] = field(default_factory=list)  # the code a build lists: sm_50, compute_37
    build_minimum: str = ""  # the lowest compute capability a build says it supports ("3.7")
    build_maximum: str = ""  # the highest, where the build says its range ("12.0")
    no_kernel_line: tuple[int, str] | None = None  # "no kernel image is available" and its kin
    nvrtc_arch_line: tuple[int, str] | None = None  # NVRTC refusing the GPU's architecture (one such kin)
    nvrtc_cuda: str = ""  # the toolkit CUDA the text shows beside it (its NVRTC's)
    below_minimum_line: tuple[int, str] | None = None  # a build's words: the GPU below its lowest
    ptx_below: str = ""  # a build's words: it has no code at or below this capability (RAPIDS' PTX check)
    smi_cuda_err: bool = False  # nvidia-smi's "CUDA Version: ERR!"
    insufficient: bool = False  # CUDA's 35 in its runtime's words ("driver version is insufficient ...")
    cuda_unknown: bool = False  # CUDA's unknown error (999)
    suspend_at: tuple[int, str] | None = None  # the text says the failure came after a suspend
    suspend_uvm: bool = False  # ... on the line that says reloading nvidia_uvm mends it (no code shown)
    setup: SetupFacts = field(default_factory=SetupFacts)  # where it ran, what it was given
    libcuda_missing: tuple[int, str] | None = None  # the driver's libcuda not found
    # ONNX Runtime's CUDA provider not loaded, with no library of its own named (error 126, CUDA_PATH)
    ort_unnamed: tuple[int, str] | None = None
    # nvcc refusing an architecture it does not know ("Unsupported gpu architecture 'compute_89'")
    nvcc_arch_line: tuple[int, str] | None = None
    nvcc_arch_cc: str = ""  # that architecture's compute capability, "8.9"
    gpu_asked: bool = False  # the text gives (or tried to give) a container the GPU
    gpu_image: bool = False  # the text names a container image built for the GPU
    no_compute: str = ""  # driver capabilities given to a container without compute ("utility")
    no_compute_at: tuple[int, str] | None = None  # the line they were read from
    dev_node_missing: tuple[int, str] | None = None  # "/dev/nvidia0 does not exist" (TensorFlow's words)
    stack: StackFacts = field(default_factory=StackFacts)  # the driver's files and services, libraries' CUDA
    gpus_named: list[str] = field(default_factory=list)  # GPUs as people write them ("5070Ti", "tesla v100")
    own_build: bool = False  # a build of one's own: compiled here, its capability list chosen here
    built_on: tuple[str, str] | None = None  # (the GPU the build was compiled on, the other GPU named)
    torch: bool = False  # the text is PyTorch's (its build's list is torch's, not TensorFlow's)
    program: str = ""  # tensorflow | torch: the program the text is of, whose own check decides; "" unknown
    build_cuda: str = ""  # the CUDA its build was made with (PyTorch's "11.8", Paddle's runtime), one only
    arch_named: bool = False  # an sm_XY / compute_XY outside a build's list read as one
    smi_crash: tuple[int, str] | None = None  # nvidia-smi itself crashed (a segmentation fault)
    mac: tuple[int, str] | None = None  # the text says it ran on a Mac (macOS, a MacBook, Apple silicon)
    cuda_absent: tuple[int, str] | None = None  # a program says CUDA is not installed / not available
    cudnn_arch: tuple[int, str] | None = None  # cuDNN answered CUDNN_STATUS_ARCH_MISMATCH (or its words)
    wsl_libcuda_crash: tuple[int, str] | None = None  # a crash's frame in WSL's driver libcuda.so
    host: HostFacts = field(default_factory=HostFacts)  # what the text says of its machine (host_facts)

    @property
    def library_version(self) -> Version | None:
        return _version(self.driver_library) if self.driver_library else None

    @property
    def kernel_version(self) -> Version | None:
        return _version(self.driver_kernel) if self.driver_kernel else None

    @property
    def windows_driver(self) -> str:
        """nvidia-smi's driver where it is the Windows driver's: in WSL2 (or on Windows) and in the
        form Windows writes; "" otherwise (a three-part version in WSL2 is a Linux driver)."""
        if not self.driver_smi or not {"WSL2", "Windows"} & set(self.platforms):
            return ""
        return self.driver_smi if _WINDOWS_DRIVER.match(self.driver_smi) else ""

    @property
    def exclusive(self) -> str:
        """The exclusive compute mode the text shows (nvidia-smi's name, or the words said), or ""."""
        if self.compute_mode and self.compute_mode not in ("Prohibited",):
            return self.compute_mode
        if self.mode_words and "exclusive" in self.mode_words[1].lower():
            return self.mode_words[1]
        return ""

    def mismatch(self) -> int:
        """+1 the libraries are newer than the running kernel module, -1 older, 0 equal or unknown."""
        lib, kernel = self.library_version, self.kernel_version
        if lib is None or kernel is None or lib == kernel:
            return 0
        return 1 if lib > kernel else -1

    def lines(self) -> list[tuple[str, str]]:
        """(key, value) pairs of what was read: keys are doctor.fact_* texts, values log data."""
        out: list[tuple[str, str]] = []
        pairs = (
            ("tf", self.tf_version),
            ("python", self.python),
            ("pip_tf", (self.pip_tf_wanted or "tensorflow") if self.pip_tf else ""),
            ("build_code", " ".join(self.build_code)),
            ("build_minimum", self.build_minimum),
            ("cudnn_loaded", self.cudnn_loaded),
            ("cudnn_built", self.cudnn_built),
            ("driver_library", self.driver_library),
            ("driver_kernel", self.driver_kernel),
            ("driver_smi", self.driver_smi),
            ("smi_cuda", "ERR!" if self.smi_cuda_err and not self.smi_cuda else self.smi_cuda),
            ("cuda_major", str(self.cuda_major) if self.cuda_major else ""),
            ("gpus", ", ".join(self.gpus or self.gpus_named)),
            ("cc", ", ".join(self.compute_capabilities)),
            ("platform", ", ".join(self.platforms)),
            ("compute_mode", self.compute_mode or (self.mode_words[1] if self.mode_words else "")),
            ("mig", "yes" if self.mig else ""),
            ("tcc", "TCC" if self.tcc else ""),
            ("visible", self.visible_devices if self.visible_devices is not None else ""),
            (
                "fabric",
                "State: In Progress"
                if self.fabric_in_progress
                else "nvidia-fabricmanager"
                if self.fabric_manager_named
                else "",
            ),
        )
        out += [(k, v) for k, v in pairs if v]
        out += self.setup.lines()
        out += [(f"stack.{k}", v) for k, v in self.stack.lines()]
        out += [(f"host.{k}", v) for k, v in self.host.lines()]
        seen: set[str] = set()
        for code, _, _ in self.codes:
            if code.name not in seen:
                seen.add(code.name)
                out.append(("code", f"{code.name} ({code.number}): {code.meaning}"))
        return out

    def empty(self) -> bool:
        return not self.lines()


# dmesg's own clock: seconds since the kernel started ("[   12.014918] NVRM: API mismatch ...").
_DMESG_SECONDS = re.compile(r"\s*\[\s*([0-9]+)\.[0-9]+\]")
# A mismatch this early is met as the machine starts: it has restarted since the update.
BOOT_SECONDS = 120


def _line_at(text: str, offset: int) -> tuple[int, str]:
    """(line number from 1, the line stripped and cut) of the line holding `offset`."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text.count("\n", 0, offset) + 1, cut(text[start : end if end >= 0 else len(text)].strip(), 200)


def read_facts(text: str) -> Facts:
    """Everything read_facts knows how to read in `text` (a log, a pasted session)."""
    if len(text) > MAX_TEXT:
        text = text[-MAX_TEXT:]
    f = Facts()
    joined = re.sub(r"(?:#012|\n)\s*NVRM:\s*", " ", text)
    m = _NVRM.search(joined)
    if m:
        f.driver_library, f.driver_kernel, f.mismatch_from = m.group(1), m.group(2), "nvrm"
        start = joined.rfind("\n", 0, m.start()) + 1
        if (boot := _DMESG_SECONDS.match(joined, start)) and int(boot.group(1)) < BOOT_SECONDS:
            f.mismatch_boot_seconds = int(boot.group(1))
    m = _DSO.search(text)
    if m and not f.driver_library:
        f.driver_kernel, f.driver_library, f.mismatch_from = m.group(1), m.group(2), "dso"
    if not f.driver_library:
        m = _LIBCUDA.search(text)
        k = _KERNEL.search(text)
        if m and k:
            f.driver_library, f.driver_kernel, f.mismatch_from = m.group(1), k.group(1), "dso"
    m = _SMI.search(text)
    if m:
        f.driver_smi, f.smi_cuda = m.group(2), m.group(3) or ""
    else:
        m = _SMI_DRIVER.search(text)
        if m:
            f.driver_smi = m.group(1)
    m = _NVML_LIB.search(text)
    if m and f.driver_kernel == "" and f.driver_smi == "":
        f.driver_library = f.driver_library or m.group(1)
        k = _PROC_MODULE.search(text)
        if k and not f.mismatch_from:  # NVML's library beside /proc's kernel module: both sides
            f.driver_kernel, f.mismatch_from = k.group(1), "nvml"
    if not f.driver_kernel:
        k = _PROC_MODULE.search(text)
        if k:
            f.driver_kernel = k.group(1)
    f.smi_cuda_err = bool(_SMI_CUDA_ERR.search(text))
    f.insufficient = bool(_INSUFFICIENT.search(text))
    f.cuda_unknown = bool(_CUDA_UNKNOWN.search(text))
    if f.cuda_unknown and (m := _AFTER_SUSPEND.search(text)):
        f.suspend_at = _line_at(text, m.start())
    elif mended := _suspend_mended(text):
        f.suspend_at, f.suspend_uvm = mended, True
    for m in _TF.finditer(text):
        if m.group(1) not in f.tf_versions:
            f.tf_versions.append(m.group(1))
        f.tf_version_at = f.tf_version_at or _line_at(text, m.start())
    f.linux_named = bool(_LINUX_NAMED.search(text))
    f.gpu_word = bool(_GPU_WORD.search(text))
    m = _WSL_LIBCUDA_FRAME.search(text)
    if m and _CRASHED.search(text):
        f.wsl_libcuda_crash = _line_at(text, m.start())
    if f.tf_versions:
        f.tf_version = f.tf_versions[0]
    pythons = {
        next(g for g in m.groups() if g)
        for m in _PYTHON.finditer(text)
        if not _PYTHON_CLAIM.search(text[max(0, m.start() - 30) : m.start()])
        and not _PYTHON_RANGE.match(text, m.end())
    }
    if len(pythons) == 1:  # two Pythons in one text decide nothing
        f.python = pythons.pop()
    m = _PIP_GPU_ONLY.search(text)
    if m:
        f.pip_gpu_only = _line_at(text, m.start())
    m = _PIP_TF.search(text)
    if m:
        f.pip_tf, f.pip_tf_wanted = True, m.group(1) or m.group(2) or ""
    for m in _BUILD_LIST.finditer(text):
        words = _ARCH_WORD.findall(next(g for g in m.groups() if g))
        f.build_code = list(dict.fromkeys(w.lower() for w in words))
        break
    if not f.build_code and (m := _PADDLE_ARCH.search(text)):
        f.build_code = list(dict.fromkeys(f"sm_{n}" for n in m.group(1).split()))
        f.no_kernel_line = f.no_kernel_line or _line_at(text, m.start())  # its words for "no code for it"
    m = _CUDNN_PAIR.search(text)
    if m:
        f.cudnn_loaded, f.cudnn_built = m.group(1), m.group(2)
    for m in _GPU_NAME.finditer(text):
        name = _cut(m.group(1) or m.group(2) or "")
        if name and name not in f.gpus and len(f.gpus) < MAX_GPUS:
            f.gpus.append(name)
    if not f.gpus:
        for m in _GPU_WORDS.finditer(text):
            name = _cut(m.group(1))
            if name not in f.gpus and len(f.gpus) < MAX_GPUS:
                f.gpus.append(name)
    for m in _CC.finditer(text):
        cc = f"{m.group(1)}.{m.group(2)}" if m.group(1) else f"{m.group(3)}.{m.group(4)}"
        _add_cc(f, cc)
    for m in _CC_FOUND.finditer(text):
        name, cc = _cut(m.group(1)), f"{m.group(2)}.{m.group(3)}"
        if name not in f.gpus and len(f.gpus) < MAX_GPUS:
            f.gpus.append(name)
        _add_cc(f, cc)
    m = _BUILD_MIN.search(text)
    if m:
        f.build_minimum = m.group(1)
    m = _BUILD_RANGE.search(text)
    if m:
        f.build_minimum, f.build_maximum = f.build_minimum or m.group(1), m.group(2)
        low, high = Version(m.group(1)), Version(m.group(2))
        outside = [cc for cc in f.compute_capabilities if not low <= Version(cc) <= high]
        if f.compute_capabilities and outside == f.compute_capabilities and f.below_minimum_line is None:
            f.below_minimum_line = _line_at(text, m.start())  # the build's words: every GPU outside it
    for rx, device, lowest in _BELOW_MIN:
        m = rx.search(text)
        if m and f.below_minimum_line is None:
            f.build_minimum = f.build_minimum or m.group(lowest)
            if m.group(lowest) != m.group(device) and m.group(lowest) in f.compute_capabilities:
                f.compute_capabilities.remove(m.group(lowest))  # the build's floor, read as a GPU's above
            _add_cc(f, m.group(device))
            f.below_minimum_line = _line_at(text, m.start())
    m = _TOO_OLD_SAID.search(text)
    if m and f.below_minimum_line is None and f.build_minimum:
        f.below_minimum_line = _line_at(text, m.start())
    _read_xformers(text, f)
    m = _FLOOR_REFUSED.search(text)
    if m and f.below_minimum_line is None:
        f.build_minimum = f.build_minimum or m.group(1)
        f.below_minimum_line = _line_at(text, m.start())
    m = _FLOOR_REQUIRED.search(text)
    if m and f.below_minimum_line is None:
        f.build_minimum = f.build_minimum or m.group(1) or m.group(2)
        f.below_minimum_line = _line_at(text, m.start())
    m = _GPU_TOO_OLD_DETECTED.search(text)
    if m and f.below_minimum_line is None:
        f.ptx_below = f"{m.group(1)}.{m.group(2)}"
        _add_cc(f, f.ptx_below)
        f.below_minimum_line = _line_at(text, m.start())
    m = _PTX_BELOW.search(text)
    if m and f.below_minimum_line is None:
        # Its build has no code at or below this GPU's capability: a floor just above it.
        f.ptx_below = _dotted(m.group(1))
        _add_cc(f, f.ptx_below)
        f.below_minimum_line = _line_at(text, m.start())
    m = _ARCH_FLOOR.search(text)
    if m and f.below_minimum_line is None and not f.build_minimum:
        f.build_minimum = _ARCH_CC[m.group(1).lower()]
        f.below_minimum_line = _line_at(text, m.start())
    m = _SM_PLUS.search(text)
    if m and not f.build_minimum:
        f.build_minimum = _dotted(m.group(1))
    for m in (*_CC_SM.finditer(text), *_CC_CSV.finditer(text), *_CC_DETECTED.finditer(text)):
        cc = f"{m.group(1)}.{m.group(2)}"
        _add_cc(f, cc)
    said = _NVC_DXCORE_PROBE.sub("", text)  # nvidia-container-cli names WSL on every host
    f.platforms = [name for name, rx in _PLATFORMS if rx.search(said)]
    m = _COMPUTE_MODE.search(text)
    if m:
        f.compute_mode = " ".join(m.group(1).split())  # "E.\nThread" as a narrow paste wraps it
        f.compute_mode_at = _line_at(text, m.end(1) - 1)
    elif m := _DEVICEQUERY_MODE.search(text):
        f.compute_mode, f.compute_mode_at = _DEVICEQUERY_NAMES[m.group(1)], _line_at(text, m.start())
    f.mig = bool(_MIG.search(text))
    # A documentation sentence quoted in the text ("... not be available on Quadro GPUs in TCC mode")
    # says what TCC does, not that this GPU is in it.
    f.tcc = bool(_TCC.search(_QUOTED.sub(" ", text)))
    majors = {int(next(g for g in m.groups() if g)) for m in _CUDA_NEED.finditer(text)}
    if len(majors) == 1:  # one CUDA in the text; two (a stub and a real one) decide nothing
        f.cuda_major = majors.pop()
    f.fabric_manager_named = bool(_FABRIC.search(text))
    m = _FABRIC_IN_PROGRESS.search(text)
    if m:
        f.fabric_in_progress = _line_at(text, m.end() - 1)
    m = _VISIBLE.search(text)
    if m:
        f.visible_devices = _cut(m.group(1).strip("\"'"))
        f.visible_at = _line_at(text, m.start())
        f.visible_set = bool(_VISIBLE_SET.search(f.visible_at[1]))
    m = _NODEVFILES.search(text)
    if m and (f.visible_devices is None or f.visible_devices.startswith("$")):
        f.visible_devices, f.visible_at = "NoDevFiles", _line_at(text, m.start())
    m = _SRUN.search(text)
    if m and not _SLURM_GPU_ASKED.search(text):
        f.srun_no_gpu_at = _line_at(text, m.start())
    for number, line in enumerate(text.splitlines(), start=1):
        if f.driver_library and f.mismatch_line is None and _MISMATCH_LINE.search(line):
            f.mismatch_line = (number, cut(line.strip(), 200))
        if f.failure_line is None and _FAILURE.search(line):
            f.failure_line = (number, cut(line.strip(), 200))
        w = _MODE_WORDS.search(line) if f.mode_words is None else None
        if w is not None and not _ADVICE.search(line[: w.start()]):
            f.mode_words = (number, _cut(w.group("mode")))
        if f.context_failure is None and _CONTEXT_FAILURE.search(line) and not _ORDINAL.search(line):
            f.context_failure = (number, cut(line.strip(), 200))
        if f.no_kernel_line is None and _NO_KERNEL.search(line):
            f.no_kernel_line = (number, cut(line.strip(), 200))
        if f.nvrtc_arch_line is None and _NVRTC_ARCH.search(line):
            f.nvrtc_arch_line = (number, cut(line.strip(), 200))
            f.no_kernel_line = f.no_kernel_line or f.nvrtc_arch_line
        if f.dev_node_missing is None and _DEV_NODE_MISSING.search(line):
            f.dev_node_missing = (number, cut(line.strip(), 200))
        if f.libcuda_missing is None and _LIBCUDA_MISSING.search(line):
            f.libcuda_missing = (number, cut(line.strip(), 200))
        if len(f.codes) < 32:
            f.codes += [(code, number, cut(line.strip(), 200)) for code in codes_in(line[:4000])]
    f.gpu_asked = bool(_GPU_ASKED.search(text))
    f.gpu_image = bool(_GPU_IMAGE.search(text))
    for m in _CAPABILITIES.finditer(text):
        value = (m.group(1) or m.group(2) or "").strip().lower()
        wanted = {w.strip() for w in re.split(r"[,; ]+", value) if w.strip()}
        if wanted and not wanted & {"compute", "all"}:
            f.no_compute, f.no_compute_at = _cut(value), _line_at(text, m.start())
            break
    f.setup = read_setup(text)
    f.stack = read_stack(text)
    f.host = read_host(text)
    if f.no_kernel_line is None:
        f.no_kernel_line = _torch_below_its_list(text)
    f.ort_unnamed = _ort_unnamed(text)
    f.torch = bool(_TORCH.search(text))
    # A TensorFlow version alone ("TF 2.15") names TensorFlow too, where PyTorch is not named.
    f.program = program_of(text, f.torch) or ("tensorflow" if f.tf_versions and not f.torch else "")
    if m := _NVCC_ARCH.search(text):
        f.nvcc_arch_line, f.nvcc_arch_cc = _line_at(text, m.start()), _dotted(m.group(1))
    if f.no_kernel_line is not None or f.below_minimum_line is not None:
        _read_coverage(text, f)
    _read_platform_lines(text, f)
    return f


# nvidia-smi's own crash: the shell's report names it ("[1] 494 segmentation fault  nvidia-smi",
# "Segmentation fault (core dumped) nvidia-smi"), or the line right after its header says so.
_SMI_CRASH = re.compile(
    r"\bsegmentation fault\b[^\n]{0,40}\bnvidia-smi\b|\bnvidia-smi\b[^\n]{0,40}\bsegmentation fault\b", re.I
)
_MAC = re.compile(
    # "not on a Mac", "not using an M1": said not to be one
    r"\bmacOS\b|\bMac ?OS ?X\b|(?<!\bnot )\bon (?:my|a|an|the) Mac\b"
    r"|\bMac(?:Book(?: Air| Pro)?| ?mini| Studio| Pro| laptop)\b"
    r"|\bApple (?:M[1-4]|silicon)\b|\barm64-apple-darwin|\bdarwin\b"
    # Apple's chips said as the machine ("those of us on an M1", "using my M2 Pro")
    r"|(?<!\bnot )(?<!n.t )\b(?:on|with|using|have|own) (?:an? |my |the )?M[1-4]"
    r"(?: Pro| Max| Ultra)?(?![\w-])"
    r"|/Applications/[^/\n]+\.app/Contents/"  # a macOS application bundle's own path
    r"|(?<!\bnot )(?<!n.t )\b(?:I'?m |I am )?using (?:an? |my )?Mac\b(?! ?address)"
    r"|\bMacs? (?:does ?n.?t|do ?n.?t|has no|have no|can.?t)\b"  # "Mac doesn't have cuda"
    r"|\blib\w+\.dylib\b"  # a dynamic library's macOS name (dlopen(libcuda.dylib, 1))
    # A home under /Users or a disk under /Volumes, as a path begins (not C:/Users, /mnt/c/Users,
    # /c/Users: Windows' homes seen from Git Bash or WSL)
    r"|(?:^|(?<=[\s'\"(=]))/(?:Users|Volumes)/[\w.-]+/",
    re.I,
)
# A program saying it found no CUDA at all (not a failure inside CUDA): cellpose's "TORCH CUDA version
# not installed/working", PyTorch's "Torch not compiled with CUDA enabled", is_available() False, a
# check's "Your PyTorch installation is not configured to use CUDA".
_CUDA_ABSENT = re.compile(
    r"\bCUDA (?:version )?(?:is )?not (?:installed|available|working|found)\b"
    r"|\bCUDA\b[^\n]{0,20}\bnot installed/working\b|Torch not compiled with CUDA enabled"
    r"|torch\.cuda\.is_available\(\)\W{0,6}(?:(?:is|was|returns?|returned|gives|gave)\W{1,3})?False"
    r"|No CUDA GPUs are available"
    r"|\binstallation is not configured to use CUDA\b"  # "Your PyTorch installation is not ..."
    # the driver's library not found at all (CUDA.jl's "could not load library \"libcuda\"")
    r"|\bcould not load library \W?libcuda\b|\bdlopen\(libcuda\.dylib\b",
    re.I,
)


# cuDNN's CUDNN_STATUS_ARCH_MISMATCH, by its name or by the words cudnnGetErrorString and bindings
# print for it ("ERROR: Arch mismatch" with cudnn.jl's frame on the next line).
_CUDNN_ARCH = re.compile(
    # the Python wrapper libcudnn.py raises it as its own exception class, cudnnStatusArchMismatch
    r"CUDNN_STATUS_ARCH_MISMATCH|\bcudnnStatusArchMismatch\b|\bcuDNN\b[^\n]{0,80}\bArch mismatch\b"
    r"|\bArch mismatch\b[^\n]{0,120}\bcudnn\b",
    re.I,
)


def _read_platform_lines(text: str, f: Facts) -> None:
    # Each line is read with the next one after it: a terminal or a forum that wraps at its width
    # breaks "CUDA version not installed/working" anywhere; the match is the line it starts on.
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        after = lines[number].lstrip("> \t") if number < len(lines) else ""
        pair = f"{line} {after}"
        for name, pattern in (
            ("smi_crash", _SMI_CRASH),
            ("mac", _MAC),
            ("cuda_absent", _CUDA_ABSENT),
            ("cudnn_arch", _CUDNN_ARCH),
        ):
            if getattr(f, name) is None and (m := pattern.search(pair)) and m.start() < len(line):
                setattr(f, name, (number, cut(line.strip(), 200)))


# detectron2's collect_env: "detectron2 arch flags   sm_37" (older) or "3.5, 3.7, 5.0" (newer): the
# capabilities its own compiled ops were built for.
_ARCH_FLAGS = re.compile(
    r"\barch flags[ \t]+((?:(?:sm|compute)_[0-9]{2,3}[af]?|[0-9]{1,2}\.[0-9])(?:[ \t]*[,;]?[ \t]*"
    r"(?:(?:sm|compute)_[0-9]{2,3}[af]?|[0-9]{1,2}\.[0-9]))*)[ \t]*$",
    re.I | re.M,
)
# A build's code told in words, as cuobjdump's listing is retold ("binary code for CC 3.5, 3.7 and 7.0
# as well as PTX code for CC 7.0"): binary code is machine code (sm_XY), PTX is compute_XY.
_CC_LIST = r"([0-9]{1,2}\.[0-9](?:\s*,\s*(?:and\s+)?[0-9]{1,2}\.[0-9]|\s+and\s+[0-9]{1,2}\.[0-9])*)"
_SAID_CODE = re.compile(
    r"\b(binary|machine|SASS|PTX)(?:\s+code)?\s+for\s+(?:CC|compute\s+capabilit(?:y|ies))\s+" + _CC_LIST, re.I
)
_TORCH = re.compile(r"\btorch\b|\bpytorch\b|TORCH_USE_CUDA_DSA", re.I)
_TENSORFLOW = re.compile(r"\btensorflow\b|\bkeras\b|\btf\.(?:config|test|keras|sysconfig)\b", re.I)
# Where a text names both (a PyTorch program that mentions TensorFlow, a TensorFlow log beside torch):
# the frames and calls of the failing program's own code.
_TF_CODE = re.compile(
    r"\btensorflow/(?:core|python|stream_executor|compiler|tsl)/|site-packages[/\\](?:tensorflow|keras)[/\\]"
    r"|\btf\.(?:config|test|keras|sysconfig)\b",
    re.I,
)
_TORCH_CODE = re.compile(
    r"site-packages[/\\]torch[/\\]|\btorch\.(?:cuda|nn|_C|utils|version)\b|TORCH_USE_CUDA_DSA"
)


def program_of(text: str, torch: bool) -> str:
    """The program a text is of (tensorflow, torch), where one is named, or only one's own code shows
    where both are named; "" where neither or both."""
    tf = bool(_TENSORFLOW.search(text))
    if tf != torch:
        return "tensorflow" if tf else "torch"
    if not tf:
        return ""
    tf_code, torch_code = bool(_TF_CODE.search(text)), bool(_TORCH_CODE.search(text))
    if tf_code != torch_code:
        return "tensorflow" if tf_code else "torch"
    return ""


# The CUDA a PyTorch build was made with, as it says it: its wheel's local version ("torch 2.1.0+cu121",
# pip's "torch-2.1.0+cu121", "torch==1.13.1+cu117"), collect_env's "CUDA used to build PyTorch: 11.8",
# torch.version.cuda printed beside its name.
_TORCH_CU = re.compile(
    r"(?<![a-z])(?:py)?torch(?:vision|audio)?\W{0,3}(?:version\W{0,3})?\s?v?[0-9]+\.[0-9]+(?:\.[0-9]+)*\+cu([0-9]{2,3})\b",
    re.I,
)
_TORCH_BUILT_CUDA = re.compile(
    r"CUDA used to build PyTorch:\s*([0-9]{1,2}\.[0-9])\b"
    r"|torch\.version\.cuda\W{0,8}\s?([0-9]{1,2}\.[0-9])\b",
    re.I,
)


# NVRTC refusing the architecture a program compiles its kernels for at run time (nvrtc's "invalid value
# for --gpu-architecture (-arch)"): the compiler has no target for this GPU, as "no kernel image" says of
# a build. Its CUDA is the toolkit's (the NVRTC library that ships with it).
_NVRTC_ARCH = re.compile(r"nvrtc: error: invalid value for --gpu-architecture", re.I)
# The GPU's compute capability in a build's refusal of it (xmr-stak, CUDAnative; above, _NO_KERNEL).
_ARCH_NOT_COMPILED = re.compile(
    _XMRSTAK_REFUSED
    + r" ([0-9]{2,3})\b|Device capability v([0-9]+)\.([0-9]+)(?:\.[0-9]+)? "
    + _CUDANATIVE_REFUSED,
    re.I,
)
_NVRTC_OPTIONS_ARCH = re.compile(r"^\s*Options:.*?\s-arch=compute_([0-9]{2,3})\b", re.M)
# The one CUDA toolkit a text shows as installed: nvcc's "Cuda compilation tools, release 11.4", "installed
# cuda 11.4", "CUDA Toolkit 11.4 installed", conda's cudatoolkit=11.4.
_TOOLKIT_CUDA = re.compile(
    r"Cuda compilation tools, release ([0-9]{1,2}\.[0-9])\b"
    r"|\binstall(?:ed)?\s+(?:the\s+)?cuda(?:[- ]toolkit)?\s+v?([0-9]{1,2}\.[0-9])\b"
    r"|\bcuda(?:[- ]toolkit)?\s+v?([0-9]{1,2}\.[0-9])(?:\.[0-9]+)?\s+(?:is\s+)?installed\b"
    r"|\bcudatoolkit\s?[=:]=?\s?([0-9]{1,2}\.[0-9])\b"
    # Debian's and Ubuntu's package, as apt and dpkg list it ("nvidia-cuda-toolkit/focal,now 10.1.243-3
    # amd64 [installed]", "ii  nvidia-cuda-toolkit  10.1.243-3  amd64")
    r"|^\W{0,4}(?:ii\s+)?nvidia-cuda-toolkit(?:/\S+|:\w+)?\s+(?:[0-9]+:)?([0-9]{1,2}\.[0-9])\.[0-9]+",
    re.I | re.M,
)


def toolkit_cuda(text: str) -> str:
    """The one CUDA toolkit the text shows installed ("" where none, or several)."""
    said = {next(g for g in m.groups() if g) for m in _TOOLKIT_CUDA.finditer(text)}
    return next(iter(said)) if len(said) == 1 else ""


# Paddle's start-up note of the device (device_context.cc / gpu_info: "Please NOTE: device: 0, CUDA
# Capability: 75, Driver Version: 10.0, Runtime Version: 8.0"; newer: "Driver API Version", "Runtime API
# Version"): its runtime is the CUDA the Paddle build links, so the CUDA it was built with.
_PADDLE_RUNTIME = re.compile(
    r"CUDA Capability:\s*[0-9]{2,3},\s*Driver(?: API)? Version:\s*[0-9.]+,"
    r"\s*Runtime(?: API)? Version:\s*([0-9]{1,2}\.[0-9])\b",
    re.I,
)


def torch_build_cuda(text: str) -> str:
    """The one CUDA the text says its build was made with: PyTorch's (its wheel's +cuXYZ, collect_env,
    torch.version.cuda) or Paddle's runtime in its device note ("" where none, or several)."""
    said = {_dotted(m.group(1)) for m in _TORCH_CU.finditer(text)}
    said |= {m.group(1) or m.group(2) for m in _TORCH_BUILT_CUDA.finditer(text)}
    said |= {m.group(1) for m in _PADDLE_RUNTIME.finditer(text)}
    return next(iter(said)) if len(said) == 1 else ""


# ONNX Runtime's CUDA provider failing to load with no library named: Windows' error 126 (the DLL or
# one it links against not found: provider_bridge_ort.cc) and its Python binding's CUDA_PATH notice.
_ORT_UNNAMED = re.compile(
    r"LoadLibrary failed with error 126\b.{0,400}onnxruntime_providers_cuda\.dll|"
    r"CUDA_PATH is set but CUDA wasn.?t able to be loaded",
    re.I,
)
# ... and the texts that do name it: newer builds' "which depends on X which is missing", Linux's
# dlopen error, a CUDA or cuDNN DLL of the provider's named anywhere (a cuDNN one: missing-cudnn's row).
_ORT_NAMED = re.compile(
    r"\bwhich depends on\W{0,3}\w+\.dll|providers_cuda\.so\W{0,3} with error: lib\w+|"
    r"\b(?:cudnn\w*|cudart|cublas\w*|cufft|curand|cusolver|cusparse)64_[0-9]+\.dll",
    re.I,
)


# nvcc's refusal of an architecture its CUDA release does not know (nvcc fatal, as a build from source
# asks for one: CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST, a Makefile's -gencode).
# nvcc's own words (its "nvcc fatal :" prefix may be left out where a person quotes them)
_NVCC_ARCH = re.compile(r"(?:nvcc fatal\s*:\s*)?\bUnsupported gpu architecture '?compute_([0-9]{2,3})\b")


def _read_xformers(text: str, f: Facts) -> None:
    """xformers' own verdicts on the GPU: all "too old" is a GPU below the operators' floor (the lowest
    they name); all "too new" a GPU above what this build has kernels for ("no kernel image" in its
    words). Both in one text decide nothing."""
    said = list(_XFORMERS_CC.finditer(text))
    sides = {m.group(5) for m in said}
    if len(sides) != 1 or f.below_minimum_line is not None:
        return
    m = said[0]
    _add_cc(f, f"{m.group(3)}.{m.group(4)}")
    if sides == {"old"}:
        f.build_minimum = f.build_minimum or min((f"{x.group(1)}.{x.group(2)}" for x in said), key=Version)
        f.below_minimum_line = _line_at(text, m.start())
    elif f.no_kernel_line is None:
        f.no_kernel_line = _line_at(text, m.start())


def _ort_unnamed(text: str) -> tuple[int, str] | None:
    """The provider's failure where the text names none of the libraries it needs: CUDA's or cuDNN's
    is not shown (either is missing where the provider's build wants it)."""
    m = _ORT_UNNAMED.search(text)
    return _line_at(text, m.start()) if m and not _ORT_NAMED.search(text) else None


# PyTorch's check of its build's list against the GPU at first use (torch/cuda/__init__.py): "... with
# CUDA capability sm_35 is not compatible with the current PyTorch installation. The current PyTorch
# install supports CUDA capabilities sm_37 sm_50 ...".
_TORCH_INCOMPATIBLE = re.compile(
    r"with CUDA capability sm_([0-9]{2,3}) is not compatible with the current PyTorch installation", re.I
)


def _torch_below_its_list(text: str) -> tuple[int, str] | None:
    """PyTorch's warning read as "no kernel image" only where the GPU is below every code the build
    lists: no code or PTX in it runs there. Its check is stricter than the driver's above that (a
    build's sm_70 runs on a 7.5 GPU, and PyTorch versions differ in what they accept), so a GPU inside
    or above the list is left to the rows that read the warning itself."""
    m = _TORCH_INCOMPATIBLE.search(text)
    listed = _BUILD_LIST.search(text)
    if m is None or listed is None:
        return None
    codes = [int(re.sub(r"[^0-9]", "", w)) for w in _ARCH_WORD.findall(next(g for g in listed.groups() if g))]
    if not codes or int(m.group(1)) >= min(codes):
        return None
    return _line_at(text, m.start())


def _read_coverage(text: str, f: Facts) -> None:
    """What "no kernel image" is judged by, beyond the strict readings: GPUs as people write them,
    a build's list in detectron2's words, a build of one's own, the GPU a build was compiled on."""
    f.gpus_named = named_gpus(text)
    f.own_build = own_build(text)
    f.built_on = built_on(text)
    f.build_cuda = torch_build_cuda(text)
    if f.nvrtc_arch_line is not None:
        f.nvrtc_cuda = toolkit_cuda(text)
        # CuPy's CompileException shows NVRTC's options: CuPy compiles for the device it runs on, so
        # the architecture NVRTC refused ("-arch=compute_21") is that GPU's compute capability.
        if (m := _NVRTC_OPTIONS_ARCH.search(text)) and not f.compute_capabilities:
            _add_cc(f, _dotted(m.group(1)))
    m = _COMPILED_FOR.search(text)
    if m and not f.build_code:
        f.build_code = _sm_codes(m.group(1))
        _add_cc(f, _dotted(m.group(2)))
    m = _CURRENT_GPU.search(text) if not m else None
    if m:
        _add_cc(f, _dotted(m.group(1)))
    if m := _ARCH_NOT_COMPILED.search(text):
        refused = _dotted(m.group(1)) if m.group(1) else f"{m.group(2)}.{m.group(3)}"
        # Only a Tesla or Fermi GPU (major 1 or 2) is below every such build's code (as above).
        if refused[:1] in ("1", "2") and refused[1:2] == ".":
            _add_cc(f, refused)
    m = _PADDLE_ARCHS.search(text)
    if m and not f.build_code:
        f.build_code = _sm_codes(m.group(1))
    m = _GGML_ARCHS.search(text)
    if m and not f.build_code:
        f.build_code = [f"sm_{_ggml_cc(w).replace('.', '')}" for w in re.findall(r"[0-9]+", m.group(2))]
        _add_cc(f, _ggml_cc(m.group(1)))
    f.arch_named = not f.build_code and bool(re.search(r"\b(?:sm|compute)_[0-9]{2,3}", text, re.I))
    if not f.build_code:
        m = _ARCH_FLAGS.search(text)
        if m:
            words = re.findall(r"(?:sm|compute)_[0-9]{2,3}[af]?|[0-9]{1,2}\.[0-9]", m.group(1), re.I)
            code = [w.lower() if "_" in w else "sm_" + w.replace(".", "") for w in words]
            f.build_code = list(dict.fromkeys(code))
    if not f.build_code:
        said = [
            ("compute_" if m.group(1).upper() == "PTX" else "sm_") + cc.replace(".", "")
            for m in _SAID_CODE.finditer(text)
            for cc in re.findall(r"[0-9]{1,2}\.[0-9]", m.group(2))
        ]
        f.build_code = list(dict.fromkeys(said))


__all__ = ["Facts", "read_facts"]
