"""A driver/library mismatch in WSL2: no Linux kernel module, no /proc version, no reboot to wait for.

In WSL2 the driver is the Windows driver (its libraries in /usr/lib/wsl/lib), so the native fix's
deciding command (`cat /proc/driver/nvidia/version`) reads a file WSL2 does not have. The text's own
words (a microsoft-standard kernel, /usr/lib/wsl) decide the platform; where the doctor knows the
machine wrote the text (a plan step's output), the machine's platform decides it.
"""

from __future__ import annotations

import json
import sys

from tests.test_doctor_cli import wizard
from wizard.demo import load_demo
from wizard.doctor.diagnose import diagnose

MISMATCH = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.54\n"
WSL_SESSION = (
    "me@laptop:~$ uname -r\n5.15.153.1-microsoft-standard-WSL2\nme@laptop:~$ nvidia-smi\n" + MISMATCH
)
WSL_COMMAND = "ldconfig -p | grep -E 'libnvidia-ml|libcuda'"
NATIVE_COMMAND = "cat /proc/driver/nvidia/version; nvidia-smi"


def _diagnoses(stdout: str) -> list:
    data = json.loads(stdout)
    return data["diagnoses"] if isinstance(data, dict) else data  # --run adds its command's facts


def _first(found: list) -> dict:
    return next(d for d in found if d["origin"] == "output")


def test_a_wsl2_session_gets_the_library_copies_not_procs_version(tmp_path) -> None:
    log = tmp_path / "wsl.txt"
    log.write_text(WSL_SESSION, encoding="utf-8")
    proc = wizard("doctor", "--profile", "ubuntu-24.04-rtx4090-fresh", "--log", str(log), "--json")
    first = _first(_diagnoses(proc.stdout))
    assert "WSL2" in first["title"]
    assert first["fix"].endswith(WSL_COMMAND)
    assert "wsl --shutdown" in first["fix"]
    assert "/proc/driver/nvidia" not in first["fix"]
    assert "reboot" not in first["fix"].lower()


def test_the_same_text_without_wsl_keeps_the_native_command(tmp_path) -> None:
    log = tmp_path / "native.txt"
    log.write_text(MISMATCH, encoding="utf-8")
    # A WSL2 demo, but a pasted text may come from any machine: the text decides, and says nothing.
    proc = wizard("doctor", "--profile", "wsl2-rtx4060-laptop", "--log", str(log), "--json")
    first = _first(_diagnoses(proc.stdout))
    assert first["fix"].endswith(NATIVE_COMMAND)
    # ... and the machine's own line says what that command cannot show there, and what can.
    assert "no /proc/driver/nvidia/version" in first["for_this_machine"]
    assert first["for_this_machine"].endswith(WSL_COMMAND)


def test_a_native_machine_adds_no_wsl_line_and_a_wsl_answer_no_second_one(tmp_path) -> None:
    log = tmp_path / "native.txt"
    log.write_text(MISMATCH, encoding="utf-8")
    proc = wizard("doctor", "--profile", "ubuntu-24.04-rtx4090-fresh", "--log", str(log), "--json")
    assert "WSL2" not in _first(_diagnoses(proc.stdout))["for_this_machine"]
    log.write_text(WSL_SESSION, encoding="utf-8")
    proc = wizard("doctor", "--profile", "wsl2-rtx4060-laptop", "--log", str(log), "--json")
    first = _first(_diagnoses(proc.stdout))
    assert first["fix"].endswith(WSL_COMMAND) and WSL_COMMAND not in first["for_this_machine"]


def test_a_step_run_on_a_wsl2_machine_gets_the_wsl_answer() -> None:
    """The run screen's doctor: the step ran on the profile's machine, which is WSL2."""
    profile = load_demo("wsl2-rtx4060-laptop")
    here = _first([d.to_dict() for d in diagnose(profile, output=MISMATCH, written_there=True)])
    assert here["fix"].endswith(WSL_COMMAND)
    native = load_demo("ubuntu-24.04-rtx4090-fresh")
    there = _first([d.to_dict() for d in diagnose(native, output=MISMATCH, written_there=True)])
    assert there["fix"].endswith(NATIVE_COMMAND)


def test_a_demo_profile_never_speaks_for_a_command_run_here(tmp_path) -> None:
    """`doctor --profile <WSL2 demo> --run ...` runs the command on this computer, not in the demo."""
    script = tmp_path / "fail.py"
    script.write_text(f"import sys\nsys.stdout.write({MISMATCH!r})\nsys.exit(9)\n", encoding="utf-8")
    proc = wizard(
        "doctor", "--profile", "wsl2-rtx4060-laptop", "--json", "--run", sys.executable, str(script)
    )
    first = _first(_diagnoses(proc.stdout))
    assert first["fix"].endswith(NATIVE_COMMAND)


def test_chinese_fix_ends_with_the_whole_command(tmp_path) -> None:
    log = tmp_path / "wsl.txt"
    log.write_text(WSL_SESSION, encoding="utf-8")
    proc = wizard(
        "doctor", "--lang", "zh", "--profile", "ubuntu-24.04-rtx4090-fresh", "--log", str(log), "--json"
    )
    first = _first(_diagnoses(proc.stdout))
    assert "WSL2" in first["title"] and first["fix"].endswith(WSL_COMMAND)
    assert "wsl --shutdown" in first["fix"]
