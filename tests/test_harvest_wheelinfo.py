"""Wheel reading on tiny wheels the tests build: METADATA, build_info.py, tags, library scans."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from maint.harvest import wheelinfo
from tests.test_harvest_builders import elf, make_fatbin, make_wheel, ptx

METADATA = """\
Metadata-Version: 2.1
Name: tensorflow
Version: 2.99.0
Summary: TensorFlow is an open source machine learning framework for everyone.
Requires-Python: >=3.10
Requires-Dist: absl-py >=1.0.0
Requires-Dist: numpy <2.2.0,>=1.26.0
Requires-Dist: nvidia-cublas-cu12 ==12.3.4.1 ; extra == "and-cuda"
Requires-Dist: nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == 'and-cuda'
Requires-Dist: nvidia-cuda-nvcc-cu11 (==11.8.89) ; extra == "and-cuda"
Requires-Dist: nvidia-nccl-cu12 ==2.23.4 ; (platform_system == "Linux") and extra == "and-cuda"
Requires-Dist: tensorflow-io-gcs-filesystem >=0.23.1 ; python_version < "3.12"
Requires-Dist: tensorrt ==8.6.1 ; extra == "tensorrt"

TensorFlow long description that mentions extra == "and-cuda" in prose.
"""

BUILD_INFO_ORDERED = """\
# this file is generated
import collections

