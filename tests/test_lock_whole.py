"""The whole environment locked (issue 20 point 1): every package the plan installs, pinned with ==
and the sha256 of its wheel for the target Python and glibc, shown in the plan, carried by
`plan --script`, installed with --require-hashes --no-deps; and the lock is closed: resolving it
for the target (uv, the network) adds nothing outside it.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.apps.uv_machine import demo_as_this_machine
from wizard.choose.choice import Candidate, VersionSet
from wizard.choose.lock import LOCK_NAME, environment_lock, load_locks, lock_for
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.locked import LOCKFILE
from wizard.plan.programs import program
from wizard.plan.script import render_script

DEMOS = ("wsl2-rtx4060-laptop", "debian-12-gtx1060-laptop")
LINE = re.compile(r"^([a-z0-9-]+)==(\S+) --hash=sha256:([0-9a-f]{64})$")
TF_PACKAGES = {"tensorflow", "numpy", "keras", "h5py", "protobuf", "grpcio", "ml-dtypes", "absl-py"}
LOCKS = Path(__file__).resolve().parents[1] / "assets" / "knowledge" / "locks.json"


def _plan(name: str):
    profile = load_demo(name)
    cand = recommend(profile).recommended
    return profile, cand, build_plan(profile, cand, home="/home/student")


@pytest.mark.parametrize("name", DEMOS)
def test_plan_script_pins_every_package_with_its_sha256(name: str) -> None:
    profile, cand, plan = _plan(name)
    lock = environment_lock(cand, profile.os.glibc)
    assert lock is not None and lock.complete and lock.hashed
    script = render_script(plan)
    lines = [m for line in script.splitlines() if (m := LINE.match(line))]
    pinned = {m.group(1): m.group(2) for m in lines}
    assert len(lines) == len(lock.lines) >= 30
    assert TF_PACKAGES <= set(pinned)
    assert pinned["tensorflow"] == cand.set.tensorflow
    # The candidate's nvidia pins (bounded to this GPU) are the lock's nvidia lines, exactly.
    assert sorted(f"{n}=={v}" for n, v in pinned.items() if n.startswith("nvidia-")) == sorted(cand.pins)
    # The wheel for the environment's Python: the recorded TensorFlow file is cp3XY.
    tf_file = next(f.file for line in lock.lines if line.name == "tensorflow" for f in line.files)
    assert f"-cp{cand.set.python.replace('.', '')}-" in tf_file
    step = plan.step("tensorflow")
    installs = [c for c in step.commands if "install" in c]
    assert len(installs) == 1 and {"--require-hashes", "--no-deps", "-r"} <= set(installs[0])
    assert installs[0][-1].endswith(LOCK_NAME)
    # Shown in the plan: every package by name and version.
    assert all(f"{line.name} {line.version}" in step.why for line in lock.lines)
    # Commands people can read (issue 18 point 9): no long one-liner writes the lock.
    assert max(len(" ".join(c)) for c in step.commands) < 400


@pytest.mark.parametrize("name", DEMOS)
def test_the_script_carries_the_lock_and_places_it_only_with_its_digest(name: str, tmp_path: Path) -> None:
    profile, cand, plan = _plan(name)
    lock = environment_lock(cand, profile.os.glibc)
    assert lock is not None
    script = render_script(plan)
    assert f'"$WIZARD_PROGRAMS"/locks/{lock.digest[:16]}.txt' in script
    src = tmp_path / "lock.txt"
    src.write_text(lock.text(), encoding="utf-8")
    dest = tmp_path / "venv" / LOCK_NAME
    placer = program(LOCKFILE)
    done = subprocess.run([sys.executable, placer, "place", str(src), str(dest), lock.digest], check=False)
    assert done.returncode == 0 and dest.read_text(encoding="utf-8") == lock.text()
    # A lock changed after the plan was shown is refused, and the placed one stays as it was.
    src.write_text(lock.text().replace("numpy==", "numpy==9"), encoding="utf-8")
    bad = subprocess.run(
        [sys.executable, placer, "place", str(src), str(dest), lock.digest],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1 and "not used" in bad.stderr
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == lock.digest
    gone = subprocess.run(
        [sys.executable, placer, "place", str(tmp_path / "gone.txt"), str(dest), lock.digest],
        capture_output=True,
        text=True,
        check=False,
    )
    assert gone.returncode == 1 and "make the plan again" in gone.stderr and "Traceback" not in gone.stderr


def test_recorded_locks_hold_no_url_and_every_wheel_has_a_sha256() -> None:
    text = LOCKS.read_text(encoding="utf-8")
    assert "://" not in text and "pythonhosted" not in text and "pypi" not in text.lower()
    locks = load_locks()
    assert len(locks.locks) >= 20
    for recorded in (r for found in locks.locks.values() for r in found):
        assert recorded.packages, recorded
        assert all(len(w.sha256) == 64 for _, w in recorded.packages.values())


def test_an_old_tensorflow_lock_keeps_numpy_1() -> None:
    cand = Candidate(VersionSet("2.13.1", "3.10", None, None, "cpu"), True)
    lock = environment_lock(cand, "2.35")
    assert lock is not None
    numpy = next(line for line in lock.lines if line.name == "numpy")
    assert numpy.version.startswith("1.")


def test_no_recorded_lock_for_an_older_glibc_or_another_python_falls_back() -> None:
    cand = recommend(load_demo("wsl2-rtx4060-laptop")).recommended
    assert environment_lock(cand, "2.17") is None  # older than any recorded lock's wheels
    lock = lock_for(cand, glibc="2.17")
    assert lock is not None and not lock.complete
    assert lock.requirements == [f"tensorflow=={cand.set.tensorflow}", *cand.pins]
    other = Candidate(VersionSet("2.21.0", "3.9", "12.5", "9.3", "pip-and-cuda"), True, pins=cand.pins)
    assert environment_lock(other, "2.35") is None


def test_with_uv_a_missing_lock_is_compiled_on_the_machine_by_a_shown_command() -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    profile.os.glibc = "2.17"
    profile.python.uv = "/usr/bin/uv"
    profile.python.uv_version = "0.9.0"
    cand = recommend(load_demo("wsl2-rtx4060-laptop")).recommended
    step = build_plan(profile, cand, home="/home/student").step("tensorflow")
    compile_cmd = step.commands[0]
    assert compile_cmd[1].endswith(LOCKFILE) and compile_cmd[2] == "compile"
    assert compile_cmd[4:7] == ("/usr/bin/uv", cand.set.python, "x86_64-manylinux2014")
    assert set(cand.pins) <= set(compile_cmd)
    assert {"--require-hashes", "--no-deps"} <= set(step.commands[-1])


# ---- the lock is closed: resolved for the target, nothing outside it (network) -----------------


def _uv() -> str:
    found = shutil.which("uv")
    if not found:
        pytest.skip("uv is not installed")
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name", DEMOS)
def test_resolving_the_lock_for_the_target_adds_nothing_outside_it(name: str, tmp_path: Path) -> None:
    profile, cand, _ = _plan(name)
    lock = environment_lock(cand, profile.os.glibc)
    assert lock is not None and lock.target is not None
    src = tmp_path / LOCK_NAME
    src.write_text(lock.text(), encoding="utf-8")
    glibc = profile.os.glibc.replace(".", "_")
    done = subprocess.run(
        [
            _uv(),
            "pip",
            "compile",
            str(src),
            "--python-version",
            cand.set.python,
            "--python-platform",
            f"x86_64-manylinux_{glibc}",
            "--only-binary",
            ":all:",
            "--no-header",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0 and re.search(r"(?i)network|dns|connect|fetch|offline|timed out", done.stderr):
        pytest.skip("no package index reachable: " + done.stderr.strip().splitlines()[-1][:200])
    assert done.returncode == 0, done.stderr[-2000:]
    resolved = {
        m.group(1).lower(): m.group(2)
        for line in done.stdout.splitlines()
        if (m := re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line))
    }
    assert resolved == {line.name: line.version for line in lock.lines}
    # The same lock in the standard form (PEP 751), written where the index is known: same files.
    pylock = tmp_path / "pylock.tf-gpu-wizard.toml"
    platform = f"x86_64-manylinux_{glibc}"
    done = subprocess.run(
        [
            sys.executable,
            program(LOCKFILE),
            "pylock",
            str(src),
            str(pylock),
            _uv(),
            cand.set.python,
            platform,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = pylock.read_text(encoding="utf-8")
    assert 'lock-version = "1.0"' in text
    assert all(f.sha256 in text for f in lock.files())


def test_a_simulated_run_says_what_the_lock_steps_do_not_a_pip_imitation() -> None:
    from wizard.run.sim import output_for

    profile, _, plan = _plan("wsl2-rtx4060-laptop")
    out = [line for argv in plan.step("tensorflow").commands for line in output_for(argv, profile)]
    assert not any("Collecting" in line or "Successfully installed" in line for line in out), out
    assert any("wrote" in line and LOCK_NAME in line for line in out)
    assert any("sha256" in line and LOCK_NAME in line and "installing" in line for line in out)


# ---- the whole-environment step for real, offline (tiny wheels, real pip, the real Runner) -------


@pytest.mark.parametrize("tool", ["pip", "uv"])
def test_a_whole_lock_installs_exactly_its_files_then_is_skipped(
    tool: str, tmp_path: Path, monkeypatch
) -> None:
    from packaging.version import Version

    from tests.test_lock import _line, _wheel
    from tests.test_runner_helpers import Recorder, make_plan
    from wizard.choose.lock import Lock, LockTarget
    from wizard.plan.locked import locked_environment_step
    from wizard.plan.model import PlanInputs
    from wizard.profile import MachineProfile
    from wizard.run.runner import Runner

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    tf = _wheel(wheels, "tensorflow-cpu", "2.21.0", ("tinydep>=1",))
    dep = _wheel(wheels, "tinydep", "1.0")
    _wheel(wheels, "tinydep", "2.0")  # newer, in the folder: the lock must not take it
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    cand = Candidate(VersionSet("2.21.0", py, None, None, "cpu"), True)
    target = LockTarget(py, "x86_64-manylinux_2_28", Version("2.17"))
    lock = Lock((_line(tf, "tensorflow-cpu", "2.21.0"), _line(dep, "tinydep", "1.0")), target)
    from wizard.plan.installer import PIP, Installer

    installer = PIP if tool == "pip" else Installer("uv", _uv(), ("--no-index", "--find-links", str(wheels)))
    step = locked_environment_step(MachineProfile(), PlanInputs(cand, venv, tmp_path), lock, installer)

    first = Recorder()
    result = Runner(make_plan(step), first, simulate=False).run()
    assert result.outcome == "finished", (result.message, first.lines[-10:])
    assert (venv / LOCK_NAME).read_text(encoding="utf-8") == lock.text()
    site = next(venv.glob("lib/python*/site-packages"))
    assert (site / "tinydep-1.0.dist-info").is_dir() and not list(site.glob("tinydep-2*"))
    again = Recorder()
    assert Runner(make_plan(step), again, simulate=False).run().outcome == "finished"
    assert again.statuses() == {"tensorflow": "satisfied"}
    # A package removed behind the plan's back: the check fails, the step runs and puts it back.
    import shutil as _shutil

    _shutil.rmtree(site / "tinydep")
    third = Recorder()
    assert Runner(make_plan(step), third, simulate=False).run().outcome == "finished"
    assert third.statuses() == {"tensorflow": "done"} and (site / "tinydep").is_dir()


@pytest.mark.slow
def test_the_fallback_compiles_a_hashed_lock_on_the_machine(tmp_path: Path, monkeypatch) -> None:
    # A combination with no recorded lock (here: the records set aside) is resolved on the machine,
    # for its Python and glibc, by the command the plan shows.
    import wizard.choose.lock as lock_module

    monkeypatch.setattr(lock_module, "load_locks", lock_module.RecordedLocks)
    profile = demo_as_this_machine("wsl2-rtx4060-laptop")  # its command runs here
    cand = recommend(profile).recommended
    profile.python.uv, profile.python.uv_version = _uv(), "0.9.0"
    assert environment_lock(cand, profile.os.glibc) is None
    step = build_plan(profile, cand, home=str(tmp_path)).step("tensorflow")
    compile_cmd = list(step.commands[0])
    assert compile_cmd[2] == "compile" and "x86_64-manylinux_2_35" in compile_cmd
    out = tmp_path / LOCK_NAME
    compile_cmd[0], compile_cmd[3] = sys.executable, str(out)  # run it here, into tmp
    done = subprocess.run(compile_cmd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 and re.search(r"(?i)network|dns|connect|fetch|offline|timed out", done.stderr):
        pytest.skip("no package index reachable")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("$ ") and "--generate-hashes" in done.stdout  # the command, shown
    text = out.read_text(encoding="utf-8")
    pinned = re.findall(r"^([a-z0-9-]+)==(\S+)", text, re.M)
    assert len(pinned) >= 30 and set(cand.pins) <= {f"{n}=={v}" for n, v in pinned}
    assert text.count("--hash=sha256:") >= len(pinned)
