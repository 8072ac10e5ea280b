"""Every bundled demo profile loads, round-trips, and says what a person would check."""

from __future__ import annotations

import json

import pytest
from packaging.version import Version

from wizard.assets import asset_text
from wizard.demo import demo_names, load_demo
from wizard.profile import PLATFORMS, SCHEMA, MachineProfile

NAMES = demo_names()

REQUIRED = [
    "wsl2-rtx4060-laptop",
    "ubuntu-22.04-rtx3090-cuda11.8",
    "ubuntu-24.04-rtx4090-fresh",
    "ubuntu-20.04-gtx1080-driver470",
    "no-nvidia-gpu",
    "windows11-rtx3070",
    "wsl2-linux-driver-inside",
    "macos-arm64",
]

# Linux driver branch -> newest CUDA it supports (what NVML's cudaDriverVersion reports).
LINUX_BRANCH_CUDA = {"470": "11.4", "535": "12.2", "550": "12.4", "560": "12.6", "570": "12.8", "580": "13.0"}
# Windows drivers (also what NVML shows inside WSL2): lowest version -> CUDA, highest first.
WINDOWS_DRIVER_CUDA = [
    ("566.03", "12.7"),
    ("560.70", "12.6"),
    ("551.61", "12.4"),
    ("537.13", "12.2"),
    ("527.41", "12.0"),
]


def _windows_cuda(version: str) -> str:
    for lowest, cuda in WINDOWS_DRIVER_CUDA:
        if Version(version) >= Version(lowest):
            return cuda
    raise AssertionError(f"no table row for Windows driver {version}")


def test_required_demo_profiles_exist() -> None:
    assert len(NAMES) >= 8
    assert set(REQUIRED) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_profile_loads_and_round_trips(name: str) -> None:
    profile = load_demo(name)
    assert profile.simulated is True
    assert profile.schema == SCHEMA
    assert profile.label and profile.label.strip() and "\n" not in profile.label
    assert profile.platform in PLATFORMS and profile.platform != "unknown"
    assert profile.arch in ("x86_64", "aarch64", "arm64")
    again = MachineProfile.from_json(profile.to_json())
    assert again == profile


@pytest.mark.parametrize("name", NAMES)
def test_profile_file_has_no_unknown_fields(name: str) -> None:
    # The forgiving loader drops unknown fields silently; a typo in a demo file would go unnoticed.
    data = json.loads(asset_text(f"profiles/{name}.json"))
    assert set(data) <= set(MachineProfile.__dataclass_fields__)


@pytest.mark.parametrize("name", NAMES)
def test_profile_is_internally_consistent(name: str) -> None:
    p = load_demo(name)
    assert p.os.id != "unknown" and p.os.version != "unknown" and p.os.kernel != "unknown"
    assert p.python.env in ("system", "venv", "conda")
    assert p.python.version.count(".") == 2
    assert p.resources.ram_mib and p.resources.home_free_mib and p.resources.cpu_count
    assert "nvidia" in p.probe_layers
    assert [g.index for g in p.gpus] == list(range(len(p.gpus)))
    for g in p.gpus:
        assert g.name.startswith("NVIDIA ")
        major, minor = g.compute_capability.split(".")
        assert major.isdigit() and minor.isdigit()
        assert g.memory_mib and g.memory_mib > 1000
    if p.driver is None:
        assert p.gpus == []
        assert p.notes, "a profile without a driver says why in its notes"
    elif p.blocking_state is not None:  # a broken machine: its GPUs unreadable, its driver read elsewhere
        assert p.blocking_state.evidence and p.driver.source == p.probe_layers["nvidia"]
    else:
        assert p.gpus
        assert p.driver.source == p.probe_layers["nvidia"] == "nvml"
    if p.nvidia_pci_devices is not None and p.gpus:
        assert p.nvidia_pci_devices == len(p.gpus)
    if p.platform == "linux" and p.driver is not None:
        assert p.kernel.nvidia_loaded is True
        assert p.kernel.loaded_version == p.driver.version
    for lib in p.libcuda:
        assert lib.inside_wsl_lib == lib.path.startswith("/usr/lib/wsl/lib/")
    if not p.is_wsl:
        assert not any(lib.inside_wsl_lib for lib in p.libcuda)
    for tk in p.cuda_toolkits:
        assert tk.path.endswith(tk.version)
    assert sum(tk.default for tk in p.cuda_toolkits) <= 1


@pytest.mark.parametrize("name", NAMES)
def test_driver_cuda_matches_branch(name: str) -> None:
    p = load_demo(name)
    if p.driver is None:
        return
    if p.driver.source == "proc":  # read from /proc/driver/nvidia alone: its CUDA is not read, not guessed
        assert p.driver.cuda == "unknown"
        return
    if p.platform == "linux":
        assert p.driver.version.count(".") == 2
        assert p.driver.cuda == LINUX_BRANCH_CUDA[p.driver.version.split(".")[0]]
    else:  # Windows driver numbering, natively or through WSL2
        assert p.platform in ("windows", "wsl2")
        assert p.driver.version.count(".") == 1
        assert p.driver.cuda == _windows_cuda(p.driver.version)


