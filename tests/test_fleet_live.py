"""The lab after its setup: `fleet check` (drift), `fleet watch` (the board), `report --since`.

The host program (fleet_check.py) runs on a real environment folder whose files are damaged for
real; check and watch go through real ansible-playbook / ansible with the local connection, one
host whose Python hangs (a real hang: the check must still come back in time) and one whose chroot
root is gone. The chroot lab with real Debian hosts is tests/test_fleet_real.py (slow).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fleet_tools import ansible_tool, has_collection
from wizard.assets import asset_file
from wizard.cli.main import main
from wizard.fleet.ansible_lines import HostLine, recorded_inventory
from wizard.fleet.answers import Answers
from wizard.fleet.check import CHECK_TASK, check_fleet, drifts, host_verdict
from wizard.fleet.history import changes_since, parse_when
from wizard.fleet.live_view import board_cells, board_header, board_summary
from wizard.fleet.project import PROBE_ZIP, export_project
from wizard.fleet.watch import Board, HostRow, apply_line
from wizard.monitor.host import FixedHost
from wizard.monitor.jsonlines import sample_line, source_header
from wizard.monitor.nvml_source import NvmlSource
from wizard.monitor.sampler import Sampler
from wizard.nvml_fake import FakeGpu, FakeNvml

SITE = "lib/python3.11/site-packages"


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _env(root: Path) -> tuple[Path, Path, str]:
    """A virtual environment's site-packages with two packages installed as a wheel leaves them
    (files + RECORD), and the lock naming them; returns (venv, lock, lock sha256)."""
    venv = root / "venv"
    site = venv / SITE
    for name, version, files in (
        ("demo-pkg", "1.0", {"demo_pkg/__init__.py": b"VALUE = 1\n" * 40, "demo_pkg/core.py": b"x = 2\n"}),
        ("other", "2.5", {"other.py": b"y = 3\n"}),
    ):
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
        rows = []
        for rel, data in files.items():
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_bytes(data)
            rows.append(f"{rel},{_record_hash(data)},{len(data)}")
        rows.append(f"{info.name}/RECORD,,")
        (info / "RECORD").write_text("\n".join(rows) + "\n")
    lock = venv / "tf-gpu-wizard.lock.txt"
    lock.write_text(
        "demo-pkg==1.0 \\\n    --hash=sha256:"
        + "1" * 64
        + "\nother==2.5 \\\n    --hash=sha256:"
        + "2" * 64
        + "\n"
    )
    return venv, lock, hashlib.sha256(lock.read_bytes()).hexdigest()


def _host_check(venv: Path, lock: Path, digest: str, receipt: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(asset_file("ansible/fleet_check.py")), "--venv", str(venv), "--lock", str(lock),
         "--digest", digest, "--receipt", str(receipt)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def _verdict(host: str, report: dict):
    line = HostLine(host, CHECK_TASK, "ok", 0, json.dumps(report))
    return host_verdict(host, [line])


def test_the_host_check_finds_a_same_size_overwrite_and_names_the_package_and_file(tmp_path: Path) -> None:
    venv, lock, digest = _env(tmp_path)
    receipt = tmp_path / "receipt.json"
    receipt.write_text(json.dumps({"time": "2026-03-02T09:00:00+00:00", "driver": None, "gpus": []}))
    clean = _verdict("a", _host_check(venv, lock, digest, receipt))
    assert clean is not None and clean.status == "clean" and clean.receipt_time.startswith("2026-03-02")

    target = venv / SITE / "demo_pkg" / "__init__.py"
    size = target.stat().st_size
    with open(target, "r+b") as f:  # a same-size overwrite: only the digest can tell
        f.write(b"VALUE = 2")
    assert target.stat().st_size == size
    drifted = _verdict("a", _host_check(venv, lock, digest, receipt))
    assert drifted is not None and drifted.status == "drifted"
    (d,) = drifted.drift
    assert (d.kind, d.package, d.files) == ("files", "demo-pkg", ("demo_pkg/__init__.py",))
    assert "demo-pkg" in d.words() and "demo_pkg/__init__.py" in d.words()


def test_the_host_check_names_a_version_a_missing_package_a_lock_and_a_driver(tmp_path: Path) -> None:
    venv, lock, _ = _env(tmp_path)
    site = venv / SITE
    shutil.rmtree(site / "other-2.5.dist-info")  # pip uninstall left no trace of it
    meta = site / "demo_pkg-1.0.dist-info" / "METADATA"
    meta.write_text(meta.read_text().replace("Version: 1.0", "Version: 1.1"))  # another version now
    receipt = tmp_path / "receipt.json"  # the receipt proved a driver that nvidia-smi no longer shows
    receipt.write_text(json.dumps({"time": "t", "driver": "550.120", "gpus": [{"name": "RTX 4060"}]}))
    report = _host_check(venv, lock, "f" * 64, receipt)
    kinds = {(d.kind, d.package) for d in drifts(report)}
    assert {("lock", ""), ("missing", "other"), ("version", "demo-pkg")} <= kinds
    # A student's `pip install`: a package no lock of the plan names, named as put in by hand.
    extra = site / "requests-2.32.0.dist-info"
    extra.mkdir()
    (extra / "METADATA").write_text("Metadata-Version: 2.1\nName: requests\nVersion: 2.32.0\n\n")
    (found,) = [d for d in drifts(_host_check(venv, lock, "f" * 64, receipt)) if d.kind == "extra"]
    assert (found.package, found.now) == ("requests", "2.32.0") and "pip uninstall" in found.words()
    if shutil.which("nvidia-smi") is None:
        (driver,) = [d for d in drifts(report) if d.kind == "driver"]
        assert driver.want == "550.120" and "nvidia-smi" in driver.now


def test_a_host_that_ran_nothing_is_not_answering_and_a_host_without_a_plan_is_unknown() -> None:
    gone = HostLine("h", "Read the plan the control node made for this host", "failed", None, "", "",
                    "Task failed: /lab/h is not a directory")  # fmt: skip
    said = host_verdict("h", [gone], planned=True)
    assert said is not None and said.status == "not-answering" and "/lab/h is not a directory" in said.reason
    assert host_verdict("h", [gone], planned=False).status == "unknown"  # type: ignore[union-attr]
    unreachable = HostLine("u", CHECK_TASK, "unreachable", None, "", "", "ssh: connect timed out")
    assert host_verdict("u", [unreachable]).status == "not-answering"  # type: ignore[union-attr]
    assert host_verdict("w", []) is None  # no line yet: still on its way


# ---- real Ansible, local connection ---------------------------------------------------------


def _ansible_ready() -> str | None:
    for name in ("ansible", "ansible-playbook", "ansible-inventory"):
        if ansible_tool(name) is None:
            return f"{name} is not installed (pip install -e '.[fleet]')"
    if not has_collection("community.general"):
        return "community.general is not installed"
    return None


@pytest.fixture
def local_lab(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project with three hosts: `ok` (this machine, a clean environment), `hung` (its Python
    hangs: a real hang, the module never starts) and `gone` (a chroot whose root is not there)."""
    why = _ansible_ready()
    if why:
        pytest.skip(why)
    remote = tmp_path / "remote"
    (remote / "programs").mkdir(parents=True)
    shutil.copy(asset_file("ansible/fleet_check.py"), remote / "programs" / "fleet_check.py")
    venv, lock, digest = _env(tmp_path)
    (remote / "receipt.json").write_text(json.dumps({"time": "2026-03-02T09:00:00+00:00", "gpus": []}))
    hang = tmp_path / "hanging-python"
    hang.write_text("#!/bin/sh\nexec sleep 600\n")
    hang.chmod(0o755)
    inventory = tmp_path / "inventory.ini"
    inventory.write_text(
        "[lab]\n"
        f"ok ansible_connection=local ansible_python_interpreter={sys.executable} tf_gpu_remote_dir={remote}\n"
        f"hung ansible_connection=local ansible_python_interpreter={hang} tf_gpu_remote_dir={remote}\n"
        f"gone ansible_connection=community.general.chroot ansible_host={tmp_path / 'no-such-root'}\n"
        "[lab:vars]\ntf_gpu_become=false\n"
    )
    project = tmp_path / "project"
    export_project(project, inventory, Answers(method="cpu"))
    hosts = {h: {"status": "planned", "class": "c1", "reason": ""} for h in ("ok", "hung", "gone")}
    (project / "plans" / "summary.json").write_text(json.dumps({"hosts": hosts}))
    plan = {"fits": True, "venv": str(venv), "lock": {"installed": str(lock), "digest": digest}}
    for host in ("ok", "hung", "gone"):
        (project / "plans" / f"{host}.json").write_text(json.dumps(plan))
    (project / "receipts").mkdir(exist_ok=True)
    (project / "receipts" / "ok.json").write_text(
        json.dumps({"time": "2026-03-02T09:00:00+00:00", "check": {"passed": True}})
    )
    shutil.copy(project / "files" / PROBE_ZIP, remote / PROBE_ZIP)
    return project, inventory, venv


