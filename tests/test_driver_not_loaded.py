"""A driver installed but not loaded (its install's reboot pending): the plan's driver step is the
restart, not a second install; where a restart alone is not known to load it (no module for the
running kernel, another version on disk, Secure Boot on, an older profile that never asked) the
install stays. One fact (MachineProfile.driver_awaiting_reboot), read by the resolver, and worded
the same by Detect, Choose, `recommend`, the plan and its script."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.machines import context, fail, ok, tree
from tests.test_probe import native_files
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.doctor.findings import find_problems
from wizard.nvml import ErrorKind
from wizard.nvml_fake import FakeNvml
from wizard.plan.build import build_plan
from wizard.plan.model import Plan
from wizard.plan.view import format_plan
from wizard.probe import detect
from wizard.profile import MachineProfile
from wizard.run.runner import Runner
from wizard.text import t

DEMO = "ubuntu-22.04-rtx3060-driver-not-loaded"


def _plan(profile: MachineProfile) -> Plan:
    best = recommend(profile).recommended
    assert best is not None
    return build_plan(profile, best, home="/home/student")


def test_the_demo_plans_a_restart_not_a_reinstall() -> None:
    profile = load_demo(DEMO)
    assert profile.driver_awaiting_reboot == "550.120"
    plan = _plan(profile)
    first = plan.steps[0]
    assert first.id == "driver" and first.title == "Load the installed NVIDIA driver 550.120"
    assert first.commands == () and first.restart == "reboot" and first.download_mib == 0
    assert first.where == "user"  # nothing runs as root: the person restarts the computer
    text = format_plan(plan)
    assert "ubuntu-drivers" not in text and "apt-get update" not in text
    assert "driver 550.120 is installed but its kernel module is not loaded" in text
    assert "nouveau" in first.why  # what holds the GPU until the restart


def test_choose_and_recommend_say_restart_first(capsys: pytest.CaptureFixture[str]) -> None:
    from wizard.cli.main import main

    rec = recommend(load_demo(DEMO))
    best = rec.recommended
    assert best is not None and best.driver is not None and best.driver.restart_only
    assert best.reasons[0].startswith("restart first: ")
    assert best.driver.to_dict()["restart_only"] is True
    # A set whose floor is above the installed driver (a system-wide CUDA 12.5 toolkit: 555) still
    # needs the driver installed: its row says so.
    toolkit = next(c for c in rec.candidates if c.ok and c.set.method == "system-cuda")
    assert toolkit.driver is not None and not toolkit.driver.restart_only
    assert toolkit.reasons[0].startswith("driver step first: ")
    assert main(["--lang", "en", "recommend", "--profile", DEMO]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "recommended + restart" in out
    assert "First step: Load the installed NVIDIA driver 550.120 (a restart; nothing to download)" in out


def test_detect_says_installed_not_loaded_and_the_fix_is_a_restart() -> None:
    found = {f.key: f for f in find_problems(load_demo(DEMO))}
    gpu = found["gpu-without-driver"]  # the doctor's same diagnosis (no device reachable)
    assert gpu.title == "NVIDIA driver 550.120 is installed but not loaded"
    assert "6.8.0-49-generic" in gpu.why and "install the NVIDIA driver" not in gpu.why
    step = found["driver-step"]
    assert "ubuntu-drivers" not in step.why and "restart the computer" in step.why
    assert "installing it" not in found["nouveau"].why


def test_the_runner_asks_for_the_restart_at_once_and_the_script_has_no_wait(tmp_path: Path) -> None:
    from wizard.plan.script import render_script

    plan = _plan(load_demo(DEMO))
    run = Runner(plan, simulate=True, confirm_root=False, log_path=tmp_path / "log").run()
    assert run.outcome == "restart" and run.failed_step in (None, "driver")
    script = render_script(plan)
    block = script[script.index("Load the installed NVIDIA driver") :]
    block = block[: block.index("\nfi\n")]
    assert "read -r -p" not in block and "sudo reboot" in block


@pytest.mark.parametrize(
    "kernel",
    [
        {"secure_boot": True},  # the module may be unsigned or its key not enrolled
        {"module_for_kernel": False, "module_version": None},  # no module for this kernel
        {"module_version": "535.183.01"},  # another version on disk: a restart loads a mismatch
        {"module_for_kernel": None, "module_version": None},  # a profile that never asked
    ],
)
def test_where_a_restart_is_not_known_to_load_it_the_driver_is_installed(kernel: dict[str, object]) -> None:
    profile = load_demo(DEMO)
    profile = replace(profile, kernel=replace(profile.kernel, **kernel))  # type: ignore[arg-type]
    assert profile.driver_awaiting_reboot is None
    first = _plan(profile).steps[0]
    assert first.id == "driver" and ("ubuntu-drivers", "install", "nvidia:550") in first.commands
    assert "no NVIDIA driver is loaded" in first.why
    titles = {f.title for f in find_problems(profile)}
    assert t("findings.gpu_without_driver.title") in titles


def test_the_probe_asks_modinfo_for_the_running_kernels_module(tmp_path: Path) -> None:
    files = native_files(**{"/proc/modules": "nouveau 2400 0 - Live 0x0\n"})
    canned = {
        ("modinfo", "-F", "version", "nvidia"): ok("550.120\n"),
        ("mokutil",): ok("SecureBoot disabled\n"),
    }
    p = detect(
        context=context(tree(tmp_path / "a", files), canned),
        nvml=FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED),
    )
    assert p.kernel.module_for_kernel is True and p.kernel.module_version == "550.120"
    canned[("modinfo", "-F", "version", "nvidia")] = fail(
        1, stderr="modinfo: ERROR: Module nvidia not found.\n"
    )
    p = detect(
        context=context(tree(tmp_path / "b", files), canned),
        nvml=FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED),
    )
    assert p.kernel.module_for_kernel is False and p.kernel.module_version is None
    del canned[("modinfo", "-F", "version", "nvidia")]  # no modinfo at all: not known
    p = detect(
        context=context(tree(tmp_path / "c", files), canned),
        nvml=FakeNvml(init_error=ErrorKind.DRIVER_NOT_LOADED),
    )
    assert p.kernel.module_for_kernel is None