build_info = collections.OrderedDict()
build_info['cpu_compiler'] = '/usr/lib/llvm-17/bin/clang'
build_info['cuda_compute_capabilities'] = ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']
build_info['cuda_version'] = '12.3'
build_info['cudnn_version'] = '8'
build_info['is_cuda_build'] = True
build_info['is_rocm_build'] = False
build_info['computed'] = compute_something()
raise SystemExit("build_info.py must never be executed by the harvester")
"""

BUILD_INFO_DICT = """\
is_rocm_build = False
is_cuda_build = True
cuda_version_number = '11.2'
build_info = {'cuda_version': '64_112', 'cudnn_version': '64_8', 'msvcp_dll_names': 'msvcp140.dll'}
"""

BUILD_INFO_CALL = """\
import collections
build_info = collections.OrderedDict([('cuda_version', '11.2'), ('cuda_compute_capabilities', ['sm_35', 'compute_80'])])
"""


def test_wheel_name_tags() -> None:
    name = wheelinfo.WheelName.parse(
        "tensorflow-2.11.0-cp37-cp37m-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    )
    assert name.distribution == "tensorflow"
    assert name.version == "2.11.0"
    assert name.python_tags == ("cp37",)
    assert name.abi_tags == ("cp37m",)
    assert name.platform == "manylinux_2_17_x86_64.manylinux2014_x86_64"
    built = wheelinfo.WheelName.parse("/x/nvidia_cudnn_cu12-9.3.0.75-1-py3-none-manylinux_2_27_x86_64.whl")
    assert (built.version, built.platform) == ("9.3.0.75", "manylinux_2_27_x86_64")
    with pytest.raises(ValueError):
        wheelinfo.WheelName.parse("tensorflow-2.11.0.tar.gz")


def test_metadata_requires_python_and_the_and_cuda_lines(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "t.whl", METADATA, {})
    with zipfile.ZipFile(wheel) as zf:
        meta = wheelinfo.read_metadata(zf)
    assert (meta.name, meta.version, meta.requires_python) == ("tensorflow", "2.99.0", ">=3.10")
    assert len(meta.requires_dist) == 8
    assert wheelinfo.extra_requires(meta.requires_dist, "and-cuda") == [
        "nvidia-cublas-cu12==12.3.4.1",
        "nvidia-cuda-nvcc-cu11==11.8.89",  # the older "(==...)" spelling, made plain
        "nvidia-cudnn-cu12<10.0,>=9.3.0.75",
        # another condition besides the extra: the whole line is kept
        'nvidia-nccl-cu12 ==2.23.4 ; (platform_system == "Linux") and extra == "and-cuda"',
    ]
    assert wheelinfo.extra_requires(meta.requires_dist, "tensorrt") == ["tensorrt==8.6.1"]
    assert wheelinfo.extra_requires(meta.requires_dist, "nothing") == []


def test_metadata_must_be_unique(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "t.whl", METADATA, {"other-1.0.dist-info/METADATA": b"Name: other\n"})
    with zipfile.ZipFile(wheel) as zf, pytest.raises(ValueError):
        wheelinfo.read_metadata(zf)


def test_build_info_subscript_form_is_read_without_running_it(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "t.whl", METADATA, {wheelinfo.BUILD_INFO_PATH: BUILD_INFO_ORDERED.encode()})
    with zipfile.ZipFile(wheel) as zf:
        info = wheelinfo.read_build_info(zf)
    assert info == {
        "cpu_compiler": "/usr/lib/llvm-17/bin/clang",
        "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"],
        "cuda_version": "12.3",
        "cudnn_version": "8",
        "is_cuda_build": True,
        "is_rocm_build": False,
    }


def test_build_info_dict_and_call_forms() -> None:
    assert wheelinfo.parse_build_info(BUILD_INFO_DICT) == {
        "cuda_version": "64_112",
        "cudnn_version": "64_8",
        "msvcp_dll_names": "msvcp140.dll",
        "is_rocm_build": False,
        "is_cuda_build": True,
        "cuda_version_number": "11.2",
    }
    assert wheelinfo.parse_build_info(BUILD_INFO_CALL) == {
        "cuda_version": "11.2",
        "cuda_compute_capabilities": ["sm_35", "compute_80"],
    }


def test_missing_build_info_is_none(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "t.whl", METADATA, {})
    with zipfile.ZipFile(wheel) as zf:
        assert wheelinfo.read_build_info(zf) is None


def test_file_facts_size_and_sha256(tmp_path: Path) -> None:
    path = tmp_path / "x-1.0-py3-none-any.whl"
    path.write_bytes(b"wheel bytes" * 1000)
    facts = wheelinfo.file_facts(path)
    assert facts.to_json() == {
        "file": "x-1.0-py3-none-any.whl",
        "size": 11000,
        "sha256": hashlib.sha256(b"wheel bytes" * 1000).hexdigest(),
    }


def _lib_wheel(tmp_path: Path) -> Path:
    members = {
        "tensorflow/libtensorflow_cc.so.2": b"\x7fELF"
        + make_fatbin(elf(60), elf(80), ptx(90, "8.3", compress=True)),
        "tensorflow/python/_pywrap_tensorflow_internal.so": b"\x7fELF"
        + make_fatbin(elf(75, compress=True), ptx(80, "8.1"))
        + b"\0.version 4.2\n.target sm_30\n",
        "tensorflow/libtensorflow_framework.so.2": b"\x7fELF no device code here",
        # Not a shared library: must not be scanned even though it holds a fatbin.
        "tensorflow/include/blob.h": make_fatbin(elf(35)),
        "tensorflow/compiler/xla/libfoo.so.2.1": make_fatbin(elf(52)),
    }
    return make_wheel(tmp_path / "tensorflow-2.99.0-cp311-cp311-manylinux_2_27_x86_64.whl", METADATA, members)


def _check_scans(scans: dict[str, wheelinfo.Scan]) -> None:
    assert sorted(scans) == [
        "_pywrap_tensorflow_internal.so",
        "libfoo.so.2.1",
        "libtensorflow_cc.so.2",
        "libtensorflow_framework.so.2",
    ]
    assert dict(scans["libtensorflow_cc.so.2"].sass) == {"sm_60": 1, "sm_80": 1}
    assert dict(scans["libtensorflow_cc.so.2"].ptx) == {("compute_90", "8.3"): 1}
    assert dict(scans["_pywrap_tensorflow_internal.so"].sass) == {"sm_75": 1}
    assert dict(scans["_pywrap_tensorflow_internal.so"].ptx_text) == {("compute_30", "4.2"): 1}
    assert dict(scans["libfoo.so.2.1"].sass) == {"sm_52": 1}
    assert scans["libtensorflow_framework.so.2"].empty


def test_scan_wheel_libraries_in_memory(tmp_path: Path) -> None:
    _check_scans(wheelinfo.scan_wheel_libraries(_lib_wheel(tmp_path), tmp_path))


def test_scan_wheel_libraries_through_a_spooled_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wheelinfo, "IN_MEMORY_LIMIT", 0)  # every member takes the temp file + mmap path
    seen: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    _check_scans(wheelinfo.scan_wheel_libraries(_lib_wheel(tmp_path), work, progress=seen.append))
    assert len(seen) == 4
    assert list(work.iterdir()) == []  # the spooled member is gone


def test_shared_library_names() -> None:
    assert wheelinfo.is_shared_library("nvidia/cudnn/lib/libcudnn_ops.so.9")
    assert wheelinfo.is_shared_library("tensorflow/python/_pywrap_tfe.so")
    assert not wheelinfo.is_shared_library("tensorflow/python/ops/gen_array_ops.py")
    assert not wheelinfo.is_shared_library("nvidia/cudnn/include/cudnn.so.h")
