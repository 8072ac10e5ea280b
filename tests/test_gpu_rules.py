"""The rules read from the wheels: machine code, PTX and the driver, library architectures
bounding the nvidia wheels, Python from the cp tags, glibc from the manylinux tag.

Each test names the numbers a student would check; the facts come from the harvest
(assets/knowledge/harvest.json), not from this file.
"""

from __future__ import annotations

import copy

import pytest
from packaging.version import Version

from wizard.choose.gpucode import NONE, PTX, PTX_DRIVER_TOO_OLD, PTX_DRIVER_UNKNOWN, SASS, fit
from wizard.choose.harvest import Arch, Ptx, isa_cuda, load_harvest, manylinux_glibc
from wizard.choose.knowledge import TABLES, build_knowledge, load_knowledge, read_table
from wizard.choose.resolver import glibc_version, recommend
from wizard.choose.wheelset import GpuTarget, choose_set, problems, resolved_set
from wizard.choose.wheelset import tested_set as pins_tested
from wizard.profile import DriverInfo, GpuInfo, MachineProfile, OsInfo, PythonInfo

KB = load_knowledge()
V = Version


def sm(text: str) -> Arch:
    arch = Arch.parse(text)
    assert arch is not None
    return arch


def ptx(arch: str, isa: str) -> Ptx:
    return Ptx(sm(arch), V(isa))


# ---- machine code and PTX --------------------------------------------------------------


@pytest.mark.parametrize(
    ("cc", "built", "runs"),
    [
        ("8.6", ["sm_80"], True),  # same major, higher minor
        ("8.0", ["sm_86"], False),  # lower minor: no
        ("9.0", ["sm_80", "sm_89"], False),  # another major: no
        ("6.1", ["sm_60"], True),
        ("9.0", ["sm_90a"], True),  # arch-specific: that GPU only
        ("10.0", ["sm_90a"], False),
        ("12.0", ["sm_120f"], True),  # family-specific: its major
        ("10.0", ["sm_120f"], False),
    ],
)
def test_machine_code_runs_on_the_same_major_with_an_equal_or_higher_minor(cc, built, runs):
    got = fit(V(cc), [sm(a) for a in built], [], V("13.0"))
    assert (got.kind == SASS) is runs


@pytest.mark.parametrize(
    ("isa", "cuda"), [("7.0", "11.0"), ("7.8", "11.8"), ("8.1", "12.1"), ("8.3", "12.3"), ("8.8", "12.8")]
)
def test_ptx_isa_maps_to_its_cuda(isa, cuda):
    assert isa_cuda(V(isa)) == V(cuda)


def test_ptx_runs_on_a_newer_gpu_only_with_a_driver_as_new_as_its_isa():
    code = [ptx("compute_90", "8.3")]
    on_535 = fit(V("9.0"), [], code, V("12.2"))
    assert on_535.kind == PTX_DRIVER_TOO_OLD and on_535.needs_cuda == V("12.3") and on_535.isa == V("8.3")
    assert fit(V("9.0"), [], code, V("12.3")).kind == PTX
    assert fit(V("12.0"), [], code, V("12.8")).kind == PTX
    assert fit(V("8.9"), [], code, V("13.0")).kind == NONE  # PTX runs only on newer GPUs
    assert fit(V("9.0"), [], code, None).kind == PTX_DRIVER_UNKNOWN


def test_the_newest_isa_of_the_ptx_that_applies_counts():
    code = [ptx("compute_90", "8.3"), ptx("compute_90a", "8.5")]
    assert fit(V("9.0"), [], code, V("12.4")).needs_cuda == V("12.5")
    # Arch-specific PTX for 9.0 is not what a 12.0 GPU compiles; with every_ptx it cannot run.
    assert fit(V("12.0"), [], code, V("12.8")).needs_cuda == V("12.3")
    partial = fit(V("12.0"), [], code, V("12.8"), every_ptx=True)
    assert partial.kind == NONE and partial.missing == "compute_90a"


# ---- what the harvested wheels mean for real GPUs ---------------------------------------


def best(profile: MachineProfile):
    rec = recommend(profile)
    assert rec.recommended is not None
    return rec, rec.recommended


def linux(gpu: tuple[str, str], driver: str, cuda: str, python: str = "3.10.12", glibc: str = "2.35"):
    return MachineProfile(
        platform="linux",
        arch="x86_64",
        os=OsInfo(id="ubuntu", version="22.04", glibc=glibc),
        python=PythonInfo(version=python),
        driver=DriverInfo(version=driver, cuda=cuda),
        gpus=[GpuInfo(index=0, name=gpu[0], compute_capability=gpu[1])],
        nvidia_pci_devices=1,
    )


