"""The doctor's rules from rounds 48-49's training sides, each on a minimal text:

* Ollama's "compute capability not in compiled architectures" with the GPU and the build's list in
  ggml's notation (cc=860, archs 750 890 1000 1200): the build left this capability out (a gap).
* A GeForce number after its board maker ("Zotac 5070 12 GB") is the GPU; beside "no kernel image"
  a GPU of 8.0 or newer is newer than the build.
* "Failed to open dynamic library 'nvcuda.dll'" (the Windows driver's library absent) is a failure
  to find the driver; beside an AMD GPU named as the machine's, no NVIDIA GPU.
* NVRTC unable to open its builtins library: a CUDA library is missing.
* Memory still held after the process was stopped: memory held, in words.
* A Linux driver's versioned libnvidia-ml listed beside WSL's /usr/lib/wsl/lib, then no device: a
  Linux driver inside WSL.
* "Torch 2.0.1+cpu" beside "Torch reports CUDA not available": the CPU build.
"""

from __future__ import annotations

from tests import doctor_first
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts
from wizard.doctor.gpu_names import named_gpus

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first
NO_KERNEL = "Server execution error: CUDA error: no kernel image is available for execution on the device\n"


def test_ollama_skipping_a_gpu_its_build_left_out_is_a_gap() -> None:
    text = (
        'msg="skipping CUDA device — compute capability not in compiled architectures"\n'
        'device="NVIDIA RTX A6000" cc=860 archs="[750 890 1000 1200]"\n'
    )
    facts = read_facts(text)
    assert facts.compute_capabilities == ["8.6"]
    assert facts.build_code == ["sm_75", "sm_89", "sm_100", "sm_120"]
    d = first(text)
    assert d.verdict == "cover-gap" and "8.6" in d.why
    # A build with code of the GPU's own major at or below its minor runs it: no gap is named.
    served = text.replace("[750 890 1000 1200]", "[750 800 890 1200]")
    assert first(served).verdict != "cover-gap"


def test_a_geforce_number_after_its_board_maker_is_the_gpu() -> None:
    assert named_gpus("Gpu : Zotac 5070 12 GB") == ["RTX 5070"]
    assert named_gpus("MSI 4090 Suprim X") == ["RTX 4090"]
    assert named_gpus("Palit 3060 Ti Dual") == ["RTX 3060 Ti"]
    # A maker's AMD card carries an RX number, and memory is no model.
    assert named_gpus("Sapphire RX 6800 and an ASUS board with 2080 MB free") == []
    d = first("specs\nGpu : Zotac 5070 12 GB\nos : Win 11\n" + NO_KERNEL)
    assert d.id == "gpu-too-new" and "RTX 5070" in d.why


def test_nvcuda_dll_not_found_beside_an_amd_gpu_is_no_nvidia_gpu() -> None:
    text = (
        "08:47:31:        GPU 0: Bus:45 Slot:0 Func:0 AMD:6 Navi 10 [Radeon RX 5600 OEM/5600 XT /\n"
        "08:47:31:               5700/5700 XT]\n"
        "08:47:31:         CUDA: Not detected: Failed to open dynamic library 'nvcuda.dll': The\n"
        "08:47:31:               specified module could not be found.\n"
    )
    assert first(text).id == "no-nvidia-gpu"
    # The same failure with an NVIDIA GPU named: a driver not found, never "no NVIDIA GPU".
    nvidia = text.replace("AMD:6 Navi 10 [Radeon RX 5600 OEM/5600 XT /", "NVIDIA GeForce RTX 3060").replace(
        "08:47:31:               5700/5700 XT]\n", ""
    )
    found = match_output(nvidia)
    assert found[0].id == "no-device"
    assert "no-nvidia-gpu" not in {d.id for d in found}


def test_nvrtc_unable_to_open_its_builtins_is_a_missing_cuda_library() -> None:
    text = (
        "RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.5.\n"
        "  Make sure that libnvrtc-builtins.so.11.5 is installed correctly.\n"
    )
    assert first(text).id == "missing-cudart"


def test_memory_still_held_after_the_process_was_stopped() -> None:
    text = (
        "During execution, I received an out of memory error, but after stopping the process, it disappears "
        "from nvidia-smi and gpustat. However, it still holds GPU memory, and the utilization rate stays at 100%.\n"
    )
    assert first(text).id == "memory-held"
    # The words alone, with no process stopped: not decided by them.
    alone = "The model still holds GPU memory between batches.\n"
    assert "memory-held" not in {d.id for d in match_output(alone)}


def test_a_linux_driver_s_nvml_beside_wsl_s_then_no_device() -> None:
    text = (
        "gpu.go:248: Discovered GPU libraries: [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05 "
        "/usr/lib/wsl/lib/libnvidia-ml.so.1]\n"
        "CUDA error 100 at ggml-cuda.cu:495: no CUDA-capable device is detected\n"
    )
    assert first(text).id == "linux-driver-in-wsl"
    # WSL's own library alone (no Linux driver's beside it): not this.
    wsl_only = text.replace("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05 ", "")
    assert first(wsl_only).id != "linux-driver-in-wsl"


def test_a_cpu_torch_beside_cuda_not_available_is_the_cpu_build() -> None:
    text = "INFO     nVidia toolkit detected\nINFO     Torch 2.0.1+cpu\nWARNING  Torch reports CUDA not available\n"
    d = first(text)
    assert d.id == "cpu-only-wheel" and d.title == first("torch 2.1.0+cpu\ncuda.is_available() False\n").title
    # A CUDA build's banner beside the same warning is not the CPU build.
    assert "cpu-only-wheel" not in {x.id for x in match_output(text.replace("+cpu", "+cu118"))}
