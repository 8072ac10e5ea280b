"""The conda route in a lab: the fleet ships the class's explicit conda lock and its package files
(and the pinned Miniforge installer), fetched once on the control node, each checked by sha256
there and again on the host, which installs offline.

conda-forge is not reachable here: the channel is a tiny local one made in the test (real
.tar.bz2 package files, their real sha256), read through file:// URLs exactly as the control node
reads https ones. conda itself is a stand-in that unpacks the files it is given (it is not what
is tested); the download, the digest checks, the bundle, the host's command and the receipt are.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from tests.test_locks_every_route import a100_on_470
from wizard.choose.resolver import recommend
from wizard.cli.main import main
from wizard.fleet.answers import Answers, load_answers
from wizard.fleet.condaship import (
    CONDA_DIR,
    LOCAL_MINIFORGE_SH,
    ShipError,
    conda_needs,
    offline_step,
    ship,
    solve_command,
)
from wizard.fleet.hostplan import REMOTE_PROGRAMS, REMOTE_WHEELHOUSE, blockers, fleet_profile, for_hosts
from wizard.fleet.lockfile import compile_key, fallback_requirements, target_platform
from wizard.fleet.planner import plan_fleet
from wizard.fleet.project import export_project
from wizard.plan.build import build_plan
from wizard.plan.programs import program

PACKAGES = (
    ("python", "3.10.14", "h0"),
    ("pip", "24.0", "pyhd8"),
    ("cudatoolkit", "11.2.2", "h1"),
    ("cudnn", "8.1.0.77", "h2"),
)


def conda_package(folder: Path, name: str, version: str, build: str) -> tuple[str, str]:
    """A real conda package file (.tar.bz2: info/index.json and one file); (file name, sha256)."""
    folder.mkdir(parents=True, exist_ok=True)
    file_name = f"{name}-{version}-{build}.tar.bz2"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:bz2") as tar:
        for arcname, data in (
            ("info/index.json", json.dumps({"name": name, "version": version, "build": build}).encode()),
            (f"share/{name}.txt", f"{name} {version}\n".encode()),
        ):
            entry = tarfile.TarInfo(arcname)
            entry.size, entry.mtime = len(data), 0
            tar.addfile(entry, io.BytesIO(data))
    (folder / file_name).write_bytes(buf.getvalue())
    return file_name, hashlib.sha256(buf.getvalue()).hexdigest()


def local_channel(root: Path, subdir: str = "linux-64") -> str:
    """A local channel holding the solve's packages; the explicit lock text that names them."""
    lines = ["# platform: " + subdir, "@EXPLICIT"]
    for name, version, build in PACKAGES:
        sub = "noarch" if name == "pip" else subdir
        file_name, sha = conda_package(root / sub, name, version, build)
        lines.append(f"{(root / sub / file_name).as_uri()}#{sha}")
    return "\n".join(lines) + "\n"


