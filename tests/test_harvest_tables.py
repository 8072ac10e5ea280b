"""Every hand-written table against the facts read from the wheels (assets/knowledge/harvest.json).

The harvest (`python -m maint.harvest`) reads each TensorFlow wheel's build_info, METADATA,
cp and manylinux tags and the GPU code in its shared libraries, and the nvidia-* wheels'
GPU code. A row of tensorflow.toml, compute.toml or and_cuda.toml that says something else
fails here, naming the row and the wheel.
"""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from wizard.choose.harvest import Arch, canonical, load_harvest
from wizard.choose.knowledge import load_knowledge

KB = load_knowledge()
HARVEST = load_harvest()
RELEASES = [r for r in KB.releases]


def harvested(version: Version):
    tf = HARVEST.release(version)
    assert tf is not None, f"harvest.json has no tensorflow {version}: run python -m maint.harvest"
    return tf


def test_the_harvest_is_there_and_dated():
    assert HARVEST.date and HARVEST.date[:2] == "20"
    assert {r.version for r in RELEASES} <= set(HARVEST.tensorflow)


@pytest.mark.parametrize("rel", RELEASES, ids=lambda r: str(r.version))
def test_release_is_the_newest_patch(rel):
    tf = harvested(rel.version)
    patches = [Version(p) for p in tf.patches]
    assert patches and max(patches) == rel.version, f"{rel.series}: newest patch is {max(patches)}"


@pytest.mark.parametrize("rel", RELEASES, ids=lambda r: str(r.version))
def test_python_range_is_the_cp_tags_that_exist(rel):
    tf = harvested(rel.version)
    assert rel.pythons() == tf.pythons(), f"tensorflow.toml {rel.version}: python {rel.python}"


@pytest.mark.parametrize("rel", RELEASES, ids=lambda r: str(r.version))
def test_glibc_is_the_manylinux_tag(rel):
    assert rel.glibc == harvested(rel.version).glibc()


@pytest.mark.parametrize("rel", RELEASES, ids=lambda r: str(r.version))
def test_cuda_and_cudnn_major_are_the_build_info(rel):
    tf = harvested(rel.version)
    built = Version(str(tf.cuda_version))
    assert (rel.cuda.major, rel.cuda.minor) == (built.major, built.minor)
    assert rel.cudnn.major == Version(str(tf.cudnn_version)).major


@pytest.mark.parametrize("rel", RELEASES, ids=lambda r: str(r.version))
def test_compute_row_is_the_build_info_and_the_fatbins(rel):
    tf = harvested(rel.version)
    build = KB.build(rel)
    assert build is not None
    assert build.label() == ",".join(tf.compute_capabilities), f"compute.toml for {rel.version}"
    archs = {p.arch for p in tf.code.ptx}
    assert {p.arch for p in build.ptx} == archs, f"compute.toml {rel.version}: PTX archs"
    for ptx in build.ptx:
        assert ptx.isa == tf.ptx_isa(ptx.arch), f"compute.toml {rel.version}: {ptx.arch.label(True)} ISA"
    # Every arch build_info names as machine code is really in the libraries.
    for sass in build.sass:
        assert Arch(sass) in tf.code.sass


@pytest.mark.parametrize("rel", RELEASES, ids=lambda r: str(r.version))
def test_and_cuda_row_is_the_wheel_metadata(rel):
    tf = harvested(rel.version)
    extra = KB.extra(rel)
    wheel_lines = {
        canonical(Requirement(line).name): Requirement(line).specifier
        for line in tf.and_cuda_requires
        if not canonical(Requirement(line).name).startswith("tensorrt")
    }
    if extra is None:
        assert wheel_lines == {}
        return
    table = {canonical(r.name): r.specifier for r in extra.requires}
    assert table == wheel_lines, f"and_cuda.toml {rel.series}"


@pytest.mark.parametrize("rel", [r for r in RELEASES if r.version >= Version("2.15")], ids=str)
def test_every_pinned_wheel_of_the_tested_set_has_a_hash(rel):
    from wizard.choose.wheelset import tested_set

    wset = tested_set(KB, rel)
    assert wset is not None
    missing = [f"{n}=={v}" for n, v in wset.pins if not HARVEST.wheel_files(n, v)]
    assert missing == [], f"TF {rel.series}: no sha256 in the harvest for {missing}"
    assert HARVEST.wheel_files("tensorflow", str(rel.version))


def test_the_issue_facts_hold_in_the_harvest():
    """The measurements the issue was filed on, read again from the wheels."""
    sass = {str(r.version): ",".join(harvested(r.version).compute_capabilities) for r in RELEASES}
    assert sass["2.15.1"] == "sm_50,sm_60,sm_70,sm_75,compute_80"
    assert sass["2.16.2"] == "sm_50,sm_60,sm_70,sm_80,compute_90"
    assert sass["2.17.1"] == sass["2.21.0"] == "sm_60,sm_70,sm_80,sm_89,compute_90"
    assert harvested(Version("2.21.0")).glibc() == Version("2.27")
    assert "3.7" not in harvested(Version("2.11.1")).python_tags
    assert "3.7" in harvested(Version("2.10.1")).python_tags
    ptx90 = Arch(Version("9.0"))
    assert harvested(Version("2.16.2")).ptx_isa(ptx90) == Version("8.1")
    assert harvested(Version("2.18.1")).ptx_isa(ptx90) == Version("8.3")
    resolved = harvested(Version("2.21.0")).resolved
    assert resolved["nvidia-cudnn-cu12"].version == "9.28.0.42"
    assert resolved["nvidia-cuda-runtime-cu12"].version == "12.9.79"
