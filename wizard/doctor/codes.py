"""Error codes a log shows, explained by the meaning their own headers document.

    explain_name("CUDA_ERROR_NO_DEVICE") -> Code | None     a CUresult, cudaError_t, cuDNN or NVML name
    explain_number(35) -> Code | None                       a bare number (the runtime's cudaError_t)
    codes_in(line) -> list[Code]                            every code a line names or numbers

The tables are assets/knowledge/error_codes.json, harvested from the wheels that ship the headers
(maint/harvest/error_codes.py: cuda.h and driver_types.h of nvidia-cuda-runtime, cudnn_graph.h of
nvidia-cudnn, pynvml.py of nvidia-ml-py), each cited by wheel file name and sha256. What a code
means for a person (a diagnosis id, or the command that decides between its causes) is
assets/doctor/code_families.toml.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from wizard.assets import asset_text
from wizard.tomlcompat import tomllib

TABLES = ("curesult", "cudaerror", "cudnn", "nvml")
# A number with no name is the runtime's code: what frameworks print ("Error 804:", "cuda runtime
# error (46)", "code=802(...)", "CUDA failure 35", "(46 vs. 0)", "CUDA error 700").
NUMBER_TABLE = "cudaerror"
FIRST_LOOK = "nvidia-smi"

_NAMES = re.compile(
    r"\b(CUDA_ERROR_[A-Z0-9_]+|cudaError[A-Z][A-Za-z0-9]*|CUDNN_STATUS_[A-Z0-9_]+|"
    r"NVML_ERROR_[A-Z0-9_]+|NVMLError_[A-Za-z0-9]+)"
)
# Bare numbers, only where the words around them say it is a CUDA error code.
_NUMBERS = re.compile(
    r"(?:\bCUDA error[: ]+(?:code[ =:]*)?|\bcuda runtime error \(|\bCUDA Runtime Error\(|\bCUDA failure |"
    r"\bCuda Error in \w+: |\bcudaGetDeviceCount\(\)[^.]*?\. Error |"
    r"Did you run some cuda functions[^?]*\? Error |\bset an error\? Error |"
    r"\bCUDA error at [^ ]+ code=|\berror=|\bcudaGetDeviceCount return(?:ed|s)? |"
    r"\bcudaGetDeviceProperties returned |"
    r"\berror == cudaSuccess \(|\bCUDA_ERROR |"
    # A code retold in words ("vLLM also fails with CUDA 802"): three digits, never a version (12.4).
    r"\bfail(?:s|ed|ing)? with CUDA (?=[0-9]{3}\b(?!\.[0-9]))|"
    # A runtime call's own return value (every cuda* call returns a cudaError_t).
    r"\bReturn(?:ed)? value:? (?=[0-9]{1,5} from \W?cuda[A-Z]))([0-9]{1,5})\b",
    re.I,
)

# NVML's return codes printed as bare numbers by programs that call it themselves (ollama's
# "nvmlInit_v2 err: 18", "nvml vram init failure: 18"): read in NVML's table, not the runtime's.
_NVML_NUMBERS = re.compile(
    r"\bnvml\w*(?:\s+\w+){0,3}?\s+(?:err|error|failure|failed)\s*[:=]?\s*\(?([0-9]{1,3})\b", re.I
)

# A CHECK on a driver call's CUresult ("Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context)
# (0 vs. 216)", TensorFlow's stream executor; glog prints both sides): the number is the driver's
# CUresult, read in cuda.h's table. The runtime's cudaSuccess forms are read in driver_types.h's.
_CHECKS = (
    (
        "curesult",
        re.compile(
            r"\bCUDA_SUCCESS\s*==\s*[^\n]{1,160}?\(0 vs\. ([0-9]{1,5})\)"
            r"|==\s*CUDA_SUCCESS\s*\(([0-9]{1,5}) vs\. 0\)"
        ),
    ),
    (
        "cudaerror",
        re.compile(
            r"\bcudaSuccess\s*==\s*[^\n]{1,160}?\(0 vs\. ([0-9]{1,5})\)"
            r"|==\s*cudaSuccess\s*\(([0-9]{1,5}) vs\. 0\)"
        ),
    ),
)

# A CUDA call's own return value printed after its name by programs that call CUDA themselves
# (ollama's "cudaSetDevice err: 802", "cudart init failure: 802", "nvcuda init failure: 999"): the
# runtime's calls (cuda*, cudart) return a cudaError_t, the driver API's (cu*, nvcuda) a CUresult.
# ollama's libcuda start: "cuda driver library init failure: 3" (a CUresult, as its nvcuda's).
# DIGITS prints the call with its parentheses and the number after '#' ("cudaRuntimeGetVersion() failed
# with error #35").
_CALL_NUMBERS = re.compile(
    r"\b(cuda[A-Z]\w*|cudart(?:\s+init)?|cu[A-Z]\w*|nvcuda(?:\s+init)?|cuda driver library init)"
    r"(?:\(\))?\s+"
    r"(?:(?:err|error|failure|failed)\s*[:=]\s*\(?|failed with error\s*#\s*)([0-9]{1,4})\b"
)

# TensorRT's check before it builds ("CUDA initialization failure with error: 35. Please check your CUDA
# installation", builder.cpp checkCudaInstalled): the runtime's cudaError_t by number.
_TRT_INIT = re.compile(r"\bCUDA initialization failure with error:?\s*([0-9]{1,4})\b", re.I)

# TensorFlow's stream executor names the CUresults it knows and prints the others by number after the
# driver call ("failed call to cuInit: UNKNOWN ERROR (34)"). Read for CUDA_ERROR_STUB_LIBRARY (34)
# only, explained by its meaning and its deciding command (ldconfig -p | grep libcuda.so); the others
# TensorFlow prints so (303, 999) are the catalogue rows' to read with the lines around them (read as
# codes, one older held-out text moved to a wrong cause).
_TF_UNNAMED = re.compile(r"\bcu[A-Z]\w*\s*:\s*UNKNOWN ERROR \((34)\)")

# CUDA.jl prints a driver API CUresult by its number and its name without "CUDA_" ("CUDA error:
# initialization error (code 3, ERROR_NOT_INITIALIZED)"): read by the name, where the number agrees.
_JULIA_CODE = re.compile(r"\(code ([0-9]{1,4}), (ERROR_[A-Z0-9_]+)\)")

# The runtime's own message for a code (cudaGetErrorString's text) pasted without its number
# ("system has unsupported display driver / cuda driver combination" alone, HOOMD's start-up line):
# the code it is the message of. Only messages no other code shares.
_RUNTIME_MESSAGES = ((re.compile(r"\bunsupported display driver / cuda driver combination\b", re.I), 803),)


def _call_codes(line: str, found: list[Code]) -> None:
    for m in _CALL_NUMBERS.finditer(line):
        # ollama's "cuda driver library init failure: N" is its driver API (libcuda) start: a CUresult
        runtime = m.group(1).lower().startswith("cuda") and not m.group(1).startswith("cuda driver")
        table = "cudaerror" if runtime else "curesult"
        _add(found, explain_number(int(m.group(2)), table))


def _add(found: list[Code], code: Code | None) -> None:
    """A code read once, never success (0)."""
    if code is not None and code.number != 0 and code not in found:
        found.append(code)


@dataclass(frozen=True)
class Code:
    table: str  # curesult | cudaerror | cudnn | nvml
    name: str
    number: int
    meaning: str  # as the header documents it
    wheel: str  # the wheel the header was read from
    sha256: str
    path: str  # the header inside the wheel
    decides: str = ""  # the diagnosis id the meaning names, or ""
    decide_with: str = ""  # the command that tells its causes apart, where it decides none

    @property
    def command(self) -> str:
        return self.decide_with or FIRST_LOOK

    def source(self) -> str:
        return f"{self.path} in {self.wheel}, sha256 {self.sha256}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "name": self.name,
            "number": self.number,
            "meaning": self.meaning,
            "source": {"wheel": self.wheel, "sha256": self.sha256, "path": self.path},
            "decides": self.decides,
            "decide_with": self.decide_with,
        }


@cache
def _families() -> dict[str, Any]:
    return tomllib.loads(asset_text("doctor/code_families.toml"))


@cache
def tables() -> dict[str, tuple[Code, ...]]:
    data = json.loads(asset_text("knowledge/error_codes.json"))
    families = _families()
    out: dict[str, tuple[Code, ...]] = {}
    for table in TABLES:
        entry = data[table]
        src = entry["source"]
        decides = families.get("decides", {}).get(table, {})
        decide_with = families.get("decide_with", {}).get(table, {})
        out[table] = tuple(
            Code(
                table,
                c["name"],
                int(c["number"]),
                c["meaning"],
                src["wheel"],
                src["sha256"],
                src["path"],
                decides.get(c["name"], ""),
                decide_with.get(c["name"], ""),
            )
            for c in entry["codes"]
        )
    return out


@cache
def _by_name() -> dict[str, Code]:
    found: dict[str, Code] = {}
    for table in TABLES:
        for code in tables()[table]:
            found.setdefault(code.name, code)
    # pynvml's exception classes (NVMLError_NoPermission) name the same codes.
    from_json = json.loads(asset_text("knowledge/error_codes.json"))
    for c in from_json["nvml"]["codes"]:
        if c.get("python") and c["name"] in found:
            found.setdefault(c["python"], found[c["name"]])
    return found


@cache
def _by_number() -> dict[tuple[str, int], Code]:
    found: dict[tuple[str, int], Code] = {}
    for table in TABLES:
        for code in tables()[table]:
            found.setdefault((table, code.number), code)  # the first name of a number, not its alias
    return found


def explain_name(name: str) -> Code | None:
    return _by_name().get(name)


def explain_number(number: int, table: str = NUMBER_TABLE) -> Code | None:
    return _by_number().get((table, number))


def codes_in(line: str) -> list[Code]:
    """The codes a line names, then the ones it numbers (a number its name already gave is skipped)."""
    found: list[Code] = []
    for m in _NAMES.finditer(line):
        _add(found, explain_name(m.group(1)))
    for m in _JULIA_CODE.finditer(line):
        code = explain_name("CUDA_" + m.group(2))
        if code is not None and code.number == int(m.group(1)) and code not in found:
            found.append(code)
    for m in _NVML_NUMBERS.finditer(line):
        _add(found, explain_number(int(m.group(1)), "nvml"))
    _call_codes(line, found)
    for m in _TRT_INIT.finditer(line):
        _add(found, explain_number(int(m.group(1)), "cudaerror"))
    for m in _TF_UNNAMED.finditer(line):
        _add(found, explain_number(int(m.group(1)), "curesult"))
    numbers = {c.number for c in found if c.table in ("cudaerror", "curesult")}
    for message, number in _RUNTIME_MESSAGES:
        code = explain_number(number)
        if message.search(line) and code is not None and number not in numbers:
            found.append(code)
            numbers.add(number)
    for table, check in _CHECKS:
        for m in check.finditer(line):
            number = int(m.group(1) or m.group(2))
            code = explain_number(number, table)
            if code is not None and number not in numbers:
                found.append(code)
                numbers.add(number)
    for m in _NUMBERS.finditer(_NVML_NUMBERS.sub(" ", line)):
        number = int(m.group(1))
        if number in numbers or number == 0:
            continue
        code = explain_number(number)
        if code is not None and code not in found:
            found.append(code)
            numbers.add(number)
    return found


__all__ = ["Code", "codes_in", "explain_name", "explain_number", "tables"]
