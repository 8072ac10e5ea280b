"""What a text says about the machine it ran on, beside the versions and codes of wizard.doctor.facts.

    host = read_host(text)         a HostFacts: every field may stay empty (not in the text)
    host.lines()                   (key, value) pairs; keys are doctor.fact.host.* texts

Statements a person writes about the machine, and one number a program prints about the driver:
the machine said to have no GPU at all ("on a machine without a GPU", "CPU-only node"); the CUDA a
driver serves as PyTorch reads it (its "driver on your system is too old (found version 10010)":
cudaDriverGetVersion's 1000 x major + 10 x minor); a failure said to come, stay or come back with a
driver release ("still exists with 560 drivers", "updated the driver to 555.99 and this issue came
back"); a driver update (or a reboot that mended it) said beside a failure; CUDA or the GPU said to be
unwanted ("I would like to disable cuda support"); lspci's row of an NVIDIA device. Each keeps the line
it was read from. Values are log data: shown only through wizard.safe.display.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wizard.doctor.gpu_names import named_gpus
from wizard.doctor.setup_facts import Evidence
from wizard.safe.display import cut

LINE_CHARS = 200
SAID_CHARS = 80

_QUESTION = r"(?![^.,\n]{0,40}\?)"
# A GPU word that is the hardware itself, not its driver, its support or a setting of it.
_GPU = (
    # "an NVIDIA card": a card only with NVIDIA's name before it
    r"(?:an?\s+|any\s+)?(?:NVIDIA\s+cards?|"
    r"(?:NVIDIA\s+|CUDA[- ](?:capable|compatible|enabled)\s+|dedicated\s+|discrete\s+)?"
    r"(?:GPUs?|graphics\s+cards?|video\s+cards?))\b"
    r"(?!\s*(?:driver|support|access|pass|acceleration|enabled|build|version|mode|index|[0-9#]))"
)
_MACHINE = r"(?:machine|computer|node|server|host|laptop|pc|box|vm|instance|system|workstation)s?"
_HAVE_NOT = r"(?:do ?n.?t|do not|dont|did ?n.?t)"
# The machine said to have no GPU: "on a machine *without* a GPU", "this node has no GPU", "I don't
# have a GPU", "a CPU-only machine", "no GPU on this machine"; not a question, not "no GPU found" (that
# is what a program said, a symptom, not the hardware).
_NO_GPU_SAID = (
    r"\b" + _MACHINE + r"[\s*_]+(?:\w+[\s*_]+)?(?:without|with\s+no|w/o)[\s*_]+" + _GPU,
    r"\b(?:this|my|the|our|a|that)\s+"
    + _MACHINE
    + r",?\s+(?:which\s+|that\s+)?(?:has|have|had)\s+(?:no|not\s+(?:got\s+)?(?:an?|any))\s+"
    + _GPU,
    r"\b(?:i|we)\s+" + _HAVE_NOT + r"\s+have\s+" + _GPU,
    r"\bCPU[- ]only\s+" + _MACHINE + r"\b",
    r"\bno\s+GPUs?\s+(?:on|in)\s+(?:this|my|the|our)\s+" + _MACHINE + r"\b",
    # "my non gpu laptop", "a non-GPU machine"
    r"\bnon[- ]?(?:NVIDIA[- ]|CUDA[- ])?GPU\s+" + _MACHINE + r"\b",
)
_NO_GPU = re.compile(
    "|".join(f"(?:{said}){_QUESTION}" for said in _NO_GPU_SAID)
    + r"|我(?:的电脑|的笔记本|的机器|的服务器)?\s*(?:没有|无)\s*(?:独立)?\s*(?:显卡|GPU)"
    # "在只有CPU的计算机上" (on a computer with only a CPU), "纯CPU的机器"; not where the sentence says it
    # runs there and fails elsewhere ("在只有CPU的机器上可以正常运行，但在GPU服务器上报错")
    + r"|(?:只有|仅有|纯)\s*CPU\s*的\s*(?:计算机|电脑|机器|服务器|笔记本|主机)"
    + r"(?![^。\n]{0,30}(?:可以正常|正常运行|没有问题|没问题|但|而))",
    re.I,
)
# A discrete GPU of another maker named as the machine's ("With NITRO+ RX 5700 XT 8G", "the wiki for
# AMD cards", "my Radeon RX 6800", "Intel Arc A770"): CUDA runs on NVIDIA GPUs only. An integrated
# "Radeon Graphics" or "Intel UHD" is left out (a laptop has one beside its NVIDIA GPU); an NVIDIA GPU
# shown anywhere in the text stops every decision that reads this (host_reason._gpu_shown).
_OTHER_VENDOR_GPU = re.compile(
    r"(?<![A-Za-z0-9])(?:Radeon\s+)?RX\s?(?:[4-6][0-9]0|[5-9][0-9]{3})(?:\s?XTX?)?(?![A-Za-z0-9])"
    r"|\bRadeon\s+(?:VII|Pro\s+W[0-9]{4}|R9\s[0-9]{3}X?)\b|\bVega\s?(?:56|64)\b"
    # a Radeon said by AMD's name and its model without "RX" ("我是AMD 6600XT"; the XT keeps a Ryzen out)
    r"|(?<![A-Za-z0-9])AMD\s*(?:Radeon\s+)?[5-9][0-9]{3}\s?XTX?(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])AMD\s*(?:Radeon\s+)?(?:R[79]\s?)?[23][0-9]0X(?![A-Za-z0-9])"  # "AMD 290X"
    r"|\b(?:for|with|my|an?|our)\s+AMD\s+(?:GPUs?|cards?|graphics\s+cards?|video\s+cards?)\b"
    r"|\bIntel\s+Arc\s+[AB][0-9]{3}\b"
    # Intel's graphics said to be the machine's own, the only graphics named: "a Laptop with Intel i5
    # Graphics card", a system summary's "Graphics : Intel(R) Iris Plus Graphics 650".
    r"|\b(?:laptop|notebook|computer|pc|machine)\s+with\s+(?:an?\s+)?Intel\b[^.,\n]{0,30}?\bGraphics\s+card\b"
    r"|^\W*Graphics(?:\s+card)?\s*:\s*Intel\b"
    # Intel's GPU said to be the machine's in a sentence ("... even when it is not (like on my Intel GPU)")
    r"|\b(?:on|with|using|have)\s+my\s+Intel\s+(?:integrated\s+)?(?:GPU|graphics)\b(?!\s+and\b)"
    # the machine's graphics driver said to be AMD's ("I'm using windows 7 and the latest amd drivers")
    r"|\b(?:latest|newest)\s+(?:AMD|Radeon)\s+(?:graphics\s+)?drivers?\b"
    r"|\b(?:using|with|installed|have)\s+(?:the\s+)?(?:AMD|Radeon)\s+(?:graphics\s+)?drivers?\b"
    # AMD said to be what the machine has, where that is why CUDA cannot be there ("which makes sense
    # since I have AMD and cannot install CUDA"); an AMD processor named is left out
    r"|\b(?:i|we)\s+(?:have|use|got)\s+(?:an?\s+)?AMD\b(?!\s+(?:CPU|processor|Ryzen|Threadripper|EPYC|Athlon))"
    r"[^.\n]{0,40}?\b(?:can'?t|cannot|can\s+not|unable\s+to)\s+(?:install|use|run|have)\s+CUDA\b",
    re.I | re.M,
)
# i35k: TensorFlow's issue template's field answered "None" ("- GPU model and memory: None"), read on its
# own line; "N/A" is left out (it is also written for "not known").
_NO_GPU_FIELD = re.compile(
    r"\bGPU\s+model\s+and\s+memory\s*:[\s*_]*(?:none|no\s+GPU|no|CPU[- ]only)[\s*_.]*$", re.I
)
# Docker's refusal of a GPU request it has no device driver for ("could not select device driver
# \"nvidia\" with capabilities: [[gpu]]"): no NVIDIA Container Toolkit is set up for it on this host.
_NO_DEVICE_DRIVER = re.compile(
    r"could not select device driver\W{0,3}(?:nvidia)?\W{0,3} with capabilities", re.I
)
# The same work said to have run before ("It was working perfectly on Sunday with the same program"):
# beside an out-of-memory error, the work's own size is not what changed.
_WORKED_BEFORE = re.compile(
    r"\b(?:working|worked|ran|running)\s(?:perfectly\s|fine\s|well\s|ok\s|okay\s)?"
    r"(?:on\s\w+day|yesterday|before|last\sweek|earlier|last\stime)\b[^.\n]{0,30}"
    r"\bsame\s(?:program|code|model|script|notebook|settings|data|batch\ssize)\b",
    re.I,
)
# A condition, not a statement ("If you are running on a CPU-only machine, ..." is PyTorch's advice).
_IF = re.compile(r"\b(?:if|whether|unless|in case)\b[^.;\n]*$", re.I)
# PyTorch's words (torch/cuda/__init__.py before 1.8, c10/cuda/CUDAFunctions.cpp since): "The NVIDIA
# driver on your system is too old (found version {torch._C._cuda_getDriverVersion()})", raised where
# CUDA answered cudaErrorInsufficientDriver (35); the number is cudaDriverGetVersion's.
_FOUND_VERSION = re.compile(
    r"driver on your system is too old\s*\(\s*found version\s+([0-9]{4,6})\s*\)", re.I
)
# A failure said to be with (or to come back with) a driver release: "problem exists with 560 drivers",
# "updated the driver to 555.99 and this issue came back", "the newer drivers are giving the error",
# "driver 537.xx is working fine" (the one before it works).
_RELEASE = r"(?:[0-9]{3}(?:\.[0-9x]{1,3})?|newer|new|newest|latest|recent|updated)"
_NUMBERED = r"[0-9]{3}(?:\.[0-9x]{1,3})?"
_BLAMED = re.compile(
    # a release named by its number beside a failure that stays ("problem exists with 560 drivers"); with
    # "the latest drivers" those words say only that updating did not help, not that a release broke it
    r"\b(?:problem|issue|error|bug|crash)\w*\s+(?:still\s+)?(?:exists?|persists?|remains?|is\s+still\s+there)\s+"
    r"(?:with|in|on|after|since)\s+(?:the\s+)?" + _NUMBERED + r"\s+(?:nvidia\s+)?drivers?\b"
    # a failure that came (back) with a release
    r"|\b(?:problem|issue|error|bug|crash)\w*\s+(?:(?:came|comes|coming)\s+back|returns?|returned|appears?|appeared)"
    r"\s+(?:again\s+)?(?:with|in|on|after|since)\s+(?:the\s+)?" + _RELEASE + r"\s+(?:nvidia\s+)?drivers?\b"
    r"|\bupdated\s+(?:the\s+|my\s+)?(?:nvidia\s+|windows\s+)?driver\s+to\s+[0-9]{3}(?:\.[0-9]{1,2})?\b[^.\n]{0,40}?"
    r"\b(?:issue|problem|error|crash)\w*\s+(?:came|comes)\s+back\b"
    r"|\b(?:newer|new|latest|recent)\s+(?:nvidia\s+)?drivers?\s+(?:are|is)\s+(?:giving|causing|throwing|producing)\b",
    re.I,
)
# A driver update said, or a reboot said to have mended the failure: the libraries are the newer side.
_UPDATED = re.compile(
    r"\b(?:after|since)\s+(?:an?\s+|the\s+|my\s+)?(?:automatic\s+|auto\s+|recent\s+|nvidia\s+|system\s+|apt\s+|kernel\s+)*"
    r"(?:driver|nvidia|system|apt|automatic|auto|ubuntu|kernel)\s+(?:update|upgrade)\w*"
    r"|\b(?:after|since|when)\s+(?:updating|upgrading)\s+(?:the\s+|my\s+|our\s+)?(?:nvidia\s+)?drivers?\b"
    r"|\b(?:updated|upgraded)\s+(?:the\s+|my\s+)?(?:nvidia\s+)?driver"
    r"|\bunattended-upgrades?\b"
    # a reboot that mended it ("rebooting the server somehow fix the problem", "and rebooting it works again")
    r"|\breboot\w*\b[^.\n]{0,40}?\b(?:fix\w*|solv\w*|resolv\w*|help\w*|works?\s+again|worked)\b"
    r"|重启(?:后|之后)?\s*(?:就)?(?:好了|解决)"
    r"|(?:更新|升级)(?:了)?\s*(?:nvidia\s*)?(?:driver|驱动)\s*(?:后|之后)|驱动(?:更新|升级)(?:后|之后)",
    re.I,
)

# i35j: the person says they want CUDA or the GPU off ("I would like to disable cuda support", "we don't
# need the GPU"): no GPU is expected, so cuInit finding none is what they asked for. The object ends
# there (not "disable CUDA graphs", "turn off the GPU's fan").
_OFF = (
    r"(?:disable|turn\s+off|switch\s+off|deactivate)\s+(?:the\s+)?(?:cuda|gpu)"
    r"(?:\s+(?:support|usage|acceleration))?"
)
_END = r"(?=\s*(?:[,.;:!?)]|$|\s(?:and|so|because|is|in|for|on|at|completely)\b))"
_CUDA_UNWANTED = re.compile(
    r"\b(?:want|wish|like|prefer|how|way)\b[^.\n?]{0,30}?\b"
    + _OFF
    + _END
    + r"|\b(?:i|we)\s+(?:do ?n.?t|do not|dont)\s+(?:want|need)\s+(?:to\s+use\s+)?"
    + r"(?:the\s+|a\s+|any\s+)?(?:cuda|gpus?)"
    + _END
    + r"|(?:想|希望|如何|怎么|怎样)\s*(?:禁用|关闭|关掉|不用)\s*(?:cuda|gpu|显卡)",
    re.I,
)
# lspci's row for an NVIDIA device ("00:03.0 VGA compatible controller: NVIDIA Corporation GK104GL [GRID
# K520] (rev a1)", "01:00.0 3D controller [0302]: NVIDIA Corporation ..."): the GPU is on the PCI bus.
_PCI_NVIDIA = re.compile(
    r"^[\s>|`]*(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s+"
    r"(?:VGA compatible controller|3D controller|Display controller)(?:\s*\[[0-9a-f]{4}\])?:\s*"
    r"NVIDIA Corporation\b\s*(?P<name>[^(\n]*)",
    re.I,
)

# Other work said beside the GPU ("another process", "a second instance", "already running"): what 46's
# documented meaning names beside the compute modes (kernels or memory of active CUDA work).
_OTHER_WORK = re.compile(
    r"\b(?:another|other|second|two|several|multiple)\s+(?:process|program|instance|job|app|application|"
    r"kernel|session|user|run|training|script|model)s?\b|\balready\s+(?:running|in\s+use|using|open)\b"
    r"|(?:另一个|其他|其它|多个)\s*(?:进程|程序|任务|实例)|已经在运行",
    re.I,
)

# i35k: TensorFlow's own hint after a libcudart it could not load (stream_executor/cuda/cudart_stub.cc:
# "Ignore above cudart dlerror if you do not have a GPU set up on your machine."): on a machine with no
# GPU that dlerror is no fault.
_STUB_HINT = re.compile(r"Ignore above cudart dlerror if you do not have a GPU set up", re.I)
# i35k: NVML, the driver's own library (libnvidia-ml), failing to start with no reason given
# ("Failed to initialize NVML", nvidia-smi's and DCGM's words); with a reason (": Driver/library version
# mismatch", ": Unknown Error") the catalogue reads that reason.
_NVML_FAILED = re.compile(r"\bFailed to initialize NVML\b(?!\s*:\s*\S)", re.I)

# i35k: PyTorch's allocator's words alone (c10/cuda/CUDACachingAllocator.cpp begins "CUDA out of memory."),
# read only to say not sure where no row read more: its figures, when printed, tell the work from other
# holders. A CUDA call's "CUDA error: out of memory" (cudaErrorMemoryAllocation) is left as it was.
# ASCII edges, not \b: pasted in Chinese prose ("一直报CUDA out of memory怎么办") the words touch CJK letters,
# which \b counts as word characters. "CUDA error: out of memory" is the runtime's cudaErrorMemoryAllocation
# in words, the same open choice.
_OOM_WORDS = re.compile(r"(?<![A-Za-z])CUDA (?:error: )?out of memory(?![A-Za-z])", re.I)

# A Windows driver model other than WDDM said (TCC / WDM, or MCDM: nvml.h's driver models): a compute
# mode other than Default can be set there.
_NOT_WDDM = re.compile(r"\b(?:TCC|WDM|MCDM)\b")


@dataclass
class HostFacts:
    no_gpu_at: Evidence | None = None  # the text says the machine has no GPU
    no_gpu_said: str = ""  # the words that say it
    found_version: str = ""  # PyTorch's "found version" (cudaDriverGetVersion: 10010)
    found_cuda: str = ""  # the CUDA it stands for ("10.1")
    found_at: Evidence | None = None
    blamed_at: Evidence | None = None  # a failure said to be with a driver release
    blamed_said: str = ""
    updated_at: Evidence | None = None  # a driver update, or a reboot that mended it, said
    gpus_named: list[str] = field(default_factory=list)  # GPUs as people write them (gpu_names)
    unwanted_at: Evidence | None = None  # the person wants CUDA / the GPU off
    unwanted_said: str = ""
    pci_at: Evidence | None = None  # lspci's row of an NVIDIA device
    pci_name: str = ""
    other_work_at: Evidence | None = None  # other work on the GPU said
    not_wddm_at: Evidence | None = None  # TCC, WDM or MCDM said
    stub_hint_at: Evidence | None = None  # TensorFlow's "Ignore above cudart dlerror if ..."
    nvml_failed_at: Evidence | None = None  # "Failed to initialize NVML" with no reason
    oom_at: Evidence | None = None  # an allocator's out-of-memory words
    no_runtime_at: Evidence | None = None  # docker could not select the "nvidia" device driver
    worked_before_at: Evidence | None = None  # the same work said to have run before

    def lines(self) -> list[tuple[str, str]]:
        pairs = (
            ("no_gpu", self.no_gpu_said),
            ("found_cuda", f"{self.found_cuda} ({self.found_version})" if self.found_cuda else ""),
            ("blamed", self.blamed_said),
            ("unwanted", self.unwanted_said),
            ("pci", self.pci_name),
            ("nvml_failed", _said(self.nvml_failed_at[1]) if self.nvml_failed_at else ""),
            ("oom", _said(self.oom_at[1]) if self.oom_at else ""),
        )
        return [(k, v) for k, v in pairs if v]


def _said(words: str) -> str:
    return cut(" ".join(words.replace("*", " ").split()), SAID_CHARS)


def cuda_of_driver_api(number: int) -> str:
    """cudaDriverGetVersion's number as CUDA major.minor (10010 -> "10.1", 12080 -> "12.8")."""
    return f"{number // 1000}.{number % 1000 // 10}"


