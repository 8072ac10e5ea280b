"""The fleet with the real engine: ansible-playbook on three stock Debian 12 hosts, CPU plans.

Run as root where debootstrap and the `ansible` package are installed (.ci/run installs them).
The lab is built and the playbook run once for the module (the `lab` fixture); then: the first run
leaves TensorFlow passing its check on every host, a fourth host without python3 is reported failed
while the others finish, the wheelhouse is downloaded once; one host drifts and one stops
answering, `fleet check` names both, the second run repairs the drift and changes nothing on the
clean host, and `fleet check` finds both answering hosts clean. The hosts have no network
(tests/fleet_lab.py): each installs only what the control node copied to it. The Debian root is made once and kept in
TF_GPU_WIZARD_FLEET_CACHE (default /var/tmp/tf-gpu-wizard-fleet); TF_GPU_WIZARD_SKIP_FLEET_REAL=1
skips the test, TF_GPU_WIZARD_KEEP_LAB=1 keeps the hosts for a look afterwards.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fleet_lab import make_host, recap, stock_root, write_lab
from tests.fleet_tools import ansible_tool, has_collection
from wizard.choose.lock import environment_lock
from wizard.choose.resolver import recommend
from wizard.fleet.hostplan import fleet_profile
from wizard.fleet.tools import control_uv, uv_version
from wizard.profile import MachineProfile

pytestmark = pytest.mark.slow
PLAYBOOK_TIMEOUT_S = 900
HOSTS = ("lab-01", "lab-02", "lab-03")
BROKEN = "lab-04"  # no python3: Ansible cannot run a module there
FULL = "lab-05"  # 16 MiB free under /opt: the copy of the wizard's files runs out of space
WIZARD = [sys.executable, "-m", "wizard"]


def _missing() -> str | None:
    if os.environ.get("TF_GPU_WIZARD_SKIP_FLEET_REAL"):  # about 6 min on a 2-core machine
        return "TF_GPU_WIZARD_SKIP_FLEET_REAL is set"
    if os.geteuid() != 0:
        return "needs root (chroot hosts)"
    for tool in ("debootstrap", "unshare", "tar"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if ansible_tool("ansible-playbook") is None or not has_collection("community.general"):
        return "the ansible package (community.general) is not installed: pip install -e '.[fleet]'"
    return None


def _playbook(inventory: Path, project: Path, log: Path) -> tuple[str, float]:
    started = time.monotonic()
    done = subprocess.run(
        [ansible_tool("ansible-playbook") or "ansible-playbook", "-i", str(inventory), str(project / "site.yml")],
        capture_output=True, text=True, timeout=PLAYBOOK_TIMEOUT_S, check=False,
        env={**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0"},
    )  # fmt: skip
    seconds = time.monotonic() - started
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    return done.stdout + done.stderr, seconds


def _downloaded(output: str) -> int:
    m = re.search(r"wheelhouse: (\d+) wheels downloaded now", output)
    assert m, output[-3000:]
    return int(m.group(1))


@dataclass
class Lab:
    root: Path
    inventory: Path
    project: Path
    roots: dict[str, Path]
    first: str
    first_s: float


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """The lab, built once for this module: five stock Debian hosts (two with a fault), the project
    exported, and the playbook run once."""
    why = _missing()
    if why:
        pytest.skip(why)
    stock = stock_root()
    root = tmp_path_factory.mktemp("fleet") / "lab"
    roots = {h: make_host(stock, root / "hosts" / h) for h in HOSTS}
    roots[BROKEN] = make_host(stock, root / "hosts" / BROKEN, python3=False)
    roots[FULL] = make_host(stock, root / "hosts" / FULL)
    full_opt = roots[FULL] / "opt"
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(full_opt)], check=True, timeout=60)
    inventory = write_lab(root, roots)
    project = root / "project"
    try:
        subprocess.run(
            [*WIZARD, "fleet", "export", "-i", str(inventory), "-o", str(project)], check=True, timeout=120
        )
        first, first_s = _playbook(inventory, project, root / "run1.log")
        yield Lab(root, inventory, project, roots, first, first_s)
    finally:
        subprocess.run(["umount", str(full_opt)], check=False, timeout=60)
        if not os.environ.get("TF_GPU_WIZARD_KEEP_LAB"):
            shutil.rmtree(root / "hosts", ignore_errors=True)  # about 1.5 GB a host


def test_three_stock_debian_hosts_get_tensorflow_from_one_download(lab: Lab) -> None:
    project, first = lab.project, lab.first
    wizard = WIZARD
    counts = recap(first)
    for host in HOSTS:
        assert counts[host]["failed"] == 0 and counts[host]["unreachable"] == 0, first[-4000:]
        assert counts[host]["changed"] > 0
    assert counts[BROKEN]["failed"] == 1 and counts[FULL]["failed"] == 1  # reported; the others finished
    assert "No space left on device" in first or "no space" in first.lower()
    downloaded = _downloaded(first)
    # The one lock: the class's is the plan's own recorded lock for this Debian 12 host, and the
    # wheelhouse holds exactly its files and the venv step's pip (hashed in its own small lock).
    summary = json.loads((project / "plans" / "summary.json").read_text(encoding="utf-8"))
    (cls,) = [c for c in summary["classes"].values() if c["status"] == "planned"]
    facts = fleet_profile(
        MachineProfile.load(project / "profiles" / f"{HOSTS[0]}.json"), uv_version(control_uv() or "uv")
    )
    cand = next(c for c in recommend(facts, prefer_method="cpu").candidates if c.ok and c.set.method == "cpu")
    plans_lock = environment_lock(cand, facts.os.glibc)
    assert plans_lock is not None and cls["lock_source"] == "recorded"
    digest = plans_lock.digest
    assert cls["lock_digest"] == digest and cls["packages"] == len(plans_lock.lines)
    host = json.loads((project / "plans" / f"{HOSTS[0]}.json").read_text(encoding="utf-8"))
    shipped = sum((project / f["file"]).read_text(encoding="utf-8").count("==") for f in host["locks"])
    assert (
        downloaded
        == shipped
        == len(plans_lock.lines) + 1
        == len(list((project / "wheelhouse").glob("*.whl")))
    )

    report = subprocess.run(
        [*wizard, "fleet", "report", str(project), "--json"], capture_output=True, text=True, timeout=60, check=False
    )  # fmt: skip
    rows = {r["host"]: r for r in json.loads(report.stdout)["hosts"]}
    for name in HOSTS:
        assert rows[name]["status"] == "passed", rows[name]
        assert rows[name]["tensorflow"] == f"tensorflow-cpu {cand.set.tensorflow}"
        # The lock in each host's environment, digested there by the receipt, is the plan's.
        assert rows[name]["lock_digest"] == digest
        # Each run's receipt is kept by its time, for `fleet report --since`.
        assert len(list((project / "receipts" / "history" / name).glob("*.json"))) == 1
    assert rows[BROKEN]["status"] == "no-facts"
    assert rows[FULL]["status"] == "no-receipt"  # planned, failed before its check
    assert (project / "report.csv").read_text(encoding="utf-8-sig").count("\n") == 6
    print(f"\nfleet: first run {lab.first_s:.0f} s ({downloaded} wheels downloaded once)")


def _check(project: Path) -> tuple[dict[str, dict], float]:
    started = time.monotonic()
    done = subprocess.run(
        [*WIZARD, "fleet", "check", str(project), "--json"], capture_output=True, text=True, timeout=300, check=False
    )  # fmt: skip
    seconds = time.monotonic() - started
    assert done.stdout, done.stderr
    return {h["host"]: h for h in json.loads(done.stdout)["hosts"]}, seconds


def test_drift_is_found_and_repaired_and_a_silent_host_is_named(lab: Lab) -> None:
    """After the first run one host drifts (a same-size overwrite of an installed file), one stops
    answering (its root is gone, as a machine switched off); check names both within 120 s, the
    board has a row for each host, and the next run repairs the drift and changes nothing else."""
    project = lab.project
    drifted, silent, clean = HOSTS
    site = lab.roots[drifted] / "opt" / "tf-gpu" / "lib"
    (target,) = list(site.glob("python3*/site-packages/tensorflow/__init__.py"))
    data = target.read_bytes()
    with open(target, "r+b") as f:  # same size, other bytes: only a digest tells
        f.write(data.replace(b"# ", b"#!", 1))
    assert target.stat().st_size == len(data) and target.read_bytes() != data
    off = lab.roots[silent].with_name(silent + ".off")
    os.rename(lab.roots[silent], off)
    try:
        hosts, seconds = _check(project)
        assert seconds < 120
        assert hosts[drifted]["status"] == "drifted", hosts[drifted]
        (drift,) = hosts[drifted]["drift"]
        assert drift["package"] == "tensorflow-cpu" and drift["files"] == ["tensorflow/__init__.py"]
        assert hosts[silent]["status"] == "not-answering", hosts[silent]
        assert hosts[clean]["status"] == "clean", hosts[clean]
        assert hosts[BROKEN]["status"] == "unfit" and hosts[FULL]["status"] != "clean"

        board = subprocess.run(
            [*WIZARD, "fleet", "watch", str(project), "--json", "--count", "1"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        rows = {r["host"]: r for r in map(json.loads, board.stdout.splitlines())}
        assert set(rows) == {*HOSTS, BROKEN, FULL}, board.stderr
        assert rows[drifted]["state"] == rows[clean]["state"] == "answering"
        assert rows[silent]["state"] == "not-answering" and rows[BROKEN]["state"] == "not-answering"
        assert rows[clean]["receipt"]["status"] == "passed"

        second, second_s = _playbook(lab.inventory, project, lab.root / "run2.log")
        counts = recap(second)
        assert counts[drifted]["changed"] > 0 and counts[drifted]["failed"] == 0, second[-4000:]
        # A rerun changes nothing where nothing drifted (the control node's plan does change: the
        # silent host's facts did not come in this time).
        assert counts[clean]["changed"] == 0 and counts[clean]["failed"] == 0, second[-4000:]
        assert counts[silent]["failed"] + counts[silent]["unreachable"] >= 1
        assert counts[BROKEN]["failed"] == 1 and counts[FULL]["failed"] == 1
        assert _downloaded(second) == 0  # the wheelhouse was built once

        after, after_s = _check(project)
        assert after[drifted]["status"] == after[clean]["status"] == "clean", after
        assert after[silent]["status"] == "not-answering"
        since = subprocess.run(
            [*WIZARD, "fleet", "report", str(project), "--since", "2000-01-01", "--json"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        changes = {c["host"]: c for c in json.loads(since.stdout)["hosts"]}
        assert changes[drifted]["now"]["status"] == "passed"
        print(f"\nfleet: check {seconds:.0f} s, second run {second_s:.0f} s, check after {after_s:.0f} s")
    finally:
        os.rename(off, lab.roots[silent])
