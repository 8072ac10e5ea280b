"""The doctor reasons from the setup a log shows (issue 35 point 4; wizard.doctor.setup_facts and
setup_reason): a container started with nothing that gives it the driver, the CUDA a program was
built for beside a driver below its floor, MIG with no device found, a scheduler job that asked for
no GPU, a Linux nvidia-smi inside WSL2, WSL2 beside a GPU in TCC mode, and NVML's codes printed as
bare numbers. Each rule names its cause only with its evidence, and the same text without that
evidence keeps its other answer (calibration: "not sure" before a wrong cause)."""

from __future__ import annotations

from packaging.version import Version

from wizard.doctor.codes import codes_in
from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts
from wizard.doctor.reasoned import unsure
from wizard.doctor.setup_facts import read_setup
from wizard.doctor.setup_reason import build_floor


def first(text: str) -> str:
    found = match_output(text)
    return found[0].id if found else ""


# ---- a container given device nodes but no driver ---------------------------------------------

DEVICES_ONLY = """$ docker run --rm --device /dev/nvidiactl --device /dev/nvidia-uvm \\
    --device /dev/nvidia0 -it nvidia/cuda:10.2-devel-ubuntu18.04 ./deviceQuery
./deviceQuery Starting...
cudaGetDeviceCount returned 35
-> CUDA driver version is insufficient for CUDA runtime version
Result = FAIL
The host runs driver 470.82.01.
"""


def test_a_container_given_only_device_nodes_has_no_driver_not_an_old_one() -> None:
    found = match_output(DEVICES_ONLY)
    assert found[0].id == "container-no-gpu"
    assert "docker run --rm --device /dev/nvidiactl" in found[0].why  # the command, joined, as read
    assert found[0].line == 4 and "returned 35" in found[0].evidence
    # One fix: "update the driver" contradicts "give the container its GPU", and is gone.
    assert "driver-too-old" not in [d.id for d in found]


def test_the_same_error_in_a_container_given_the_gpu_stays_the_driver() -> None:
    given = DEVICES_ONLY.replace("docker run --rm", "docker run --rm --gpus all")
    assert first(given) == "driver-too-old"
    assert first(DEVICES_ONLY.replace("$ docker run", "$ nvidia-docker run")) == "driver-too-old"


def test_a_driver_volume_counts_as_giving_the_driver() -> None:
    # nvidia-docker 1.x's way: the driver's files as a volume beside the device nodes.
    text = DEVICES_ONLY.replace(
        "--device /dev/nvidia0", "--device /dev/nvidia0 -v nvidia_driver_470:/usr/local/nvidia:ro"
    )
    assert read_setup(text).driver_given and not read_setup(DEVICES_ONLY).driver_given


# ---- the CUDA a program was built for, beside the driver ---------------------------------------

COLLECT_ENV = """Collecting environment information...
PyTorch version: 1.6.0
Is debug build: No
CUDA used to build PyTorch: 10.2

OS: Ubuntu 18.04.5 LTS
Python version: 3.8
Is CUDA available: No
CUDA runtime version: 10.1.243
GPU models and configuration: GPU 0: GeForce GTX 1080 Ti
Nvidia driver version: 418.87.01
cuDNN version: /usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5
"""


def test_a_build_for_a_newer_cuda_than_the_driver_serves_is_the_old_driver() -> None:
    found = match_output(COLLECT_ENV)
    assert found[0].id == "driver-too-old"
    assert "10.2" in found[0].why and "440.33" in found[0].why and "418.87.01" in found[0].why
    assert found[0].line == 11 and "Nvidia driver version: 418.87.01" in found[0].evidence


def test_a_driver_at_the_builds_floor_is_not_called_old() -> None:
    assert first(COLLECT_ENV.replace("418.87.01", "440.33.01")) != "driver-too-old"
    # From CUDA 11 on a build runs on its major's minor-version compatibility floor (450.80.02).
    cuda_118 = COLLECT_ENV.replace("used to build PyTorch: 10.2", "used to build PyTorch: 11.8")
    assert first(cuda_118.replace("418.87.01", "450.80.02")) != "driver-too-old"
    assert first(cuda_118.replace("418.87.01", "440.33.01")) == "driver-too-old"


def test_the_floors_are_chooses_table() -> None:
    assert str(build_floor("10.1")) == "418.39"  # NVIDIA's Table 3, Linux (the lower of the two)
    assert str(build_floor("11.8")) == "450.80.2"  # minor-version compatibility, CUDA 11.x
    assert build_floor("6.5") is None  # a CUDA the knowledge has no row for decides nothing


def test_versions_without_a_failure_decide_nothing() -> None:
    healthy = COLLECT_ENV.replace("Is CUDA available: No", "Is CUDA available: Yes")
    assert not any(d.harmful for d in match_output(healthy))


# ---- MIG, a scheduler's job ---------------------------------------------------------------------


