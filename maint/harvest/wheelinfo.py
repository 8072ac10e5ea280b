"""Read the facts a wheel carries: its file name tags, METADATA, TF's build_info.py and its libraries."""

from __future__ import annotations

import ast
import hashlib
import mmap
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from maint.harvest.fatbin import Buffer, Scan, scan

BUILD_INFO_PATH = "tensorflow/python/platform/build_info.py"
# Members up to this size are scanned in memory; bigger ones go through one temp file and mmap.
IN_MEMORY_LIMIT = 128 << 20
SHARED_LIB = re.compile(r"\.so(\.\d+)*$")


@dataclass(frozen=True)
class WheelName:
    """The parts of a wheel file name (PEP 427)."""

    distribution: str
    version: str
    python_tags: tuple[str, ...]
    abi_tags: tuple[str, ...]
    platform_tags: tuple[str, ...]

    @property
    def platform(self) -> str:
        return ".".join(self.platform_tags)

    @classmethod
    def parse(cls, filename: str) -> WheelName:
        name = Path(filename).name
        if not name.endswith(".whl"):
            raise ValueError(f"not a wheel: {name}")
        parts = name[:-4].split("-")
        if len(parts) == 6:  # build tag present
            parts = parts[:2] + parts[3:]
        if len(parts) != 5:
            raise ValueError(f"not a wheel name: {name}")
        dist, version, py, abi, plat = parts
        return cls(dist, version, tuple(py.split(".")), tuple(abi.split(".")), tuple(plat.split(".")))


@dataclass(frozen=True)
class FileFacts:
    """How a wheel is cited: by name, size and sha256, never by where it came from."""

    file: str
    size: int
    sha256: str

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "size": self.size, "sha256": self.sha256}


def file_facts(path: Path) -> FileFacts:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return FileFacts(path.name, path.stat().st_size, digest.hexdigest())


@dataclass
class Metadata:
    name: str
    version: str
    requires_python: str | None
    requires_dist: list[str] = field(default_factory=list)


def parse_metadata(text: str) -> Metadata:
    msg = HeaderParser().parsestr(text)
    return Metadata(
        name=str(msg.get("Name", "")),
        version=str(msg.get("Version", "")),
        requires_python=msg.get("Requires-Python"),
        requires_dist=[str(v) for v in msg.get_all("Requires-Dist", [])],
    )


def read_metadata(zf: zipfile.ZipFile) -> Metadata:
    names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
    if len(names) != 1:
        raise ValueError(f"expected one .dist-info/METADATA, found {names}")
    return parse_metadata(zf.read(names[0]).decode("utf-8", "replace"))


def extra_requires(requires_dist: list[str], extra: str = "and-cuda") -> list[str]:
    """The requirements of one extra; the marker is dropped when it names nothing but the extra."""
    spelled = "[-_]".join(re.escape(part) for part in re.split(r"[-_]", extra))
    only = re.compile(rf"""\(?\s*extra\s*==\s*["']{spelled}["']\s*\)?""")
    out = []
    for line in requires_dist:
        req, _, marker = line.partition(";")
        if not only.search(marker):
            continue
        out.append(_plain(req) if only.fullmatch(marker.strip()) else line.strip())
    return sorted(out)


def _plain(requirement: str) -> str:
    """'nvidia-cudnn-cu11 (==8.7.0.84)' (older METADATA) and 'x ==1' both become 'name==1'."""
    try:
        return str(Requirement(requirement))
    except InvalidRequirement:
        return requirement.replace(" ", "")


def exact_pin(line: str) -> tuple[str, str] | None:
    """(name, version) when a requirement pins exactly one version with ==, else None."""
    try:
        req = Requirement(line)
    except InvalidRequirement:
        return None
    pins = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    return (req.name, pins[0]) if len(pins) == 1 else None


def parse_build_info(source: str) -> dict[str, object]:
    """Values of TF's build_info.py, read with ast (never executed).

    Seen forms: ``build_info = {...}``, ``build_info = collections.OrderedDict()`` followed by
    ``build_info['key'] = value``, and module-level ``is_cuda_build = True`` style constants.
    """
    info: dict[str, object] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and target.id == "build_info":
            info.update(_literal_mapping(value))
        elif (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and target.value.id == "build_info"
        ):
            key = _literal(target.slice)
            if isinstance(key, str):
                info[key] = _literal(value)
        elif isinstance(target, ast.Name) and not target.id.startswith("_"):
            literal = _literal(value)
            if literal is not _UNREADABLE:
                info.setdefault(target.id, literal)
    return {k: v for k, v in info.items() if v is not _UNREADABLE}


_UNREADABLE = object()


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREADABLE


def _literal_mapping(node: ast.expr) -> dict[str, object]:
    value = _literal(node)
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    # collections.OrderedDict([...]) / dict([...]) with a literal argument
    if isinstance(node, ast.Call) and node.args:
        arg = _literal(node.args[0])
        if isinstance(arg, list | tuple):
            return {str(k): v for k, v in arg}
        if isinstance(arg, dict):
            return {str(k): v for k, v in arg.items()}
    return {}


def read_build_info(zf: zipfile.ZipFile) -> dict[str, object] | None:
    try:
        raw = zf.read(BUILD_INFO_PATH)
    except KeyError:
        return None
    return parse_build_info(raw.decode("utf-8", "replace"))


@contextmanager
def member_buffer(zf: zipfile.ZipFile, info: zipfile.ZipInfo, workdir: Path) -> Iterator[Buffer]:
    """A member's bytes without extracting the wheel: in memory, or one spooled temp file + mmap."""
    if info.file_size <= IN_MEMORY_LIMIT:
        yield zf.read(info)
        return
    with tempfile.NamedTemporaryFile(dir=workdir, prefix="member-", suffix=".so") as tmp:
        with zf.open(info) as src:
            shutil.copyfileobj(src, tmp, 16 << 20)
        tmp.flush()
        with mmap.mmap(tmp.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            yield mm


def is_shared_library(name: str) -> bool:
    return bool(SHARED_LIB.search(name))


def scan_wheel_libraries(
    wheel: Path,
    workdir: Path,
    select: Callable[[str], bool] = is_shared_library,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Scan]:
    """Scan the selected members; the key is the member's base name (e.g. libcudnn_ops.so.9)."""
    results: dict[str, Scan] = {}
    with zipfile.ZipFile(wheel) as zf:
        for info in sorted(zf.infolist(), key=lambda i: i.filename):
            if info.is_dir() or not select(info.filename):
                continue
            if progress and info.file_size > IN_MEMORY_LIMIT:
                progress(f"scanning {info.filename} ({info.file_size >> 20} MiB)")
            with member_buffer(zf, info, workdir) as buf:
                found = scan(buf)
            key = _unique_key(results, info.filename)
            results[key] = found
    return results


def _unique_key(results: dict[str, Scan], member: str) -> str:
    base = member.rsplit("/", 1)[-1]
    return base if base not in results else member
