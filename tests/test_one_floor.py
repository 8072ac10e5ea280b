"""One fact, one place: for every demo and fixture machine, detect, recommend, plan and the app's
screens name the same TensorFlow and the same driver floor for the chosen set (computed once in
choose and carried by the candidate), and nothing else that looks like a driver version but the
driver the machine has, that floor, and the floor of the newer set offered one key away."""

from __future__ import annotations

import copy
import io
import re
from dataclasses import dataclass

import pytest
from rich.console import Console

from wizard.choose.choice import Recommendation
from wizard.choose.resolver import recommend
from wizard.cli.recommend import render
from wizard.demo import demo_names, load_demo
from wizard.doctor.findings import find_problems
from wizard.plan.build import build_plan
from wizard.plan.view import format_plan
from wizard.profile import DriverInfo, GpuInfo, MachineProfile
from wizard.profile_view import part_rows

# A driver version as NVIDIA writes one (470.256.02, 528.33); never a CUDA, TF or wheel version.
DRIVER = re.compile(r"(?<![\d.])([3-9]\d{2}\.\d{2,3}(?:\.\d{2})?)(?![\d.])")


def _with_driver(name: str, version: str | None, cuda: str = "12.0") -> MachineProfile:
    profile = copy.deepcopy(load_demo(name))
    profile.driver = DriverInfo(version=version, cuda=cuda, source="nvml") if version else None
    profile.label = f"{profile.label} (driver {version or 'none'})"
    profile.notes = []  # the demo's notes name its own driver
    return profile


def fixtures() -> list[tuple[str, MachineProfile]]:
    """The demos, and the old-driver cases the issue found, on each platform."""
    out = [(name, load_demo(name)) for name in demo_names()]
    out.append(("wsl2-driver-512", _with_driver("wsl2-rtx4060-laptop", "512.78")))
    out.append(("wsl2-no-driver", _with_driver("wsl2-rtx4060-laptop", None)))
    out.append(("windows-driver-512", _with_driver("windows11-rtx3070", "512.78")))
    out.append(("linux-1080-driver-390", _with_driver("ubuntu-20.04-gtx1080-driver470", "390.157", "9.1")))
    out.append(
        ("linux-h100-driver-535", _with_driver("ubuntu-22.04-h100-driver535-server", "535.183.01", "12.2"))
    )
    k80 = _with_driver("ubuntu-22.04-gtx680-old", None)
    k80.gpus = [GpuInfo(index=0, name="Tesla K80", compute_capability="3.7")]
    out.append(("linux-k80-no-driver", k80))
    return out


CASES = fixtures()
IDS = [name for name, _ in CASES]


@dataclass
class Chosen:
    tf: str
    floor: str | None  # the floor the chosen set needs here (None: cpu, or none known)
    step: bool  # a driver step comes first
    allowed: set[str]  # every driver version an output may name


def chosen(profile: MachineProfile, rec: Recommendation) -> Chosen:
    best = rec.recommended
    assert best is not None
    allowed = set()
    if profile.driver is not None:
        allowed.add(str(profile.driver.version))
    # The machine's own facts name its drivers too (a loaded module, the module on disk for the
    # running kernel, a libcuda file's version).
    km = profile.kernel
    libs = " ".join(lib.path for lib in profile.libcuda)
    allowed |= _drivers(f"{km.loaded_version} {km.module_version} {libs}")
    # A machine state names the versions its evidence shows (both sides of a mismatch).
    allowed |= _drivers(" ".join(v for st in profile.states for v in st.facts.values()))
    allowed |= _drivers(" ".join(e.line + " " + e.source for st in profile.states for e in st.evidence))
    floor = best.driver.floor if best.driver else None
    if floor:
        allowed.add(floor)
    if rec.upgrade is not None and rec.upgrade.driver is not None:
        allowed.add(rec.upgrade.driver.floor)
    return Chosen(best.set.tensorflow, floor, best.driver_step, allowed)


def _drivers(text: str) -> set[str]:
    return set(DRIVER.findall(text))


