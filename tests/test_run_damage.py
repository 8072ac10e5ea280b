"""Damaged state: journals that are damaged in every way seen on real machines, a state dir that
cannot be written (a folder that is a file; a full disk made with RLIMIT_FSIZE in a child process),
and resume state kept per demo profile. Nothing here may end in a traceback or leave a temp file.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_runner_helpers import Recorder, make_plan, runs, touch_step
from wizard.demo import load_demo
from wizard.paths import state_dir
from wizard.plan.model import Plan
from wizard.run.journal import MAX_BYTES, Journal, journal_for, unfinished
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

ROOT = Path(__file__).resolve().parents[1]
NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)


def _plan(tmp: Path) -> Plan:
    return make_plan(touch_step("a", tmp / "a"), touch_step("b", tmp / "b"))


def _valid_journal(tmp: Path) -> dict:
    plan = _plan(tmp)
    runner = Runner(plan, Recorder(), sudo=NOT_ROOT)
    runner.run(skip={"b"})
    data = json.loads(Journal().path.read_text())
    Journal().path.unlink()
    (tmp / "a").unlink()
    (tmp / "a.runs").unlink()
    return data


def _damaged(valid: dict) -> dict[str, bytes]:
    """Every kind of damage; each one crashed or fooled a real run before."""
    deep = "[" * 100_000 + "]" * 100_000
    plan_edited = json.loads(json.dumps(valid))
    plan_edited["plan"]["steps"][0]["commands"] = "rm"  # the fingerprint no longer matches
    wrong_pid = json.loads(json.dumps(valid))
    wrong_pid["steps"]["a"]["pid"] = "1; rm -rf ~"
    bool_pid = json.loads(json.dumps(valid))
    bool_pid["steps"]["a"]["pid"] = True
    bad_status = json.loads(json.dumps(valid))
    bad_status["steps"]["a"]["status"] = {"x": 1}
    bad_restart = json.loads(json.dumps(valid))
    bad_restart["restart"] = {"step": "a", "kind": "format-disk", "boot_id": "x"}
    text = json.dumps(valid)
    return {
        "not UTF-8": b"\xff\xfe\x00{" + text.encode()[4:],
        "Latin-1 byte inside": text.replace('"a"', '"\xe9"', 1).encode("latin-1"),
        "steps is a list": json.dumps({**valid, "steps": []}).encode(),
        "plan is a string": json.dumps({**valid, "plan": "x"}).encode(),
        "plan is null": json.dumps({**valid, "plan": None}).encode(),
        "deep nesting": deep.encode(),
        "deep nesting inside": text.replace('"started"', f'"x": {deep}, "started"').encode(),
        "huge file": b" " * (MAX_BYTES + 1),
        "truncated": text.encode()[: len(text) // 2],
        "empty": b"",
        "NUL bytes": b"\0" * 4096,
        "a JSON list": b"[1, 2, 3]",
        "a JSON string": b'"run"',
        "5000-digit number": b'{"schema": ' + b"9" * 5000 + b"}",
        "NaN schema": text.replace('"schema": 1', '"schema": NaN', 1).encode(),
        "unknown record key": text.replace('"status"', '"evil": 1, "status"', 1).encode(),
        "plan edited": json.dumps(plan_edited).encode(),
        "pid is text": json.dumps(wrong_pid).encode(),
        "pid is true": json.dumps(bool_pid).encode(),
        "status is an object": json.dumps(bad_status).encode(),
        "unknown restart": json.dumps(bad_restart).encode(),
        "lone surrogate escape": text.replace('"test machine"', '"\\ud800"', 1).encode(),
    }


def test_every_damaged_journal_is_set_aside_with_a_notice(tmp_path: Path) -> None:
    valid = _valid_journal(tmp_path)
    cases = _damaged(valid)
    path = Journal().path
    for n, (name, raw) in enumerate(cases.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        rec = Recorder()
        runner = Runner(_plan(tmp_path), rec, sudo=NOT_ROOT)
        result = runner.run()
        assert result.outcome == "finished", (name, result.message)
        # Every case is set aside, the lone surrogate too: it sits in the plan's label, which the
        # fingerprint covers since issue 39 (an edited field never walks another plan).
        assert runner.notice and "could not be read" in runner.notice, name
        assert "\n" not in runner.notice, name
        assert len(list(path.parent.glob("run.corrupt-*.json"))) == 1, name
        loaded = Journal().load()
        assert loaded is not None and loaded.finished, name
        for p in path.parent.glob("run.corrupt-*.json"):
            p.rename(path.parent / f"kept-{n}-{p.name}")
    assert not list(path.parent.glob(".*.tmp"))
    print(f"\ndamaged journals tried: {len(cases)}, tracebacks: 0")
    assert len(cases) >= 20


def test_a_journal_that_is_a_folder_is_set_aside(tmp_path: Path) -> None:
    path = Journal().path
    path.mkdir(parents=True)
    runner = Runner(_plan(tmp_path), Recorder(), sudo=NOT_ROOT)
    assert runner.run().outcome == "finished" and runner.notice


def test_journal_fuzz_never_raises(tmp_path: Path) -> None:
    """Random byte flips, cuts and splices of a real journal: load() gives a state or None, no error."""
    base = json.dumps(_valid_journal(tmp_path)).encode()
    rng = random.Random(11)
    journal = Journal(tmp_path / "fuzz" / "run.json")
    journal.path.parent.mkdir()
    outcomes = {"loaded": 0, "set aside": 0}
    cases = 2000
    for _ in range(cases):
        data = bytearray(base)
        for _ in range(rng.randint(1, 6)):
            kind = rng.random()
            at = rng.randrange(len(data))
            if kind < 0.5:
                data[at] = rng.randrange(256)
            elif kind < 0.7:
                del data[at : at + rng.randint(1, 40)]
            elif kind < 0.9:
                data[at:at] = rng.choice([b"[", b"{", b'"', b"\\ud800", b"\xff", b"999999999999", b"null"])
            else:
                data = data[:at]
        journal.path.write_bytes(bytes(data))
        journal.notice = None
        state = journal.load()
        outcomes["loaded" if state is not None else "set aside"] += 1
        assert (state is None) == (journal.notice is not None) or state is not None
        for p in journal.path.parent.glob("run.corrupt-*.json"):
            p.unlink()
    print(f"\njournal fuzz: {cases} cases, {outcomes}")
    assert outcomes["set aside"] > cases // 2


# ---- a state dir that cannot be written ---------------------------------------------------------


def test_state_dir_that_is_a_file_stops_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder")  # TF_GPU_WIZARD_HOME/state cannot be made
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(home))
    target = tmp_path / "a"
    result = Runner(make_plan(touch_step("a", target)), Recorder(), sudo=NOT_ROOT).run()
    assert result.outcome == "failed"
    assert "Could not write" in result.message and "\n" not in result.message
    assert runs(target) == 0  # nothing ran without a journal to resume it
    assert home.read_text() == "not a folder"

    from wizard.cli.main import main

    rc = main(["apply", "--profile", "wsl2-rtx4060-laptop", "--yes"])
    err = capsys.readouterr().err
    assert rc == 1 and "Could not write" in err and "Traceback" not in err


FULL_DISK_RUN = """
import json, resource, signal, sys
from pathlib import Path
from wizard.plan.model import Plan
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession
plan = Plan.from_dict(json.loads(Path(sys.argv[1]).read_text()))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
result = Runner(plan, sudo=SudoSession(sudo="/nonexistent", is_root=True)).run()
print(json.dumps({"outcome": result.outcome, "message": result.message}))
"""


def test_full_disk_keeps_the_old_journal_and_leaves_no_temp(tmp_path: Path) -> None:
    plan = make_plan(touch_step("a", tmp_path / "a"), touch_step("b", tmp_path / "b"))
    Runner(plan, Recorder(), sudo=NOT_ROOT).run(skip={"b"})  # a journal from an earlier run
    journal = Journal().path
    before = journal.read_bytes()
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan.to_dict()))  # resumed: the journal is written again
    limit = 300  # no journal fits: the disk is "full"
    out = subprocess.run(
        [sys.executable, "-c", FULL_DISK_RUN, str(plan_file), str(limit)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    result = json.loads(out.stdout)
    assert result["outcome"] == "failed" and "File too large" in result["message"]
    assert "\n" not in result["message"]
    assert journal.read_bytes() == before
    assert runs(tmp_path / "b") == 0  # nothing ran that the journal could not record
    assert not [p for p in journal.parent.iterdir() if p.name.endswith(".tmp")]


def test_detect_save_onto_a_full_disk_keeps_the_old_profile(tmp_path: Path) -> None:
    saved = tmp_path / "me.json"
    saved.write_text('{"schema": 1, "platform": "linux"}\n')
    before = saved.read_bytes()
    program = (
        "import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000)); "
        "from wizard.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", program, "detect", "--profile", "wsl2-rtx4060-laptop", "--save", str(saved)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "File too large" in out.stderr
    assert saved.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["me.json"]


# ---- resume state per demo profile (issue 12) --------------------------------------------------


def test_each_demo_profile_resumes_only_its_own_run(tmp_path: Path) -> None:
    laptop, old = load_demo("wsl2-rtx4060-laptop"), load_demo("ubuntu-20.04-gtx1080-driver470")
    plan = make_plan(
        touch_step("a", tmp_path / "a"),
        touch_step("d", tmp_path / "d", restart="reboot"),
        touch_step("e", tmp_path / "e"),
        simulated=True,
    )
    assert Runner(plan, Recorder(), profile=old).run().outcome == "restart"
    state, _ = unfinished(simulated=True, profile=old)
    assert state is not None  # the GTX 1080 demo offers its own run ...
    assert unfinished(simulated=True, profile=laptop) == (None, None)  # ... the RTX 4060 one does not
    assert journal_for(True, old).path != journal_for(True, laptop).path
    assert journal_for(True, old).path.parent == state_dir()
    journal_for(True, old).discard()  # "Start over"
    assert unfinished(simulated=True, profile=old) == (None, None)
    assert unfinished(simulated=False) == (None, None)  # a real run never saw any of it
