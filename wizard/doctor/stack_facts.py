"""Facts about the CUDA stack a log shows, beside the versions and codes of wizard.doctor.facts.

    stack = read_stack(text)       a StackFacts: every field may stay empty (not in the text)
    stack.lines()                  (key, value) pairs; keys are doctor_stack.fact.* texts

What the driver's own files and services say about themselves: the driver's library (libcuda,
nvcuda.dll) lacking an entry point a program calls (the driver version is in libcuda's file name),
the Fabric Manager refusing a driver of another version, CUDA's unknown error after a suspend, the
CUDA major of the CUDA libraries a program loads or names (libcublas.so.10, "cudatoolkit=10.0"),
GPU names written without their brand ("RTX3070"), a forward-compatibility libcuda put on the path
(cuda-compat), and ptxas (or the program itself, for bfloat16) refusing an instruction the GPU
lacks. Each keeps the line it was read from.
Values are log data: shown only through wizard.safe.display.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.version import Version

from wizard.doctor.setup_facts import Evidence
from wizard.safe.display import cut

LINE_CHARS = 200
VALUE_CHARS = 80

_V = r"([0-9]{3}\.[0-9]{2,3}(?:\.[0-9]{2})?)"
# The driver's library without an entry point the program calls: the loader's "undefined symbol"
# naming libcuda itself, a "symbol lookup for cuX failed" naming it, Windows' "procedure entry point
# cuX could not be located in ... nvcuda.dll". libcuda.so.418.74 is driver 418.74's own file.
_DRIVER_SYMBOL = re.compile(
    r"(?P<lib>libcuda\.so(?:\.[0-9]+)*)\W{0,3}:\s*undefined symbol:\s*(?P<sym>cu[A-Z]\w*)"
    r"|symbol lookup for (?P<sym2>cu[A-Z]\w*) failed:\s*\S*?(?P<lib2>libcuda\.so(?:\.[0-9]+)*)"
    r"|procedure entry point (?P<sym3>cu[A-Z]\w*) could not be located in the dynamic link library "
    r"\S*?(?P<lib3>nvcuda\.dll)",
    re.I,
)
# Any library lacking a driver API entry point (cu + a capital: cuInit, cuCtx*, cuGetProcAddress; the
# toolkit's own libraries are cublas*, cudnn*, cufft*, all lower case): only libcuda provides those.
_DRIVER_API_SYMBOL = re.compile(r"undefined symbol:\s*(?P<sym>cu[A-Z][A-Za-z0-9]*(?:_v[0-9]+)?)\b")
_LIB_VERSION = re.compile(r"libcuda\.so\.([0-9]{3}\.[0-9]{2,3}(?:\.[0-9]{2})?)$")
# The Fabric Manager's own check (nv-fabricmanager's log): "fabric manager NVIDIA GPU driver interface
# version 590.48.01 don't match with driver version 580.126.09".
_FM_VERSION = re.compile(
    r"fabric\s*manager\b[^\n]{0,80}?\bversion\s+" + _V + r"[^\n]{0,40}?"
    r"(?:don.?t|doesn.?t|does not|do not|not)\s+match\w*\s+(?:with\s+)?(?:the\s+)?"
    r"(?:NVIDIA\s+)?(?:GPU\s+)?driver\s+version\s+" + _V,
    re.I,
)
# A suspend, sleep or hibernation the text says happened (the GPU worked before it).
_SUSPEND = re.compile(
    r"\bsuspend(?:ed|ing|s)?\b|\bhibernat\w*|\bstandby\b|\b(?:from|after|into|to)\s+(?:a\s+|the\s+)?sleep\b"
    r"|\bsleep\s+(?:mode|state)\b|\bwak(?:e|es|ing|ed)\s+(?:\w+\s+){0,2}?(?:up|from)\b|\bresum(?:e|ed|ing)\s+from\b"
    r"|休眠|睡眠|待机|挂起",
    re.I,
)
# The CUDA major of the CUDA libraries a program loads (their file names carry it: libcudart.so.10.1,
# libcublas.so.10, cublas64_10.dll; cuFFT and cuRAND number themselves apart, so not those) or that
# the text names as installed ("cudatoolkit=10.0", "CUDA 10.1", "cuda: 9.0"). nvidia-smi's
# "CUDA Version: 12.2" is the driver's, not the libraries': left out.
_LIB_CUDA = re.compile(
    r"\blib(?:cudart|cublas|cublasLt|cusolver|cusparse)\.so\.([0-9]{1,2})\b"
    r"|\b(?:cudart|cublas|cublasLt|cusolver|cusparse)64_([0-9]{1,2})[0-9]?\.dll\b",
    re.I,
)
_SAID_CUDA = re.compile(
    r"(?<![\w-])(?!CUDA Version:)cuda(?:[ _-]?tool\w*|tookit|tk)?(?:\s*(?:==?|:)\s*|\s+|[ _-]?)v?"
    r"([0-9]{1,2})\.[0-9](?![0-9])",
    re.I,
)
# A GPU row of Windows' nvidia-smi in TCC mode (its driver-model column), or the mode said in words.
_TCC = re.compile(r"^(?:>\s?)*\|\s+[0-9]+\s+[^|]*\bTCC\s+\||\bin\s+TCC\s+mode\b", re.I)
# A GPU library failing to run its code (cuBLAS's and cuDNN's statuses, TensorFlow's GEMM launch).
_LIB_FAILURE = re.compile(
    r"CUBLAS_STATUS_[A-Z_]+|CUDNN_STATUS_[A-Z_]+|Blas \w*GEM[MV]\w* launch failed"
    r"|failed to create cublas handle|could not create cudnn handle|no kernel image is available",
    re.I,
)
# WSL 2 itself (not "WSL", which may be WSL 1 or a word in passing): its name, its kernel, its driver path.
_WSL2 = re.compile(r"\bWSL\s?2\b|microsoft-standard-WSL2|/usr/lib/wsl/lib\b", re.I)
# A forward-compatibility libcuda on the loader's path: the cuda-compat-<major>-<minor> package, its
# folder /usr/local/cuda-<version>/compat (NVIDIA's CUDA Compatibility guide, Forward Compatibility).
_COMPAT = re.compile(
    r"\bcuda[-_]compat(?:[-_][0-9]+(?:[-._][0-9]+)?)?\b|(?:/[\w.+-]+)*/cuda[^/\s:'\"]*/compat\b", re.I
)
# ptxas refusing an instruction the target GPU lacks (ptxas' own words, as JAX/XLA and Triton print
# them when they compile for the GPU they run on): "Feature '.bf16' requires .target sm_80 or higher".
# An architecture-specific target ("sm_90a", no "or higher") is a build's flag, not the GPU's age.
_PTX_FEATURE = re.compile(
    r"\b(?:Feature|Instruction)\s+'(?P<feature>[^'\n]{1,60})'[^\n]{0,40}?\brequires\s+\.target\s+"
    r"sm_(?P<sm>[0-9]{2,3})\s+or\s+higher",
    re.I,
)
# A program's own refusal of bfloat16 on the GPU it runs on (vLLM's "Bfloat16 is only supported on GPUs
# with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5.", PyTorch's
# autocast "Current CUDA Device does not support bfloat16"): the GPU lacks bfloat16, as ptxas says it.
_BF16_REFUSED = re.compile(
    r"\bBfloat16 is only supported on GPUs with compute capability of at least (?P<cc>[0-9]{1,2}\.[0-9])"
    r"|\bCurrent CUDA Device does not support bfloat16\b",
    re.I,
)
BF16_CC = "8.0"  # bfloat16 arithmetic first came with compute capability 8.0 (Ampere)
# A program's own refusal of an operation below the compute capability it needs (PyTorch's FP8 matrix
# multiply: "torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9,
# or ROCm MI300+"): the GPU it runs on is below the lowest capability named.
# The operation is named as code is (a dotted or underscored name): "this" or "Flash attention" is
# a sentence, not the program's refusal.
_OP_REFUSED = re.compile(
    r"(?P<op>\b[A-Za-z_]\w*(?:[._]\w+)+) is only supported on (?:CUDA |NVIDIA )?(?:devices|GPUs) with "
    r"compute capability (?:>=|of at least|at least) (?P<cc>[0-9]{1,2}\.[0-9])"
    r"(?: or (?P<cc2>[0-9]{1,2}\.[0-9]))?",
    re.I,
)
# An AMD GPU (PyTorch's ROCm build prints the same refusal, "... or ROCm MI300+"): no compute capability.
_AMD = re.compile(r"\bROCm\b(?! MI300)|\bAMD\b|\bRadeon\b|\bgfx[0-9]{3,4}\b|\bHIP error\b", re.I)
# A build compiling for a list of architectures (nvcc's own temporary files, -gencode, a setup.py or
# CMake build): there the refused target may be one the list names, not the GPU the program runs on.
_BUILD_STEP = re.compile(
    r"\bnvcc\b|-gencode\b|\barch=compute_|tmpxft_|\bsetup\.py\b|\bcmake\b|TORCH_CUDA_ARCH_LIST"
    r"|CMAKE_CUDA_ARCHITECTURES|\bninja\b|\bbuilding '",
    re.I,
)
# GPU names as people write them, brand or space left out ("RTX3070", "rtx 3090", "GTX1080Ti").
_GPU_SHORT = re.compile(r"\b(RTX|GTX)\s?([0-9]{4})(\s?Ti|\s?SUPER)?\b", re.I)


@dataclass
class StackFacts:
    driver_symbol: str = ""  # the entry point the driver's library lacks ("cuCtxCreate_v3")
    driver_symbol_lib: str = ""  # that library ("libcuda.so.418.74")
    driver_symbol_version: str = ""  # the driver version its file name carries ("418.74")
    driver_symbol_at: Evidence | None = None
    driver_api_symbol_at: Evidence | None = (
        None  # a driver entry point some library lacks (libcuda or another)
    )
    fm_version: str = ""  # the Fabric Manager's version
    fm_driver: str = ""  # the driver version it refused
    fm_at: Evidence | None = None
    suspend_at: Evidence | None = None  # the text says the machine was suspended (or slept)
    lib_cudas: list[int] = field(default_factory=list)  # CUDA majors of the libraries loaded or named
    gpu_names: list[str] = field(default_factory=list)  # "GeForce RTX 3070" from "RTX3070"
    tcc_at: Evidence | None = None  # a GPU in TCC mode
    wsl2_said: bool = False  # the text names WSL 2 itself
    lib_failure_at: Evidence | None = None  # a GPU library's failure (cuBLAS, cuDNN, no kernel image)
    compat: str = ""  # a forward-compatibility libcuda named (cuda-compat-12-9, /usr/local/cuda/compat)
    compat_at: Evidence | None = None
    ptx_feature: str = ""  # an instruction ptxas says the target GPU lacks ("cvt.bf16.f32")
    ptx_feature_cc: str = ""  # the compute capability it needs ("8.0")
    ptx_feature_at: Evidence | None = None
    ptx_feature_op: bool = False  # refused by the program's own check of an operation, not by ptxas
    build_step: bool = False  # the text compiles a build for a list of architectures (nvcc, CMake)

    def lines(self) -> list[tuple[str, str]]:
        pairs = (
            (
                "driver_symbol",
                f"{self.driver_symbol} ({self.driver_symbol_lib})" if self.driver_symbol else "",
            ),
            ("fm", f"{self.fm_version} / {self.fm_driver}" if self.fm_version else ""),
            ("lib_cuda", ", ".join(str(c) for c in self.lib_cudas)),
            ("compat", self.compat),
            ("ptx_feature", f"{self.ptx_feature} ({self.ptx_feature_cc})" if self.ptx_feature else ""),
        )
        return [(k, v) for k, v in pairs if v]


def _evidence(number: int, line: str) -> Evidence:
    return number, cut(line.strip(), LINE_CHARS)


def _value(text: str) -> str:
    return cut(" ".join(text.split()), VALUE_CHARS)


def _search(rx: re.Pattern[str], line: str, joined: str) -> re.Match[str] | None:
    """The match on the line itself, else one that starts on it and runs onto the next line."""
    m = rx.search(line)
    if m is None and len(joined) > len(line):
        m = rx.search(joined)
        if m is not None and m.start() >= len(line):
            return None  # the next line's own message: read on its own line
    return m


def _lacked(line: str, ops: bool) -> tuple[str, str, bool] | None:
    """(the instruction, the compute capability it needs, whether an operation's own check refused it)
    where ptxas or the program refused it; an operation's refusal only where `ops` (no AMD GPU named)."""
    if m := _PTX_FEATURE.search(line):
        sm = m.group("sm")
        return _value(m.group("feature")), f"{sm[:-1]}.{sm[-1]}", False
    if m := _BF16_REFUSED.search(line):
        return "bfloat16", m.group("cc") or BF16_CC, False
    if ops and (m := _OP_REFUSED.search(line)) and "warning" not in line.lower():  # a warning refuses nothing
        need = min((c for c in (m.group("cc"), m.group("cc2")) if c), key=Version)
        return _value(m.group("op")), need, True
    return None


def read_stack(text: str) -> StackFacts:
    s = StackFacts()
    cudas: set[int] = set()
    ops = not _AMD.search(text)
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        line = line[:4000]
        # A message wrapped onto the next line (a narrow paste) is read joined to it, as the catalogue does.
        joined = line + " " + lines[number].strip()[:4000] if number < len(lines) else line
        m = _search(_DRIVER_SYMBOL, line, joined) if s.driver_symbol_at is None else None
        if m:
            s.driver_symbol = _value(m.group("sym") or m.group("sym2") or m.group("sym3") or "")
            lib = m.group("lib") or m.group("lib2") or m.group("lib3") or ""
            s.driver_symbol_lib = _value(lib)
            v = _LIB_VERSION.search(lib)
            s.driver_symbol_version = v.group(1) if v else ""
            s.driver_symbol_at = _evidence(number, line)
        if s.driver_api_symbol_at is None and _DRIVER_API_SYMBOL.search(line):
            s.driver_api_symbol_at = _evidence(number, line)
        m = _search(_FM_VERSION, line, joined) if s.fm_at is None else None
        if m:
            s.fm_version, s.fm_driver, s.fm_at = m.group(1), m.group(2), _evidence(number, line)
        if s.lib_failure_at is None and _LIB_FAILURE.search(line):
            s.lib_failure_at = _evidence(number, line)
        if s.tcc_at is None and _TCC.search(line):
            s.tcc_at = _evidence(number, line)
        m = _COMPAT.search(line) if s.compat_at is None else None
        if m:
            s.compat, s.compat_at = _value(m.group(0)), _evidence(number, line)
        lacked = _lacked(line, ops) if s.ptx_feature_at is None else None
        if lacked:
            s.ptx_feature, s.ptx_feature_cc, s.ptx_feature_op = lacked
            s.ptx_feature_at = _evidence(number, line)
        if s.suspend_at is None and _SUSPEND.search(line):
            s.suspend_at = _evidence(number, line)
        for m in (*_LIB_CUDA.finditer(line), *_SAID_CUDA.finditer(line)):
            major = int(next(g for g in m.groups() if g))
            if 7 <= major <= 13:
                cudas.add(major)
    s.lib_cudas = sorted(cudas)
    s.wsl2_said = bool(_WSL2.search(text))
    s.build_step = bool(_BUILD_STEP.search(text))
    for m in _GPU_SHORT.finditer(text):
        name = f"GeForce {m.group(1).upper()} {m.group(2)}" + (
            " " + m.group(3).strip().replace("ti", "Ti").replace("super", "SUPER").replace("TI", "Ti")
            if m.group(3)
            else ""
        )
        if name not in s.gpu_names and len(s.gpu_names) < 8:
            s.gpu_names.append(name)
    return s


__all__ = ["StackFacts", "read_stack"]
