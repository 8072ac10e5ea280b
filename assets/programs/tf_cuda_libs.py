"""tf-gpu-wizard: does every CUDA library TensorFlow opens load from the environment? (used by
tf_gpu_check.py, beside it; standard library only, Python 3.7+).

TensorFlow opens cuDNN, cuBLAS, cuSOLVER, ... by name, and a library's own dependencies (cuSOLVER
needs libnvJitLink) are found through that library's RUNPATH; when one is missing TensorFlow names
only the library it asked for ("Could not load dynamic library 'libcusolver.so.11'"), and the
RUNPATH of libtensorflow_framework.so.2 does not name every folder (2.22.0rc0: no curand,
nvjitlink, nvrtc or nvshmem). So each library the plan installed is found in the environment
(site-packages/nvidia/<package>/lib), loaded by its path with its dependencies, and the file that
fails is named, with the folders the loader searched for it. Then every copy of those libraries
mapped into this process (/proc/self/maps) must be the environment's: a copy from elsewhere
(LD_LIBRARY_PATH, /usr/local/cuda) that TensorFlow loaded first is named too.

Which libraries: those of the nvidia-* wheels the installed TensorFlow asks for (its METADATA's
Requires-Dist with extra == "and-cuda"); a wheel it asks for and the environment lacks is named.
An environment with no such wheels (a CPU build, CUDA from the system or conda) has none to prove.
"""

import ctypes
import os
import re
import struct
import sys

_MISSING = re.compile(r"(?P<name>[^\s:/]+\.so[0-9.]*): cannot open shared object file")
DT_RPATH, DT_RUNPATH = 15, 29
DEFAULT_DIRS = ("/lib", "/usr/lib", "/lib64", "/usr/lib64")
# The libraries TensorFlow opens from each nvidia-* wheel (site-packages/nvidia/<folder>/lib),
# dependencies first (libcusolver and libcusparse need libnvJitLink, libcublas needs libcublasLt):
# a library already loaded satisfies them, as it does inside TensorFlow. nvidia-cuda-nvcc brings
# ptxas, a program, and nvidia-cuda-cccl headers: nothing TensorFlow opens.
PACKAGE_LIBS = (
    ("nvidia-cuda-runtime", ("cuda_runtime/libcudart",)),
    ("nvidia-nvjitlink", ("nvjitlink/libnvJitLink",)),
    ("nvidia-cuda-nvrtc", ("cuda_nvrtc/libnvrtc",)),
    ("nvidia-cublas", ("cublas/libcublasLt", "cublas/libcublas")),
    ("nvidia-cudnn", ("cudnn/libcudnn",)),
    ("nvidia-cufft", ("cufft/libcufft",)),
    ("nvidia-curand", ("curand/libcurand",)),
    ("nvidia-cusparse", ("cusparse/libcusparse",)),
    ("nvidia-cusolver", ("cusolver/libcusolver",)),
    ("nvidia-nccl", ("nccl/libnccl",)),
    ("nvidia-cuda-cupti", ("cuda_cupti/libcupti",)),
    ("nvidia-nvshmem", ("nvshmem/libnvshmem_host",)),
)
_CU = re.compile(r"-cu[0-9]+$")


class LibFailed(Exception):
    def __init__(self, library, message, looked):
        super().__init__(message)
        self.library = library
        self.message = message
        self.looked = looked


def site_dirs():
    """The environment's site-packages folders (where the nvidia-* wheels unpack)."""
    prefix = os.path.realpath(sys.prefix)
    out = []
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if real.startswith(prefix + os.sep) and os.path.basename(real) in ("site-packages", "dist-packages"):
            if real not in out:
                out.append(real)
    return out


def _canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def installed(sites):
    """{canonical name: [Requires-Dist lines]} of the distributions in these site-packages."""
    out = {}
    for site in sites:
        try:
            entries = os.listdir(site)
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith(".dist-info"):
                continue
            try:
                with open(os.path.join(site, entry, "METADATA"), encoding="utf-8", errors="replace") as f:
                    head = f.read().split("\n\n", 1)[0]
            except OSError:
                continue
            name = re.search(r"^Name:\s*(\S+)", head, re.M)
            if name:
                out[_canonical(name.group(1))] = re.findall(r"^Requires-Dist:\s*(.+)$", head, re.M)
    return out


def environment_libs(sites):
    """(["cusolver/libcusolver", ...], [a wheel TensorFlow asks for that is not installed, ...])."""
    dists = installed(sites)
    asked = []
    for dist in ("tensorflow", "tensorflow-gpu", "tf-nightly"):
        for req in dists.get(dist, []):
            if re.search(r"extra\s*==\s*[\"']and-cuda[\"']", req):
                asked.append(_canonical(re.split(r"[\s<>=!~;(\[]", req.strip(), maxsplit=1)[0]))
    have = set(dists)
    missing = [name for name in asked if name not in have]
    present = {_CU.sub("", name) for name in have if name.startswith("nvidia-")}
    wanted = {_CU.sub("", name) for name in asked} or present
    libs = [
        lib for package, found in PACKAGE_LIBS if package in wanted and package in present for lib in found
    ]
    return libs, missing


