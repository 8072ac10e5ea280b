"""pip report reading, URL stripping, version picking and the nvidia plan (no network)."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from maint.harvest import nvidia, resolve, tensorflow
from maint.harvest.context import Context, pick_python
from maint.harvest.store import Store, dumps
from tests.test_harvest_builders import make_wheel

REPORT = {
    "version": "1",
    "pip_version": "26.3",
    "install": [
        {
            "download_info": {
                "url": "https://mirror.invalid/packages/ab/cd/nvidia_cudnn_cu12-9.3.0.75-py3-none-manylinux_2_27_x86_64.whl",
                "archive_info": {"hash": "sha256=" + "a" * 64, "hashes": {"sha256": "a" * 64}},
            },
            "requested": False,
            "metadata": {"name": "nvidia_cudnn_cu12", "version": "9.3.0.75", "requires_python": ">=3"},
        },
        {
            "download_info": {
                "url": "file:///opt/wheels/tensorflow-2.18.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                "archive_info": {"hash": "sha256=" + "b" * 64},
            },
            "requested": True,
            "metadata": {
                "name": "tensorflow",
                "version": "2.18.1",
                "requires_dist": ['nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"'],
            },
        },
    ],
}


def test_read_report_keeps_file_names_and_hashes_only() -> None:
    cudnn, tf = resolve.read_report(REPORT)
    assert (cudnn.name, cudnn.version, cudnn.sha256) == ("nvidia-cudnn-cu12", "9.3.0.75", "a" * 64)
    assert cudnn.file == "nvidia_cudnn_cu12-9.3.0.75-py3-none-manylinux_2_27_x86_64.whl"
    assert tf.requested and tf.sha256 == "b" * 64  # from the older "hash" field
    assert tf.file == "tensorflow-2.18.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    assert tf.requires_dist == ('nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',)
    assert "://" not in dumps(cudnn.to_json())
    with pytest.raises(resolve.PipError):
        resolve.read_report({"version": "2", "install": []})


def test_strip_urls_leaves_only_the_file_name() -> None:
    text = "Looking in indexes: https://user:pw@mirror.invalid/simple, file:///opt/index/simple\n"
    text += (
        "Downloading https://x.invalid/a/b/tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl (572 MB)"
    )
    out = resolve.strip_urls(text)
    assert "://" not in out and "mirror" not in out and "user" not in out
    assert "<tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl>" in out
    assert "<simple>" in out


def test_manylinux_platforms_cover_every_glibc_up_to_the_host() -> None:
    tags = resolve.manylinux_platforms("x86_64", 35)
    assert tags[0] == "manylinux_2_35_x86_64"
    assert tags[-1] == "manylinux1_x86_64"
    for expected in (
        "manylinux_2_27_x86_64",
        "manylinux_2_25_x86_64",
        "manylinux2014_x86_64",
        "manylinux2010_x86_64",
    ):
        assert expected in tags
    assert "manylinux_2_36_x86_64" not in tags
    arm = resolve.manylinux_platforms("aarch64", 35)
    assert "manylinux2014_aarch64" in arm and "manylinux2010_aarch64" not in arm


def test_parse_index_versions() -> None:
    text = "tensorflow (2.21.0)\nAvailable versions: 2.21.0, 2.20.0, 2.19.1\n  INSTALLED: 2.18.0\n"
    assert resolve.parse_index_versions(text) == ["2.21.0", "2.20.0", "2.19.1"]
    assert resolve.parse_index_versions("WARNING: nothing\n") == []


def _script_pip(tmp_path: Path, body: str) -> resolve.Pip:
    script = tmp_path / "pip.py"
    script.write_text("import sys\n" + body)
    return resolve.Pip((sys.executable, str(script)), fast_deps=True)


def test_dry_run_no_match_is_none_and_other_failures_raise_without_urls(tmp_path: Path) -> None:
    pip = _script_pip(
        tmp_path,
        "if 'tensorflow==9.9' in sys.argv:\n"
        "    sys.exit('ERROR: Could not find a version that satisfies the requirement tensorflow==9.9')\n"
        "sys.exit('ERROR: HTTP error 503 while getting https://mirror.invalid/x/tensorflow-2.1.whl')\n",
    )
    assert resolve.dry_run(pip, "tensorflow==9.9", "3.11", ["manylinux_2_27_x86_64"]) is None
    with pytest.raises(resolve.PipError) as caught:
        resolve.dry_run(pip, "tensorflow==2.1", "3.11", ["manylinux_2_27_x86_64"])
    assert "503" in str(caught.value) and "://" not in str(caught.value)


def test_dry_run_passes_the_target_options(tmp_path: Path) -> None:
    pip = _script_pip(
        tmp_path,
        "import json\n"
        "args = sys.argv[1:]\n"
        "open(args[args.index('--report') + 1], 'w').write(json.dumps({'version': '1', 'install': [{\n"
        "  'download_info': {'url': 'file:///w/x-1.0-py3-none-any.whl', 'archive_info': {}},\n"
        "  'requested': True, 'metadata': {'name': 'x', 'version': '1.0', 'requires_dist': args}}]}))\n",
    )
    (got,) = resolve.dry_run(pip, "x==1.0", "3.9", ["manylinux_2_17_x86_64", "manylinux2014_x86_64"]) or []
    args = list(got.requires_dist)
    assert args[:2] == ["install", "--dry-run"] and args[-1] == "x==1.0"
    assert args[args.index("--python-version") + 1] == "3.9"
    assert [args[i + 1] for i, a in enumerate(args) if a == "--platform"] == [
        "manylinux_2_17_x86_64",
        "manylinux2014_x86_64",
    ]
    assert {"--only-binary=:all:", "--no-deps", "--ignore-installed", "--use-feature=fast-deps"} <= set(args)
    assert got.sha256 is None


def test_newest_patch_of_each_minor() -> None:
    versions = [
        "2.9.3",
        "2.10.0",
        "2.10.1",
        "2.15.0",
        "2.15.0.post1",
        "2.15.1",
        "2.16.0rc0",
        "2.16.1",
        "2.22.0rc1",
    ]
    assert tensorflow.newest_patches(versions, None) == {
        "2.10": "2.10.1",
        "2.15": "2.15.1",
        "2.16": "2.16.1",
        "2.22": "2.22.0rc1",  # no 2.22 final yet: its newest pre-release, a preview
    }
    assert tensorflow.newest_patches([*versions, "2.22.0rc0", "2.22.0"], ["2.22"]) == {"2.22": "2.22.0"}
    assert tensorflow.newest_patches(versions, ["2.15", "2.9"]) == {"2.9": "2.9.3", "2.15": "2.15.1"}
    assert tensorflow.newest_patches(["2.15.0", "2.15.0.post1"], None) == {"2.15": "2.15.0.post1"}


def test_pick_python_prefers_311_else_the_newest() -> None:
    assert pick_python(["3.9", "3.10", "3.11", "3.12"]) == "3.11"
    assert pick_python(["3.7", "3.8", "3.9", "3.10"]) == "3.10"


def test_store_done_and_deterministic_output(tmp_path: Path) -> None:
    store = Store.load(tmp_path / "h.json")
    store.tensorflow["2.21.0"] = {"sass": ["sm_60"], "b": 1, "a": 2}
    store.tensorflow["2.20.0"] = {"errors": {"wheel": "boom"}}
    store.save()
    again = Store.load(tmp_path / "h.json")
    assert again.done("tensorflow", "2.21.0")
    assert not again.done("tensorflow", "2.20.0")  # errors are retried
    assert not again.done("tensorflow", "2.19.1")
    first = (tmp_path / "h.json").read_text()
    again.save()
    assert (tmp_path / "h.json").read_text() == first
    assert first.index('"a"') < first.index('"b"')


def test_nvidia_plan_from_pins_resolutions_and_extras(tmp_path: Path) -> None:
    store = Store.load(tmp_path / "h.json")
    store.tensorflow["2.18.1"] = {
        "and_cuda_requires": [
            "nvidia-cudnn-cu12==9.3.0.75",
            "nvidia-nvshmem-cu12==3.2.5",
            "nvidia-cublas-cu12>=12",
        ],
        "pip_resolved_and_cuda": {
            "nvidia-cudnn-cu12": {"version": "9.3.0.75"},
            "nvidia-cublas-cu12": {"version": "12.5.3.2"},
            "nvidia-nvshmem-cu12": {"version": "3.2.5"},
        },
    }
    ctx = Context(pip=resolve.Pip(("false",)), store=store, workdir=tmp_path)
    wanted = nvidia.plan(ctx, ["nvidia-cudnn-cu12==9.10.2.21"], newest=False, every_package=False)
    assert wanted == {
        ("nvidia-cudnn-cu12", "9.3.0.75"): {
            "pinned by tensorflow[and-cuda]==2.18.1",
            "resolved for tensorflow[and-cuda]==2.18.1",
        },
        ("nvidia-cublas-cu12", "12.5.3.2"): {"resolved for tensorflow[and-cuda]==2.18.1"},
        ("nvidia-cudnn-cu12", "9.10.2.21"): {"named extra"},
    }
    everything = nvidia.plan(ctx, [], newest=False, every_package=True)
    assert ("nvidia-nvshmem-cu12", "3.2.5") in everything
    with pytest.raises(ValueError):
        nvidia.plan(ctx, ["nvidia-cudnn-cu12>=9"], newest=False, every_package=False)


FAKE_PTXAS = """#!/bin/sh
case "$1" in
  --version) echo "Cuda compilation tools, release 12.3, V12.3.107";;
  --help) echo "--gpu-name <gpu name> (-arch)"
          echo "  Allowed values for this option:  'compute_50','compute_90a','sm_50','sm_52',"
          echo "        'sm_90','sm_90a'."
          echo "--maxrregcount <N>   Allowed values for this option: 'sm_999'";;
  *) echo "ptxas probe.ptx, line 1; fatal   : Unsupported .version 99.9; current version is '8.3'" >&2; exit 255;;
esac
"""


@pytest.mark.skipif(platform.system() != "Linux" or platform.machine() != "x86_64", reason="runs ptxas")
def test_ptxas_facts_come_from_the_wheels_own_ptxas(tmp_path: Path) -> None:
    wheel = make_wheel(
        tmp_path / "nvidia_cuda_nvcc_cu12-12.3.107-py3-none-manylinux_2_17_x86_64.whl",
        "Name: nvidia-cuda-nvcc-cu12\nVersion: 12.3.107\n",
        {"nvidia/cuda_nvcc/bin/ptxas": FAKE_PTXAS.encode()},
        "nvidia_cuda_nvcc_cu12-12.3.107.dist-info",
    )
    assert nvidia.ptxas_facts(wheel, tmp_path) == {
        "release": "12.3",
        "version": "12.3.107",
        "ptx_isa": "8.3",
        "sm_targets": ["sm_50", "sm_52", "sm_90", "sm_90a"],
    }
    plain = make_wheel(tmp_path / "x.whl", "Name: x\n", {})
    assert "error" in nvidia.ptxas_facts(plain, tmp_path)
