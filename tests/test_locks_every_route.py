"""Every route installs from hashes (issue 37, point 1).

The machines below are the routes a plan takes: each demo profile's own plan, and the machines
the demos do not cover (a Mac, a Jetson, Windows without a GPU, an A100 on driver 470 that takes
the conda route, a system-CUDA set). Every plan that installs TensorFlow installs it from a lock
(every package == and sha256, --require-hashes); every installer it downloads is pinned and
checked against its published sha256 before it runs. The conda environment's own lock is made and
checked by assets/programs/condalock.py, run here against a stand-in conda.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from packaging.version import Version

from maint.harvest.lock import OTHER_PLATFORMS, Platform, other_targets, read_pylock
from wizard.choose.choice import Candidate, VersionSet
from wizard.choose.installers import pinned
from wizard.choose.lock import family_of, load_locks, machine_lock
from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Plan
from wizard.plan.programs import program
from wizard.profile import MachineProfile

HEX64 = re.compile(r"^[0-9a-f]{64}$")


def mac() -> MachineProfile:
    return load_demo("macos-arm64")


def jetson() -> MachineProfile:
    """A Jetson Orin on JetPack 6 (Ubuntu 22.04, aarch64): TensorFlow from the index, on its CPU."""
    base = load_demo("no-nvidia-gpu")
    return replace(base, arch="aarch64", os=replace(base.os, glibc="2.35"))


def windows_cpu() -> MachineProfile:
    base = load_demo("windows11-rtx3070")
    return replace(base, gpus=[], driver=None)


def a100_on_470() -> MachineProfile:
    base = load_demo("ubuntu-22.04-2x-a100-server")
    return replace(base, driver=replace(base.driver, version="470.256.02", cuda="11.4"))


def held_out() -> list[tuple[str, MachineProfile, Candidate]]:
    out = []
    for name in demo_names():
        profile = load_demo(name)
        cand = recommend(profile).recommended
        if cand is not None:
            out.append((name, profile, cand))
    for name, profile in (("mac", mac()), ("jetson", jetson()), ("windows-cpu", windows_cpu())):
        cand = recommend(profile).recommended
        assert cand is not None and cand.set.method == "cpu", name
        out.append((name, profile, cand))
    a100 = a100_on_470()
    cand = recommend(a100).recommended
    assert cand is not None and (cand.set.tensorflow, cand.set.method) == ("2.11.1", "conda")
    out.append(("a100-driver-470", a100, cand))
    system = load_demo("ubuntu-22.04-rtx3090-cuda11.8")
    out.append(
        ("system-cuda", system, Candidate(VersionSet("2.14.1", "3.11", "11.8", "8.7", "system-cuda"), True))
    )
    return out


MACHINES = held_out()


@pytest.mark.parametrize(("name", "profile", "cand"), MACHINES, ids=[m[0] for m in MACHINES])
def test_every_plan_that_installs_tensorflow_installs_it_from_a_hashed_lock(
    name: str, profile: MachineProfile, cand: Candidate
) -> None:
    plan = build_plan(profile, cand)
    steps = [s for s in plan.steps if s.id == "tensorflow"]
    if profile.platform == "windows" and cand.set.method == "pip-and-cuda":
        assert not steps  # the Windows side installs nothing; the plan inside WSL2 is a Linux one
        return
    assert len(steps) == 1, name
    commands = steps[0].commands
    install = [c for c in commands if "install" in c and "-r" in c]
    assert install and all("--require-hashes" in c and "--no-deps" in c for c in install), name
    place = next(c for c in commands if len(c) > 2 and c[2] == "place")
    lock = machine_lock(cand, profile) if cand.set.method != "pip-and-cuda" else None
    if lock is not None:
        assert place[-1] == lock.digest and lock.hashed and lock.complete
        assert any(
            line.name in ("tensorflow", "tensorflow-cpu") and line.version == cand.set.tensorflow
            for line in lock.lines
        )
    assert not any("without a recorded lock" in n for n in plan.notes), plan.notes


def _downloads(plan: Plan) -> list[str]:
    texts = [" ".join(c) for s in plan.steps for c in s.commands]
    return [t for t in texts if re.search(r"\b(curl|wget|Invoke-WebRequest)\b", t)]


@pytest.mark.parametrize(("name", "profile", "cand"), MACHINES, ids=[m[0] for m in MACHINES])
def test_no_installer_download_is_unchecked(name: str, profile: MachineProfile, cand: Candidate) -> None:
    plan = build_plan(profile, cand)
    for text in _downloads(plan):
        assert "sha256sum -c" in text, text
    for step in plan.steps:
        for command in step.commands:
            assert not any("/latest/" in part or part.endswith("/latest") for part in command), command


def test_the_conda_plan_pins_miniforge_and_checks_it_before_it_runs() -> None:
    profile = replace(a100_on_470(), python=replace(a100_on_470().python, env="system"))
    cand = recommend(a100_on_470()).recommended
    assert cand is not None
    plan = build_plan(profile, cand)
    miniforge = plan.step("miniforge").commands[0]
    pin = pinned("miniforge", "Linux-x86_64")
    assert pin is not None and pin.version == "26.1.1-3" and HEX64.match(pin.sha256)
    assert pin.url in miniforge and pin.sha256 in miniforge
    script = miniforge[2]
    assert script.index("sha256sum -c") < script.index('bash "$d/miniforge.sh"')  # checked, then run
    assert any(pin.version in n and pin.sha256[:16] in n for n in plan.notes)
    # the conda environment: one solve, written as an explicit lock, checked package for package
    env = plan.step("conda-env")
    assert env.commands[0][2] == "create" and env.check.argv[2] == "check"
    assert any("conda list --explicit --sha256" in n for n in plan.notes)


def test_an_aarch64_conda_plan_uses_the_aarch64_installer() -> None:
    base = replace(a100_on_470(), arch="aarch64")
    profile = replace(base, python=replace(base.python, env="system"))
    cand = Candidate(VersionSet("2.11.1", "3.10", "11.2", "8.1", "conda"), True)
    miniforge = build_plan(profile, cand).step("miniforge").commands[0]
    pin = pinned("miniforge", "Linux-aarch64")
    assert pin is not None and pin.file.endswith("Linux-aarch64.sh") and pin.sha256 in miniforge


def test_every_pinned_installer_cites_where_its_sha256_was_read() -> None:
    for platform in ("Linux-x86_64", "Linux-aarch64"):
        pin = pinned("miniforge", platform)
        assert pin is not None and HEX64.match(pin.sha256)
        assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+", pin.source), pin.source
    assert pinned("miniforge", "Windows-x86_64") is None  # none recorded: the step is by hand, said so


def test_windows_conda_says_its_installer_is_not_checked() -> None:
    profile = replace(
        load_demo("windows11-rtx3070"), python=replace(load_demo("windows11-rtx3070").python, env="system")
    )
    cand = Candidate(VersionSet("2.10.1", "3.10", "11.2", "8.1", "conda"), True)
    plan = build_plan(profile, cand)
    step = plan.step("miniforge")
    assert step.commands == () and step.manual is not None
    assert (
        "/releases/tag/26.1.1-3" in step.manual and "/latest" not in step.manual and "sha256" in step.manual
    )
    assert any("not checked" in n for n in plan.notes)


# ---- which lock a machine gets ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "arch", "family"),
    [
        ("linux", "x86_64", "linux-x86_64"),
        ("wsl2", "amd64", "linux-x86_64"),
        ("linux", "aarch64", "linux-aarch64"),
        ("macos", "arm64", "macos-aarch64"),
        ("macos", "x86_64", "macos-x86_64"),
        ("windows", "AMD64", "windows-x86_64"),
        ("linux", "ppc64le", None),
        ("windows", "arm64", None),
    ],
)
def test_family_of_a_machine(platform: str, arch: str, family: str | None) -> None:
    assert family_of(platform, arch) == family


def test_a_mac_lock_holds_only_on_the_macos_it_was_resolved_for() -> None:
    locks = load_locks()
    served = locks.find("tensorflow", "2.21.0", "3.12", None, "macos-aarch64", Version("14.6.1"))
    assert served is not None and served.target.macos == Version("12.0")
    assert locks.find("tensorflow", "2.21.0", "3.12", None, "macos-aarch64", Version("11.7")) is None
    assert all(
        f.file.endswith(("arm64.whl", "universal2.whl", "any.whl")) for _, f in served.packages.values()
    )


def test_a_jetson_gets_the_aarch64_lock_never_the_x86_one() -> None:
    cand = recommend(jetson()).recommended
    assert cand is not None
    lock = machine_lock(cand, jetson())
    assert lock is not None and lock.target is not None and lock.target.family == "linux-aarch64"
    assert all("x86_64" not in f.file for f in lock.files())
    assert lock.target.glibc <= Version("2.35")
    older = replace(jetson(), os=replace(jetson().os, glibc="2.23"))  # below what its wheels need
    assert machine_lock(cand, older) is None


# ---- the harvester's other platforms ------------------------------------------------------------

PYLOCK = textwrap.dedent(
    """\
    lock-version = "1.0"
    [[packages]]
    name = "numpy"
    version = "2.5.5"
    wheels = [
      { name = "numpy-2.5.5-cp312-cp312-macosx_11_0_arm64.whl", hashes = { sha256 = "%s" } },
      { name = "numpy-2.5.5-cp312-cp312-macosx_14_0_arm64.whl", hashes = { sha256 = "%s" } },
      { name = "numpy-2.5.5-cp312-cp312-manylinux_2_28_aarch64.whl", hashes = { sha256 = "%s" } },
    ]
    """
) % ("a" * 64, "b" * 64, "c" * 64)


def test_a_macos_lock_keeps_the_wheel_macos_12_takes() -> None:
    mac_arm = next(p for p in OTHER_PLATFORMS if p.key == "macos_arm64")
    (wheel,) = read_pylock(PYLOCK, "3.12", 0, mac_arm)
    assert wheel.file.endswith("macosx_11_0_arm64.whl") and wheel.sha256 == "a" * 64  # 14.0 is too new
    aarch64 = next(p for p in OTHER_PLATFORMS if p.key == "linux_aarch64")
    (linux,) = read_pylock(PYLOCK, "3.12", 28, aarch64)
    assert linux.file.endswith("manylinux_2_28_aarch64.whl")
    assert aarch64.uv(28) == "aarch64-manylinux_2_28" and mac_arm.uv() == "aarch64-apple-darwin"


def test_the_harvester_targets_every_python_a_platform_has_a_wheel_for() -> None:
    entry = {
        "platforms": {
            "linux_aarch64": {
                "file": "tensorflow-2.21.0-cp313-cp313-manylinux_2_27_aarch64.whl",
                "pythons": ["3.12", "3.13"],
            }
        }
    }
    aarch64 = Platform("linux_aarch64", "linux", "aarch64")
    assert other_targets(entry, aarch64) == [("3.12", 28), ("3.13", 28)]
    assert other_targets(entry, Platform("macos_arm64", "macos", "aarch64")) == []


# ---- the conda environment's explicit lock (condalock.py against a stand-in conda) ---------------

STAND_IN_CONDA = textwrap.dedent(
    '''\
    #!/usr/bin/env python3
    """A stand-in conda: create (by specs: a fixed solve; by --file: the lock's packages) and
    list --explicit --sha256, from a JSON state in the prefix. Every call is logged."""
    import json, os, sys
    args = sys.argv[1:]
    with open(os.environ["CONDA_LOG"], "a") as f:
        f.write(" ".join(args) + "\\n")
    prefix = args[args.index("-p") + 1]
    state = os.path.join(prefix, "conda-meta", "state.json")
    SOLVE = {"python-3.10.14-h0.conda": "%s", "cudatoolkit-11.2.2-h1.conda": "%s", "cudnn-8.1.0.77-h2.tar.bz2": "%s"}
    if args[0] == "create":
        urls = []
        if "--file" in args:
            pkgs = {}
            for line in open(args[args.index("--file") + 1]):
                if line.startswith("https://"):
                    url, _, sha = line.strip().partition("#")
                    pkgs[url.rsplit("/", 1)[1]] = sha
                    urls.append(url)
        else:
            pkgs = dict(SOLVE)
        os.makedirs(os.path.dirname(state), exist_ok=True)
        json.dump(pkgs, open(state, "w"))
        json.dump(urls, open(os.path.join(prefix, "conda-meta", "fetched.json"), "w"))
    elif args[0] == "list":
        pkgs = json.load(open(state))
        print("# platform: linux-64")
        print("@EXPLICIT")
        for name, sha in pkgs.items():
            print("https://channel.invalid/linux-64/%%s#%%s" %% (name, sha))
    '''
) % ("1" * 64, "2" * 64, "3" * 64)


@pytest.fixture
def conda(tmp_path: Path) -> tuple[Path, Path]:
    exe = tmp_path / "conda"
    exe.write_text(STAND_IN_CONDA)
    exe.chmod(0o755)
    return exe, tmp_path / "conda.log"


def condalock(log: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, program("condalock.py"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "CONDA_LOG": str(log)},
        timeout=60,
        check=False,
    )


def test_the_first_install_solves_once_and_writes_the_explicit_lock(
    conda: tuple[Path, Path], tmp_path: Path
) -> None:
    exe, log = conda
    prefix, lock = tmp_path / "env", tmp_path / "env.conda-lock.txt"
    done = condalock(
        log, "create", str(exe), str(prefix), str(lock), "python=3.10", "cudatoolkit=11.2", "cudnn=8.1"
    )
    assert done.returncode == 0, done.stderr
    text = lock.read_text()
    assert "@EXPLICIT" in text and len(re.findall(r"#[0-9a-f]{64}$", text, re.M)) == 3
    assert "--override-channels -c conda-forge python=3.10" in log.read_text()
    assert condalock(log, "check", str(exe), str(prefix), str(lock)).returncode == 0
    # a lab machine given the lock installs from it: no solve
    other = tmp_path / "machine2"
    done = condalock(log, "create", str(exe), str(other), str(lock), "python=3.10")
    assert done.returncode == 0 and log.read_text().splitlines()[-1].endswith(f"--file {lock}")
    assert condalock(log, "check", str(exe), str(other), str(lock)).returncode == 0


def test_on_a_mirror_the_solve_and_the_lock_s_packages_come_from_the_mirror_channel(
    conda: tuple[Path, Path], tmp_path: Path
) -> None:
    exe, log = conda
    mirror = "https://mirror.invalid/conda-forge"
    prefix, lock = tmp_path / "env", tmp_path / "env.conda-lock.txt"
    done = condalock(log, "create", "--channel", mirror, str(exe), str(prefix), str(lock), "python=3.10")
    assert done.returncode == 0, done.stderr
    assert f"--override-channels -c {mirror} python=3.10" in log.read_text()
    assert "conda-forge python" not in log.read_text().replace(mirror, "MIRROR")
    # another machine on the mirror installs the lock's files from the mirror, sha256 unchanged
    other = tmp_path / "machine2"
    done = condalock(log, "create", "--channel", mirror, str(exe), str(other), str(lock), "python=3.10")
    assert done.returncode == 0, done.stderr
    fetched = json.loads((other / "conda-meta" / "fetched.json").read_text())
    assert sorted(fetched) == sorted(
        f"{mirror}/linux-64/{name}"
        for name in ("python-3.10.14-h0.conda", "cudatoolkit-11.2.2-h1.conda", "cudnn-8.1.0.77-h2.tar.bz2")
    )
    assert condalock(log, "check", str(exe), str(other), str(lock)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir() if "conda-lock" in p.name) == [lock.name]  # no leftovers


def test_an_environment_that_differs_from_its_lock_fails_the_check(
    conda: tuple[Path, Path], tmp_path: Path
) -> None:
    exe, log = conda
    prefix, lock = tmp_path / "env", tmp_path / "env.conda-lock.txt"
    assert condalock(log, "create", str(exe), str(prefix), str(lock), "python=3.10").returncode == 0
    state = prefix / "conda-meta" / "state.json"
    pkgs = json.loads(state.read_text())
    pkgs["cudnn-8.1.0.77-h2.tar.bz2"] = hashlib.sha256(b"another build").hexdigest()
    state.write_text(json.dumps(pkgs))
    done = condalock(log, "check", str(exe), str(prefix), str(lock))
    assert done.returncode == 1 and "another sha256: cudnn-8.1.0.77-h2.tar.bz2" in done.stderr


def test_a_lock_without_a_sha256_on_every_line_is_refused(conda: tuple[Path, Path], tmp_path: Path) -> None:
    exe, log = conda
    lock = tmp_path / "env.conda-lock.txt"
    lock.write_text("@EXPLICIT\nhttps://channel.invalid/linux-64/cudnn-8.1.0.77-h2.tar.bz2\n")
    done = condalock(log, "create", str(exe), str(tmp_path / "env"), str(lock))
    assert done.returncode == 1 and "sha256 on every line" in done.stderr
    assert not log.exists()  # conda never ran


def test_the_fleet_ships_a_conda_class_and_says_how_to_lock_it(tmp_path: Path) -> None:
    """The fleet ships the conda lock (tests/test_fleet_conda.py); with none yet, one line says how."""
    from wizard.fleet.condaship import ShipError, conda_needs, ship
    from wizard.fleet.hostplan import blockers

    cand = recommend(a100_on_470()).recommended
    assert cand is not None
    plan = build_plan(a100_on_470(), cand)
    assert not [b for b in blockers(plan, True) if "conda" in b]
    needs = conda_needs(plan, "x86_64")
    assert needs is not None
    with pytest.raises(ShipError, match="conda list --explicit --sha256"):
        ship(tmp_path, needs)


@pytest.mark.parametrize("profile", [mac(), jetson(), windows_cpu()], ids=["mac", "jetson", "windows-cpu"])
def test_choose_and_recommend_say_what_the_plan_installs(profile: MachineProfile) -> None:
    from wizard.plan.lock_view import locked_install

    cand = recommend(profile).recommended
    assert cand is not None
    found = locked_install(cand, profile)
    lock = machine_lock(cand, profile)
    assert found is not None and lock is not None
    assert found.count == len(lock.lines) and found.digest == lock.digest[:16]
    place = next(c for c in build_plan(profile, cand).step("tensorflow").commands if c[2:3] == ("place",))
    assert place[-1].startswith(found.digest)
