"""Issue 19's faults that are about data, not installs: a journal with a lone surrogate, a glibc with a
non-ASCII digit, bidi and C1 controls from a profile in every output (JSON and scripts included), a
HOME path with OSC 52, the restart message said once, a profile saved with a UTF-8 BOM.

Each test writes the real file a user (or a damaged disk) would leave and runs the real command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from wizard.cli.main import main
from wizard.demo import load_demo
from wizard.run.journal import Journal

# Never raw in anything we print: C0 but newline/tab, DEL, C1, bidi embeddings/overrides/isolates/marks,
# line and paragraph separators.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
OSC52 = "\x1b]52;c;aGVsbG8=\x07"
HOSTILE = "\u202eevil\u009b31m\u2066x\u2069\u200f\x85\x1b[2J"


def _write(tmp: Path, name: str, data: dict[str, Any]) -> Path:
    path = tmp / name
    path.write_text(json.dumps(data, ensure_ascii=True))
    return path


# ---- 3. tracebacks ------------------------------------------------------------------------------------


def test_a_surrogate_in_the_journals_started_does_not_crash_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps(load_demo("ubuntu-24.04-rtx4090-fresh").to_dict()))
    # A first run leaves its journal; then its `started` is damaged the way the trial found it.
    assert main(["apply", "--dry-run", "--profile", str(profile)]) == 0
    from wizard.choose.resolver import recommend
    from wizard.demo import load_profile
    from wizard.plan.build import build_plan
    from wizard.run.journal import RunState, journal_for

    loaded = load_profile(str(profile))
    journal = journal_for(True, loaded)
    journal.save(RunState(plan=build_plan(loaded, recommend(loaded).recommended)))
    raw = json.loads(journal.path.read_text())
    raw["started"] = "\udc00\udcff 2026"
    journal.path.write_text(json.dumps(raw, ensure_ascii=True))  # travels as an escape, as on disk
    capsys.readouterr()
    for _ in range(2):  # every run, not only the first
        rc = main(["apply", "--yes", "--profile", str(profile)])
        out, err = capsys.readouterr()
        assert rc in (0, 1), err
        assert "Traceback" not in err
        assert not re.search("[\ud800-\udfff]", out + err)
    state = Journal(journal.path).load()
    assert state is None or not re.search("[\ud800-\udfff]", state.started)


def test_the_journal_loader_never_hands_out_a_surrogate(tmp_path: Path) -> None:
    from wizard.choose.resolver import recommend
    from wizard.plan.build import build_plan
    from wizard.run.journal import RunState

    demo = load_demo("no-nvidia-gpu")
    journal = Journal(tmp_path / "run.json")
    journal.save(RunState(plan=build_plan(demo, recommend(demo).recommended)))
    raw = json.loads(journal.path.read_text())
    raw["started"] = "\udc00…"
    raw["updated"] = "x\ud800"
    journal.path.write_text(json.dumps(raw))
    state = journal.load()
    if state is not None:  # kept: its times are then text a terminal can print
        state.started.encode("utf-8")
        state.updated.encode("utf-8")


@pytest.mark.parametrize(
    "command", [["recommend"], ["recommend", "--json"], ["plan"], ["apply", "--dry-run"]]
)
def test_a_glibc_with_a_non_ascii_digit_is_not_a_version(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = load_demo("ubuntu-24.04-rtx4090-fresh").to_dict()
    data["os"]["glibc"] = "2.3\u0663"
    path = _write(tmp_path, "g.json", data)
    rc = main([*command, "--profile", str(path)])
    _, err = capsys.readouterr()
    assert rc in (0, 1) and "Traceback" not in err


def test_no_unicode_digit_class_in_the_code() -> None:
    """`\\d` matches "٣" (and 600 other digits) that int() reads and Version() refuses: versions are
    parsed with [0-9] only, everywhere."""
    root = Path(__file__).resolve().parent.parent
    found = []
    for folder in ("wizard", "screens", "assets/programs", "assets/checks", "assets/bench"):
        for path in sorted((root / folder).rglob("*.py")) if (root / folder).exists() else ():
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"(?<!\\)\\d", line):
                    found.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


# ---- 6. raw controls ----------------------------------------------------------------------------------


def _hostile_profile(tmp: Path) -> Path:
    data = load_demo("debian-12-gtx1060-laptop").to_dict()
    data["label"] = "lab " + HOSTILE
    data["gpus"][0]["name"] = "RTX " + HOSTILE
    data["python"]["executable"] = "/usr/bin/py" + HOSTILE
    data["notes"].append("note " + HOSTILE)
    data["os"]["name"] = "Ubuntu " + HOSTILE
    return _write(tmp, "hostile.json", data)


COMMANDS = [
    ["detect"],
    ["detect", "--json"],
    ["recommend"],
    ["recommend", "--json"],
    ["recommend", "--all", "--json"],
    ["plan"],
    ["plan", "--json"],
    ["plan", "--script"],
    ["apply", "--dry-run"],
    ["apply", "--yes"],
    ["doctor"],
    ["doctor", "--json"],
    ["monitor", "--count", "1"],
    ["monitor", "--count", "1", "--json"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_bidi_and_c1_controls_never_reach_any_output(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _hostile_profile(tmp_path)
    rc = main([*command, "--profile", str(path)])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    assert "Traceback" not in err
    for text in (out, err):
        found = RAW.findall(text)
        assert not found, f"raw controls reach the output: {[hex(ord(c)) for c in found[:8]]}"
    if command == ["detect", "--json"]:
        data = json.loads(out)
        assert "\u202e" in json.dumps(data, ensure_ascii=False)  # escaped on the wire, intact as data


def test_the_scripts_fail_messages_are_safe_and_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _hostile_profile(tmp_path)
    assert main(["plan", "--script", "--profile", str(path)]) == 0
    script = capsys.readouterr().out
    fails = [line for line in script.splitlines() if "|| fail " in line]
    assert fails
    for line in fails:
        assert not RAW.search(line), line
    import subprocess

    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0


def test_a_home_with_osc52_never_reaches_apply_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / f"h{OSC52}\u202eme"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(home / "wiz"))
    rc = main(["apply", "--yes", "--new", "--profile", "no-nvidia-gpu"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "Log:" in out or "日志" in out
    for text in (out, err):
        found = RAW.findall(text)
        assert not found, f"raw controls reach the output: {[hex(ord(c)) for c in found[:8]]}"


# ---- smaller ------------------------------------------------------------------------------------------


def test_the_restart_message_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["apply", "--yes", "--new", "--profile", "ubuntu-24.04-rtx4090-fresh"])
    out, _ = capsys.readouterr()
    assert rc == 0
    from wizard.text import t

    restart = t("runner.restart_reboot", command="X").split("X")[0].strip()
    assert restart and out.count(restart) == 1, out


def test_a_profile_saved_with_a_utf8_bom_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(load_demo("no-nvidia-gpu").to_dict()).encode())
    assert main(["recommend", "--profile", str(path)]) == 0
    _, err = capsys.readouterr()
    assert "utf-8-sig" not in err


# Every control class a terminal acts on, and the bidi ones that reorder what it shows.
CONTROLS = [
    "\x1b]52;c;aGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b[2J",
    "\x9b31m",  # C1 CSI
    "\x9d0;title\x9c",  # C1 OSC ... ST
    "\x85",
    "\u202e",
    "\u202d",
    "\u202a",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u2028",
    "\x7f",
    "\x08",
    "\r",
]
FUZZ_COMMANDS = [c for c in COMMANDS if c != ["apply", "--yes"]]  # the real-run path is covered above


def _string_fields(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _string_fields(v, (*path, k))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _string_fields(v, (*path, i))]
    return [path] if isinstance(data, str) and path[-1:] not in (("schema",),) else []


def test_fuzz_hostile_strings_in_any_field_through_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import random

    rng = random.Random(19)
    demos = [
        "debian-12-gtx1060-laptop",
        "wsl2-rtx4060-laptop",
        "no-nvidia-gpu",
        "ubuntu-22.04-2x-a100-server",
    ]
    for n in range(40):
        data = load_demo(rng.choice(demos)).to_dict()
        fields = _string_fields(data)
        for path in rng.sample(fields, min(6, len(fields))):
            target = data
            for key in path[:-1]:
                target = target[key]
            value = target[path[-1]]
            at = rng.randrange(len(value) + 1)
            target[path[-1]] = value[:at] + "".join(rng.sample(CONTROLS, 3)) + value[at:]
        profile = _write(tmp_path, f"fuzz{n}.json", data)
        command = rng.choice(FUZZ_COMMANDS)
        rc = main([*command, "--profile", str(profile)])
        out, err = capsys.readouterr()
        assert rc in (0, 1, 2), (command, err)
        assert "Traceback" not in err, (command, err)
        found = RAW.findall(out + err)
        assert not found, (command, n, [hex(ord(c)) for c in found[:8]])
