"""Properties of the resolver over generated machines (hypothesis)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.version import Version

from wizard.choose.gpucode import fit
from wizard.choose.knowledge import load_knowledge
from wizard.choose.resolver import normalize_driver, read_facts, recommend, required_floor
from wizard.profile import PLATFORMS, DriverInfo, GpuInfo, MachineProfile, PythonInfo

KB = load_knowledge()
GPU_NAMES = [g.name for g in KB.gpus[::3]] + ["NVIDIA Mystery GPU", "", "unknown"]
CCS = [
    "3.0",
    "3.5",
    "3.7",
    "5.0",
    "5.2",
    "6.1",
    "7.0",
    "7.5",
    "8.0",
    "8.6",
    "8.9",
    "9.0",
    "10.0",
    "12.0",
    "unknown",
    "",
    "x.y",
    "99",
]
DRIVERS = [
    "390.157",
    "450.80.02",
    "470.256.02",
    "525.60.13",
    "527.41",
    "528.33",
    "535.183.01",
    "550.90.07",
    "566.36",
    "570.124.04",
    "580.82.07",
    "32.0.15.6636",
    "unknown",
    "",
    "N/A",
    "1.2.3.4.5",
]
CUDAS = ["9.1", "11.4", "12.0", "12.2", "12.4", "12.7", "12.8", "13.0", "unknown", "", "twelve"]
PYTHONS = [f"3.{m}.1" for m in range(6, 16)] + ["unknown", "", "2.7.18", "3", "python3"]

gpu = st.builds(
    GpuInfo,
    index=st.integers(0, 7),
    name=st.sampled_from(GPU_NAMES),
    compute_capability=st.sampled_from(CCS),
)
profiles = st.builds(
    MachineProfile,
    platform=st.sampled_from([*PLATFORMS, "solaris"]),
    arch=st.sampled_from(["x86_64", "aarch64", "arm64", "AMD64", "unknown", ""]),
    python=st.builds(PythonInfo, version=st.sampled_from(PYTHONS)),
    driver=st.none() | st.builds(DriverInfo, version=st.sampled_from(DRIVERS), cuda=st.sampled_from(CUDAS)),
    gpus=st.lists(gpu, max_size=4),
    nvidia_pci_devices=st.none() | st.integers(0, 4),
)


def _ruled_out(profile: MachineProfile, rec_set: Any, step: Any = None) -> list[str]:
    """Every table that would forbid the recommended set on this machine (after its driver
    step, when it has one: the set is then judged on the driver that step installs)."""
    facts = read_facts(profile, KB)
    windows = facts.platform in ("wsl2", "windows")
    if step is not None and step.step:
        floor = Version(step.floor)
        facts = replace(facts, driver=floor, driver_cuda=KB.cuda_for_driver(floor, windows=windows))
    elif step is not None and facts.driver is not None:
        # The set's driver need reads the CUDA a driver supports from its version (a profile's own
        # CUDA figure can be wrong: 470 with "9.1"); the tables are asked the same.
        known = KB.cuda_for_driver(facts.driver, windows=windows)
        if known is not None and (facts.driver_cuda is None or known > facts.driver_cuda):
            facts = replace(facts, driver_cuda=known)
    # Native Windows' pip-and-cuda set is the one it sets up in WSL2: judged by WSL2's tables.
    platform = "wsl2" if facts.platform == "windows" and rec_set.method == "pip-and-cuda" else facts.platform
    rel = KB.release(rec_set.tensorflow)
    problems = []
    if rel is None:
        return ["release not in tensorflow.toml"]
    if Version(rec_set.python) not in rel.python:
        problems.append("python outside the release's range")
    wheel = KB.wheel(platform, facts.arch, rel)
    if wheel is None and facts.platform in ("linux", "wsl2", "wsl1", "windows", "macos"):
        problems.append("no wheel for the platform")
    if rec_set.method == "cpu":
        return problems
    if wheel is None or not wheel.gpu:
        problems.append("GPU set where the wheels are CPU-only")
    if not facts.has_gpu:
        problems.append("GPU set without a GPU")
    if rec_set.method == "pip-and-cuda" and KB.extra(rel) is None:
        problems.append("pip-and-cuda without an [and-cuda] extra")
    build = KB.build(rel)
    known = [g.cc for g in facts.gpus if g.cc is not None]
    if build and known and len(known) == len(facts.gpus):
        if not any(
            fit(cc, build.sass_archs, build.ptx, facts.driver_cuda, every_ptx=True).runs for cc in known
        ):
            problems.append("no GPU runs this build's code (machine code, or PTX with a new enough driver)")
    floor = required_floor(KB, rel, rec_set.method, platform)
    if floor is not None and facts.driver is not None and facts.driver < floor:
        problems.append(f"driver {facts.driver} below {floor}")
    return problems


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profiles)
def test_no_recommended_set_is_ruled_out_by_any_table(profile):
    rec = recommend(profile, KB)
    if rec.recommended is not None:
        assert _ruled_out(profile, rec.recommended.set, rec.recommended.driver) == []
        assert rec.recommended.ok


@settings(max_examples=150, deadline=None)
@given(profiles, st.randoms(use_true_random=False))
def test_result_does_not_depend_on_gpu_order(profile, rnd):
    before = recommend(profile, KB).to_dict()
    rnd.shuffle(profile.gpus)
    assert recommend(profile, KB).to_dict() == before


@settings(max_examples=150, deadline=None)
@given(profiles)
def test_blocked_candidates_always_say_why(profile):
    rec = recommend(profile, KB)
    for cand in rec.candidates:
        if not cand.ok:
            assert cand.reasons and all(
                isinstance(r, str) and r and "recommend." not in r for r in cand.reasons
            )


json_scalars = (
    st.none() | st.booleans() | st.integers(-5, 1000) | st.floats(allow_nan=False) | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
odd_dicts = st.fixed_dictionaries(
    {},
    optional={
        "platform": json_values | st.sampled_from(PLATFORMS),
        "arch": json_values,
        "python": json_values | st.fixed_dictionaries({"version": json_values}),
        "driver": json_values | st.fixed_dictionaries({"version": json_values, "cuda": json_values}),
        "gpus": st.lists(
            json_values | st.fixed_dictionaries({"name": json_values, "compute_capability": json_values}),
            max_size=3,
        ),
        "nvidia_pci_devices": json_values,
        "notes": st.lists(st.text(max_size=40) | st.just("PCI: NVIDIA device 10de:2684 (GeForce RTX 4090)")),
    },
)


@settings(max_examples=300, deadline=None)
@given(odd_dicts)
def test_missing_or_odd_fields_give_reasons_not_exceptions(data):
    profile = MachineProfile.from_dict(data)
    rec = recommend(profile, KB)
    assert rec.candidates
    assert all(c.ok or c.reasons for c in rec.candidates)


@given(st.text(max_size=20))
def test_normalize_driver_never_raises(text):
    normalize_driver(text)
