"""GPUs present but unreadable: the PCI bus names each NVIDIA GPU by its device id (sysfs, or
`lspci -nn` in a replayed dump), with the compute capability the PCI id table gives it, so a machine
whose driver does not answer still gets its GPU named and its coverage judged (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle, to_detect
from tests.machines import LINUX_PY, NATIVE_PROC_VERSION, UBUNTU_2204, context, fail, tree
from wizard.choose.resolver import recommend
from wizard.cli.main import main
from wizard.demo import demo_names, load_demo
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.probe import detect
from wizard.probe.dump import detect_dump
from wizard.probe.pci_gpus import lspci_gpus
from wizard.profile import MachineProfile
from wizard.profile_view import part_rows

SMI_NO_DRIVER = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
# A real `lspci -nn` of a desktop with an Intel iGPU and an RTX 3060 (LHR), the card's HDMI audio
# function beside it: only the display controller is a GPU.
LSPCI_NN = (
    "00:00.0 Host bridge [0600]: Intel Corporation 8th Gen Core Processor Host Bridge/DRAM Registers"
    " [8086:3ec2] (rev 07)\n"
    "00:02.0 VGA compatible controller [0300]: Intel Corporation CoffeeLake-S GT2 [UHD Graphics 630]"
    " [8086:3e92]\n"
    "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA106 [GeForce RTX 3060 Lite Hash"
    " Rate] [10de:2504] (rev a1)\n"
    "01:00.1 Audio device [0403]: NVIDIA Corporation GA106 High Definition Audio Controller"
    " [10de:228e] (rev a1)\n"
)
BROKEN_DEMOS = (
    "ubuntu-22.04-rtx3060-secure-boot",
    "ubuntu-22.04-rtx3060-mismatch-after-update",
    "ubuntu-22.04-rtx3060-driver-not-loaded",
)


def _module_not_loaded(tmp_path: Path, device: str = "0x2504") -> MachineProfile:
    files = {
        "/proc/version": NATIVE_PROC_VERSION,
        "/etc/os-release": UBUNTU_2204,
        "/proc/modules": "snd_hda_intel 57344 3 - Live 0x0\n",  # no nvidia: the module is not loaded
        "/sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
        "/sys/bus/pci/devices/0000:01:00.0/device": f"{device}\n",
        "/sys/bus/pci/devices/0000:01:00.0/class": "0x030000\n",
        "/sys/bus/pci/devices/0000:01:00.1/vendor": "0x10de\n",  # the card's HDMI audio
        "/sys/bus/pci/devices/0000:01:00.1/device": "0x228e\n",
        "/sys/bus/pci/devices/0000:01:00.1/class": "0x040300\n",
        "/sys/bus/pci/devices/0000:00:02.0/vendor": "0x8086\n",
        "/sys/bus/pci/devices/0000:00:02.0/device": "0x3e92\n",
        "/sys/bus/pci/devices/0000:00:02.0/class": "0x030000\n",
    }
    ctx = context(tree(tmp_path, files), {("nvidia-smi",): fail(9, stdout=SMI_NO_DRIVER)})
    return detect(context=ctx, nvml=FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED))


def test_module_not_loaded_the_pci_bus_names_the_rtx_3060_and_recommend_uses_it(tmp_path: Path) -> None:
    p = _module_not_loaded(tmp_path)
    assert p.driver is None and p.gpus == []
    assert [(g.bus_id, g.device_id, g.name, g.compute_capability, g.source) for g in p.pci_gpus] == [
        ("0000:01:00.0", "10de:2504", "GeForce RTX 3060", "8.6", "sysfs")
    ]
    assert p.nvidia_pci_devices == len(p.pci_gpus) == 1
    rec = recommend(p)
    assert "GeForce RTX 3060: compute capability 8.6" in rec.notes
    said = json.dumps([c.reasons for c in rec.candidates])
    assert "compute capability of the NVIDIA GPU is unknown" not in said
    # Coverage is judged with 8.6: an old TF whose wheels stop at sm_75 says so by name.
    assert "GeForce RTX 3060 has compute capability 8.6" in said
    rows = dict(part_rows("nvidia", p))
    assert "GeForce RTX 3060 · compute 8.6 · from the PCI bus (10de:2504)" in rows["GPU 0"]


def test_a_device_id_the_table_lacks_stays_unknown_not_guessed(tmp_path: Path) -> None:
    p = _module_not_loaded(tmp_path, device="0xffff")
    assert [(g.device_id, g.name, g.compute_capability) for g in p.pci_gpus] == [
        ("10de:ffff", "unknown", "unknown")
    ]
    assert "NVIDIA device 10de:ffff · compute unknown" in dict(part_rows("nvidia", p))["GPU 0"]
    assert "GPU: compute capability unknown" in recommend(p).notes  # as for a GPU NVML cannot name


def test_lspci_nn_text_gives_the_nvidia_display_controllers_only() -> None:
    found = lspci_gpus(LSPCI_NN + "0000:02:00.0 3D controller [0302]: NVIDIA Corporation GA100 [10de:20b0]\n")
    assert [(g.bus_id, g.device_id, g.name, g.compute_capability, g.source) for g in found] == [
        ("0000:01:00.0", "10de:2504", "GeForce RTX 3060", "8.6", "lspci"),
        ("0000:02:00.0", "10de:20b0", "unknown", "unknown", "lspci"),
    ]
    # Plain lspci (since stop 48): the NVIDIA display controller is a GPU on the bus, its id not shown.
    plain = lspci_gpus("01:00.0 VGA compatible controller: NVIDIA Corporation GA106 (rev a1)\n")
    assert [(g.bus_id, g.device_id, g.name) for g in plain] == [("0000:01:00.0", "unknown", "unknown")]
    assert (
        lspci_gpus("01:00.1 Audio device: NVIDIA Corporation GA106 High Definition Audio Controller\n") == []
    )


def _dump(directory: Path, commands: list[dict[str, Any]], **files: str) -> Path:
    base = {
        "/proc/version": NATIVE_PROC_VERSION,
        "/etc/os-release": UBUNTU_2204,
        "/proc/modules": "snd_hda_intel 57344 3 - Live 0x0\n",
    }
    tree(directory / "root", {**base, **files})
    (directory / "commands.json").write_text(json.dumps(commands))
    (directory / "nvml.json").write_text("[]")
    py = {k: getattr(LINUX_PY, k) for k in LINUX_PY.__dataclass_fields__}
    (directory / "python.json").write_text(json.dumps(py))
    return directory


@pytest.mark.parametrize("argv", [["lspci", "-nn"], ["lspci"]])
def test_a_replayed_dump_reads_the_gpu_from_lspci_nn(tmp_path: Path, argv: list[str]) -> None:
    # A dump has no /sys/bus/pci: `lspci -nn` (or its text pasted under plain `lspci`) names the card.
    smi = {"argv": ["nvidia-smi"], "stdout": SMI_NO_DRIVER, "stderr": "", "exit": 9}
    out = _dump(tmp_path / "d", [{"argv": argv, "stdout": LSPCI_NN, "stderr": "", "exit": 0}, smi])
    p = detect_dump(out)
    assert p.driver is None and p.gpus == []
    assert [(g.device_id, g.name, g.compute_capability, g.source) for g in p.pci_gpus] == [
        ("10de:2504", "GeForce RTX 3060", "8.6", "lspci")
    ]
    assert p.nvidia_pci_devices == 1
    assert "GeForce RTX 3060: compute capability 8.6" in recommend(p).notes


def test_the_profile_round_trips_its_pci_gpus(tmp_path: Path) -> None:
    p = _module_not_loaded(tmp_path)
    again = MachineProfile.from_json(p.to_json())
    assert again.pci_gpus == p.pci_gpus and again.nvidia_pci_devices == 1


def test_an_old_profile_with_only_the_count_still_loads_and_plans() -> None:
    data = load_demo("ubuntu-22.04-rtx3060-secure-boot").to_dict()
    del data["pci_gpus"]  # saved before pci_gpus: the count only, no note naming the card
    old = MachineProfile.from_dict(data)
    assert old.pci_gpus == [] and old.nvidia_pci_devices == 1
    rec = recommend(old)
    assert rec.recommended is not None and rec.recommended.set.method != "cpu"
    assert "NVIDIA GPU(s) on the PCI bus, no driver to name them" in dict(part_rows("nvidia", old))["GPU 0"]
    # An old profile whose probe wrote the card's name into a note: still read from there.
    data["notes"] = [*data["notes"], "PCI: NVIDIA device 10de:2504 (GeForce RTX 3060) at 0000:01:00.0"]
    assert "GeForce RTX 3060: compute capability 8.6" in recommend(MachineProfile.from_dict(data)).notes


def test_every_demo_without_a_driver_named_gpu_carries_its_pci_gpus() -> None:
    for name in demo_names():
        p = load_demo(name)
        if not p.gpus and p.nvidia_pci_devices:
            assert len(p.pci_gpus) == p.nvidia_pci_devices, name
            assert all(g.compute_capability != "unknown" for g in p.pci_gpus), name


@pytest.mark.parametrize("demo", BROKEN_DEMOS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_broken_demos_name_the_rtx_3060_in_detect_and_choose(capsys: Any, demo: str, lang: str) -> None:
    assert main(["--lang", lang, "--profile", demo, "detect"]) == 0
    # Wrapped at the terminal's width (CJK without spaces): compared without whitespace.
    detect_out = "".join(capsys.readouterr().out.split())
    where = "from the PCI bus (10de:2504)" if lang == "en" else "取自 PCI 总线（10de:2504）"
    assert "".join(f"GeForce RTX 3060 · {where}".split()) not in detect_out  # the CC sits between
    assert "GeForceRTX3060" in detect_out and "".join(where.split()) in detect_out
    assert "8.6" in detect_out
    main(["--lang", lang, "--profile", demo, "recommend"])
    choose_out = " ".join(capsys.readouterr().out.split())
    assert "GeForce RTX 3060" in choose_out and "8.6" in choose_out
    assert "is unknown; assuming it is supported" not in choose_out


async def test_the_walk_shows_the_pci_gpu_on_detect_and_no_unknown_cc_on_choose() -> None:
    app = build_app("ubuntu-22.04-rtx3060-secure-boot")
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        await to_detect(pilot)
        seen = " ".join(screen_text(app).split())
        assert "GPU 0 GeForce RTX 3060 · compute 8.6 · from the PCI bus" in seen
        assert "(10de:2504); no NVIDIA driver answers" in seen
        assert "no driver to name them" not in seen
        await pilot.press("n")
        await settle(pilot)
        seen = " ".join(screen_text(app).split())
        assert "Choose a setup" in seen and "fix the machine first" in seen
        assert "compute capability of the NVIDIA GPU is unknown" not in seen


def test_the_row_says_which_driver_answer_is_missing() -> None:
    from wizard.profile import DriverInfo

    p = load_demo("ubuntu-22.04-rtx3060-mismatch-after-update")
    assert p.driver is not None and p.driver.source == "proc"  # a version read, no GPU list
    # The module answered (its version), its tools did not: never "no driver" beside that version.
    row = dict(part_rows("nvidia", p))["GPU 0"]
    assert "the driver's tools (NVML, nvidia-smi) do not list it" in row and "no NVIDIA driver" not in row
    p.driver = None  # nothing answered at all
    assert "no NVIDIA driver answers" in dict(part_rows("nvidia", p))["GPU 0"]
    p.driver = DriverInfo(version="550.120", cuda="12.4", source="nvml")  # NVML answered, no GPU
    assert "the driver lists no GPU" in dict(part_rows("nvidia", p))["GPU 0"]


def test_a_driver_before_r510_in_a_dump_gets_its_cc_from_lspci_nn(tmp_path: Path) -> None:
    # 470's nvidia-smi does not know compute_cap and the dump has no /sys/bus/pci: the GPU's bus id
    # meets `lspci -nn`'s device id, and the PCI id table gives the GTX 1080's 6.1.
    query = "--query-gpu=index,name,compute_cap,memory.total,uuid,pci.bus_id,driver_version"
    old = "--query-gpu=index,name,memory.total,uuid,pci.bus_id,driver_version"
    row = "0, NVIDIA GeForce GTX 1080, 8192, GPU-1, 00000000:01:00.0, 470.256.02\n"
    lspci = (
        "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GP104 [GeForce GTX 1080] [10de:1b80]\n"
    )
    csv = "--format=csv,noheader,nounits"
    refused = 'Field "compute_cap" is not a valid field to query.\n'
    commands = [
        {"argv": ["nvidia-smi", query, csv], "stdout": refused, "stderr": "", "exit": 2},
        {"argv": ["nvidia-smi", old, csv], "stdout": row, "stderr": "", "exit": 0},
        {"argv": ["lspci", "-nn"], "stdout": lspci, "stderr": "", "exit": 0},
    ]
    files = {"/proc/modules": "nvidia 5 0 - Live 0x0\n", "/sys/module/nvidia/version": "470.256.02\n"}
    p = detect_dump(_dump(tmp_path / "d", commands, **files))
    assert [(g.name, g.compute_capability) for g in p.gpus] == [("NVIDIA GeForce GTX 1080", "6.1")]
    assert [(g.bus_id, g.device_id, g.source) for g in p.pci_gpus] == [("0000:01:00.0", "10de:1b80", "lspci")]
