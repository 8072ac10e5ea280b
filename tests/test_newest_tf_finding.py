"""Detect no longer says "No problems found" when the newest TensorFlow is out of reach: an old
driver (Linux or the Windows one under WSL2), an old GPU, or a Python to add, each with its fix."""

from __future__ import annotations

import copy
import os
import subprocess
import sys

from wizard.choose.knowledge import load_knowledge
from wizard.demo import load_demo
from wizard.doctor.findings import Finding, find_problems
from wizard.profile import DriverInfo
from wizard.text import t

NEWEST = load_knowledge().releases[0].series


def by_key(findings: list[Finding]) -> dict[str, Finding]:
    return {f.key: f for f in findings}


def test_an_old_linux_driver_is_a_finding_with_the_driver_to_get() -> None:
    found = by_key(find_problems(load_demo("ubuntu-20.04-gtx1080-driver470")))
    f = found["newest-tf-driver"]
    assert NEWEST in f.title
    assert "525.60.13" in f.why and "470.256.02" in f.why  # the version to get, and the one here
    assert "nvidia-driver-550" in f.why and "reboot" in f.why  # how (the plan's command), then
    assert "2.14" in f.why  # what works until then
    assert f.severity == "info"  # a way forward, not a failure: TF 2.14 trains on this GPU


def test_an_old_windows_driver_under_wsl2_says_to_update_it_in_windows() -> None:
    profile = copy.deepcopy(load_demo("wsl2-rtx4060-laptop"))
    assert profile.driver is not None
    profile.driver = DriverInfo(version="512.95", cuda="12.0", source=profile.driver.source)
    # WSL2 recommends the newest set with a Windows driver step: a warning naming that step.
    f = by_key(find_problems(profile))["driver-step"]
    assert f.severity == "warning"
    assert f.title.startswith("Windows: NVIDIA driver 528.33 or newer")
    assert "528.33" in f.why and "512.95" in f.why and "wsl --shutdown" in f.why
    assert "ubuntu-drivers" not in f.why  # never a Linux driver inside WSL


def test_a_current_machine_gets_no_such_finding() -> None:
    keys = set(by_key(find_problems(load_demo("wsl2-rtx4060-laptop"))))
    assert not keys & {"newest-tf-driver", "newest-tf-gpu-old", "python-too-old", "driver-step"}


def test_a_gpu_too_old_for_the_newest_release_names_the_newest_that_runs() -> None:
    f = by_key(find_problems(load_demo("ubuntu-22.04-gtx960m-laptop")))["newest-tf-gpu-old"]
    assert NEWEST in f.title and "5.0" in f.why and "2.16" in f.why
    cpu = by_key(find_problems(load_demo("ubuntu-22.04-gtx680-old")))["newest-tf-gpu-old"]
    assert t("findings.until.gpu_cpu") in cpu.why


def test_a_python_older_than_the_recommended_tensorflow_is_said() -> None:
    f = by_key(find_problems(load_demo("ubuntu-20.04-gtx1080-driver470")))["python-too-old"]
    assert "3.9" in f.title and "3.8" in f.title


def test_platforms_with_their_own_finding_are_not_told_twice() -> None:
    for name in ("wsl1-ubuntu-22.04", "macos-arm64", "no-nvidia-gpu"):
        assert "newest-tf-driver" not in by_key(find_problems(load_demo(name)))


def test_detect_cli_shows_the_finding_instead_of_no_problems() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wizard", "--profile", "ubuntu-20.04-gtx1080-driver470", "detect"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    out = " ".join(result.stdout.split())
    assert t("findings.newest_tf_driver.title", newest=NEWEST) in out
    assert t("detect.no_problems") not in out


async def test_detect_screen_lists_it_under_what_needs_attention() -> None:
    from tests.apps.screen_text import screen_text
    from tests.apps.wizard_app import build_app, to_detect

    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_detect(pilot)
        seen = screen_text(app)
        assert t("findings.newest_tf_driver.title", newest=NEWEST) in seen
        assert t("app.detect.no_problems") not in seen


def _recommend_reason(profile_name: str, tf: str) -> str:
    """The reason Choose's table gives for the pip set of that TensorFlow series on this machine."""
    from wizard.choose.resolver import recommend

    rec = recommend(load_demo(profile_name), load_knowledge())
    rows = [c for c in rec.candidates if c.set.tensorflow.startswith(tf) and c.set.method == "pip-and-cuda"]
    assert rows and not rows[0].ok
    return rows[0].reasons[0]


def test_an_installed_tensorflow_that_cannot_use_the_gpu_is_said_with_chooses_reason() -> None:
    # RTX 5090 with TF 2.19 installed: Detect used to say nothing of it while Choose's row said "no".
    f = by_key(find_problems(load_demo("ubuntu-24.04-rtx5090")))["installed-tf-blocked"]
    assert f.severity == "warning" and "2.19.0" in f.title
    reason = _recommend_reason("ubuntu-24.04-rtx5090", "2.19")
    assert reason.split(": ", 1)[-1][:80] in f.why  # one fact, one place: the resolver's words
    assert "2.21.0" in f.why  # what the plan installs instead
    assert "tf-gpu-wizard plan" in f.fix
    assert f.source.startswith("tensorflow-2.19") and ".whl sha256 " in f.source  # the wheel read, public
    assert "assets/" not in f.source


def test_an_installed_tensorflow_that_fits_or_is_cpu_only_gets_no_such_finding() -> None:
    assert "installed-tf-blocked" not in by_key(find_problems(load_demo("ubuntu-22.04-rtx3090-cuda11.8")))
    cpu = copy.deepcopy(load_demo("ubuntu-24.04-rtx5090"))
    assert cpu.tensorflow is not None
    cpu.tensorflow.distribution = "tensorflow-cpu"
    assert "installed-tf-blocked" not in by_key(find_problems(cpu))


def test_detect_cli_prints_each_finding_whole() -> None:
    # The Blackwell report is ~1,100 characters: Detect used to cut it at 1,000, mid-word ("the GPU ch…").
    result = subprocess.run(
        # Whole with --explain (issue 36: by default each finding leads with one line).
        [sys.executable, "-m", "wizard", "--profile", "ubuntu-24.04-rtx5090", "detect", "--explain"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert result.returncode == 0
    out = " ".join(result.stdout.split())
    why = by_key(find_problems(load_demo("ubuntu-24.04-rtx5090")))["reported-fail"].why
    assert len(why) > 1000 and " ".join(why.split()) in out
    assert "…" not in out
