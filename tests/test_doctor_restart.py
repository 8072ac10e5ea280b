"""The doctor on a machine whose NVIDIA driver is installed but not loaded: one restart is the fix.

`doctor --profile ubuntu-22.04-rtx3060-driver-not-loaded` used to give its three machine findings
the generic fixes: "Run `tf-gpu-wizard detect`" (no CUDA device), "Install NVIDIA's driver (sudo
ubuntu-drivers install ...)" (nouveau, though the installed driver blacklists it from the next
restart) and "Run detect" again (the driver step). Where choose's DriverNeed says the recommended
set's driver step is a restart (restart_only), each says so: sudo reboot, nothing to install, in
English and Chinese, in text and --json. Where the cause is not known to be that (Secure Boot on,
the installed driver too old for the set, no driver at all) the generic fixes stay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wizard.choose.resolver import recommend
from wizard.cli import main
from wizard.demo import load_demo
from wizard.doctor.diagnose import diagnose
from wizard.profile import LibCuda
from wizard.text import set_language

DEMO = "ubuntu-22.04-rtx3060-driver-not-loaded"
FINDINGS = ("no-device", "nouveau", "finding-driver-step")


@pytest.fixture(autouse=True)
def _english() -> Any:
    yield
    set_language(None)


def doctor(capsys: Any, *argv: str) -> str:
    capsys.readouterr()
    assert main(["doctor", *argv]) == 1  # harmful: no GPU reachable
    return capsys.readouterr().out


def fixes(capsys: Any, *argv: str) -> dict[str, str]:
    return {d["id"]: d["fix"] for d in json.loads(doctor(capsys, *argv, "--json"))}


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_three_findings_give_the_restart_as_the_fix(capsys: Any) -> None:
    found = fixes(capsys, "--profile", DEMO)
    assert set(FINDINGS) <= set(found)
    for diag_id in FINDINGS:
        fix = found[diag_id]
        assert "sudo reboot" in fix and "Nothing to install" in fix and "550.120" in fix, diag_id
        assert "ubuntu-drivers" not in fix and "tf-gpu-wizard detect" not in fix, diag_id
    # The report a person reads: every Fix line is the restart, no install, no "run detect".
    out = doctor(capsys, "--profile", DEMO)
    fix_lines = [flat(part.split("Source:")[0]) for part in out.split("\n  Fix: ")[1:]]
    assert len(fix_lines) == 3 and all(
        line.startswith("Restart the computer once: sudo reboot") for line in fix_lines
    )
    assert "ubuntu-drivers install" not in out and "Run `tf-gpu-wizard detect`" not in out


def test_in_chinese(capsys: Any) -> None:
    found = fixes(capsys, "--profile", DEMO, "--lang", "zh")
    for diag_id in FINDINGS:
        fix = found[diag_id]
        assert fix.startswith("重启电脑一次：sudo reboot") and "不需要安装任何东西" in fix, diag_id
        assert "550.120" in fix and "ubuntu-drivers" not in fix and "detect" not in fix
    out = doctor(capsys, "--profile", DEMO, "--lang", "zh")
    assert out.count("修复方法：重启电脑一次：sudo reboot") == 3


def test_the_fix_follows_what_choose_carries() -> None:
    profile = load_demo(DEMO)
    need = recommend(profile).recommended.driver  # type: ignore[union-attr]
    assert need is not None and need.restart_only and need.installed == "550.120"
    by_id = {d.id: d for d in diagnose(profile)}
    assert all(need.installed in by_id[i].fix for i in FINDINGS)


def variant(tmp_path: Path, name: str, **kernel: Any) -> str:
    profile = load_demo(DEMO)
    for key, value in kernel.items():
        if key == "libcuda":
            profile.libcuda = [LibCuda(value)]
        else:
            setattr(profile.kernel, key, value)
    path = tmp_path / f"{name}.json"
    profile.save(path)
    return str(path)


def test_secure_boot_keeps_the_generic_fixes(tmp_path: Path, capsys: Any) -> None:
    # Secure Boot on: an unsigned module is the likelier cause; a restart alone is not known to help.
    found = fixes(capsys, "--profile", variant(tmp_path, "secure-boot", secure_boot=True))
    assert "tf-gpu-wizard detect" in found["no-device"] and "sudo reboot" not in found["no-device"]
    assert "ubuntu-drivers install" in found["nouveau"]
    assert not any("Restart the computer once" in fix for fix in found.values())


def test_an_installed_driver_too_old_for_the_set_is_not_a_restart(tmp_path: Path, capsys: Any) -> None:
    # Driver 470 is on disk and awaits a restart, but TensorFlow's set needs 525.60.13 or newer:
    # choose's driver step installs one (not restart_only), so the doctor's fixes are not the restart.
    old = variant(
        tmp_path,
        "old",
        module_version="470.256.02",
        libcuda="/usr/lib/x86_64-linux-gnu/libcuda.so.470.256.02",
    )
    found = fixes(capsys, "--profile", old)
    assert not any("Restart the computer once" in fix for fix in found.values())
    assert "tf-gpu-wizard detect" in found["no-device"]


def test_no_driver_at_all_keeps_the_generic_fixes(capsys: Any) -> None:
    found = fixes(capsys, "--profile", "ubuntu-24.04-rtx4090-fresh")
    assert "tf-gpu-wizard detect" in found["no-device"]
    assert not any("Restart the computer once" in fix for fix in found.values())


def test_a_log_read_on_that_machine_names_the_restart_for_it(tmp_path: Path, capsys: Any) -> None:
    log = tmp_path / "train.log"
    log.write_text("failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n")
    items = json.loads(doctor(capsys, "--profile", DEMO, "--log", str(log), "--json"))
    cuinit = next(d for d in items if d["id"] == "cuinit-failed")
    assert "sudo reboot" in cuinit["for_this_machine"] and "550.120" in cuinit["for_this_machine"]
    # The same log on a machine with no driver installed: no restart promised.
    items = json.loads(doctor(capsys, "--profile", "ubuntu-24.04-rtx4090-fresh", "--log", str(log), "--json"))
    cuinit = next(d for d in items if d["id"] == "cuinit-failed")
    assert "sudo reboot" not in cuinit["for_this_machine"]


async def test_the_apps_doctor_shows_the_restart() -> None:
    from textual.app import App

    from screens.doctor_modal import DoctorModal
    from tests.apps.screen_text import screen_text

    class One(App[None]):
        def on_mount(self) -> None:
            profile = load_demo(DEMO)
            self.push_screen(DoctorModal(diagnose(profile), profile, output_given=False))

    app = One()
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        seen = flat(screen_text(app))
        assert seen.count("Fix: Restart the computer once: sudo reboot") == 3
        assert "ubuntu-drivers install" not in seen
