"""The doctor's rules from round 55's training side, each on a minimal text:

* Paddle's own check "not compatible with Paddle installation with arch: 70 75 80 86" beside its
  "GPU Compute Capability: 6.1": the build's code list, so the GPU is too old for it.
* The machine's graphics driver said to be AMD's ("the latest amd drivers"), no NVIDIA GPU shown,
  beside CUDA's "driver version is insufficient": no NVIDIA GPU, not an old driver.
* lshw's "configuration: ... driver=nouveau" (lspci's "Kernel driver in use: nouveau") under an
  NVIDIA device: nouveau holds the GPU.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

PADDLE = (
    "W0824 17:41:21.103258 13550 gpu_resources.cc:96] The GPU architecture in your current machine is Pascal, "
    "which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install "
    "the corresponding wheel package\n"
    "W0824 17:41:21.103291 13550 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 6.1, "
    "Driver API Version: 11.7, Runtime API Version: 11.7\n"
)


def test_paddles_arch_list_decides_a_gpu_too_old_for_it() -> None:
    facts = read_facts(PADDLE)
    assert facts.build_code == ["sm_70", "sm_75", "sm_80", "sm_86"] and "6.1" in facts.compute_capabilities
    d = first(PADDLE)
    assert d.id == "unsupported-cc" and d.verdict == "cover-too-old" and "6.1" in d.why
    # A GPU inside the list is not too old for it.
    inside = PADDLE.replace("Capability: 6.1", "Capability: 8.6").replace("is Pascal", "is Ampere")
    assert all(x.verdict != "cover-too-old" for x in match_output(inside))


def test_amd_graphics_drivers_and_cudas_35_is_no_nvidia_gpu() -> None:
    text = (
        "im using windows 7 and the latest amd drivers\n"
        "CUDA error 'CUDA driver version is insufficient for CUDA runtime version' in func 'getinfo' line 45\n"
    )
    d = first(text)
    assert d.id == "no-nvidia-gpu" and "amd drivers" in d.why
    # An NVIDIA GPU named beside it keeps the old driver's reading.
    shown = first(text + "my card is a GeForce GTX 1060\n")
    assert shown.id != "no-nvidia-gpu"


def test_an_nvidia_device_listed_with_nouveau_as_its_driver() -> None:
    lshw = (
        "  *-display\n       product: GA107M [GeForce RTX 3050 Mobile]\n       vendor: NVIDIA Corporation\n"
        "       configuration: depth=32 driver=nouveau latency=0 mode=3840x2160\n"
    )
    assert first(lshw).id == "nouveau"
    lspci = (
        "01:00.0 VGA compatible controller: NVIDIA Corporation TU117M [GeForce GTX 1650 Mobile] (rev a1)\n"
        "\tKernel driver in use: nouveau\n\tKernel modules: nouveau, nvidia_drm, nvidia\n"
    )
    assert first(lspci).id == "nouveau"
    # The NVIDIA driver shown working (nvidia-smi's banner) is not nouveau's GPU.
    working = lspci + "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4 |\n"
    assert all(x.id != "nouveau" for x in match_output(working))
