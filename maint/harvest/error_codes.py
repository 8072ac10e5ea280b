"""Error codes read from the artifacts: every CUresult (cuda.h) and cudaError_t (driver_types.h) with
its documented meaning, cuDNN's cudnnStatus_t (cudnn_graph.h) and NVML's return codes (pynvml.py of
nvidia-ml-py, with the exception class name pynvml makes of each).

    python -m maint.harvest.error_codes [--out assets/knowledge/error_codes.json] [--work DIR]

Each table cites the wheel it was read from by file name and sha256, and the path inside it; a code
is {name, number, meaning}. The wheels are fetched with `pip download --no-deps` (the machine's own
pip configuration decides the index) and removed once read.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maint.harvest.store import dumps, today
from maint.harvest.wheelinfo import file_facts

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "assets" / "knowledge" / "error_codes.json"
# The wheel that ships each header (nvidia-cuda-runtime ships cuda.h and driver_types.h side by
# side in nvidia/cuda_runtime/include since 12.x; cuDNN 9 keeps its status codes in cudnn_graph.h).
RUNTIME = "nvidia-cuda-runtime-cu12==12.5.82"
CUDNN = "nvidia-cudnn-cu12==9.3.0.75"
NVML = "nvidia-ml-py==13.615.71"
CUDA_H = "nvidia/cuda_runtime/include/cuda.h"
DRIVER_TYPES_H = "nvidia/cuda_runtime/include/driver_types.h"
CUDNN_GRAPH_H = "nvidia/cudnn/include/cudnn_graph.h"
PYNVML = "pynvml.py"

_DOC = re.compile(r"/\*\*(?P<doc>.*?)\*/", re.S)
_ENTRY = re.compile(
    r"(?:/\*\*(?P<doc>(?:(?!\*/).)*?)\*/\s*)?,?\s*(?P<name>[A-Za-z_]\w*)(?:\s+\w+)?\s*=\s*(?P<value>0x[0-9a-fA-F]+|-?\d+|[A-Za-z_]\w*)",
    re.S,
)
_CAMEL_WORDS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class Code:
    name: str
    number: int
    meaning: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "number": self.number, "meaning": self.meaning}


def _clean_doc(doc: str) -> str:
    """A Doxygen comment as one sentence: the leading stars, ::references and \\deprecated gone."""
    lines = [re.sub(r"^\s*\*\s?", "", line) for line in doc.strip().splitlines()]
    text = " ".join(line.strip() for line in lines if line.strip())
    text = text.replace("::", "").replace("\\deprecated", "Deprecated:").replace("\\p ", "")
    text = re.sub(r"\\[a-z]+\s*", "", text)
    return " ".join(text.split())


def _enum_body(text: str, start: str, end: str) -> str:
    at = text.index(start)
    return text[at : text.index(end, at)]


def parse_enum(body: str, prefix: str) -> list[Code]:
    """The `NAME = VALUE` entries of an enum body whose names start with prefix, each with the
    comment just before it; an alias (`= OTHER_NAME`) takes its target's number."""
    numbers: dict[str, int] = {}
    codes: list[Code] = []
    for m in _ENTRY.finditer(body):
        name, value = m.group("name"), m.group("value")
        if not name.startswith(prefix):
            continue
        if value.startswith("0x"):
            number = int(value, 16)
        elif value.lstrip("-").isdigit():
            number = int(value)
        elif value in numbers:
            number = numbers[value]
        else:
            continue
        numbers[name] = number
        doc = _clean_doc(m.group("doc") or "")
        codes.append(Code(name, number, doc or words(name, prefix)))
    return codes


def words(name: str, prefix: str) -> str:
    """A code without a comment (cuDNN's, NVML's) described by its own name."""
    rest = name[len(prefix) :] if name.startswith(prefix) else name
    rest = _CAMEL_WORDS.sub(" ", rest).replace("_", " ").strip().lower()
    return rest[:1].upper() + rest[1:] if rest else name


def parse_cuda_h(text: str) -> list[Code]:
    return parse_enum(_enum_body(text, "typedef enum cudaError_enum", "} CUresult;"), "CUDA_")


def parse_driver_types_h(text: str) -> list[Code]:
    return parse_enum(_enum_body(text, "enum __device_builtin__ cudaError", "};"), "cuda")


def parse_cudnn_graph_h(text: str) -> list[Code]:
    body = _enum_body(text, "CUDNN return codes", "} cudnnStatus_t;")
    return parse_enum(body, "CUDNN_STATUS_")


