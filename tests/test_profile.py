"""Profiles save and load as JSON; bad input gives one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wizard.profile import DriverInfo, GpuInfo, MachineProfile, ProfileError

ISSUE_EXAMPLE = {
    "schema": 1,
    "platform": "wsl2",
    "arch": "x86_64",
    "os": {"id": "ubuntu", "version": "22.04", "kernel": "5.15.153.1-microsoft-standard-WSL2"},
    "python": {"version": "3.10.12", "executable": "/usr/bin/python3", "env": "system"},
    "driver": {"version": "535.183.01", "cuda": "12.2"},
    "gpus": [
        {"index": 0, "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6", "memory_mib": 12288}
    ],
    "cuda_toolkits": [{"version": "11.8", "path": "/usr/local/cuda-11.8"}],
    "cudnn": [{"version": "8.6.0", "path": "/usr/local/cuda-11.8/lib64/libcudnn.so.8"}],
    "tensorflow": {"version": "2.14.0"},
    "notes": ["free text: what could not be probed and why"],
}


def test_the_issue_example_loads_with_every_field() -> None:
    p = MachineProfile.from_dict(ISSUE_EXAMPLE)
    assert p.platform == "wsl2" and p.os.kernel.endswith("WSL2")
    assert p.driver == DriverInfo(version="535.183.01", cuda="12.2")
    assert p.gpus == [GpuInfo(0, "NVIDIA GeForce RTX 3060", "8.6", 12288)]
    assert p.cuda_toolkits[0].path == "/usr/local/cuda-11.8"
    assert p.tensorflow is not None and p.tensorflow.version == "2.14.0"


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    p = MachineProfile.from_dict(ISSUE_EXAMPLE)
    p.save(tmp_path / "p.json")
    assert MachineProfile.load(tmp_path / "p.json") == p
    saved = json.loads((tmp_path / "p.json").read_text())
    for key in ISSUE_EXAMPLE:
        assert key in saved


def test_unknown_fields_ignored_missing_become_unknown() -> None:
    p = MachineProfile.from_dict(
        {"schema": 1, "future_field": {"x": 1}, "gpus": [{"name": "X", "shiny": True}]}
    )
    assert p.platform == "unknown" and p.os.id == "unknown" and p.python.version == "unknown"
    assert p.driver is None and p.gpus[0].name == "X" and p.gpus[0].compute_capability == "unknown"


def test_wrong_types_fall_back_instead_of_crashing() -> None:
    p = MachineProfile.from_dict(
        {
            "gpus": [{"memory_mib": "8192", "name": 5}, "not a gpu"],
            "python": {"pip": "yes"},
            "driver": {"version": True, "cuda": 12.2},
            "notes": "not a list",
        }
    )
    assert p.gpus == [GpuInfo()]
    assert p.python.pip is None
    assert p.driver == DriverInfo()
    assert p.notes == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{oops", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"schema": 2}', "schema 2 is not supported"),
        ('{"schema": true}', "is not supported"),
    ],
)
def test_bad_profiles_are_refused_plainly(text: str, message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        MachineProfile.from_json(text)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such file"):
        MachineProfile.load(tmp_path / "nope.json")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
profile_keys = st.sampled_from(
    [
        "platform",
        "arch",
        "os",
        "python",
        "driver",
        "gpus",
        "cuda_toolkits",
        "cudnn",
        "tensorflow",
        "notes",
        "kernel",
        "libcuda",
        "resources",
        "probe_layers",
        "ld_library_path",
        "nvidia_pci_devices",
    ]
)


@given(st.dictionaries(profile_keys, json_values, max_size=8))
def test_any_json_object_loads_or_is_refused_plainly(data: dict) -> None:
    data["schema"] = 1
    p = MachineProfile.from_dict(data)
    assert MachineProfile.from_json(p.to_json()) == p