def damage(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte changed
    path.write_bytes(bytes(data))


STAND_IN_CONDA = textwrap.dedent(
    '''\
    #!/usr/bin/env python3
    """A stand-in conda: `create --offline -p P --file F` unpacks F's file:// package files into P
    and records them; `list --explicit --sha256 -p P` lists them. Every call is logged."""
    import json, os, sys, tarfile, urllib.parse
    args = sys.argv[1:]
    with open(os.environ["CONDA_LOG"], "a") as f:
        f.write(" ".join(args) + "\\n")
    prefix = args[args.index("-p") + 1]
    state = os.path.join(prefix, "conda-meta", "state.json")
    if args[0] == "create":
        assert "--offline" in args
        lines = [l.strip() for l in open(args[args.index("--file") + 1]) if l.startswith("file://")]
        os.makedirs(os.path.dirname(state), exist_ok=True)
        for line in lines:
            url, _, sha = line.partition("#")
            with tarfile.open(urllib.parse.unquote(url[len("file://"):])) as tar:
                tar.extractall(prefix, filter="data")
        json.dump(lines, open(state, "w"))
    elif args[0] == "list":
        print("@EXPLICIT")
        for line in json.load(open(state)):
            print(line)
    '''
)


@pytest.fixture
def conda(tmp_path: Path) -> tuple[Path, Path]:
    exe = tmp_path / "bin" / "conda"
    exe.parent.mkdir()
    exe.write_text(STAND_IN_CONDA)
    exe.chmod(0o755)
    return exe, tmp_path / "conda.log"


def _conda_plan(glibc: str = "2.35"):  # type: ignore[no-untyped-def]
    profile = a100_on_470()
    profile.os.glibc = glibc
    profile = fleet_profile(profile, "0.13.9")
    cand = recommend(profile, prefer_method="conda").recommended
    assert cand is not None and cand.set.method == "conda"
    return profile, cand, build_plan(profile, cand, venv="/opt/tf-gpu", home="/root")


# ---- the control node: one download, every file checked --------------------------------------------


def test_without_a_lock_the_fleet_gives_the_one_command_that_makes_it(tmp_path: Path) -> None:
    _, _, plan = _conda_plan()
    assert not [b for b in blockers(plan, True) if "conda" in b]  # a conda class is no longer left alone
    needs = conda_needs(plan, "x86_64")
    assert needs is not None and needs.specs == ("python=3.10", "pip", "cudatoolkit=11.2", "cudnn=8.1")
    with pytest.raises(ShipError) as err:
        ship(tmp_path, needs)
    line = str(err.value)
    assert "\n" not in line and solve_command(needs) in line and str(tmp_path / CONDA_DIR) in line
    assert "conda list --explicit --sha256" in line and needs.lock_name in line and "linux-64" in line
    assert not (tmp_path / "wheelhouse").exists()  # nothing pretended, nothing fetched


def test_the_control_node_fetches_each_package_once_and_refuses_a_damaged_one(tmp_path: Path) -> None:
    _, _, plan = _conda_plan()
    needs = conda_needs(plan, "x86_64")
    assert needs is not None
    project = tmp_path / "proj"
    lock_text = local_channel(tmp_path / "channel")
    (project / CONDA_DIR).mkdir(parents=True)
    (project / CONDA_DIR / needs.lock_name).write_text(lock_text, encoding="utf-8")
    shipped = ship(project, needs)
    assert shipped.fetched == 4 and shipped.lock_digest == hashlib.sha256(lock_text.encode()).hexdigest()
    for name, sha in (
        (n, line.rsplit("#", 1)[1]) for n, line in zip(shipped.files, lock_text.splitlines()[2:], strict=True)
    ):
        assert hashlib.sha256((project / "wheelhouse" / name).read_bytes()).hexdigest() == sha
    assert ship(project, needs).fetched == 0  # a rerun downloads nothing

    # A package file damaged at the source: refused by its digest, never put in the wheelhouse.
    cudnn = next((tmp_path / "channel" / "linux-64").glob("cudnn-*"))
    damage(cudnn)
    (project / "wheelhouse" / cudnn.name).unlink()
    with pytest.raises(ShipError) as err:
        ship(project, needs)
    assert cudnn.name in str(err.value) and "refused" in str(err.value)
    assert not (project / "wheelhouse" / cudnn.name).exists()
    assert not list((project / "wheelhouse").glob(".incoming-*"))
    # A damaged copy already in the wheelhouse is not trusted either: fetched again, checked.
    damage(project / "wheelhouse" / "python-3.10.14-h0.tar.bz2")
    with pytest.raises(ShipError):
        ship(project, needs)  # the source's cudnn is still damaged
    assert (
        hashlib.sha256((project / "wheelhouse" / "python-3.10.14-h0.tar.bz2").read_bytes()).hexdigest()
        in lock_text
    )


def test_a_lock_for_another_solve_or_without_digests_is_refused(tmp_path: Path) -> None:
    _, _, plan = _conda_plan()
    needs = conda_needs(plan, "x86_64")
    assert needs is not None
    (tmp_path / CONDA_DIR).mkdir()
    lock = tmp_path / CONDA_DIR / needs.lock_name
    text = local_channel(tmp_path / "channel")
    for bad, words in (
        (text.replace("#", "  # "), "sha256"),  # a line without its digest
        ("\n".join(x for x in text.splitlines() if "cudnn" not in x) + "\n", "cudnn=8.1"),
        (local_channel(tmp_path / "arm", "linux-aarch64"), "linux-aarch64"),
    ):
        lock.write_text(bad, encoding="utf-8")
        with pytest.raises(ShipError) as err:
            ship(tmp_path, needs)
        assert words in str(err.value), str(err.value)
    assert not (tmp_path / "wheelhouse").exists()


def test_the_pinned_installer_is_fetched_once_and_checked(tmp_path: Path) -> None:
    _, _, plan = _conda_plan()
    forge = plan.step("miniforge") if any(s.id == "miniforge" for s in plan.steps) else None
    assert forge is None  # this host has conda; a plan that installs Miniforge names its pinned file:
    installer = tmp_path / "Miniforge3-26.1.1-3-Linux-x86_64.sh"
    installer.write_text('#!/bin/sh\nmkdir -p "$4/bin" && touch "$4/bin/conda"\n')
    sha = hashlib.sha256(installer.read_bytes()).hexdigest()
    from wizard.plan.conda import MINIFORGE_SH

    step = replace(
        plan.step("conda-env"),
        id="miniforge",
        commands=(("bash", "-c", MINIFORGE_SH, "_", installer.as_uri(), "/root/miniforge3", sha),),
    )
    with_forge = replace(plan, steps=(step, *plan.steps))
    needs = conda_needs(with_forge, "x86_64")
    assert needs is not None and needs.installer == (installer.as_uri(), sha)
    project = tmp_path / "proj"
    (project / CONDA_DIR).mkdir(parents=True)
    (project / CONDA_DIR / needs.lock_name).write_text(local_channel(tmp_path / "channel"), encoding="utf-8")
    shipped = ship(project, needs)
    assert installer.name in shipped.files and shipped.fetched == 5
    # The host runs the shipped file, after sha256sum -c: a damaged installer never runs.
    host = offline_step(step, str(project / "wheelhouse"))
    assert host.commands[0][:3] == ("bash", "-c", LOCAL_MINIFORGE_SH) and "curl" not in host.commands[0][2]
    argv = list(host.commands[0])
    argv[5] = str(tmp_path / "forge")
    assert subprocess.run(argv, capture_output=True, timeout=60, check=False).returncode == 0
    damage(project / "wheelhouse" / installer.name)
    argv[5] = str(tmp_path / "forge2")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "FAILED" in done.stdout + done.stderr
    assert not (tmp_path / "forge2").exists()
    damage(installer)  # the source damaged: the control node refuses it
    (project / "wheelhouse" / installer.name).unlink()
    with pytest.raises(ShipError):
        ship(project, needs)


# ---- the host: offline, from the shipped files, each checked again -------------------------------------


def _prepared_project(tmp_path: Path) -> tuple[Path, str]:
    """An exported project whose conda class can be planned with no index: the TensorFlow lock as
    uv would compile it (kept in the compile cache, wheels in the wheelhouse), the conda lock the
    lab made from a local channel. Returns (project, the conda lock's text)."""
    inventory = tmp_path / "inventory.ini"
    inventory.write_text("[lab]\na100\n", encoding="utf-8")
    out = tmp_path / "proj"
    export_project(out, inventory, Answers(method="conda"))
    assert (out / CONDA_DIR).is_dir()
    profile = a100_on_470()
    profile.os.glibc = "2.17"  # no recorded pip lock: one compiled (here: from the cache)
    (out / "profiles" / "a100.json").write_text(profile.to_json(), encoding="utf-8")
    from tests.test_fleet import _fake_wheels
    from wizard.fleet.planner import _index_args

    _, cand, plan = _conda_plan("2.17")
    index = _index_args(load_answers(out / "answers.toml"))[0]
    reqs, cons = fallback_requirements(cand, "2.17")
    platform = target_platform("x86_64", "2.17")
    cache = out / "locks" / "compiled"
    cache.mkdir(parents=True)
    text = _fake_wheels(out / "wheelhouse", [("tensorflow", "2.11.1"), ("numpy", "1.26.4")])
    (cache / f"{compile_key(reqs, cons, cand.set.python, platform, index)}.txt").write_text(
        text, encoding="utf-8"
    )
    needs = conda_needs(plan, "x86_64")
    assert needs is not None
    lock_text = local_channel(tmp_path / "channel")
    (out / CONDA_DIR / needs.lock_name).write_text(lock_text, encoding="utf-8")
    return out, lock_text


def test_the_playbooks_plan_ships_the_conda_lock_and_the_host_installs_it_offline(
    tmp_path: Path, conda: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out, lock_text = _prepared_project(tmp_path)
    result = plan_fleet(out, ["a100"], ["a100"])
    assert result.hosts["a100"]["status"] == "planned", result.hosts
    info = next(iter(result.classes.values()))
    digest = hashlib.sha256(lock_text.encode()).hexdigest()
    assert info["method"] == "conda" and info["conda_lock_digest"] == digest and info["conda_files"] == 4
    host = json.loads((out / "plans" / "a100.json").read_text(encoding="utf-8"))
    assert host["conda_lock"] == {"installed": "/opt/tf-gpu.conda-lock.txt", "digest": digest}
    shipped = {f["remote"]: (out / f["file"]).read_text(encoding="utf-8") for f in host["locks"]}
    assert shipped["/opt/tf-gpu.conda-lock.txt"] == lock_text  # the lab's lock, where the step reads it
    steps = {s["id"]: s for s in host["steps"]}
    (create,) = steps["conda-env"]["commands"]
    assert (
        create[2:5] == ["create", "--packages", REMOTE_WHEELHOUSE]
        and create[1] == f"{REMOTE_PROGRAMS}/condalock.py"
    )
    # One bundle carries the conda package files with the wheels; a rerun changes nothing.
    with tarfile.open(out / host["bundle"]) as tar:
        names = tar.getnames()
    assert sum(n.endswith(".tar.bz2") for n in names) == 4
    assert plan_fleet(out, ["a100"], ["a100"]).changed is False
    capsys.readouterr()
    assert main(["fleet", "plan", str(out), "--hosts", "a100"]) == 0
    lines = json.loads(capsys.readouterr().out)["lines"]
    assert any(f"conda lock {digest[:16]}: 4 files" in line for line in lines), lines

    # The host: the bundle unpacked into its wheelhouse, the lock copied, the step's own command run
    # (the host's paths mapped into this test's folder; conda a stand-in).
    exe, log = conda
    wheelhouse, env = tmp_path / "host" / "wheelhouse", tmp_path / "host" / "env"
    with tarfile.open(out / host["bundle"]) as tar:
        tar.extractall(wheelhouse, filter="data")
    lock = tmp_path / "host" / "env.conda-lock.txt"
    lock.write_text(shipped["/opt/tf-gpu.conda-lock.txt"], encoding="utf-8")
    mapped = {
        REMOTE_WHEELHOUSE: str(wheelhouse), f"{REMOTE_PROGRAMS}/condalock.py": program("condalock.py"),
        create[5]: str(exe), "/opt/tf-gpu": str(env), "/opt/tf-gpu.conda-lock.txt": str(lock),
    }  # fmt: skip

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, *[mapped.get(a, a) for a in argv[1:]]]
        envvars = {**os.environ, "CONDA_LOG": str(log)}
        return subprocess.run(argv, capture_output=True, text=True, env=envvars, timeout=60, check=False)

    damage(next(wheelhouse.glob("cudnn-*")))  # a file damaged on its way to the host
    done = run(create)
    assert done.returncode == 1 and "cudnn-8.1.0.77-h2.tar.bz2" in done.stderr and "refused" in done.stderr
    assert not log.exists()  # conda never ran
    with tarfile.open(out / host["bundle"]) as tar:  # the playbook copies the bundle again
        tar.extractall(wheelhouse, filter="data")
    done = run(create)
    assert done.returncode == 0, done.stderr
    assert "--offline" in log.read_text() and (env / "share" / "cudnn.txt").read_text() == "cudnn 8.1.0.77\n"
    assert run(steps["conda-env"]["check"]).returncode == 0  # the environment holds exactly the lock

    # The receipt records the conda lock's digest.
    receipt = tmp_path / "receipt.json"
    argv = [
        sys.executable, str(Path("assets/ansible/fleet_receipt.py").resolve()), "--host", "a100",
        "--lock", str(tmp_path / "none"), "--conda-lock", str(lock), "--python", sys.executable,
        "--out", str(receipt), "--", sys.executable, "-c", "print('ok')",
    ]  # fmt: skip
    assert subprocess.run(argv, capture_output=True, timeout=60, check=False).returncode == 0
    assert json.loads(receipt.read_text())["conda_lock_digest"] == digest


def test_the_playbooks_plan_without_a_conda_lock_says_the_one_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = _prepared_project(tmp_path)
    for path in (out / CONDA_DIR).iterdir():
        path.unlink()
    result = plan_fleet(out, ["a100"], ["a100"])
    reason = result.hosts["a100"]["reason"]
    assert result.hosts["a100"]["status"] == "unfit" and "conda list --explicit --sha256" in reason
    left = json.loads((out / "plans" / "a100.json").read_text(encoding="utf-8"))
    assert left["fits"] is False and left["reason"] == reason
    capsys.readouterr()
    assert main(["--lang", "zh", "fleet", "plan", str(out), "--hosts", "a100"]) == 0
    (line,) = [x for x in json.loads(capsys.readouterr().out)["lines"] if "a100" in x]
    assert "还没有 conda 锁文件" in line and "conda list --explicit --sha256" in line


def test_the_host_steps_name_no_download(tmp_path: Path) -> None:
    _, _, plan = _conda_plan()
    fleet = for_hosts(plan)
    for step in fleet.active_steps:
        for argv in step.commands:
            assert not any(a.startswith(("http://", "https://")) for a in argv), argv
    assert fleet.step("conda-env").commands[0][3:5] == ("--packages", REMOTE_WHEELHOUSE)


def test_fleet_check_counts_the_conda_locks_packages_as_locked_not_as_put_in_by_hand(tmp_path: Path) -> None:
    """A conda environment holds conda's own Python packages (pip from the conda lock): `fleet check`
    reads the shipped conda lock among the plan's locks, so they are not drift, and its package
    lines are never taken for pip requirements."""
    from tests.test_fleet_live import SITE, _env
    from wizard.assets import asset_file

    venv, lock, digest = _env(tmp_path)
    info = venv / SITE / "pip-24.0.dist-info"  # what conda's pip package leaves
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pip\nVersion: 24.0\n\n")
    (info / "RECORD").write_text(f"{info.name}/RECORD,,\n")
    conda_lock = tmp_path / "env.conda-lock.txt"
    conda_lock.write_text(local_channel(tmp_path / "channel"), encoding="utf-8")
    receipt = tmp_path / "receipt.json"
    receipt.write_text("{}")

    def problems(*also: str) -> list[dict[str, str]]:
        argv = [
            sys.executable, str(asset_file("ansible/fleet_check.py")), "--venv", str(venv), "--lock", str(lock),
            "--digest", digest, "--receipt", str(receipt), *[f"--also={a}" for a in also],
        ]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
        return list(json.loads(done.stdout)["packages"])

    assert [(p["name"], p["problem"]) for p in problems()] == [("pip", "extra")]
    assert problems(str(conda_lock)) == []
