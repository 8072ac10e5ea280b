"""The whole harvest, end to end, against a fake pip that serves tiny wheels from a folder (no network)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from maint.harvest import cli, wheelinfo
from tests.test_harvest_builders import elf, make_fatbin, make_wheel, ptx

# A stand-in for pip: the same sub-commands and options the harvester uses, answered from the
# wheels in $FAKE_PIP_WHEELS; every call is logged to $FAKE_PIP_LOG.
FAKE_PIP = r"""
import hashlib, json, os, re, shutil, sys, zipfile
from email.parser import HeaderParser
from pathlib import Path

WHEELS = Path(os.environ["FAKE_PIP_WHEELS"])
args = sys.argv[1:]
with open(os.environ["FAKE_PIP_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if args == ["--version"]:
    print("pip 99.1 from fake (python 3.11)")
    sys.exit(0)

def opt(name):
    return [args[i + 1] for i, a in enumerate(args) if a == name]

pythons, platforms = opt("--python-version"), set(opt("--platform"))
VALUED = {"--python-version", "--platform", "--target", "--report", "-d"}
positional = [a for i, a in enumerate(args) if not a.startswith("-") and args[i - 1] not in VALUED]
requirements = positional[2:] if positional[:2] == ["index", "versions"] else positional[1:]
requirement = requirements[0]

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def key(version):
    return tuple(int(x) for x in version.split("."))

def wheels(name):
    out = []
    for path in WHEELS.glob("*.whl"):
        dist, version, py, _abi, plat = path.name[:-4].split("-")
        if norm(dist) != norm(name):
            continue
        py_ok = py == "py3" or py == "cp" + pythons[0].replace(".", "")
        if py_ok and set(plat.split(".")) & platforms:
            out.append((version, path))
    return sorted(out, key=lambda vp: key(vp[0]), reverse=True)

def pick(name, pin):
    found = [p for v, p in wheels(name) if pin is None or v == pin]
    if not found:
        print(f"ERROR: No matching distribution found for {name}", file=sys.stderr)
        sys.exit(1)
    return found[0]

def metadata(path):
    with zipfile.ZipFile(path) as zf:
        (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        return HeaderParser().parsestr(zf.read(meta).decode())

def item(path, requested):
    meta = metadata(path)
    return {
        "download_info": {
            "url": "file:///fake-index/packages/" + path.name,
            "archive_info": {"hashes": {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}},
        },
        "requested": requested,
        "metadata": {
            "name": meta["Name"], "version": meta["Version"],
            "requires_python": meta.get("Requires-Python"),
            "requires_dist": meta.get_all("Requires-Dist", []),
        },
    }

m = re.match(r"^([A-Za-z0-9_.-]+)(?:\[([^\]]+)\])?(?:==(.+))?$", requirement)
name, extra, pin = m.groups()
if args[:2] == ["index", "versions"]:
    versions = sorted({v for v, _ in wheels(name)}, key=key, reverse=True)
    if not versions:
        print(f"ERROR: No matching distribution found for {name}", file=sys.stderr)
        sys.exit(1)
    print(f"{name} ({versions[0]})\nAvailable versions: {', '.join(versions)}")
elif args[0] == "download":
    shutil.copy(pick(name, pin), opt("-d")[0])
elif args[0] == "install" and "--dry-run" in args and len(requirements) > 1:
    install = []
    for req in requirements:
        dep = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:==\s*([\w.]+))?", req)
        install.append(item(pick(dep.group(1), dep.group(2)), True))
    Path(opt("--report")[0]).write_text(json.dumps({"version": "1", "install": install}))
elif args[0] == "install" and "--dry-run" in args:
    top = pick(name, pin)
    install = [item(top, True)]
    if extra and "--no-deps" not in args:
        for line in metadata(top).get_all("Requires-Dist", []):
            req, _, marker = line.partition(";")
            if extra not in marker:
                continue
            dep = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:==\s*([\w.]+))?", req)
            install.append(item(pick(dep.group(1), dep.group(2)), False))
    Path(opt("--report")[0]).write_text(json.dumps({"version": "1", "install": install}))
else:
    sys.exit(f"fake pip: unsupported {args}")
"""

TF_METADATA = """\
Metadata-Version: 2.1
Name: tensorflow
Version: {version}
Requires-Python: {requires_python}
Requires-Dist: numpy >=1.26.0
{extra}
"""

AND_CUDA = """\
Requires-Dist: nvidia-cudnn-cu12 ==9.3.0.75 ; extra == "and-cuda"
Requires-Dist: nvidia-cublas-cu12 <13,>=12.5 ; extra == "and-cuda"
Requires-Dist: nvidia-nccl-cu12 ==2.23.4 ; extra == "and-cuda"
"""

TENSORRT = """\
Requires-Dist: nvidia-nccl-cu12 ==2.23.4 ; extra == "and-cuda"
Requires-Dist: tensorrt ==8.5.3.1 ; extra == "and-cuda"
"""

BUILD_INFO = """\
import collections
build_info = collections.OrderedDict()
build_info['cuda_compute_capabilities'] = ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']
build_info['cuda_version'] = '12.5.1'
build_info['cudnn_version'] = '9'
build_info['is_cuda_build'] = True
"""


def _tf(
    folder: Path, version: str, tag: str, requires_python: str, extra: str = "", libs: bool = False
) -> Path:
    members: dict[str, bytes] = {}
    if libs:
        members[wheelinfo.BUILD_INFO_PATH] = BUILD_INFO.encode()
        members["tensorflow/libtensorflow_cc.so.2"] = b"\x7fELF" + make_fatbin(
            elf(60), elf(70), elf(80), elf(89), ptx(90, "8.3", compress=True)
        )
        members["tensorflow/libtensorflow_framework.so.2"] = b"\x7fELF" + make_fatbin(elf(80, compress=True))
    meta = TF_METADATA.format(version=version, requires_python=requires_python, extra=extra)
    return make_wheel(
        folder / f"tensorflow-{version}-{tag}.whl", meta, members, f"tensorflow-{version}.dist-info"
    )


def _nvidia(folder: Path, dist: str, version: str, archs: list[int], lib: str) -> Path:
    meta = (
        f"Metadata-Version: 2.1\nName: {dist.replace('_', '-')}\nVersion: {version}\nRequires-Python: >=3\n"
    )
    blob = b"\x7fELF" + make_fatbin(*(elf(a, compress=True) for a in archs))
    name = f"{dist}-{version}-py3-none-manylinux_2_27_x86_64.whl"
    return make_wheel(folder / name, meta, {f"nvidia/x/lib/{lib}": blob}, f"{dist}-{version}.dist-info")


# A stand-in for uv: `uv pip compile` answered from the same folder, written as pylock.toml with
# each wheel's URL (the harvest must keep only file names and sha256).
FAKE_UV = r"""
import hashlib, os, re, sys
from pathlib import Path

args = sys.argv[1:]
if args == ["--version"]:
    print("uv 99.2")
    sys.exit(0)
src = Path(args[2])
py = args[args.index("--python-version") + 1].replace(".", "")
out = Path(args[args.index("-o") + 1])
lines = [l.strip() for l in src.read_text().splitlines() if l.strip()]
name, version = lines[0].split("==")
dist = name.replace("-", "_")
files = [p for p in Path(os.environ["FAKE_PIP_WHEELS"]).glob(f"{dist}-{version}-*.whl")
         if f"-cp{py}-" in p.name and "manylinux_2_36" not in p.name]
if not files:
    print("  x No solution found when resolving dependencies", file=sys.stderr)
    sys.exit(1)
wheels = ", ".join(
    '{ url = "file:///fake-index/packages/%s", size = %d, hashes = { sha256 = "%s" } }'
    % (f.name, f.stat().st_size, hashlib.sha256(f.read_bytes()).hexdigest())
    for f in files
)
out.write_text('lock-version = "1.0"\ncreated-by = "uv"\n\n[[packages]]\nname = "%s"\nversion = "%s"\n'
               'wheels = [%s]\n' % (name, version, wheels))
"""


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    wheels = tmp_path / "index"
    wheels.mkdir()
    l17 = "manylinux_2_17_x86_64.manylinux2014_x86_64"
    _tf(wheels, "2.98.0", f"cp310-cp310-{l17}", ">=3.10", libs=True)
    # No cp310 in the newer patch; its and-cuda names tensorrt, which has no wheel.
    _tf(wheels, "2.98.1", f"cp311-cp311-{l17}", ">=3.11", TENSORRT, libs=True)
    _tf(wheels, "2.99.0", "cp311-cp311-manylinux_2_27_x86_64", ">=3.11", AND_CUDA, libs=True)
    _tf(wheels, "2.99.0", "cp312-cp312-manylinux_2_27_x86_64", ">=3.11", AND_CUDA, libs=True)
    _tf(wheels, "2.99.0", "cp312-cp312-manylinux_2_36_x86_64", ">=3.11", AND_CUDA)  # glibc too new
    stub = 'Requires-Dist: tensorflow-intel ==2.99.0 ; platform_system == "Windows"\n'
    stub += 'Requires-Dist: tensorflow-cpu-aws ==2.99.0 ; platform_machine == "aarch64"\n'
    stub += 'Requires-Dist: tensorflow-io-gcs-filesystem >=0.23.1 ; platform_system == "Windows"\n'
    _tf(wheels, "2.99.0", "cp312-cp312-win_amd64", ">=3.11", stub)
    (wheels / "tensorflow-2.97.0-cp311-cp311-manylinux_2_17_x86_64.whl").write_bytes(b"not a zip")
    _nvidia(wheels, "nvidia_cudnn_cu12", "9.3.0.75", [50, 60, 70, 75, 80, 86, 90], "libcudnn_ops.so.9")
    _nvidia(wheels, "nvidia_cudnn_cu12", "9.28.0.42", [75, 80, 86, 90, 100, 120], "libcudnn_ops.so.9")
    _nvidia(wheels, "nvidia_cublas_cu12", "12.9.3.13", [50, 90, 120], "libcublasLt.so.12")
    _nvidia(wheels, "nvidia_nccl_cu12", "2.23.4", [80], "libnccl.so.2")
    script = tmp_path / "fake_pip.py"
    script.write_text(FAKE_PIP)
    (tmp_path / "fake_uv.py").write_text(FAKE_UV)
    monkeypatch.setenv("FAKE_PIP_WHEELS", str(wheels))
    monkeypatch.setenv("FAKE_PIP_LOG", str(tmp_path / "pip.log"))
    return tmp_path


def _run(root: Path, *extra: str) -> int:
    work = root / "work"
    work.mkdir(exist_ok=True)
    return cli.main(
        [
            "--tf",
            "2.97",
            "2.98",
            "2.99",
            "--pythons",
            "3.10",
            "3.11",
            "3.12",
            "--out",
            str(root / "out" / "harvest.json"),
            "--work",
            str(work),
            "--pip",
            f"{sys.executable} {root / 'fake_pip.py'}",
            "--nvidia-extra",
            "nvidia-cudnn-cu12==9.28.0.42",
            "--uv",
            f"{sys.executable} {root / 'fake_uv.py'}",
            *extra,
        ]
    )


def _calls(root: Path) -> list[list[str]]:
    return [json.loads(line) for line in (root / "pip.log").read_text().splitlines()]


def test_harvest_end_to_end(index: Path) -> None:
    assert _run(index) == 1  # 2.97.0's wheel is broken: recorded, and the rest went on
    text = (index / "out" / "harvest.json").read_text()
    assert "://" not in text and "fake-index" not in text  # no URL survives
    data = json.loads(text)
    assert data["tool"] == "maint.harvest"
    assert data["pip"] == "99.1"
    tf = data["tensorflow"]
    assert sorted(tf) == ["2.97.0", "2.98.1", "2.99.0"]
    assert "wheel" in tf["2.97.0"]["errors"]

    old = tf["2.98.1"]
    assert old["patches"] == {"2.98.0": ["3.10"], "2.98.1": ["3.11"]}
    assert old["python_tags"] == {"3.11": "manylinux_2_17_x86_64.manylinux2014_x86_64"}
    assert old["and_cuda_requires"] == ["nvidia-nccl-cu12==2.23.4", "tensorrt==8.5.3.1"]
    assert old["pip_resolved_and_cuda"]["nvidia-nccl-cu12"]["version"] == "2.23.4"
    assert "tensorrt==8.5.3.1" in old["and_cuda_note"]

    new = tf["2.99.0"]
    assert "errors" not in new
    assert new["python_tags"] == {"3.11": "manylinux_2_27_x86_64", "3.12": "manylinux_2_27_x86_64"}
    assert new["requires_python"] == ">=3.11"
    assert new["and_cuda_requires"] == [
        "nvidia-cublas-cu12<13,>=12.5",
        "nvidia-cudnn-cu12==9.3.0.75",
        "nvidia-nccl-cu12==2.23.4",
    ]
    assert new["build_info"]["cuda_compute_capabilities"][-1] == "compute_90"
    assert new["sass"] == ["sm_60", "sm_70", "sm_80", "sm_89"]
    assert new["ptx"] == [{"arch": "compute_90", "isa": "8.3"}]
    assert sorted(new["libs"]) == ["libtensorflow_cc.so.2", "libtensorflow_framework.so.2"]
    wheel_file = index / "index" / "tensorflow-2.99.0-cp311-cp311-manylinux_2_27_x86_64.whl"
    assert new["wheel"] == {
        "file": wheel_file.name,
        "size": wheel_file.stat().st_size,
        "sha256": hashlib.sha256(wheel_file.read_bytes()).hexdigest(),
        "python": "3.11",
    }
    resolved = new["pip_resolved_and_cuda"]
    assert {k: v["version"] for k, v in resolved.items()} == {
        "nvidia-cublas-cu12": "12.9.3.13",
        "nvidia-cudnn-cu12": "9.3.0.75",
        "nvidia-nccl-cu12": "2.23.4",
    }
    assert (
        resolved["nvidia-cudnn-cu12"]["file"]
        == "nvidia_cudnn_cu12-9.3.0.75-py3-none-manylinux_2_27_x86_64.whl"
    )
    win = new["platforms"]["windows_amd64"]
    assert win["pythons"] == ["3.12"]
    assert win["delegates_to"] == ["tensorflow-intel==2.99.0"]  # not -cpu-aws: its marker is for aarch64
    assert new["platforms"]["linux_aarch64"] == {"pythons": []}

    nv = data["nvidia"]
    # NCCL is read too (its code bounds the set like cuDNN's): the 2.99.0 pin and the newest.
    assert sorted(nv) == ["nvidia-cublas-cu12", "nvidia-cudnn-cu12", "nvidia-nccl-cu12"]
    assert nv["nvidia-nccl-cu12"]["2.23.4"]["sass"] == ["sm_80"]
    assert nv["nvidia-cudnn-cu12"]["9.3.0.75"]["sass"] == [
        "sm_50",
        "sm_60",
        "sm_70",
        "sm_75",
        "sm_80",
        "sm_86",
        "sm_90",
    ]
    assert nv["nvidia-cudnn-cu12"]["9.3.0.75"]["why"] == [
        "pinned by tensorflow[and-cuda]==2.99.0",
        "resolved for tensorflow[and-cuda]==2.99.0",
    ]
    assert nv["nvidia-cudnn-cu12"]["9.28.0.42"]["libs"]["libcudnn_ops.so.9"]["sass"][0] == "sm_75"
    assert nv["nvidia-cudnn-cu12"]["9.28.0.42"]["why"] == ["named extra", "newest"]
    assert nv["nvidia-cublas-cu12"]["12.9.3.13"]["wheel"]["file"].startswith("nvidia_cublas_cu12-12.9.3.13-")
    assert list((index / "work").iterdir()) == []  # every wheel was deleted

    # The whole-environment locks (uv), beside harvest.json: file names and sha256, no URL.
    text = (index / "out" / "locks.json").read_text()
    assert "://" not in text and "fake-index" not in text
    locks = json.loads(text)
    got = locks["locks"]["tensorflow"]["2.99.0"]
    assert sorted(got) == ["3.11", "3.12"]
    entry = got["3.11"]["x86_64-manylinux_2_28"]
    assert entry["packages"]["tensorflow"] == {"version": "2.99.0", "file": wheel_file.name}
    assert entry["glibc"] == "2.27" and entry["uv"] == "99.2"
    assert locks["wheels"][wheel_file.name]["sha256"] == hashlib.sha256(wheel_file.read_bytes()).hexdigest()
    assert "tensorflow-cpu" not in locks["locks"] or not locks["locks"]["tensorflow-cpu"]  # none exists


def test_rerun_resumes_and_retries_only_errors(index: Path) -> None:
    _run(index)
    first = (index / "out" / "harvest.json").read_text()
    (index / "pip.log").unlink()
    assert _run(index) == 1
    downloads = [c[-1] for c in _calls(index) if c[0] == "download"]
    assert downloads == ["tensorflow==2.97.0"]  # the failed version again, nothing else
    again = json.loads((index / "out" / "harvest.json").read_text())
    assert again["tensorflow"]["2.99.0"] == json.loads(first)["tensorflow"]["2.99.0"]
    (index / "pip.log").unlink()
    _run(index, "--force", "--skip-nvidia")
    downloads = sorted(c[-1] for c in _calls(index) if c[0] == "download")
    assert downloads == ["tensorflow==2.97.0", "tensorflow==2.98.1", "tensorflow==2.99.0"]


def test_stages_refresh_only_what_is_named(index: Path) -> None:
    _run(index)
    (index / "pip.log").unlink()
    _run(index, "--stages", "and_cuda", "--skip-nvidia")
    calls = _calls(index)
    assert not [c for c in calls if c[0] == "download"]
    dry = sorted(c[-1] for c in calls if c[0] == "install" and "--no-deps" not in c)
    assert dry == ["nvidia-nccl-cu12==2.23.4", "tensorflow[and-cuda]==2.98.1", "tensorflow[and-cuda]==2.99.0"]
    data = json.loads((index / "out" / "harvest.json").read_text())
    assert data["tensorflow"]["2.99.0"]["sass"] == ["sm_60", "sm_70", "sm_80", "sm_89"]  # kept


def test_stages_to_run() -> None:
    every = ("python_tags", "platforms", "wheel", "and_cuda")
    assert cli.stages_to_run(None, ("and_cuda",), False) == every
    assert cli.stages_to_run({"sass": []}, every, False) == ()
    assert cli.stages_to_run({"sass": []}, every, True) == every
    assert cli.stages_to_run({"errors": {"wheel": "x"}}, every, False) == ("wheel", "and_cuda")
    assert cli.stages_to_run({"errors": {"platforms": "x"}}, ("and_cuda",), False) == ("and_cuda",)


def test_count_errors() -> None:
    data = {
        "tensorflow": {"2.1.0": {"errors": {"wheel": "x", "and_cuda": "y"}}, "2.2.0": {}},
        "nvidia": {"nvidia-cudnn-cu12": {"9.0": {"errors": {"wheel": "z"}}, "9.1": {}}},
    }
    assert cli.count_errors(data) == 3