def nvml_class_name(name: str) -> str:
    """The exception class pynvml makes of a code (its _extractNVMLErrorsAsClasses, same rule)."""
    rest = name.replace("NVML_ERROR_", "")
    return "NVMLError_" + "".join(part.capitalize() for part in rest.split("_"))


def parse_pynvml(text: str) -> list[Code]:
    codes = []
    for m in re.finditer(r"^(NVML_(?:ERROR_\w+|SUCCESS))\s*=\s*(\d+)\s*$", text, re.M):
        codes.append(Code(m.group(1), int(m.group(2)), words(m.group(1), "NVML_ERROR_")))
    return codes


def _download(pip: list[str], requirement: str, into: Path) -> Path:
    subprocess.run(
        [*pip, "download", "--no-deps", "--only-binary", ":all:", requirement, "-d", str(into)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wheels = sorted(into.glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one wheel for {requirement}, found {[w.name for w in wheels]}")
    return wheels[0]


def table(wheel: Path, member: str, codes: list[Code], language: str) -> dict[str, Any]:
    facts = file_facts(wheel)
    return {
        "source": {
            "wheel": facts.file,
            "size": facts.size,
            "sha256": facts.sha256,
            "path": member,
            "read": today(),
        },
        "language": language,
        "codes": [c.to_dict() for c in sorted(codes, key=lambda c: (c.number, c.name))],
    }


def harvest(pip: list[str], work: Path, wheels: dict[str, Path] | None = None) -> dict[str, Any]:
    """The four tables; `wheels` (requirement -> a wheel already here) skips a download."""
    wheels = dict(wheels or {})

    def get(requirement: str) -> Path:
        if requirement not in wheels:
            folder = work / requirement.replace("==", "-")
            folder.mkdir(parents=True, exist_ok=True)
            wheels[requirement] = _download(pip, requirement, folder)
        return wheels[requirement]

    def read(requirement: str, member: str) -> tuple[Path, str]:
        wheel = get(requirement)
        with zipfile.ZipFile(wheel) as zf:
            return wheel, zf.read(member).decode("utf-8", "replace")

    out: dict[str, Any] = {"tool": "maint.harvest.error_codes"}
    wheel, text = read(RUNTIME, CUDA_H)
    out["curesult"] = table(wheel, CUDA_H, parse_cuda_h(text), "CUDA driver API (CUresult)")
    wheel, text = read(RUNTIME, DRIVER_TYPES_H)
    out["cudaerror"] = table(
        wheel, DRIVER_TYPES_H, parse_driver_types_h(text), "CUDA runtime API (cudaError_t)"
    )
    wheel, text = read(CUDNN, CUDNN_GRAPH_H)
    out["cudnn"] = table(wheel, CUDNN_GRAPH_H, parse_cudnn_graph_h(text), "cuDNN (cudnnStatus_t)")
    wheel, text = read(NVML, PYNVML)
    nvml = table(wheel, PYNVML, parse_pynvml(text), "NVML (nvmlReturn_t)")
    for code in nvml["codes"]:
        if code["name"].startswith("NVML_ERROR_"):
            code["python"] = nvml_class_name(code["name"])
    out["nvml"] = nvml
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m maint.harvest.error_codes", description=__doc__)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--work", type=Path, help="scratch folder (default: a temp dir)")
    p.add_argument("--pip", default=f"{shlex.quote(sys.executable)} -m pip")
    p.add_argument(
        "--wheel",
        action="append",
        default=[],
        metavar="REQ=PATH",
        help="use a wheel already downloaded for a requirement (NAME==VERSION=PATH)",
    )
    args = p.parse_args(argv)
    given = {}
    for item in args.wheel:
        requirement, _, path = item.rpartition("=")
        given[requirement] = Path(path)
    with tempfile.TemporaryDirectory(prefix="harvest-codes-", dir=args.work) as work:
        data = harvest(shlex.split(args.pip), Path(work), given)
    args.out.write_text(dumps(data), encoding="utf-8")
    counts = ", ".join(f"{k} {len(v['codes'])}" for k, v in data.items() if isinstance(v, dict))
    print(f"wrote {args.out}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "Code",
    "harvest",
    "json",
    "nvml_class_name",
    "parse_cuda_h",
    "parse_cudnn_graph_h",
    "parse_driver_types_h",
    "parse_pynvml",
]
