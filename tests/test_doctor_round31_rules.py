"""The doctor's rules from round 31's work (i35 this stop), each on a minimal text:

* A driver/library mismatch inside a container beside a working nvidia-smi (the host's table in the
  same text): the container's libraries are not the module's version, so "reboot" is not decided;
  the one-side verdict with the command that lists the libraries the container loads
  (cschranz/gpu-jupyter, round 30's training text).
* The corpus judge: an open verdict ("too old or too new is not shown") is "not sure" about the
  sides it leaves open, and wrong about any other cause.
"""

from __future__ import annotations

from tests import doctor_first
from tests.test_doctor_corpus import Case, judge
from wizard.doctor.diagnose import match_output
from wizard.doctor.reason import DECIDE_CONTAINER_LIBS

english = doctor_first.english  # autouse: every text read in English
first = doctor_first.first

CONTAINER = (
    "docker run --gpus all -it myimage:cuda-11.6 bash\n"
    "Failed to initialize NVML: Driver/library version mismatch\n"
    "This is the output from the VM, not the containers.\n"
    "| NVIDIA-SMI 510.108.03   Driver Version: 510.108.03   CUDA Version: 11.6     |\n"
)


def test_a_mismatch_in_a_container_beside_a_working_nvidia_smi_is_not_a_reboot() -> None:
    found = match_output(CONTAINER)
    d = found[0]
    assert d.id == "driver-library-mismatch" and d.verdict == "driver-mismatch-one-side"
    assert "510.108.03" in d.why and d.fix.endswith(DECIDE_CONTAINER_LIBS)
    assert all("sudo reboot" not in x.fix for x in found)


def test_the_same_text_outside_a_container_keeps_the_catalogues_answer() -> None:
    # A working nvidia-smi beside a mismatch on one machine: the reboot that mended it.
    text = CONTAINER.replace("docker run --gpus all -it myimage:cuda-11.6 bash\n", "")
    text = text.replace(" from the VM, not the containers", "")
    assert first(text).verdict != "driver-mismatch-one-side"


def test_a_reboot_said_to_mend_it_in_a_container_leaves_the_reboot() -> None:
    d = first(CONTAINER + "Rebooting the host fixed it.\n")
    assert d.id == "driver-library-mismatch" and d.fix == "sudo reboot"


def test_an_open_verdict_is_not_sure_about_its_sides_and_wrong_about_other_causes() -> None:
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    found = match_output(text)
    assert found[0].verdict == "cover-open"
    for side in ("cover-gap", "cover-too-old", "gpu-too-new"):
        assert judge(Case("s", "github:a/b#1", "arch", "en", [side], text), found) == (True, False, False)
    assert judge(Case("s", "github:a/b#1", "arch", "en", ["cover-open"], text), found) == (True, True, False)
    other = Case("s", "github:a/b#1", "arch", "en", ["ptx-too-new-for-driver"], text)
    assert judge(other, found) == (True, False, True)


# ---- the driver library without a driver API function (ollama/ollama#6604) --------------------

OLLAMA = (
    'level=INFO source=gpu.go:568 msg="unable to load cuda driver library" '
    'library=C:\\WINDOWS\\system32\\nvcuda.dll error="symbol lookup for cuCtxCreate_v3 failed: x"\n'
    'level=DEBUG source=gpu.go:537 msg="Unable to load cudart" library=C:\\ollama\\cudart64_12.dll '
    'error="your nvidia driver is too old or missing.  If you have a CUDA GPU please upgrade to run ollama"\n'
)


def test_a_driver_library_without_a_driver_api_function_is_a_driver_too_old() -> None:
    found = match_output(OLLAMA)
    assert found[0].id == "driver-too-old"
    assert [d.id for d in found].index("driver-too-old") < [d.id for d in found].index("missing-cudart")


def test_a_toolkit_stub_libcuda_without_the_function_is_not_the_driver() -> None:
    stub = (
        'msg="unable to load cuda driver library" library=/usr/local/cuda/lib64/stubs/libcuda.so '
        'error="symbol lookup for cuCtxCreate_v3 failed: undefined symbol"\n'
    )
    assert all(d.id != "driver-too-old" for d in match_output(stub))


# ---- a CPU-only install said in words (deforum-art/stable-diffusion#132) ----------------------


def test_a_cpu_only_install_said_beside_cuda_unavailable_is_the_cpu_build() -> None:
    text = (
        "for some people when installing pytorch it installs the cpu only version\n"
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False.\n"
    )
    assert first(text).id == "cpu-only-wheel"
    asked = text.replace("it installs the cpu only version", "does it install the cpu only version?")
    assert first(asked).id != "cpu-only-wheel"  # a question decides nothing


# ---- a build's own words: the GPU below its lowest compute capability -------------------------


def test_the_builds_minimum_said_with_the_gpus_decides_too_old() -> None:
    tf = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1700] Ignoring visible gpu device (device: 0, "
        "name: Quadro K2000, compute capability: 3.0) with Cuda compute capability 3.0. "
        "The minimum required Cuda capability is 3.5.\n"
    )
    d = first(tf)
    assert d.id == "unsupported-cc" and d.verdict == "cover-too-old" and "3.5" in d.why
    d = first("insufficient compute capability: 3.7 required, device is 3.0\n")
    assert d.verdict == "cover-too-old" and "3.0" in d.why and "3.7" in d.why


def test_a_gpu_above_the_builds_minimum_is_not_called_too_old() -> None:
    text = "with Cuda compute capability 8.6. The minimum required Cuda capability is 3.5.\n"
    assert all(d.verdict != "cover-too-old" for d in match_output(text))


def test_tiny_cuda_nns_no_compatible_extension_is_no_code_for_the_gpu() -> None:
    d = first("OSError: Could not find compatible tinycudann extension for compute capability 70.\n")
    assert d.id == "unsupported-cc" and d.verdict == "cover-open"  # which side is not shown