def test_check_answers_in_time_whatever_the_hosts_do(local_lab: tuple[Path, Path, Path]) -> None:
    project, inventory, venv = local_lab
    assert recorded_inventory(project) == inventory.resolve()  # export recorded it in ansible.cfg
    started = time.monotonic()
    result = check_fleet(project, inventory, limit_s=12)
    took = time.monotonic() - started
    by = {h.host: h for h in result.hosts}
    assert set(by) == {"ok", "hung", "gone"}
    assert by["ok"].status == "clean", by["ok"]
    assert by["hung"].status == "not-answering" and "12" in by["hung"].reason
    assert by["gone"].status == "not-answering" and "no-such-root" in by["gone"].reason
    assert result.timed_out and took < 12 + 10  # the limit, and Ansible's group ended after it
    # The next check sees a same-size overwrite in the environment through Ansible too.
    target = venv / SITE / "other.py"
    target.write_bytes(b"y = 4\n")
    again = {h.host: h for h in check_fleet(project, inventory, limit_s=12).hosts}
    assert again["ok"].status == "drifted" and again["ok"].drift[0].files == ("other.py",)


def test_watch_gives_one_row_per_host_and_says_which_do_not_answer(
    local_lab: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _, _ = local_lab
    started = time.monotonic()
    code = main(["fleet", "watch", str(project), "--json", "--count", "1", "--limit", "10"])
    assert time.monotonic() - started < 10 + 10  # the hung host holds nothing up past the round's limit
    assert code == 0
    rows = {r["host"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(rows) == {"ok", "hung", "gone"}
    ok = rows["ok"]  # read by the wizard's own monitor, run from the probe zip by the host's python3
    assert ok["state"] == "answering" and ok["cpu_percent"] is not None
    assert ok["gpus"] or ok["no_gpu"]  # a GPU's readings, or the monitor's reason for none
    assert ok["receipt"] == {"time": "2026-03-02T09:00:00+00:00", "status": "passed"}
    assert rows["hung"]["state"] == rows["gone"]["state"] == "not-answering"
    assert rows["gone"]["receipt"]["status"] == "none"


def test_a_board_row_carries_the_monitors_gpu_readings() -> None:
    fake = FakeNvml([FakeGpu(procs=[(4242, 2 * 1024**3)])])
    source = NvmlSource(fake, process_name=lambda pid: "python3", shadow_check=lambda: None)  # type: ignore[arg-type]
    sampler = Sampler(source, FixedHost())
    stdout = sample_line(sampler.sample(), source_header(sampler.info))  # what `monitor --json` writes
    row = apply_line(HostRow("lab-07"), HostLine("lab-07", "command", "ok", 0, stdout), 1.0)
    (g,) = row.gpus
    assert row.state == "answering" and g.util is not None and g.temperature is not None
    assert g.processes == ("python3",) and g.mem_total
    silent = apply_line(row, HostLine("lab-07", "command", "failed", 1, "", "", "python3: not found"), 2.0)
    assert silent.state == "not-answering" and silent.reason == "python3: not found"


# ---- receipts over time ----------------------------------------------------------------------


def _kept(project: Path, host: str, when: str, **over: object) -> None:
    data = {
        "host": host, "class": "c1", "time": when, "gpus": [{"name": "RTX 4060"}], "driver": "550.120",
        "tensorflow": {"distribution": "tensorflow", "version": "2.21.0"}, "lock_digest": "ab" * 32,
        "check": {"passed": True, "message": "ok", "seconds": 3.0},
    }  # fmt: skip
    data.update(over)
    folder = project / "receipts" / "history" / host
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (when.replace(":", "").replace("-", "") + ".json")).write_text(json.dumps(data))
    (project / "receipts" / f"{host}.json").write_text(json.dumps(data))


def test_report_since_shows_what_changed_between_two_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plans").mkdir()
    _kept(tmp_path, "a", "2026-03-02T09:00:00+00:00")
    _kept(tmp_path, "a", "2026-03-09T09:00:00+00:00", driver="560.35")  # an update replaced the driver
    _kept(tmp_path, "b", "2026-03-02T09:00:00+00:00")
    _kept(tmp_path, "b", "2026-03-09T09:00:00+00:00")
    _kept(tmp_path, "c", "2026-03-09T09:00:00+00:00")  # set up after the first run
    rows = {c.host: c for c in changes_since(tmp_path, parse_when("2026-03-05T00:00Z"))}
    assert rows["a"].fields == [("driver", "550.120", "560.35")] and rows["a"].runs == 1
    assert rows["b"].fields == [] and rows["c"].then is None
    assert main(["fleet", "report", str(tmp_path), "--since", "2026-03-05T00:00Z"]) == 0
    out = capsys.readouterr().out
    assert "550.120 → 560.35" in out
    assert main(["fleet", "report", str(tmp_path), "--since", "next tuesday"]) == 2
    assert "next tuesday" in capsys.readouterr().err


def test_check_and_watch_on_a_folder_that_is_no_project_say_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fleet", "check", str(tmp_path / "nope")]) == 2
    assert main(["fleet", "watch", str(tmp_path), "--json", "--count", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 2 and "Traceback" not in err


# ---- the board screen ----------------------------------------------------------------------


def _boards(n_hosts: int) -> list[Board]:
    fake = FakeNvml([FakeGpu(procs=[(4242, 2 * 1024**3)])])
    source = NvmlSource(fake, process_name=lambda pid: "python3", shadow_check=lambda: None)  # type: ignore[arg-type]
    sampler = Sampler(source, FixedHost())
    stdout = sample_line(sampler.sample(), source_header(sampler.info))
    rows = {}
    for i in range(1, n_hosts + 1):
        host = f"lab-{i:02d}"
        line = (
            HostLine(host, "command", "unreachable", None, "", "", "ssh: connect to host timed out")
            if i == 4
            else HostLine(host, "command", "ok", 0, stdout)
        )
        rows[host] = apply_line(HostRow(host, receipt_time="2026-03-02T09:00:00+00:00", receipt_status="passed"),
                                line, 1.0)  # fmt: skip
    return [Board(rows=rows, round=1, round_seconds=2.5)]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_board_shows_ten_hosts_at_80x24(size: tuple[int, int]) -> None:
    import asyncio

    from screens.fleet_watch_app import FleetBoardApp

    boards = _boards(10)

    def watcher(on_change, stop, sleep):  # type: ignore[no-untyped-def]
        yield from boards
        while not stop():
            sleep(0.1)

    async def walk() -> str:
        app = FleetBoardApp("Lab board", watcher)
        async with app.run_test(size=size) as pilot:
            for _ in range(50):
                await pilot.pause(0.05)
                if app.rows:
                    break
            await pilot.press("down", "down", "down")
            await pilot.pause(0.1)
            text = app.export_screenshot().replace("&#160;", " ")
            await pilot.press("q")
        return text

    shot = asyncio.run(walk())
    for i in range(1, 11):
        assert f"lab-{i:02d}" in shot
    assert "NOT ANSWERING" in shot and "python3" in shot
    assert "ssh: connect to host timed out" in shot  # the picked host's details (lab-04)


def test_the_monitor_runs_without_psutil_as_on_a_lab_host(tmp_path: Path) -> None:
    # The probe zip under a bare Python (no site-packages: no psutil), as `fleet watch` runs it.
    zip_path = tmp_path / PROBE_ZIP
    from wizard.fleet.project import probe_zip

    zip_path.write_bytes(probe_zip())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(zip_path), "monitor", "--json", "--count", "2", "--interval", "0.2"],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(lines) == 2 and lines[0]["type"] == "sample" and "source" in lines[0]
    assert lines[1]["host"]["ram_total"] > 0 and lines[1]["host"]["cpu_percent"]


def test_the_boards_header_lines_up_with_its_rows_when_drawn_at_once() -> None:
    """The board's columns get their widths with its rows: a header drawn before the table measures
    its columns (on a busy lab machine) is the header above the rows, not one at the labels' widths."""
    import asyncio

    from textual.widgets import DataTable

    from screens.fleet_watch_app import BoardChanged, FleetBoardApp

    board = _boards(3)[0]

    def watcher(on_change, stop, sleep):  # type: ignore[no-untyped-def]
        while not stop():
            sleep(0.1)
        yield from ()

    async def walk() -> tuple[str, str, str]:
        app = FleetBoardApp("Lab board", watcher)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            table = app.query_one("#board", DataTable)
            app.on_board_changed(BoardChanged(board.ordered(), board_summary(board)))
            early = table.render_line(0).text  # before the table's idle
            await pilot.pause()
            header, row = table.render_line(0).text, table.render_line(1).text
            await pilot.press("q")
        return early, header, row

    early, header, row = asyncio.run(walk())
    assert early == header
    second = board_header()[1]
    assert header.index(second) == row.index(board_cells(board.ordered()[0])[1])