def test_mig_mode_and_no_device_found_is_the_missing_instance() -> None:
    text = "nvidia-smi -i 0 -q | grep MIG\nMIG mode is enabled\n$ ./train\nError: no CUDA devices found\n"
    found = match_output(text)
    assert found[0].id == "mig-no-instance" and found[0].line == 4
    assert first(text.replace("MIG mode is enabled", "Persistence mode is enabled")) != "mig-no-instance"


def test_a_job_that_asked_for_no_gpu_is_the_schedulers() -> None:
    text = (
        "sbatch --gres=gpu:0 --cpus-per-task=4 train.sh\n"
        "Submitted batch job 4242 (SLURM)\n"
        "slurm-4242.out: Error: No GPU device found!\n"
    )
    found = match_output(text)
    assert found[0].id == "scheduler-no-gpu" and "--gres=gpu:0" in found[0].why
    # Off a scheduler, the same request words and failure decide nothing about a job.
    off = "./run.sh --gres=gpu:0\nError: No GPU device found!\n"
    assert first(off) != "scheduler-no-gpu"


# ---- WSL2: a Linux nvidia-smi, a GPU in TCC mode ---------------------------------------------------

WSL_SMI = """WSL version: 2.3.26.0, Ubuntu 22.04 on WSL2
Windows driver version: 572.83
$ nvidia-smi
| NVIDIA-SMI 550.120                Driver Version: 550.120        CUDA Version: 12.4     |
$ python -c "import torch; torch.cuda.init()"
RuntimeError: Unexpected error from cudaGetDeviceCount()
"""


def test_an_nvidia_smi_of_another_branch_than_the_windows_driver_is_a_linux_driver_in_wsl() -> None:
    found = match_output(WSL_SMI)
    assert found[0].id == "linux-driver-in-wsl" and "572.83" in found[0].why and "550.120" in found[0].why
    assert found[0].line == 4


def test_wsls_own_nvidia_smi_is_of_the_windows_drivers_branch() -> None:
    # WSL2's nvidia-smi (from the Windows driver) prints a Linux-style version of the same branch.
    own = WSL_SMI.replace("NVIDIA-SMI 550.120 ", "NVIDIA-SMI 570.124.06").replace(
        "Driver Version: 550.120", "Driver Version: 572.83"
    )
    assert first(own) != "linux-driver-in-wsl"


def test_wsl2_and_tcc_with_the_gpu_said_unusable_is_the_driver_model() -> None:
    text = (
        "Windows 11, WSL2 Ubuntu. The Quadro RTX 5000 runs in TCC mode for compute.\n"
        "Inside WSL I cannot see the GPU with nvidia-smi at all.\n"
    )
    found = match_output(text)
    assert found[0].id == "wsl-tcc" and found[0].line == 2
    assert first(text.replace("in TCC mode", "in WDDM mode")) != "wsl-tcc"


# ---- NVML's codes as bare numbers, the facts a not-sure note lists ----------------------------------


def test_nvml_numbers_are_read_in_nvmls_table() -> None:
    assert [c.name for c in codes_in("nvmlInit_v2 err: 9")] == ["NVML_ERROR_DRIVER_NOT_LOADED"]
    assert [c.name for c in codes_in("nvml vram init failure: 18")] == ["NVML_ERROR_LIB_RM_VERSION_MISMATCH"]
    assert [c.name for c in codes_in("CUDA error: 18")] != ["NVML_ERROR_LIB_RM_VERSION_MISMATCH"]
    assert first('level=INFO msg="Unable to load management library: nvmlInit_v2 err: 18"') == (
        "driver-library-mismatch"
    )


def test_a_not_sure_note_lists_the_setup_it_read() -> None:
    text = COLLECT_ENV.replace("418.87.01", "450.80.02").replace(
        "Is CUDA available: No", "Is CUDA available: No\nRuntimeError: CUDA error: unknown error"
    )
    facts = read_facts(text)
    assert facts.setup.cuda_built == "10.2"
    note = unsure(match_output(text))
    assert note is not None and "CUDA the program was built for: 10.2" in note.evidence


def test_one_floor_for_both_readings_of_a_build() -> None:
    """A setup's "built for CUDA X" and a runtime's file name go through one floor (judge.cuda_floor):
    on a Windows driver (WSL2 included) Windows' floor, on Linux Linux's, unknown the lower."""
    from wizard.choose.knowledge import load_knowledge
    from wizard.doctor.judge import cuda_floor

    kb = load_knowledge()
    for cuda in ("10.1", "11.8", "12.4"):
        for platform in ("linux", "windows", "wsl2", None):
            found = cuda_floor(Version(cuda), platform, kb)
            assert found is not None and found[1]  # a floor, and where the table was read
            assert build_floor(cuda, platform) == found[0]
    assert str(build_floor("12.4", "wsl2")) == "528.33"  # Windows' (and WSL2's) floor for CUDA 12
    assert str(build_floor("12.4", "linux")) == "525.60.13"
    assert str(build_floor("12.4")) == "525.60.13"  # not known: the lower of the two
