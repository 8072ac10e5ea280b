"""The doctor reasons from the facts in a log (issue 35; issue 36 point 6): both sides of a driver
mismatch decide reboot against reinstall, codes name their documented cause, a scheduler that gave
no GPU is named, and a text that decides nothing gets "not sure" with the facts it read and the one
command that would decide, through one view (the CLI, --json, the app's doctor modal)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from wizard.doctor.diagnose import match_output
from wizard.doctor.facts import read_facts

ROOT = Path(__file__).resolve().parents[1]

# Issue 36 point 6: a driver update, then TensorFlow's cuInit with both versions (the CUDA code 803
# alone reads as "driver too old"); libraries 550 newer than the running module 535.
AFTER_UPDATE = """$ sudo apt upgrade
Setting up nvidia-driver-550 (550.54.14-0ubuntu1) ...
$ python -c "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"
E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination
I external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:159] libcuda reported version is: 550.54.14
I external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:163] kernel reported version is: 535.154.5
E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:244] kernel version 535.154.5 does not match DSO version 550.54.14 -- cannot find working devices in this configuration
[]
"""


def ids(text: str) -> list[str]:
    return [d.id for d in match_output(text) if d.harmful]


def test_a_mismatch_after_an_update_says_reboot_and_only_reboot() -> None:
    found = match_output(AFTER_UPDATE)
    harmful = [d for d in found if d.harmful]
    assert harmful[0].id == "driver-library-mismatch"
    assert harmful[0].fix == "sudo reboot"
    assert "550.54.14" in harmful[0].why and "535.154.5" in harmful[0].why
    # Never two fixes that contradict each other: no "update the driver" anywhere in the report.
    assert "driver-too-old" not in [d.id for d in found]
    assert harmful[0].line == 7  # the DSO line, its evidence
    assert "does not match DSO version" in harmful[0].evidence


def test_nvrm_libraries_newer_than_the_module_say_reboot() -> None:
    text = (
        "NVRM: API mismatch: the client has the version 390.25, but\n"
        "NVRM: this kernel module has the version 390.12.  Please\n"
        "NVRM: make sure that this kernel module and all NVIDIA driver\n"
        "NVRM: components have the same version.\n"
    )
    facts = read_facts(text)
    assert (facts.driver_library, facts.driver_kernel, facts.mismatch()) == ("390.25", "390.12", 1)
    found = match_output(text)
    assert found[0].id == "driver-library-mismatch" and found[0].fix == "sudo reboot"


def test_libraries_older_than_the_running_module_are_not_mended_by_a_reboot() -> None:
    text = "kernel version 515.48.7 does not match DSO version 510.73.5 -- cannot find working devices in this configuration"
    found = match_output(text)
    assert found[0].id == "driver-library-mismatch"
    assert "reboot" not in found[0].fix and "ldconfig -p" in found[0].fix
    assert "510.73.5" in found[0].why and "515.48.7" in found[0].why
    assert [d.id for d in found if d.harmful] == ["driver-library-mismatch"]


def test_a_containers_newer_libcuda_names_the_mismatch_and_neither_fix() -> None:
    # Inside a container TensorFlow's libcuda may be the image's forward-compatibility copy (update
    # the host driver) or the host's own new one mounted before its reboot (reboot): the host's
    # nvidia-smi decides, so the doctor names the mismatch it sees (the open verdict, stop 50; it was
    # a bare not-sure note) and neither fix.
    text = "docker run --gpus all tensorflow/tensorflow:2.5.0-gpu\n" + AFTER_UPDATE
    found = match_output(text)
    got = [d.id for d in found]
    assert "driver-too-old" not in got and "not-sure" not in got
    d = found[0]
    assert d.id == "driver-library-mismatch" and d.verdict == "driver-mismatch-one-side"
    assert "outside the container" in d.why and d.fix.endswith(": nvidia-smi")
    assert "550.54.14" in d.why and "535.154.5" in d.why and "535.154.5" in d.evidence


def test_equal_versions_written_two_ways_are_no_mismatch() -> None:
    facts = read_facts("libcuda reported version is: 535.154.5\nkernel reported version is: 535.154.05\n")
    assert facts.mismatch() == 0


def test_a_scheduler_that_gave_no_gpu_is_named() -> None:
    text = (
        "SLURM_JOB_ID=4242\nCUDA_VISIBLE_DEVICES=NoDevFiles\n"
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    found = match_output(text)
    assert found[0].id == "scheduler-no-gpu" and "--gres=gpu:1" in found[0].fix
    # Without the scheduler's variable the same line is the catalogue's own answer.
    assert match_output(text.replace("CUDA_VISIBLE_DEVICES=NoDevFiles\n", ""))[0].id != "scheduler-no-gpu"


def test_a_busy_gpu_in_exclusive_mode_names_the_mode() -> None:
    text = (
        "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable\n"
        "|   0  Tesla K40m          On   | 0000:04:00.0     Off |                    0 |\n"
        "| N/A   35C    P0    63W / 235W |     74MiB / 11439MiB |      0%   E. Process |\n"
    )
    found = match_output(text)
    assert found[0].id == "gpu-busy" and "E. Process" in found[0].why
    assert "nvidia-smi -q -d COMPUTE" in found[0].fix


def test_a_code_the_catalogue_has_no_row_for_is_explained_not_guessed() -> None:
    found = match_output(
        "cudaGetDeviceCount returned 304\n-> OS call failed or operation not supported on this OS\n"
    )
    assert not any(d.harmful for d in found)
    note = found[0]
    assert note.id == "not-sure" and note.severity == "info"
    assert "cudaErrorOperatingSystem (304)" in note.evidence
    assert "driver_types.h" in note.seen_in and ".whl" in note.seen_in


def test_harmless_messages_alone_get_no_not_sure_note() -> None:
    text = "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT"
    assert [d.id for d in match_output(text)] == ["noise-tensorrt"]


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from wizard.cli.main import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            "PYTHONPATH": str(ROOT),
            "TF_GPU_WIZARD_HOME": tempfile.mkdtemp(prefix="i35-doctor-"),
            "COLUMNS": "200",
            "PATH": "/usr/bin:/bin",
            "TF_GPU_WIZARD_LANG": "en",
        },
        timeout=120,
    )


UNDECIDED = "Windows 11, WSL2, GeForce RTX 3060 Laptop GPU\ncudaGetDeviceCount returned 304\n"


def test_doctor_log_on_an_undecidable_text_says_not_sure_with_facts_and_command() -> None:
    out = _cli("doctor", "--profile", "wsl2-rtx4060-laptop", "--log", "-", stdin=UNDECIDED)
    assert out.returncode in (0, 1), out.stderr
    text = " ".join(out.stdout.split())
    assert "Not sure what caused this" in text
    assert "The doctor read:" in text and "WSL2" in text and "GeForce RTX 3060 Laptop GPU" in text
    assert "cudaErrorOperatingSystem (304)" in text
    assert "Run this and give its output to the doctor with the text: nvidia-smi" in text
    assert "does not recognise an error" not in text  # one answer, not two


def test_doctor_log_json_carries_the_same_not_sure() -> None:
    out = _cli("doctor", "--profile", "wsl2-rtx4060-laptop", "--log", "-", "--json", stdin=UNDECIDED)
    items = json.loads(out.stdout)
    note = next(d for d in items if d["id"] == "not-sure")
    assert note["harmful"] is False and note["origin"] == "output"
    assert "nvidia-smi" in note["fix"] and "cudaErrorOperatingSystem" in note["evidence"]


def test_the_not_sure_note_reads_in_chinese_too() -> None:
    from wizard.text import has

    for key in ("title", "why", "fix", "facts"):
        assert has(f"doctor.not-sure.{key}")


def test_wsl2_with_a_gpu_in_tcc_mode_names_the_driver_model() -> None:
    text = (
        "PS C:\\> nvidia-smi\n"
        "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "|   0  Quadro RTX 6000      TCC  | 00000000:65:00.0 Off |                  Off |\n"
        "$ wsl -d Ubuntu  (WSL2)\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    found = match_output(text)
    assert found[0].id == "wsl-tcc" and "-dm 0" in found[0].fix
    # The same failure without TCC stays the catalogue's answer.
    assert match_output(text.replace("TCC  |", "WDDM |"))[0].id != "wsl-tcc"


def test_mig_mode_with_no_device_names_the_missing_instance() -> None:
    text = (
        "GPU 0: NVIDIA A100-PCIE-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
        "  MIG 1g.5gb      Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)\n"
        "CUDA_ERROR_NO_DEVICE. Error initialising basecall server\n"
    )
    found = match_output(text)
    assert found[0].id == "mig-no-instance" and "CUDA_VISIBLE_DEVICES=MIG-" in found[0].fix


async def test_the_apps_doctor_modal_shows_the_same_not_sure() -> None:
    # The Run screen's doctor (screens/doctor_modal.py) gets the same Diagnosis list as the CLI.
    from textual.app import App

    from screens.doctor_modal import DoctorModal
    from tests.apps.screen_text import screen_text
    from wizard.doctor.diagnose import diagnose

    class One(App[None]):
        def on_mount(self) -> None:
            self.push_screen(DoctorModal(diagnose(None, output=UNDECIDED)))

    app = One()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        seen = " ".join(screen_text(app).split())
        assert "Not sure what caused this" in seen
        assert "cudaErrorOperatingSystem (304)" in seen
        assert "Run this and give its output to the doctor with the text: nvidia-smi" in seen


def test_a_driver_below_the_floor_of_the_loaded_cuda_is_too_old_by_chooses_table() -> None:
    text = (
        "| NVIDIA-SMI 470.161.03   Driver Version: 470.161.03   CUDA Version: 11.4     |\n"
        "I tensorflow/tsl/platform/default/dso_loader.cc] Successfully opened dynamic library libcudart.so.12\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    found = match_output(text)
    assert found[0].id == "driver-too-old"
    assert "470.161.03" in found[0].why and "525.60.13" in found[0].why
    # A driver at the floor decides nothing of the kind.
    assert match_output(text.replace("470.161.03", "535.104.05"))[0].id != "driver-too-old"