def test_maxwell_gets_2_16_the_last_release_with_sm_50():
    _, cand = best(linux(("NVIDIA GeForce GTX 960M", "5.0"), "535.183.01", "12.2"))
    assert cand.set.tensorflow == "2.16.2"
    assert (cand.set.cuda, cand.set.cudnn) == ("12.3", "8.9")


def test_h100_on_535_gets_a_set_its_driver_can_compile_and_the_driver_hint():
    rec, cand = best(linux(("NVIDIA H100 80GB HBM3", "9.0"), "535.183.01", "12.2"))
    assert cand.set.tensorflow == "2.16.2"  # compute_90 at PTX ISA 8.1 = CUDA 12.1 <= 12.2
    hint = rec.unlock_hint or ""
    assert "NVIDIA driver 555.42.02 or newer" in hint and "TF 2.21" in hint
    blocked = next(
        c for c in rec.candidates if c.set.tensorflow == "2.17.1" and c.set.method == "pip-and-cuda"
    )
    # Blocked only by the driver: it fits after a driver step, and says which driver and why.
    assert blocked.ok and blocked.driver is not None and blocked.driver.step
    assert blocked.driver.floor == "545.23.06" and blocked.driver.basis == "ptx"
    assert blocked.driver.basis_cuda == "12.3"
    assert "a driver for CUDA 12.3: 545.23.06 or newer on Linux" in blocked.reasons[0]


def test_cudnn_9_28_has_no_code_for_pascal_and_volta_but_9_10_and_9_3_do():
    harvest = load_harvest()
    for version, reaches in (("9.28.0.42", False), ("9.10.2.21", True), ("9.3.0.75", True)):
        pkg = harvest.package("nvidia-cudnn-cu12", version)
        assert pkg is not None, version
        for cc in ("6.0", "6.1", "7.0"):
            libs = {
                lib: fit(V(cc), code.sass, code.ptx, V("13.0")).kind
                for lib, code in pkg.libs.items()
                if not code.empty
            }
            assert (all(kind == SASS for kind in libs.values())) is reaches, (version, cc, libs)
    ops = harvest.package("nvidia-cudnn-cu12", "9.28.0.42").libs["libcudnn_ops.so.9"]
    assert min(a.cc for a in ops.sass) == V("7.5")


@pytest.mark.parametrize("gpu", [("NVIDIA GeForce GTX 1060 6GB", "6.1"), ("Tesla V100-SXM2-16GB", "7.0")])
@pytest.mark.parametrize("series", ["2.20", "2.21"])
def test_pascal_and_volta_get_a_cudnn_with_their_code(series, gpu):
    rec = recommend(linux(gpu, "580.95.05", "13.0", python="3.11.2"), tf=series)
    cand = rec.recommended
    assert cand is not None and cand.set.method == "pip-and-cuda"
    cudnn = next(p for p in cand.pins if p.startswith("nvidia-cudnn-cu12=="))
    assert cudnn == "nvidia-cudnn-cu12==9.3.0.75" and cand.set.cudnn == "9.3"
    # pip's own resolution (cuDNN 9.28) is refused for this GPU, with the numbers.
    rel = KB.release(series)
    found = problems(KB, resolved_set(KB, rel), [GpuTarget(gpu[0], V(gpu[1]))], V("13.0"))
    text = next(p.text for p in found if p.name == "nvidia-cudnn-cu12")
    assert (
        "nvidia-cudnn-cu12 9.28.0.42" in text and "sm_75" in text and f"compute capability {gpu[1]}" in text
    )


def test_a_set_whose_cudnn_misses_the_gpu_is_bounded_to_the_newest_cudnn_that_has_it():
    """If the tested pins floated (here: 2.19's table row pinning cuDNN 9.28), the library's
    architectures bound the version: the newest harvested cuDNN with Pascal code is 9.10.2.21."""
    raw = {name: copy.deepcopy(read_table(name)) for name in TABLES}
    row = next(r for r in raw["and_cuda"]["extra"] if r["tensorflow"] == "2.19")
    row["requires"] = [
        "nvidia-cudnn-cu12==9.28.0.42" if r.startswith("nvidia-cudnn") else r for r in row["requires"]
    ]
    kb = build_knowledge(raw, load_harvest())
    rel = kb.release("2.21")
    assert dict(pins_tested(kb, rel).pins)["nvidia-cudnn-cu12"] == "9.28.0.42"
    choice = choose_set(kb, rel, [GpuTarget("GTX 1060", V("6.1"))], V("13.0"))
    assert choice.blockers == []
    assert dict(choice.wset.pins)["nvidia-cudnn-cu12"] == "9.10.2.21"
    # A Turing GPU has code in 9.28: it keeps the set as it is.
    keep = choose_set(kb, rel, [GpuTarget("RTX 2080", V("7.5"))], V("13.0"))
    assert dict(keep.wset.pins)["nvidia-cudnn-cu12"] == "9.28.0.42"


