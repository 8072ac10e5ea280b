"""Install plans: golden files per demo profile, a check on every step, WSL2 never gets a Linux
driver, and values from the machine cannot become shell code.

Regenerate the golden files after an intended change:
    TF_GPU_WIZARD_REGEN_GOLDEN=1 .venv/bin/pytest tests/test_plan.py -k golden
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.assets import asset
from wizard.choose.choice import Candidate, VersionSet
from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.common import INSTALLED_OK
from wizard.plan.model import Plan, PlanError, powershell_join
from wizard.plan.programs import program_name, programs_dir
from wizard.plan.view import format_plan
from wizard.profile import DriverInfo, GpuInfo, LibCuda, MachineProfile
from wizard.text import t

GOLDEN = Path(__file__).parent / "golden" / "plans"
ASSETS_DIR = str(asset(""))
HOME = "/home/student"
REGEN = os.environ.get("TF_GPU_WIZARD_REGEN_GOLDEN") == "1"


def plans_for(profile: MachineProfile) -> list[Plan]:
    """A plan for every working candidate the resolver offers (one per method, newest first)."""
    rec = recommend(profile)
    out, seen = [], set()
    for cand in rec.candidates:
        if cand.ok and cand.set.method not in seen:
            seen.add(cand.set.method)
            out.append(build_plan(profile, cand, home=HOME))
    return out


def all_demo_plans() -> list[tuple[str, Plan]]:
    return [(name, plan) for name in demo_names() for plan in plans_for(load_demo(name))]


def golden_text(name: str) -> str:
    profile = load_demo(name)
    rec = recommend(profile)
    if rec.recommended is None:
        return t("plan.view.nothing", reason=t("plan.view.no_candidate")) + "\n"
    text = format_plan(build_plan(profile, rec.recommended, home=HOME))
    # Plans run the wizard's programs (the GPU check, ...) by their path in its data folder, or in
    # the assets package: where this checkout and the test's wizard home live is not part of the plan.
    return text.replace(str(programs_dir()), "<programs>").replace(ASSETS_DIR, "<assets>")


@pytest.mark.parametrize("name", demo_names())
def test_golden_plan_of_every_demo_profile(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    text = golden_text(name)
    if REGEN or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not REGEN:
            pytest.fail(f"golden file {path.name} was missing and has been written; check it and commit it")
    assert text == path.read_text(encoding="utf-8"), f"plan of {name} changed; regenerate if intended"


def test_no_stray_golden_files() -> None:
    names = set(demo_names())
    assert {p.stem for p in GOLDEN.glob("*.txt")} <= names


def test_demo_plans_cover_every_method() -> None:
    methods = {plan.set.method for _, plan in all_demo_plans()}
    assert methods >= {"pip-and-cuda", "system-cuda", "conda", "cpu"}


def test_every_step_has_a_check() -> None:
    plans = all_demo_plans()
    assert plans
    for name, plan in plans:
        ids = [s.id for s in plan.steps]
        assert len(ids) == len(set(ids)), (name, ids)
        for step in plan.steps:
            assert step.check.argv and all(isinstance(a, str) for a in step.check.argv), (name, step.id)
            assert step.check.proves.strip(), (name, step.id)
            assert step.title and step.why, (name, step.id)
            assert step.where in ("user", "root", "windows-host"), (name, step.id)
            assert step.commands or step.manual or step.restart_only, (name, step.id)
            assert not step.title.startswith("plan."), f"missing text key {step.title}"
            assert "plan." not in step.why.split()[0], f"missing text key {step.why}"


# ---- WSL2 -------------------------------------------------------------------------------------

# `cuda` and `cuda-12-5` pull the driver in; `cuda-toolkit-12-5` and cuDNN do not.
DRIVER_PACKAGE = re.compile(
    r"^(cuda|cuda-\d+-\d+|cuda-drivers.*|nvidia-.*|libnvidia-.*|xserver-xorg-video-nvidia.*)(=.*)?$"
)
DRIVER_WORDS = ("ubuntu-drivers", "nvidia-driver", "cuda-drivers", "nvidia-dkms", "nvidia-kernel")


def _wsl_variants() -> list[MachineProfile]:
    out = []
    for name in demo_names():
        base = load_demo(name)
        if base.platform != "wsl2":
            continue
        out.append(base)
        old = replace(base, driver=replace(base.driver, version="470.10") if base.driver else None)
        out.append(old)
        out.append(replace(base, driver=None, gpus=[]))
        out.append(replace(base, libcuda=[LibCuda("/usr/lib/x86_64-linux-gnu/libcuda.so.1", False)]))
    assert out, "no WSL2 demo profile"
    return out


def _installs_linux_driver(plan: Plan) -> list[str]:
    bad = []
    for step in plan.steps:
        if step.id == "remove-linux-driver":
            continue
        for argv in step.commands:
            text = " ".join(argv)
            if any(word in text for word in DRIVER_WORDS):
                bad.append(f"{step.id}: {shlex.join(argv)}")
            if "apt-get" in argv and "install" in argv and any(DRIVER_PACKAGE.match(a) for a in argv):
                bad.append(f"{step.id}: {shlex.join(argv)}")
    return bad


def test_no_wsl2_plan_installs_a_linux_driver() -> None:
    for profile in _wsl_variants():
        methods = ["pip-and-cuda", "cpu"]
        for method in methods:
            cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", method), True)
            plan = build_plan(profile, cand, home=HOME)
            assert not _installs_linux_driver(plan), _installs_linux_driver(plan)
            assert all(s.id != "driver" for s in plan.steps)
        for cand in recommend(profile).candidates:
            if cand.ok:
                assert not _installs_linux_driver(build_plan(profile, cand, home=HOME))


def test_wsl2_with_a_linux_driver_inside_offers_its_removal_with_confirmation() -> None:
    profile = load_demo("wsl2-linux-driver-inside")
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"), True)
    plan = build_plan(profile, cand, home=HOME)
    step = plan.step("remove-linux-driver")
    assert step.where == "root" and step.confirm
    assert any("/usr/lib/wsl/lib" in p for p in ["/usr/lib/wsl/lib"])  # the Windows driver's copy stays
    assert not any("/usr/lib/wsl/lib" in a for a in step.commands[0][4:])
    windows = [s for s in plan.steps if s.where == "windows-host"]
    assert [s.id for s in windows] == ["windows-driver", "wsl-update"]
    assert plan.step("wsl-update").restart == "wsl-shutdown"
    assert plan.step("wslconfig").optional and not plan.step("wslconfig").enabled


def test_optional_steps_can_be_toggled_but_required_ones_cannot() -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"), True)
    plan = build_plan(profile, cand, home=HOME)
    on = plan.with_enabled("wslconfig", True)
    assert on.step("wslconfig").enabled and on.id != plan.id
    with pytest.raises(PlanError):
        plan.with_enabled("venv", False)


# ---- plans per method -----------------------------------------------------------------------------


def test_native_driver_step_only_when_needed_and_with_reboot() -> None:
    fresh = load_demo("ubuntu-24.04-rtx4090-fresh")
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"), True)
    step = build_plan(fresh, cand, home=HOME).step("driver")
    assert step.restart == "reboot" and step.where == "root"
    assert ("ubuntu-drivers", "install", "nvidia:550") in step.commands
    ok = replace(fresh, driver=DriverInfo(version="580.65.06", cuda="13.0", source="nvml"))
    assert "driver" not in [s.id for s in build_plan(ok, cand, home=HOME).steps]


def test_debian_gets_its_own_driver_packages() -> None:
    profile = load_demo("ubuntu-24.04-rtx4090-fresh")
    profile = replace(profile, os=replace(profile.os, id="debian", version="12", name="Debian 12"))
    cand = Candidate(VersionSet("2.21.0", "3.11", "12.5", "9.3", "pip-and-cuda"), True)
    plan = build_plan(profile, cand, home=HOME)
    assert [s.id for s in plan.steps][:2] == ["debian-non-free", "driver"]
    assert any("nvidia-driver" in argv for argv in plan.step("driver").commands[0:1])


def test_constraints_are_written_into_the_venv_and_used() -> None:
    profile = load_demo("ubuntu-24.04-rtx5090")
    cand = Candidate(
        VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"),
        True,
        constraints=["nvidia-cuda-nvcc-cu12<12.7"],
        constraint_reasons=["the driver supports CUDA 12.6"],
    )
    step = build_plan(profile, cand, home=HOME, venv="/tmp/v").step("tensorflow")
    repair, write, install = step.commands
    assert (
        program_name(repair[1]) == INSTALLED_OK and repair[2] == "repair"
    )  # first: a half-unpacked one goes
    # One argument a line: no newline inside any argument, so the printed command pastes as it is.
    assert write[-2:] == ("/tmp/v/tf-gpu-wizard-constraints.txt", "nvidia-cuda-nvcc-cu12<12.7")
    assert install[-3:] == ("-c", "/tmp/v/tf-gpu-wizard-constraints.txt", "tensorflow[and-cuda]==2.21.0")
    assert "CUDA 12.6" in step.why


def test_system_cuda_plan_has_repo_toolkit_cudnn_symlink_and_one_bashrc_block() -> None:
    profile = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    cand = Candidate(VersionSet("2.14.1", "3.11", "11.8", "8.7", "system-cuda"), True)
    plan = build_plan(profile, cand, home=HOME)
    ids = [s.id for s in plan.steps]
    assert ids[ids.index("cuda-repo") :][:5] == [
        "cuda-repo",
        "cuda-toolkit",
        "cudnn",
        "cuda-default",
        "shell-env",
    ]
    assert ("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "cuda-toolkit-11-8") in (
        plan.step("cuda-toolkit").commands
    )
    assert plan.step("cudnn").commands[0][-2:] == (
        "libcudnn8=8.7.*-1+cuda11.8",
        "libcudnn8-dev=8.7.*-1+cuda11.8",
    )
    assert plan.step("cuda-default").commands == (
        ("update-alternatives", "--set", "cuda", "/usr/local/cuda-11.8"),
    )
    shell = plan.step("shell-env")
    assert shell.where == "user" and shell.commands[0][2:4] == ("add", f"{HOME}/.bashrc")
    # The repository is the owner's to add (we name no package host); apt offering the toolkit proves it.
    repo = plan.step("cuda-repo")
    assert repo.commands == () and repo.manual and "ubuntu2204" in repo.manual
    assert "cuda-toolkit-11-8" in repo.check.argv and "apt-cache policy" in repo.check.argv[2]
    # TensorFlow's own packages from the recorded lock (TF 2.14 wants numpy<2: the lock keeps it).
    from wizard.choose.lock import machine_lock

    step = plan.step("tensorflow")
    lock = machine_lock(cand, profile)
    assert lock is not None and any("--require-hashes" in c for c in step.commands)
    assert next(c for c in step.commands if "place" in c)[-1] == lock.digest
    numpy = [line.version for line in lock.lines if line.name == "numpy"]
    assert numpy and int(numpy[0].split(".")[0]) < 2
    assert not any(line.name.startswith("nvidia-") for line in lock.lines)  # CUDA is the system's


def test_conda_plan_uses_miniforge_and_exports_environment_yml() -> None:
    profile = load_demo("ubuntu-24.04-rtx5090")
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", "conda"), True)
    plan = build_plan(profile, cand, home=HOME)
    ids = [s.id for s in plan.steps]
    assert ids[:2] == ["miniforge", "conda-env"] and ids[-1] == "environment-yml"
    create = plan.step("conda-env").commands[0]
    # condalock.py: solved once with conda-forge only, then every install from the explicit lock.
    assert create[2:4] == ("create", f"{HOME}/miniforge3/bin/conda") and "cudnn=9.3" in create
    assert create[0] == f"{HOME}/miniforge3/bin/python" and create[5].endswith(".conda-lock.txt")


def test_cpu_plan_uses_the_small_wheel_on_linux_x86() -> None:
    profile = load_demo("no-nvidia-gpu")
    cand = Candidate(VersionSet("2.21.0", "3.12", None, None, "cpu"), True)
    plan = build_plan(profile, cand, home=HOME)
    # Installed from the whole-environment lock (issue 20): tensorflow-cpu among its hashed lines.
    placed = next(c for c in plan.step("tensorflow").commands if "place" in c)
    lines = Path(programs_dir(), str(program_name(placed[-3]))).read_text(encoding="utf-8").splitlines()
    assert any(line.startswith("tensorflow-cpu==2.21.0 --hash=sha256:") for line in lines)
    assert not any(line.startswith("tensorflow==") for line in lines)
    verify = plan.step("verify")
    # The verify runs (env_proof.py prove) unless its kept proof still holds (env_proof.py check).
    assert verify.check_is_last_command and verify.commands[-1][2] == "prove"
    assert verify.recheck is not None and verify.recheck.argv[2:5] == ("check", "cpu", "--")


def test_plan_round_trips_through_json() -> None:
    for _, plan in all_demo_plans():
        again = Plan.from_dict(plan.to_dict())
        assert again == plan and again.id == plan.id


def test_gpu_method_on_macos_is_refused_with_a_reason() -> None:
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"), True)
    with pytest.raises(PlanError, match="Linux and WSL2"):
        build_plan(load_demo("macos-arm64"), cand, home=HOME)


# ---- no shell injection ----------------------------------------------------------------------------

EVIL = "$(touch PWNED)`touch PWNED2`; rm -rf ~ #'\"\\\n"


def _evil_profile() -> MachineProfile:
    base = load_demo("ubuntu-24.04-rtx4090-fresh")
    return replace(
        base,
        label=f"lab {EVIL}",
        os=replace(base.os, name=f"Ubuntu {EVIL}"),
        gpus=[GpuInfo(0, f"NVIDIA {EVIL}", "8.9")],
        python=replace(base.python, executable=f"/opt/py {EVIL}/bin/python3.12", version="3.12.3"),
        libcuda=[LibCuda(f"/usr/lib/{EVIL}/libcuda.so.1", False)],
    )


def _words_via_bash(text: str, cwd: Path) -> list[str]:
    """What bash makes of `text` as command words: printed one per NUL, nothing executed."""
    proc = subprocess.run(["bash", "-c", f"printf '%s\\0' {text}"], capture_output=True, cwd=cwd, check=True)
    return proc.stdout.decode().split("\0")[:-1]


@pytest.mark.parametrize("method", ["pip-and-cuda", "system-cuda", "conda", "cpu"])
def test_detected_values_and_paths_cannot_inject_shell_code(method: str, tmp_path: Path) -> None:
    venv = tmp_path / "my venv" / "it's $(touch PWNED3)"
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", method), True, constraints=[f"x<1 {EVIL}"])
    plan = build_plan(_evil_profile(), cand, venv=venv, home=tmp_path / "home dir")
    wsl = build_plan(
        replace(_evil_profile(), platform="wsl2"),
        replace(cand, set=replace(cand.set, method="cpu")),
        venv=venv,
        home=tmp_path,
    )
    for step in plan.steps + wsl.steps:
        for argv in (*step.commands, step.check.argv):
            assert _words_via_bash(shlex.join(argv), tmp_path) == list(argv)
    assert not list(tmp_path.glob("PWNED*"))
    assert str(venv) in plan.venv


# Any text an OS can hand over: no lone surrogates, no NUL (neither fits in argv), no "/" in a name.
NAME_CHARS = st.characters(exclude_categories=["Cs"], exclude_characters="\x00")
PATH_CHARS = st.characters(exclude_categories=["Cs"], exclude_characters="\x00/")


@settings(max_examples=60)
@given(name=st.text(NAME_CHARS, max_size=40), path=st.text(PATH_CHARS, min_size=1, max_size=30))
def test_any_gpu_name_or_venv_path_stays_one_word(name: str, path: str) -> None:
    import tempfile

    profile = replace(_evil_profile(), gpus=[GpuInfo(0, name, "8.9")], label=name)
    cand = Candidate(VersionSet("2.21.0", "3.12", "12.5", "9.3", "pip-and-cuda"), True)
    with tempfile.TemporaryDirectory() as tmp:
        plan = build_plan(profile, cand, venv=Path(tmp) / path, home=tmp)
        for step in plan.steps:
            for argv in (*step.commands, step.check.argv):
                assert _words_via_bash(shlex.join(argv), Path(tmp)) == list(argv)
        assert sorted(os.listdir(tmp)) == []


def test_powershell_quoting() -> None:
    assert powershell_join(["wsl", "--update"]) == "wsl --update"
    assert powershell_join(["echo", "it's; rm"]) == "'echo' 'it''s; rm'".replace("'echo'", "echo")