def read_host(text: str) -> HostFacts:
    h = HostFacts()
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        # A sentence a narrow paste wrapped is read with the next line (a match must start on this one).
        after = lines[number].lstrip("> \t") if number < len(lines) else ""
        pair = f"{line} {after}"
        at = (number, cut(line.strip(), LINE_CHARS))
        m = _NO_GPU.search(pair) or _NO_GPU_FIELD.search(line) if h.no_gpu_at is None else None
        if m is not None and m.start() < len(line) and not _IF.search(pair[: m.start()]):
            h.no_gpu_at, h.no_gpu_said = at, _said(m.group(0))
        elif h.no_gpu_at is None and (m := _OTHER_VENDOR_GPU.search(line)):
            if not _IF.search(line[: m.start()]):
                h.no_gpu_at, h.no_gpu_said = at, _said(m.group(0))
        if not h.found_version and (m := _FOUND_VERSION.search(pair)) and m.start() < len(line):
            value = int(m.group(1))
            if value >= 1000:
                h.found_version, h.found_cuda, h.found_at = m.group(1), cuda_of_driver_api(value), at
        if h.blamed_at is None and (m := _BLAMED.search(pair)) and m.start() < len(line):
            h.blamed_at, h.blamed_said = at, _said(m.group(0))
        if h.updated_at is None and (m := _UPDATED.search(pair)) and m.start() < len(line):
            h.updated_at = at
        # The line alone first: its end ends the wish where no stop follows it.
        wish = _CUDA_UNWANTED.search(line) or _CUDA_UNWANTED.search(pair) if h.unwanted_at is None else None
        if (m := wish) and m.start() < len(line):
            h.unwanted_at, h.unwanted_said = at, _said(m.group(0))
        if h.other_work_at is None and _OTHER_WORK.search(line):
            h.other_work_at = at
        if h.not_wddm_at is None and _NOT_WDDM.search(line):
            h.not_wddm_at = at
        if h.stub_hint_at is None and _STUB_HINT.search(line):
            h.stub_hint_at = at
        if h.nvml_failed_at is None and _NVML_FAILED.search(line):
            h.nvml_failed_at = at
        if h.oom_at is None and _OOM_WORDS.search(line):
            h.oom_at = at
        if h.no_runtime_at is None and _NO_DEVICE_DRIVER.search(line):
            h.no_runtime_at = at
        if h.worked_before_at is None and _WORKED_BEFORE.search(line):
            h.worked_before_at = at
        if h.pci_at is None and (m := _PCI_NVIDIA.search(line)):
            h.pci_at, h.pci_name = at, _said(m.group("name").strip() or "NVIDIA")
    if h.no_gpu_at is not None:  # only what the no-GPU statement is weighed against
        h.gpus_named = named_gpus(text)
    return h


__all__ = ["HostFacts", "cuda_of_driver_api", "read_host"]