def test_blackwell_gets_2_21_with_the_wheels_that_have_its_code_and_the_reports():
    rec, cand = best(linux(("NVIDIA GeForce RTX 5090", "12.0"), "570.124.04", "12.8", python="3.12.3"))
    assert cand.set.tensorflow == "2.21.0"
    assert (cand.set.cuda, cand.set.cudnn) == ("12.9", "9.28")
    assert "nvidia-cudnn-cu12==9.28.0.42" in cand.pins
    said = " ".join(cand.reasons)
    for evidence in ("#99592", "#101746", "#97387", "#90291", "CUDA_ERROR_INVALID_PTX", "best choice"):
        assert evidence in said
    old = next(c for c in rec.candidates if c.set.tensorflow == "2.20.0" and c.set.method == "pip-and-cuda")
    assert not old.ok and any("only compute_90a PTX" in r for r in old.reasons)


def test_shown_versions_are_the_pinned_wheels():
    for name in ("ubuntu-22.04-rtx3090-cuda11.8", "ubuntu-24.04-rtx5090", "debian-12-gtx1060-laptop"):
        from wizard.demo import load_demo

        cand = recommend(load_demo(name)).recommended
        pins = dict(p.split("==") for p in cand.pins)
        runtime = V(pins["nvidia-cuda-runtime-cu12"])
        cudnn = V(pins["nvidia-cudnn-cu12"])
        assert cand.set.cuda == f"{runtime.major}.{runtime.minor}"
        assert cand.set.cudnn == f"{cudnn.major}.{cudnn.minor}"


# ---- Python from the cp tags, glibc from the manylinux tag --------------------------------


def test_python_3_7_never_gets_2_11_1():
    rec = recommend(MachineProfile(platform="linux", arch="x86_64", python=PythonInfo(version="3.7.17")))
    for cand in rec.candidates:
        if cand.set.tensorflow == "2.11.1":
            assert cand.set.python != "3.7"
    forced = recommend(
        MachineProfile(platform="linux", arch="x86_64", python=PythonInfo(version="3.7.17")),
        tf="2.11",
        python="3.7",
    )
    assert forced.recommended is None
    assert any(
        "Python 3.7 is not supported by TF 2.11 (3.8-3.10)" in r for c in forced.candidates for r in c.reasons
    )
    kept = recommend(
        MachineProfile(platform="linux", arch="x86_64", python=PythonInfo(version="3.7.17")), tf="2.10"
    )
    assert kept.recommended.set.python == "3.7"


@pytest.mark.parametrize(
    ("tag", "glibc"),
    [
        ("manylinux_2_27_x86_64", "2.27"),
        ("manylinux_2_17_x86_64.manylinux2014_x86_64", "2.17"),
        ("manylinux2010_x86_64", "2.12"),
        ("win_amd64", None),
    ],
)
def test_manylinux_tags_name_their_glibc(tag, glibc):
    got = manylinux_glibc(tag)
    assert (str(got) if got else None) == glibc


@pytest.mark.parametrize(
    ("text", "want"), [("2.35", "2.35"), ("glibc 2.39", "2.39"), ("unknown", None), ("", None)]
)
def test_glibc_versions_are_read_forgivingly(text, want):
    got = glibc_version(text)
    assert (str(got) if got else None) == want


def test_glibc_older_than_the_wheel_blocks_2_21_only():
    rec = recommend(linux(("NVIDIA GeForce RTX 3090", "8.6"), "550.90.07", "12.4", glibc="2.26"))
    assert rec.recommended.set.tensorflow == "2.20.0"
    refused = [c for c in rec.candidates if c.set.tensorflow == "2.21.0"]
    assert refused and all(not c.ok for c in refused)
    assert all(any("glibc >= 2.27, this system has glibc 2.26" in r for r in c.reasons) for c in refused)