def soname_file(folder, stem):
    """The library `stem` (libcusolver) in `folder` by its soname-style file name (libcusolver.so.11)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    pattern = re.compile(re.escape(stem) + r"\.so(\.[0-9]+)*$")
    found = sorted((n for n in names if pattern.match(n)), key=lambda n: (n.count("."), n))
    # libfoo.so.12 before libfoo.so.12.5.1 and before the unversioned libfoo.so (a dev link)
    versioned = [n for n in found if not n.endswith(".so")]
    best = versioned or found
    return os.path.join(folder, best[0]) if best else None


def runpath(path):
    """The RUNPATH (else RPATH) folders of an ELF file, $ORIGIN expanded; [] when it has none or is
    not a 64-bit little-endian ELF file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(shnum):
        base = shoff + i * shentsize
        if base + 64 > len(data):
            return []
        (sh_type,) = struct.unpack_from("<I", data, base + 4)
        offset, size = struct.unpack_from("<QQ", data, base + 0x18)
        (link,) = struct.unpack_from("<I", data, base + 0x28)
        sections.append((sh_type, offset, size, link))
    for sh_type, offset, size, link in sections:
        if sh_type != 6 or link >= len(sections):  # SHT_DYNAMIC, with its string table
            continue
        strtab = sections[link]
        values = {}
        for pos in range(offset, offset + size, 16):
            tag, val = struct.unpack_from("<qQ", data, pos)
            if tag == 0:
                break
            if tag in (DT_RPATH, DT_RUNPATH):
                values[tag] = val
        chosen = values.get(DT_RUNPATH, values.get(DT_RPATH))
        if chosen is None:
            return []
        start = strtab[1] + chosen
        text = data[start : data.index(b"\0", start)].decode("utf-8", "replace")
        origin = os.path.dirname(os.path.abspath(path))
        return [
            os.path.normpath(p.replace("$ORIGIN", origin).replace("${ORIGIN}", origin))
            for p in text.split(":")
            if p
        ]
    return []


def loader_dirs(path):
    """Where the loader looks for a dependency of the library at `path`: LD_LIBRARY_PATH, its
    RUNPATH, then the system's folders."""
    env = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    return env + runpath(path) + ["the system's library cache (ldconfig)"] + list(DEFAULT_DIRS)


def mapped():
    """The real paths of the files mapped into this process (/proc/self/maps; none elsewhere)."""
    out = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    out.add(os.path.realpath(parts[5].strip()))
    except OSError:
        return set()
    return out


def probe(libs, emit):
    """`libs`: ["cusolver/libcusolver", ...] (the nvidia package folder and the library), or None:
    those of the installed nvidia-* wheels TensorFlow asks for. Loads each from the environment;
    raises LibFailed naming the first that does not load (or a wheel that is not installed), and
    where it looked."""
    sites = site_dirs()
    if libs is None:
        libs, missing = environment_libs(sites)
        if missing:
            raise LibFailed(
                missing[0],
                f"{missing[0]} is not installed: TensorFlow asks for it (and-cuda)",
                sites,
            )
    loaded = []
    for item in libs:
        sub, _, stem = item.partition("/")
        folders = [os.path.join(s, "nvidia", sub, "lib") for s in sites]
        path = next((p for p in (soname_file(d, stem) for d in folders) if p), None)
        if path is None:
            raise LibFailed(
                stem + ".so",
                f"{stem}.so is not in the environment (its nvidia package is missing or incomplete)",
                folders,
            )
        try:
            ctypes.CDLL(path)
        except OSError as exc:
            text = str(exc)
            dep = _MISSING.search(text)
            if dep and dep.group("name") != os.path.basename(path):
                looked = loader_dirs(path)
                raise LibFailed(
                    dep.group("name"),
                    "{} does not load: it needs {}, which the loader did not find".format(
                        os.path.basename(path), dep.group("name")
                    ),
                    looked,
                ) from None
            raise LibFailed(
                os.path.basename(path),
                f"{os.path.basename(path)} does not load: {text.strip()[:300]}",
                [path],
            ) from None
        loaded.append(path)
        emit(
            "lib",
            f"{os.path.basename(path)} loads from {path}",
            name=os.path.basename(path),
            path=path,
            ok=True,
        )
    # Every copy in this process must be the environment's (one TensorFlow loaded first included).
    maps = mapped()
    for path in loaded:
        name = os.path.basename(path)
        own = os.path.realpath(path)
        same = re.compile(re.escape(name.split(".so")[0]) + r"\.so(\.[0-9]+)*$")
        others = sorted(p for p in maps if p != own and same.match(os.path.basename(p)))
        if others:
            raise LibFailed(
                name,
                f"{name} is also loaded from {others[0]}, not the environment's {path}",
                [others[0]],
            )
    return loaded