def test_wsl_profiles() -> None:
    for name in ("wsl2-rtx4060-laptop", "wsl2-linux-driver-inside"):
        p = load_demo(name)
        assert p.platform == "wsl2" and p.is_wsl
        assert p.os.kernel.endswith("-microsoft-standard-WSL2")
        assert any(lib.path == "/usr/lib/wsl/lib/libcuda.so.1" and lib.inside_wsl_lib for lib in p.libcuda)
    laptop = load_demo("wsl2-rtx4060-laptop")
    assert laptop.gpus[0].name == "NVIDIA GeForce RTX 4060 Laptop GPU"
    assert laptop.gpus[0].compute_capability == "8.9"
    assert laptop.python.version == "3.10.12" and laptop.python.env == "system"
    inside = load_demo("wsl2-linux-driver-inside")
    outside = [lib for lib in inside.libcuda if not lib.inside_wsl_lib]
    assert [lib.path for lib in outside] == ["/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01"]
    assert any("inside WSL" in n for n in inside.notes)
    if "wsl1-ubuntu-22.04" in NAMES:
        wsl1 = load_demo("wsl1-ubuntu-22.04")
        assert wsl1.platform == "wsl1" and wsl1.driver is None and not wsl1.has_nvidia_gpu
        assert any("wsl --set-version" in n for n in wsl1.notes)


def test_fresh_ubuntu_without_driver_still_sees_the_gpu() -> None:
    p = load_demo("ubuntu-24.04-rtx4090-fresh")
    assert p.driver is None and p.gpus == []
    assert p.nvidia_pci_devices is not None and p.nvidia_pci_devices >= 1
    assert p.has_nvidia_gpu
    assert p.kernel.nouveau_loaded is True and p.kernel.nvidia_loaded is False
    assert p.probe_layers["nvidia"] == "pci"
    assert any("no NVIDIA driver found" in n for n in p.notes)
    assert p.python.version == "3.12.3"


def test_driver_installed_but_module_not_loaded() -> None:
    assert (
        "ubuntu-22.04-rtx3060-driver-not-loaded" in NAMES
    )  # a bundled demo: its absence is a failure, not a skip
    p = load_demo("ubuntu-22.04-rtx3060-driver-not-loaded")
    assert p.driver is None and p.gpus == [] and p.has_nvidia_gpu
    assert p.kernel.nvidia_loaded is False and p.kernel.nouveau_loaded is True
    assert p.probe_layers["nvidia"] == "pci"
    assert p.libcuda  # userspace is there even though the module is not


def test_old_guide_toolkit_profile() -> None:
    p = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    assert p.driver is not None and p.driver.version == "535.183.01" and p.driver.cuda == "12.2"
    toolkits = [(t.version, t.path, t.default) for t in p.cuda_toolkits]
    assert toolkits == [("11.8", "/usr/local/cuda-11.8", True)]
    assert [c.version for c in p.cudnn] == ["8.6.0"]
    assert "/usr/local/cuda-11.8/lib64" in p.ld_library_path
    assert p.gpus[0].compute_capability == "8.6" and p.gpus[0].memory_mib == 24576


def test_gtx1080_on_470() -> None:
    p = load_demo("ubuntu-20.04-gtx1080-driver470")
    assert p.driver is not None and p.driver.version == "470.256.02" and p.driver.cuda == "11.4"
    assert p.gpus[0].compute_capability == "6.1"
    assert p.python.version == "3.8.10" and p.os.version == "20.04"


def test_machines_without_nvidia() -> None:
    for name in ("no-nvidia-gpu", "macos-arm64"):
        p = load_demo(name)
        assert p.driver is None and p.gpus == [] and p.nvidia_pci_devices == 0
        assert not p.has_nvidia_gpu
    mac = load_demo("macos-arm64")
    assert mac.platform == "macos" and mac.arch == "arm64" and mac.os.id == "macos"


def test_native_windows() -> None:
    p = load_demo("windows11-rtx3070")
    assert p.platform == "windows" and p.os.id == "windows" and p.os.version == "10.0.22631"
    assert p.gpus[0].name == "NVIDIA GeForce RTX 3070" and p.gpus[0].compute_capability == "8.6"
    assert p.python.executable.endswith("python.exe")


def test_multi_gpu_server() -> None:
    assert "ubuntu-22.04-2x-a100-server" in NAMES  # a bundled demo: its absence is a failure, not a skip
    p = load_demo("ubuntu-22.04-2x-a100-server")
    assert len(p.gpus) == 2 == p.nvidia_pci_devices
    assert len({g.uuid for g in p.gpus}) == 2 and len({g.pci_bus_id for g in p.gpus}) == 2
