"""A package half-deleted by an interrupted pip is not "done": the TensorFlow step's check proves the
files pip recorded, and the next run reinstalls what is broken.

A real venv and real pip, offline: two small wheels are built here (a stand-in "TensorFlow" of 40
files that needs a second package) and installed from a local folder. The step under test is the
plan's own `tensorflow_step`, run by the real Runner.
"""

from __future__ import annotations

import base64
import hashlib
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.test_runner_helpers import Recorder
from wizard.choose.choice import Candidate, VersionSet
from wizard.plan.common import tensorflow_step
from wizard.plan.model import Plan, PlanInputs
from wizard.profile import MachineProfile
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

VERSION = "2.21.0"
NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)


def _wheel(
    folder: Path, name: str, version: str, files: dict[str, bytes], requires: tuple[str, ...] = ()
) -> None:
    info = f"{name}-{version}.dist-info"
    entries = dict(files)
    entries[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires)
    ).encode()
    entries[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, data in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    entries[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as zf:
        for path, data in entries.items():
            zf.writestr(path, data)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("repair")
    wheels = root / "wheels"
    wheels.mkdir()
    pkg = {f"wizdemo/part{i}.py": f"VALUE = {i}\n".encode() * 50 for i in range(40)}
    pkg["wizdemo/__init__.py"] = b"from wizdemo.part1 import VALUE\n"
    _wheel(wheels, "wizdemo", VERSION, pkg, ("wizdep>=1",))
    _wheel(wheels, "wizdep", "1.0", {"wizdep/__init__.py": b"X = 1\n" * 100})
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    environ = {
        **os.environ,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return venv, environ


def _plan(venv: Path) -> Plan:
    cand = Candidate(VersionSet(VERSION, "3.11", None, None, "cpu"), ok=True)
    inputs = PlanInputs(cand, venv, venv.parent)
    step = tensorflow_step(
        MachineProfile(), inputs, distribution="wizdemo", python=str(venv / "bin" / "python")
    )
    return Plan(cand.set, "linux", str(venv), str(venv / "bin" / "python"), (step,), label="repair test")


def _check(plan: Plan, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(plan.steps[0].check.argv), env=environ, capture_output=True, text=True)


def _site(venv: Path) -> Path:
    return next(venv.glob("lib/python*/site-packages"))


def test_fresh_install_then_a_half_deleted_package_is_reinstalled(env: tuple[Path, dict[str, str]]) -> None:
    venv, environ = env
    plan = _plan(venv)
    assert _check(plan, environ).returncode == 1  # not installed yet
    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert rec.statuses() == {"tensorflow": "done"} and _check(plan, environ).returncode == 0

    # kill -9 during pip's unpack: the metadata is there, most of the files are not.
    pkg = _site(venv) / "wizdemo"
    gone = sorted(pkg.glob("part*.py"))[:31]
    for f in gone:
        f.unlink()
    assert (_site(venv) / f"wizdemo-{VERSION}.dist-info" / "METADATA").exists()
    broken = _check(plan, environ)
    assert broken.returncode == 1 and "wizdemo: damaged (31 of" in broken.stdout

    # What the old check let through: pip itself thinks it is installed and does nothing.
    install = plan.steps[0].commands[-1]
    pip_only = subprocess.run(list(install), env=environ, capture_output=True, text=True)
    assert "already satisfied" in pip_only.stdout and _check(plan, environ).returncode == 1

    rec = Recorder()
    result = Runner(plan, rec, sudo=NOT_ROOT, env=environ).run()
    assert result.outcome == "finished", result.message
    assert rec.statuses() == {"tensorflow": "done"}  # not "skipped (already done)"
    assert all(f.exists() for f in gone)
    assert any("uninstalling damaged packages" in line for line in rec.lines)
    imported = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import wizdemo; print(wizdemo.VALUE)"],
        capture_output=True,
        text=True,
    )
    assert imported.stdout.strip() == "1"


def test_a_truncated_file_in_a_dependency_is_found_and_reinstalled(env: tuple[Path, dict[str, str]]) -> None:
    venv, environ = env
    plan = _plan(venv)
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    dep = _site(venv) / "wizdep" / "__init__.py"
    size = dep.stat().st_size
    dep.write_bytes(dep.read_bytes()[:10])  # killed while writing this file
    broken = _check(plan, environ)
    assert broken.returncode == 1 and "wizdep: damaged" in broken.stdout
    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert rec.statuses() == {"tensorflow": "done"} and dep.stat().st_size == size


def test_a_package_without_its_record_is_reinstalled(env: tuple[Path, dict[str, str]]) -> None:
    venv, environ = env
    plan = _plan(venv)
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    (_site(venv) / f"wizdemo-{VERSION}.dist-info" / "RECORD").unlink()  # pip cannot uninstall it now
    assert "no RECORD" in _check(plan, environ).stdout
    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert _check(plan, environ).returncode == 0


def _limit_file_size(limit: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _big_wheel(wheels: Path, name: str, size: int) -> None:
    """Metadata first in the archive (as many wheels have it), a big file last: pip writes the
    metadata, then spends a while on the big file."""
    files = {f"{name}/small{i}.py": b"A = 1\n" for i in range(5)}
    files[f"{name}/zz_big.bin"] = b"\0" * size
    _wheel(wheels, name, VERSION, files)
    archive = wheels / f"{name}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(archive) as zf:
        entries = {i.filename: zf.read(i) for i in zf.infolist()}
    order = sorted(entries, key=lambda p: (".dist-info/" not in p, p.endswith(".bin")))
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in order:
            zf.writestr(path, entries[path])


def _step_plan(venv: Path, name: str) -> Plan:
    cand = Candidate(VersionSet(VERSION, "3.11", None, None, "cpu"), ok=True)
    py = str(venv / "bin" / "python")
    step = tensorflow_step(
        MachineProfile(), PlanInputs(cand, venv, venv.parent), distribution=name, python=py
    )
    return Plan(cand.set, "linux", str(venv), py, (step,), label="repair test")


def test_disk_full_in_the_middle_of_pips_unpack_is_repaired_by_the_next_run(
    env: tuple[Path, dict[str, str]],
) -> None:
    """pip stopped by a full disk (EFBIG at a file-size limit) while it writes the wheel's files:
    the metadata and RECORD are in place, a file is cut short. The old check called that done."""
    venv, environ = env
    name = "wizfull"
    _big_wheel(Path(environ["PIP_FIND_LINKS"]), name, 3 << 20)
    plan = _step_plan(venv, name)
    stopped = subprocess.run(
        list(plan.steps[0].commands[-1]),
        env=environ,
        capture_output=True,
        preexec_fn=_limit_file_size(1 << 20),
    )
    assert stopped.returncode != 0 and b"File too large" in stopped.stderr
    site = _site(venv)
    assert (site / f"{name}-{VERSION}.dist-info" / "METADATA").exists()
    assert (site / name / "zz_big.bin").stat().st_size < 3 << 20
    broken = _check(plan, environ)
    assert broken.returncode == 1 and f"{name}: damaged" in broken.stdout

    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert rec.statuses() == {"tensorflow": "done"}
    assert (site / name / "zz_big.bin").stat().st_size == 3 << 20 and _check(plan, environ).returncode == 0


@pytest.mark.slow  # writes 200 MB
def test_pip_killed_with_sigkill_in_the_middle_of_an_unpack_is_repaired(
    env: tuple[Path, dict[str, str]],
) -> None:
    """kill -9 of pip while it writes a 200 MB file, after the metadata is in place."""
    venv, environ = env
    name = "wizkill"
    size = 200 << 20
    _big_wheel(Path(environ["PIP_FIND_LINKS"]), name, size)
    plan = _step_plan(venv, name)
    site = _site(venv)
    big = site / name / "zz_big.bin"
    for _attempt in range(3):
        proc = subprocess.Popen(
            list(plan.steps[0].commands[-1]),
            env=environ,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if big.exists() and 0 < big.stat().st_size < size:
                proc.kill()
                break
            time.sleep(0.001)
        proc.wait()
        if proc.returncode == -signal.SIGKILL:
            break
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "uninstall", "-y", name], capture_output=True
        )
    else:
        pytest.skip("pip finished before it could be killed three times")
    assert (site / f"{name}-{VERSION}.dist-info").exists() and big.stat().st_size < size
    assert _check(plan, environ).returncode == 1

    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert rec.statuses() == {"tensorflow": "done"} and big.stat().st_size == size
    big.unlink()  # 200 MB of test data


def test_the_check_reads_dist_info_itself_where_python_has_no_importlib_metadata(
    env: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    # Python 3.7 (TF 2.10's oldest) has no importlib.metadata. Make the venv's Python lack it the way
    # 3.7 does (the import fails), and the same real check must give the same answers on real damage.
    venv, environ = env
    plan = _plan(venv)
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    blocker = tmp_path / "no_metadata"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['importlib.metadata'] = None\n")
    old = {**environ, "PYTHONPATH": str(blocker)}
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "from importlib import metadata"], env=old, capture_output=True
    )
    assert probe.returncode != 0  # the fault is real: the import fails in that Python
    assert _check(plan, old).returncode == 0, _check(plan, old).stdout
    dep = _site(venv) / "wizdep" / "__init__.py"
    dep.write_bytes(dep.read_bytes()[:10])
    both = [_check(plan, e) for e in (environ, old)]
    assert [r.returncode for r in both] == [1, 1]
    assert all("wizdep: damaged (1 of" in r.stdout for r in both), [r.stdout for r in both]
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"


def _overwrite_same_size(path: Path, offset: int = 0, count: int = 64) -> None:
    """64 bytes overwritten in place: the size stays, the content does not (a bad sector, an editor)."""
    data = bytearray(path.read_bytes())
    for i in range(offset, min(offset + count, len(data))):
        data[i] = (data[i] + 1) % 256
    stat_before = path.stat()
    with open(path, "r+b") as f:
        f.write(bytes(data))
    assert path.stat().st_size == stat_before.st_size
    os.utime(path, ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns))  # even the time looks the same


