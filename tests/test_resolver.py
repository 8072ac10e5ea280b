"""The resolver, table-driven: what a student would check on each kind of machine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from wizard.choose.choice import Recommendation
from wizard.choose.resolver import (
    conda_packages,
    normalize_driver,
    pip_requirements,
    recommend,
    required_driver,
)
from wizard.profile import DriverInfo, GpuInfo, MachineProfile, OsInfo, PythonInfo

RTX4090 = ("NVIDIA GeForce RTX 4090", "8.9")
RTX3090 = ("NVIDIA GeForce RTX 3090", "8.6")
RTX3060 = ("NVIDIA GeForce RTX 3060", "8.6")
RTX3070 = ("NVIDIA GeForce RTX 3070", "8.6")
RTX4060L = ("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9")
RTX5090 = ("NVIDIA GeForce RTX 5090", "12.0")
GTX1080 = ("NVIDIA GeForce GTX 1080", "6.1")
GTX970 = ("NVIDIA GeForce GTX 970", "5.2")
GTX680 = ("NVIDIA GeForce GTX 680", "3.0")
K80 = ("Tesla K80", "3.7")
V100 = ("Tesla V100-SXM2-16GB", "7.0")
T4 = ("Tesla T4", "7.5")
A100 = ("NVIDIA A100-SXM4-80GB", "8.0")
H100 = ("NVIDIA H100 80GB HBM3", "9.0")
GH200 = ("NVIDIA GH200 480GB", "9.0")


def machine(
    platform: str = "linux",
    python: str = "3.12.3",
    driver: str | None = None,
    cuda: str | None = None,
    gpus: tuple[tuple[str, str], ...] = (),
    arch: str = "x86_64",
    pci: int | None = None,
    glibc: str = "unknown",
) -> MachineProfile:
    return MachineProfile(
        platform=platform,
        arch=arch,
        os=OsInfo(id="ubuntu", version="22.04", glibc=glibc),
        python=PythonInfo(version=python),
        driver=DriverInfo(version=driver, cuda=cuda or "unknown") if driver else None,
        gpus=[GpuInfo(index=i, name=n, compute_capability=cc) for i, (n, cc) in enumerate(gpus)],
        nvidia_pci_devices=pci if pci is not None else (len(gpus) if platform == "linux" else None),
    )


@dataclass
class Case:
    id: str
    profile: MachineProfile
    tf: str | None  # expected recommended release line, None: nothing fits
    method: str | None = None
    python: str | None = None
    says: tuple[str, ...] = ()  # substrings of the recommended candidate's reasons
    hint: tuple[str, ...] = ()  # substrings of the unlock hint
    elsewhere: dict[tuple[str, str], str] = field(default_factory=dict)  # (tf, method) -> a reason substring
    constraints: tuple[str, ...] | None = None
    pins: tuple[str, ...] = ()  # == pins the recommended set must carry
    kwargs: dict[str, Any] = field(default_factory=dict)
    # (tf, method) -> driver floor: fits with a driver step (blocked only by the driver)
    stepped: dict[tuple[str, str], str] = field(default_factory=dict)


CASES = [
    Case(
        "linux-4090-580",
        machine(driver="580.65.06", cuda="13.0", gpus=(RTX4090,)),
        "2.21",
        "pip-and-cuda",
        "3.12",
        constraints=(),
    ),
    Case(
        "linux-3060-535",
        machine(python="3.10.12", driver="535.183.01", cuda="12.2", gpus=(RTX3060,)),
        "2.21",
        "pip-and-cuda",
        "3.10",
        says=("pip installs ptxas 12.5", "supports CUDA up to 12.2"),
        constraints=(),
        pins=("nvidia-cuda-nvcc-cu12==12.5.82", "nvidia-cudnn-cu12==9.3.0.75"),
        stepped={("2.21", "system-cuda"): "555.42.02"},
    ),
    Case(
        "linux-1080-470-py38",
        machine(python="3.8.10", driver="470.256.02", cuda="11.4", gpus=(GTX1080,)),
        "2.14",
        "pip-and-cuda",
        "3.9",
        says=("uses Python 3.9: TF 2.14 supports 3.9-3.11, not your Python 3.8",),
        # Native Linux on a working driver: 2.14 stays recommended, 2.21 is one key away.
        hint=("TF 2.21 is one key away", "NVIDIA driver 525.60.13 or newer"),
        stepped={("2.21", "pip-and-cuda"): "525.60.13"},
    ),
    Case(
        "linux-680-470",
        machine(python="3.10.12", driver="470.256.02", cuda="11.4", gpus=(GTX680,)),
        "2.21",
        "cpu",
        "3.10",
        hint=("GeForce GTX 680 has compute capability 3.0; TF 2.21 wheels need >= 6.0",),
        elsewhere={
            ("2.10", "conda"): "GeForce GTX 680 has compute capability 3.0; TF 2.10 wheels need >= 3.5"
        },
    ),
    Case(
        "linux-k80-470",
        machine(python="3.10.12", driver="470.256.02", cuda="11.4", gpus=(K80,)),
        "2.14",
        "pip-and-cuda",
        "3.10",
        elsewhere={
            ("2.15", "pip-and-cuda"): "Tesla K80 has compute capability 3.7; TF 2.15 wheels need >= 5.0"
        },
    ),
    Case(
        "linux-970-535",
        machine(python="3.11.4", driver="535.54.03", cuda="12.2", gpus=(GTX970,)),
        "2.16",  # the 2.17 wheel has no sm_50 (its build_info: sm_60,sm_70,sm_80,sm_89,compute_90)
        "pip-and-cuda",
        "3.11",
        says=("pip installs ptxas 12.3",),
        pins=("nvidia-cudnn-cu12==8.9.7.29",),
        elsewhere={
            (
                "2.21",
                "pip-and-cuda",
            ): "GeForce GTX 970 has compute capability 5.2; TF 2.21 wheels need >= 6.0",
            (
                "2.17",
                "pip-and-cuda",
            ): "GeForce GTX 970 has compute capability 5.2; TF 2.17 wheels need >= 6.0",
        },
    ),
    Case(
        "linux-1080-580",
        machine(python="3.11.9", driver="580.82.07", cuda="13.0", gpus=(GTX1080,)),
        "2.21",
        "pip-and-cuda",
        "3.11",
    ),
    Case(
        "linux-v100-550",
        machine(python="3.12.3", driver="550.90.07", cuda="12.4", gpus=(V100,)),
        "2.21",
        "pip-and-cuda",
        "3.12",
        constraints=(),
        pins=("nvidia-cudnn-cu12==9.3.0.75",),
    ),
    Case(
        "linux-t4-525",
        machine(python="3.10.12", driver="525.147.05", cuda="12.0", gpus=(T4,)),
        "2.21",
        "pip-and-cuda",
        "3.10",
    ),
    Case(
        "linux-3090-525-floor",
        machine(python="3.10.12", driver="525.60.13", cuda="12.0", gpus=(RTX3090,)),
        "2.21",
        "pip-and-cuda",
    ),
    Case(
        "linux-a100-570",
        machine(python="3.11.10", driver="570.124.06", cuda="12.8", gpus=(A100, A100)),
        "2.21",
        "pip-and-cuda",
        "3.11",
        constraints=(),
    ),
    Case(
        # 2.19-2.21 carry PTX ISA 8.5 for compute_90(a): CUDA 12.5, more than driver 550's 12.4.
        "linux-h100-550",
        machine(python="3.12.3", driver="550.54.15", cuda="12.4", gpus=(H100,)),
        "2.18",
        "pip-and-cuda",
        "3.12",
        hint=("TF 2.21 is one key away", "NVIDIA driver 555.42.02 or newer", "PTX"),
        stepped={("2.19", "pip-and-cuda"): "555.42.02"},
    ),
    Case(
        "linux-h100-535",
        machine(python="3.10.12", driver="535.183.01", cuda="12.2", gpus=(H100,)),
        "2.16",
        "pip-and-cuda",
        "3.10",
        says=("compute_90, compute_90a, PTX ISA 8.1",),
        hint=("NVIDIA driver 555.42.02 or newer",),
        stepped={("2.17", "pip-and-cuda"): "545.23.06", ("2.21", "conda"): "555.42.02"},
    ),
    Case(
        "linux-960m-535-maxwell",
        machine(
            python="3.10.12", driver="535.183.01", cuda="12.2", gpus=(("NVIDIA GeForce GTX 960M", "5.0"),)
        ),
        "2.16",
        "pip-and-cuda",
        "3.10",
        elsewhere={("2.17", "pip-and-cuda"): "compute capability 5.0; TF 2.17 wheels need >= 6.0"},
    ),
    Case(
        "linux-1060-580-pascal",
        machine(
            python="3.11.2", driver="580.95.05", cuda="13.0", gpus=(("NVIDIA GeForce GTX 1060 6GB", "6.1"),)
        ),
        "2.21",
        "pip-and-cuda",
        "3.11",
        pins=("nvidia-cudnn-cu12==9.3.0.75", "nvidia-cublas-cu12==12.5.3.2"),
    ),
    Case(
        "linux-glibc-2.23",
        machine(python="3.10.12", driver="550.90.07", cuda="12.4", gpus=(RTX3090,), glibc="2.23"),
        "2.20",
        "pip-and-cuda",
        elsewhere={
            ("2.21", "pip-and-cuda"): "TF 2.21 Linux wheels are manylinux_2_27: they need glibc >= 2.27, "
            "this system has glibc 2.23",
            ("2.21", "cpu"): "need glibc >= 2.27",
        },
    ),
    Case("linux-glibc-2.27", machine(python="3.10.12", glibc="2.27"), "2.21", "cpu"),
    Case(
        "linux-5090-570",
        machine(python="3.12.3", driver="570.124.04", cuda="12.8", gpus=(RTX5090,)),
        "2.21",
        "pip-and-cuda",
        "3.12",
        says=("compute capability 12.0", "compute_90", "reported to fail", "#101746"),
        constraints=(),
        # The tested 12.5 set reaches 12.0 only through PTX; pip's 12.9 set has sm_120 code.
        pins=(
            "nvidia-cuda-nvcc-cu12==12.9.86",
            "nvidia-cudnn-cu12==9.28.0.42",
            "nvidia-cublas-cu12==12.9.3.13",
        ),
        elsewhere={
            ("2.20", "pip-and-cuda"): "some of their kernels carry only compute_90a PTX",
            ("2.16", "pip-and-cuda"): "some of their kernels carry only compute_90a PTX",
        },
    ),
    Case(
        "linux-4090-no-driver",
        machine(driver=None, gpus=(), pci=1),
        "2.21",
        "pip-and-cuda",
        "3.12",
        says=("driver >= 525.60.13",),
    ),
    Case(
        "linux-1080-390",
        machine(python="3.10.12", driver="390.157", cuda="9.1", gpus=(GTX1080,)),
        # No GPU set runs on 390: the GPU set with its driver step, never CPU in silence.
        "2.21",
        "pip-and-cuda",
        "3.10",
        says=("driver step first", "from 525.60.13 on", "yours is 390.157"),
    ),
    Case(
        "linux-mixed-680-3090",
        machine(python="3.11.4", driver="550.90.07", cuda="12.4", gpus=(GTX680, RTX3090)),
        "2.21",
        "pip-and-cuda",
        says=("GeForce GTX 680 (compute capability 3.0) will not be used",),
    ),
    Case(
        "linux-aarch64-gh200",
        machine(python="3.12.3", driver="550.90.07", cuda="12.4", gpus=(GH200,), arch="aarch64"),
        "2.21",
        "cpu",
        # tensorflow-2.21.0-cp312-cp312-manylinux_2_27_aarch64.whl's build_info.py: is_cuda_build False
        elsewhere={
            ("2.21", "pip-and-cuda"): "CPU-only wheels: TF 2.21 for linux on aarch64 has no GPU build"
        },
    ),
    Case(
        "wsl2-4060-566",
        machine(platform="wsl2", python="3.10.12", driver="566.36", cuda="12.7", gpus=(RTX4060L,)),
        "2.21",
        "pip-and-cuda",
        "3.10",
        constraints=(),
    ),
    Case(
        "wsl2-below-wsl-floor",
        machine(platform="wsl2", python="3.10.12", driver="527.41", cuda="12.0", gpus=(RTX3060,)),
        # WSL2: a Windows driver update is a short step; the newest set with it is the better deal.
        "2.21",
        "pip-and-cuda",
        says=(
            "TF 2.21 uses CUDA 12.5; on Windows a CUDA 12.0 driver runs it from 528.33 on",
            "yours is 527.41: update the Windows driver",
        ),
        stepped={("2.21", "pip-and-cuda"): "528.33"},
    ),
    Case(
        "wsl2-no-gpu-visible",
        machine(platform="wsl2", python="3.10.12"),
        "2.21",
        "cpu",
        hint=("install or update the NVIDIA driver on Windows",),
    ),
    Case(
        "wsl1",
        machine(platform="wsl1", python="3.10.12"),
        "2.21",
        "cpu",
        "3.10",
        hint=("wsl --set-version",),
        elsewhere={("2.21", "pip-and-cuda"): "WSL1 has no GPU access"},
    ),
    # Native Windows tells one story: the newest TF in WSL2 (its Ubuntu's Python 3.12, on the
    # Windows driver), native 2.10 the alternative (see tests/test_windows_story.py).
    Case(
        "windows-3070-py312",
        machine(platform="windows", python="3.12.8", driver="566.36", cuda="12.7", gpus=(RTX3070,)),
        "2.21",
        "pip-and-cuda",
        "3.12",
        says=("through WSL2: the plan installs WSL2 (Ubuntu)",),
        elsewhere={("2.21", "conda"): "GPU support on native Windows ended with TF 2.10: use WSL2"},
    ),
    Case(
        "windows-3070-py310",
        machine(platform="windows", python="3.10.11", driver="566.36", cuda="12.7", gpus=(RTX3070,)),
        "2.21",
        "pip-and-cuda",
        "3.12",
    ),
    Case(
        "windows-3070-conda-asked",
        machine(platform="windows", python="3.12.8", driver="566.36", cuda="12.7", gpus=(RTX3070,)),
        "2.10",
        "conda",
        "3.10",
        says=("uses Python 3.10: TF 2.10 supports 3.7-3.10, not your Python 3.12",),
        kwargs={"prefer_method": "conda"},
    ),
    Case("windows-no-gpu", machine(platform="windows", python="3.12.8"), "2.21", "cpu", "3.12"),
    Case(
        "macos-arm64",
        machine(platform="macos", arch="arm64", python="3.12.7"),
        "2.21",
        "cpu",
        "3.12",
        hint=("macOS has no CUDA",),
        elsewhere={("2.21", "pip-and-cuda"): "macOS has no CUDA"},
    ),
    Case(
        "macos-x86",
        machine(platform="macos", arch="x86_64", python="3.11.9"),
        "2.16",
        "cpu",
        "3.11",
        elsewhere={("2.21", "cpu"): "publishes no wheel for macos on x86_64"},
    ),
    Case(
        "no-gpu-py314",
        machine(python="3.14.0"),
        "2.21",
        "cpu",
        "3.13",
        says=("uses Python 3.13: TF 2.21 supports 3.10-3.13, not your Python 3.14",),
    ),
    # CPU sets too: the newest TensorFlow, with a Python beside an old system one (Debian 10: 3.7).
    Case("no-gpu-py37", machine(python="3.7.3", glibc="2.28"), "2.21", "cpu", "3.10"),
    Case("no-gpu-py38", machine(python="3.8.10"), "2.21", "cpu", "3.10"),
    Case("no-gpu-py39", machine(python="3.9.18"), "2.21", "cpu", "3.10"),
    Case("no-gpu-py313", machine(python="3.13.1"), "2.21", "cpu", "3.13"),
    Case(
        "python-unknown",
        machine(python="unknown", driver="550.90.07", cuda="12.4", gpus=(RTX3090,)),
        "2.21",
        "pip-and-cuda",
        "3.13",
        says=("current Python is unknown",),
    ),
    Case(
        "prefer-conda",
        machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)),
        "2.21",
        "conda",
        kwargs={"prefer_method": "conda"},
    ),
    Case(
        "tf-2.15",
        machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)),
        "2.15",
        "pip-and-cuda",
        "3.11",
        says=("uses Python 3.11: TF 2.15 supports 3.9-3.11, not your Python 3.12",),
        kwargs={"tf": "2.15"},
    ),
    Case(
        "tf-2.15-python-3.13",
        machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)),
        None,
        elsewhere={("2.15", "pip-and-cuda"): "Python 3.13 is not supported by TF 2.15 (3.9-3.11)"},
        kwargs={"tf": "2.15", "python": "3.13"},
    ),
]


def _find(rec: Recommendation, series: str, method: str):
    for c in rec.candidates:
        if c.set.tensorflow.startswith(series + ".") and c.set.method == method:
            return c
    raise AssertionError(f"no candidate {series} {method}")


def test_enough_cases():
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_recommendation(case: Case):
    rec = recommend(case.profile, **case.kwargs)
    best = rec.recommended
    if case.tf is None:
        assert best is None
    else:
        assert best is not None, [c.reasons for c in rec.candidates[:4]]
        assert best.set.tensorflow.startswith(case.tf + "."), best.set
        if case.method:
            assert best.set.method == case.method, best
        if case.python:
            assert best.set.python == case.python
        for text in case.says:
            assert any(text in r for r in best.reasons), best.reasons
        if case.constraints is not None:
            assert tuple(best.constraints) == case.constraints
            assert len(best.constraint_reasons) == len(best.constraints)
        for pin in case.pins:
            assert pin in best.pins, best.pins
    for text in case.hint:
        assert rec.unlock_hint and text in rec.unlock_hint, rec.unlock_hint
    for (series, method), floor in case.stepped.items():
        cand = _find(rec, series, method)
        assert cand.ok and cand.driver_step, cand
        assert cand.driver is not None and cand.driver.floor == floor, cand.driver
    for (series, method), text in case.elsewhere.items():
        cand = _find(rec, series, method)
        assert not cand.ok
        assert any(text in r for r in cand.reasons), cand.reasons


def test_every_release_times_every_method_is_a_candidate():
    rec = recommend(machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)))
    assert len(rec.candidates) == 12 * 4
    assert [c.rank for c in rec.candidates] == list(range(48))
    assert rec.candidates[0] is rec.recommended


def test_gpu_sets_carry_cuda_and_cpu_sets_do_not():
    rec = recommend(machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)))
    for c in rec.candidates:
        assert (c.set.cuda is None) == (c.set.method == "cpu")


def test_json_shape_matches_the_issue():
    data = recommend(machine(driver="570.124.04", cuda="12.8", gpus=(RTX4090,))).to_dict()
    assert data["recommended"] == {
        "tensorflow": "2.21.0",
        "python": "3.12",
        "cuda": "12.5",
        "cudnn": "9.3",
        "method": "pip-and-cuda",
    }
    assert {"ok", "reasons", "constraints"} <= set(data["candidates"][0])


def test_python_change_says_how():
    rec = recommend(machine(python="3.8.10", driver="470.256.02", cuda="11.4", gpus=(GTX1080,)))
    assert rec.recommended.python_change and "3.9" in rec.recommended.python_change


def test_pip_requirements_and_conda_packages():
    rec = recommend(machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)))
    reqs = pip_requirements(rec.recommended)
    assert reqs[0] == "tensorflow==2.21.0" and "nvidia-cudnn-cu12==9.3.0.75" in reqs
    assert all("==" in r for r in reqs) and len(reqs) == 13  # TensorFlow + every nvidia-* wheel
    conda = _find(rec, "2.21", "conda")
    assert pip_requirements(conda) == ["tensorflow==2.21.0"]
    assert "cuda-version=12.5" in conda_packages(conda) and "cudnn=9.3" in conda_packages(conda)
    old = _find(
        recommend(machine(platform="windows", python="3.10.11", driver="566.36", gpus=(RTX3070,))),
        "2.10",
        "conda",
    )
    assert conda_packages(old) == ["python=3.10", "cudatoolkit=11.2", "cudnn=8.1"]


def test_required_driver_uses_the_platform_floor():
    rec = recommend(machine(driver="550.90.07", cuda="12.4", gpus=(RTX3090,)))
    assert required_driver(rec.recommended, "linux") == "525.60.13"
    assert required_driver(rec.recommended, "wsl2") == "528.33"
    assert required_driver(_find(rec, "2.21", "system-cuda"), "linux") == "555.42.02"
    assert required_driver(_find(rec, "2.21", "cpu"), "linux") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("470.256.02", "470.256.2"),
        ("566.36", "566.36"),
        ("32.0.15.6636", "566.36"),
        ("31.0.15.3623", "536.23"),
        ("garbage", None),
        ("", None),
        ("12", None),
        (None, None),
    ],
)
def test_normalize_driver(text, expected):
    v = normalize_driver(text)
    assert (str(v) if v else None) == expected


def test_driver_missing_from_wsl_says_windows():
    rec = recommend(machine(platform="wsl2", python="3.10.12", gpus=(RTX3060,)))
    assert rec.recommended.set.method == "pip-and-cuda"
    assert any("Windows driver >= 528.33" in r for r in rec.recommended.reasons)


def test_kepler_without_driver_is_held_to_its_last_branch():
    rec = recommend(machine(python="3.10.12", gpus=(K80,)))
    assert rec.recommended.set.tensorflow == "2.14.1"
    blocked = _find(rec, "2.15", "pip-and-cuda")
    assert not blocked.ok


def test_releases_whose_extra_pulls_tensorrt_name_the_wheels():
    rec = recommend(machine(python="3.11.4", driver="470.256.02", cuda="11.4", gpus=(GTX1080,)))
    reqs = pip_requirements(rec.recommended)
    assert reqs[0] == "tensorflow==2.14.1"
    assert "nvidia-cudnn-cu11==8.7.0.84" in reqs
    assert not any(r.startswith("tensorrt") for r in reqs)


def test_unreadable_driver_version_is_a_caveat_not_a_missing_driver():
    rec = recommend(machine(driver="N/A", gpus=(RTX3090,)))
    assert rec.recommended.ok
    assert any("could not be read" in r for r in rec.recommended.reasons)
    assert any("not readable" in n for n in rec.notes)


def test_every_message_key_exists():
    import re
    from pathlib import Path

    from wizard.text import has

    root = Path(__file__).resolve().parent.parent / "wizard"
    source = (root / "choose" / "resolver.py").read_text() + (root / "cli" / "recommend.py").read_text()
    keys = set(re.findall(r'"recommend\.([a-z_0-9]+)"', source))
    keys |= {f"driver_missing_{w}" for w in ("linux", "windows", "unreadable")}
    keys |= {f"col_{c}" for c in ("tensorflow", "method", "python", "cuda", "cudnn", "status", "why")}
    missing = sorted(k for k in keys if not has(f"recommend.{k}"))
    assert missing == []