def detect_text(profile: MachineProfile) -> str:
    rows = [
        value
        for part in ("platform", "python", "nvidia", "kernel", "cuda")
        for _, value in part_rows(part, profile)
    ]
    findings = [f"{f.title} {f.why}" for f in find_problems(profile)]
    return "\n".join(rows + findings)


def doctor_text(profile: MachineProfile) -> str:
    """What `doctor` says of this machine (no log): every diagnosis and its fix for this machine."""
    from wizard.doctor.diagnose import diagnose

    return "\n".join(f"{d.title} {d.why} {d.fix} {d.for_this_machine}" for d in diagnose(profile))


def recommend_summary(rec: Recommendation) -> str:
    """What `recommend` says of the chosen set: its row's reasons and everything under the table."""
    out = io.StringIO()
    render(rec, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    summary = text[text.index("Recommended:") :] if "Recommended:" in text else text
    best = rec.recommended
    return summary + "\n" + "\n".join(best.reasons if best else [])


@pytest.mark.parametrize(("name", "profile"), CASES, ids=IDS)
def test_detect_recommend_and_plan_name_one_floor(name: str, profile: MachineProfile) -> None:
    rec = recommend(profile)
    if rec.recommended is None:
        return
    c = chosen(profile, rec)
    plan = build_plan(profile, rec.recommended, home="/home/student")
    outputs = {
        "detect": detect_text(profile),
        "recommend": recommend_summary(rec),
        "plan": format_plan(plan, 200),
        "doctor": doctor_text(profile),
    }
    assert plan.set.tensorflow == c.tf
    assert f"TensorFlow {c.tf}" in outputs["recommend"] and f"TensorFlow {c.tf}" in outputs["plan"]
    for where, text in outputs.items():
        stray = _drivers(text) - c.allowed
        assert not stray, f"{name}: {where} names {stray}, the chosen set's facts are {c}"
        if c.step:
            assert c.floor in text, f"{name}: {where} does not name the floor {c.floor}"
    if c.step:
        need = rec.recommended.driver
        # A driver installed but not loaded: the step's title is the installed driver it loads
        # (the floor is in its why); else the floor it installs.
        named = need.installed if need is not None and need.restart_only else c.floor
        if need is not None and need.fix is not None:  # a stopped machine: the step names its state
            named = need.fix.title
        detect = [f for f in find_problems(profile) if named and named in f.title and c.floor in f.why]
        assert detect and all(f.severity == "warning" for f in detect), f"{name}: Detect: {detect}"


def test_the_wsl2_case_of_the_issue_gets_2_21_with_the_windows_step() -> None:
    """WSL2, Windows driver 527.41, RTX 3080 Laptop GPU: TF 2.21 and "Windows: NVIDIA driver 528.33
    or newer", everywhere; Detect says it as a warning."""
    profile = load_demo("wsl2-rtx3080-laptop-driver527")
    rec = recommend(profile)
    best = rec.recommended
    assert best is not None and best.set.tensorflow == "2.21.0" and best.set.method == "pip-and-cuda"
    assert best.driver is not None and best.driver.step and best.driver.floor == "528.33"
    assert best.driver.side == "windows" and best.driver.cuda == "12.5" and best.driver.basis_cuda == "12.0"
    plan = build_plan(profile, best, home="/home/student")
    step = plan.steps[0]
    assert step.id == "windows-driver" and step.title == "Windows: NVIDIA driver 528.33 or newer"
    assert "520.06" not in format_plan(plan) and "555.85" not in recommend_summary(rec)
    assert "TF 2.21 uses CUDA 12.5; on Windows a CUDA 12.0 driver runs it from 528.33 on" in step.why
    assert "yours is 527.41" in step.why
    warning = [f for f in find_problems(profile) if f.key == "driver-step"]
    assert warning and warning[0].severity == "warning" and "528.33" in warning[0].title


def test_native_linux_keeps_the_set_that_runs_and_plans_the_newer_one_on_request() -> None:
    """GTX 1080 on 470: 2.14.1 stays recommended; `plan --tf 2.21` gives the GPU plan with a driver
    step (never TensorFlow on the CPU in silence)."""
    profile = load_demo("ubuntu-20.04-gtx1080-driver470")
    rec = recommend(profile)
    assert rec.recommended is not None and rec.recommended.set.tensorflow == "2.14.1"
    assert rec.upgrade is not None and rec.upgrade.set.tensorflow == "2.21.0"
    assert rec.upgrade.driver is not None and rec.upgrade.driver.floor == "525.60.13"
    wanted = recommend(profile, tf="2.21").recommended
    assert wanted is not None and wanted.set.method == "pip-and-cuda" and wanted.driver_step
    plan = build_plan(profile, wanted, home="/home/student")
    assert plan.steps[0].id == "driver" and plan.steps[0].where == "root"
    assert "525.60.13" in plan.steps[0].check.proves


def test_secure_boot_is_said_in_the_driver_step() -> None:
    profile = _with_driver("ubuntu-20.04-gtx1080-driver470", "470.256.02", "11.4")
    profile.kernel.secure_boot = True
    wanted = recommend(profile, tf="2.21").recommended
    assert wanted is not None
    step = build_plan(profile, wanted, home="/home/student").steps[0]
    assert "Secure Boot" in step.why and "DKMS" in step.why


async def _screens(profile: MachineProfile) -> dict[str, str]:
    from screens.app import WizardApp
    from tests.apps.screen_text import screen_text
    from tests.apps.wizard_app import FROZEN, settle

    app = WizardApp(profile, blink=False, clock=lambda: FROZEN, offer_resume=False, suggest_mirror=False)
    seen: dict[str, str] = {}
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        seen["Detect"] = screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        seen["Choose"] = screen_text(app)
        await pilot.press("p")
        await settle(pilot)
        seen["Plan"] = screen_text(app)
        await pilot.press("r")  # the run: its step list and the first step's panel
        await pilot.pause(0.5)
        seen["Run"] = screen_text(app)
    return seen


PILOT = [
    c
    for c in CASES
    if c[0]
    in (
        "wsl2-rtx3080-laptop-driver527",
        "ubuntu-20.04-gtx1080-driver470",
        "windows-driver-512",
        "linux-1080-driver-390",
        "wsl2-rtx4060-laptop",
    )
]


@pytest.mark.parametrize(("name", "profile"), PILOT, ids=[n for n, _ in PILOT])
async def test_the_app_screens_name_the_same_set_and_floor(name: str, profile: MachineProfile) -> None:
    rec = recommend(profile)
    c = chosen(profile, rec)
    seen = await _screens(profile)
    for screen, text in seen.items():
        flat = " ".join(text.split())
        stray = _drivers(flat) - c.allowed
        assert not stray, f"{name}: {screen} names {stray}; the chosen set's facts are {c}"
        if c.step:
            assert c.floor in flat, f"{name}: {screen} does not name {c.floor}"
    assert c.tf in " ".join(seen["Choose"].split())
    if profile.platform != "windows":  # the native-Windows plan installs no TensorFlow itself
        assert c.tf in " ".join(seen["Plan"].split())


async def test_the_newer_set_is_one_key_away_on_choose() -> None:
    """Native Linux on a working driver: Choose keeps 2.14.1 recommended; `u` plans 2.21 with its
    driver step; where there is no such set the key is not offered."""
    from screens.plan_screen import PlanScreen
    from tests.apps.screen_text import screen_text
    from tests.apps.wizard_app import build_app, settle, to_choose

    app = build_app("ubuntu-20.04-gtx1080-driver470")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_choose(pilot)
        seen = " ".join(screen_text(app).split())
        assert "Recommended: TensorFlow 2.14.1" in seen and "u Newer TF + driver" in seen
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, PlanScreen)
        plan = app.session.plan
        assert plan is not None and plan.set.tensorflow == "2.21.0" and plan.set.method == "pip-and-cuda"
        assert plan.steps[0].id == "driver" and "525.60.13" in plan.steps[0].title
    app = build_app("wsl2-rtx3080-laptop-driver527")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_choose(pilot)
        assert "Newer TF + driver" not in screen_text(app)  # the recommendation has the step already