def test_a_same_size_overwrite_is_found_by_its_digest_and_repaired(env: tuple[Path, dict[str, str]]) -> None:
    venv, environ = env
    plan = _plan(venv)
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert _check(plan, environ).returncode == 0
    target = _site(venv) / "wizdemo" / "__init__.py"
    good = target.read_bytes()
    _overwrite_same_size(target)
    broken = _check(plan, environ)
    assert broken.returncode == 1 and "wizdemo: damaged (1 of" in broken.stdout, broken.stdout
    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert rec.statuses() == {"tensorflow": "done"}, "repaired, not skipped as already done"
    assert target.read_bytes() == good and _check(plan, environ).returncode == 0


def test_a_same_size_overwrite_is_found_where_python_has_no_importlib_metadata(
    env: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, environ = env
    plan = _plan(venv)
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    blocker = tmp_path / "no_metadata"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['importlib.metadata'] = None\n")
    old = {**environ, "PYTHONPATH": str(blocker)}
    assert _check(plan, old).returncode == 0
    _overwrite_same_size(_site(venv) / "wizdep" / "__init__.py", offset=100)
    assert _check(plan, old).returncode == 1
    assert Runner(plan, Recorder(), sudo=NOT_ROOT, env=environ).run().outcome == "finished"
    assert _check(plan, old).returncode == 0
