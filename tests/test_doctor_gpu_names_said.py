"""GPUs named as a text or a machine names them: a failing driver's GPU by its PCI name, an AMD card by its model."""

from __future__ import annotations

from wizard.demo import load_demo
from wizard.doctor.diagnose import diagnose

CUINIT = (
    "E cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
)


def _machine_line(profile_name: str) -> str:
    found = diagnose(load_demo(profile_name), output=CUINIT)
    return next(d.for_this_machine for d in found if d.id == "cuinit-failed")


def test_a_gpu_whose_driver_fails_is_named_from_the_pci_table() -> None:
    # Secure Boot rejected the module: the driver lists no GPU, the PCI bus still shows it.
    line = _machine_line("ubuntu-22.04-rtx3060-secure-boot")
    assert "GeForce RTX 3060" in line and "(NVIDIA)" not in line


def test_a_working_driver_names_its_own_gpu() -> None:
    assert "RTX 4060" in _machine_line("wsl2-rtx4060-laptop")


def test_an_amd_card_said_without_rx_is_not_nvidia() -> None:
    from wizard.doctor.diagnose import match_output

    text = '请问是不是不支持AMD显卡？我是AMD 6600XT\n碰到了异常:"Torch not compiled with CUDA enabled"\n'
    assert match_output(text)[0].id == "no-nvidia-gpu"
    # A Ryzen CPU's model ("AMD 5950X") is not a graphics card.
    assert match_output(text.replace("AMD 6600XT", "AMD 5950X"))[0].id == "cpu-only-wheel"
