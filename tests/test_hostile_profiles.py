"""Hostile or odd profile content through the loader, every command and the app: markup, terminal
escapes, lone surrogates, non-ASCII digits, deep nesting, huge numbers and strings, and a fuzz run.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import settle
from wizard.choose.resolver import recommend
from wizard.cli.main import main
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.profile import MAX_TEXT, MachineProfile, ProfileError

# What must never reach a terminal raw: C0 but newline and tab, DEL, C1.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
OSC52 = "\x1b]52;c;aGVsbG8=\x07"


def _hostile() -> dict[str, Any]:
    data = load_demo("wsl2-linux-driver-inside").to_dict()
    data["python"]["executable"] = "/home/x[/b]/v[old]/bin/python"
    data["gpus"][0]["name"] = f"RTX {OSC52}\x1b[2J\ud800 [bold red]evil[/] " + "N" * 100_000
    data["label"] = "lab[/b]el \x1b[31m\u202e"
    data["notes"].append("note [/x] \x9b31m")
    data["libcuda"].append({"path": "*", "inside_wsl_lib": False})
    data["os"]["version"] = "٣.١٠"
    data["python"]["version"] = "٣.١٠"
    data["driver"]["version"] = "٥٥٠.٥٤"
    data["resources"]["ram_mib"] = 10**5000  # a Python int: a JSON file cannot even hold one that long
    return data


@pytest.fixture
def hostile_file(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.json"
    data = _hostile()
    data["resources"]["ram_mib"] = 16384
    path.write_text(json.dumps(data, ensure_ascii=True))  # \ud800 travels as an escape, as in the wild
    return path


def test_the_loader_cleans_what_it_keeps() -> None:
    p = MachineProfile.from_dict(_hostile())
    assert len(p.gpus[0].name) == MAX_TEXT and "\ud800" not in p.gpus[0].name and "\ufffd" in p.gpus[0].name
    assert p.resources.ram_mib is None  # out of range: the default, not a crash later
    p.to_json().encode("utf-8")  # plan --json, the journal and the script can all write it


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"schema": 1, "gpus": [{"memory_mib": ' + "9" * 5000 + "}]}", "digits"),
        ("[1, 2]", "object"),
        ('{"schema": "1"}', "schema"),
        ("{", "JSON"),
    ],
)
def test_the_loader_refuses_with_one_line(text: str, why: str) -> None:
    with pytest.raises(ProfileError) as err:
        MachineProfile.from_json(text)
    assert "\n" not in str(err.value) and why.lower() in str(err.value).lower()


def test_files_too_big_or_not_utf8_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (5 << 20))
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"label": "caf\xe9"}'.encode("latin-1"))
    for path in (big, latin):
        with pytest.raises(ProfileError) as err:
            MachineProfile.load(path)
        assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_non_ascii_digits_are_not_versions() -> None:
    p = MachineProfile.from_dict(_hostile())
    rec = recommend(p)  # "٣.١٠" passes \d but is no Version: it must not crash the resolver
    assert rec.candidates


@pytest.mark.parametrize(
    "command",
    [
        ["detect"],
        ["recommend"],
        ["recommend", "--all"],
        ["plan"],
        ["plan", "--json"],
        ["plan", "--script"],
        ["apply", "--dry-run"],
        ["doctor"],
        ["monitor", "--count", "1"],
    ],
)
def test_every_command_shows_data_as_text(
    command: list[str], hostile_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.process_time()  # this process's CPU: the tests beside it do not count
    rc = main([*command, "--profile", str(hostile_file)])
    elapsed = time.process_time() - started
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    assert "Traceback" not in err
    for text in (out, err):
        found = RAW_CONTROL.findall(text)
        assert not found, f"raw control characters reach the terminal: {found[:5]}"
    if command == ["detect"]:
        assert "/home/x[/b]/v[old]/bin/python" in out  # markup shown as written, nothing vanished
    if command == ["plan", "--json"]:
        json.loads(out)
    if command[0] == "recommend":
        assert elapsed < 1.0, f"recommend took {elapsed:.1f} s"  # was 161 s in Rich's highlighter


def test_a_100000_character_gpu_name_through_recommend_is_quick(
    hostile_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Timed against the same machine with a plain name, so a loaded CI machine slows both:
    # a name 100,000 characters long must cost about what a short one does (it was 161 s).
    plain = hostile_file.with_name("plain.json")
    data = json.loads(hostile_file.read_text())
    data["gpus"][0]["name"] = "NVIDIA GeForce RTX 3060"
    plain.write_text(json.dumps(data))
    main(["recommend", "--profile", str(hostile_file)])  # imports paid
    capsys.readouterr()

    def timed(path: Path) -> tuple[float, str]:
        started = time.perf_counter()
        main(["recommend", "--all", "--profile", str(path)])
        return time.perf_counter() - started, capsys.readouterr().out

    baseline = min(timed(plain)[0] for _ in range(3))
    elapsed, out = min(timed(hostile_file) for _ in range(3))
    assert elapsed < 2 * baseline + 0.2, (elapsed, baseline)
    assert "\\x1b]52" in out  # the escape is shown, not sent


async def test_the_app_shows_hostile_strings_as_text() -> None:
    from screens.app import WizardApp

    profile = MachineProfile.from_dict(_hostile())
    profile.simulated = True
    app = WizardApp(profile, blink=False, clock=lambda: 1000.0, offer_resume=False, suggest_mirror=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")  # detect
        await settle(pilot)
        seen = screen_text(app)
        assert "/home/x[/b]/v[old]/bin/python" in seen.replace("\n", "")
        await to_plan_from_detect(pilot)
        assert not RAW_CONTROL.search(screen_text(app))  # the plan: titles, commands, the manual step
        await pilot.press("r")  # the run: step list, log, the windows-host panel
        await pilot.pause(0.5)
        seen = screen_text(app)
        assert "get NVIDIA driver" in seen and "\\x1b]52" in seen and not RAW_CONTROL.search(seen)


async def to_plan_from_detect(pilot: Any) -> None:
    await pilot.press("n")
    await settle(pilot)
    await pilot.press("p")
    await settle(pilot)


def test_profile_fuzz_only_ever_gives_a_profile_or_a_profile_error() -> None:
    base = json.dumps(load_demo("wsl2-rtx4060-laptop").to_dict())
    rng = random.Random(6)
    cases, loaded, refused, planned = 2000, 0, 0, 0
    tokens = [
        '"\\ud800"',
        '"\\u001b]52;c;x\\u0007"',
        "1e999",
        "9" * 400,
        "[",
        "{",
        "null",
        '"٣.١٠"',
        '"[/b]"',
    ]
    started = time.perf_counter()
    for n in range(cases):
        text = base
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text))
            kind = rng.random()
            if kind < 0.4:
                text = text[:at] + rng.choice(tokens) + text[at:]
            elif kind < 0.7:
                text = text[:at] + text[at + rng.randint(1, 30) :]
            else:  # replace a value with a token
                m = re.search(r": ([^,{}\[\]]+)", text[at:])
                if m:
                    s = at + m.start(1)
                    text = text[:s] + rng.choice(tokens) + text[at + m.end(1) :]
        try:
            profile = MachineProfile.from_json(text)
        except ProfileError as exc:
            assert "\n" not in str(exc)
            refused += 1
            continue
        loaded += 1
        profile.to_json().encode("utf-8")
        if n % 20 == 0:
            profile.simulated = True
            rec = recommend(profile)
            if rec.recommended is not None:
                build_plan(profile, rec.recommended)
                planned += 1
    elapsed = time.perf_counter() - started
    print(
        f"\nprofile fuzz: {cases} cases, {loaded} loaded, {refused} refused, {planned} planned, {elapsed:.1f} s"
    )
    assert loaded > 100 and refused > 100


async def test_a_detection_error_with_brackets_is_shown_as_text() -> None:
    from screens.app import WizardApp

    def detector(*args: Any, **kwargs: Any) -> MachineProfile:
        raise PermissionError(13, "Permission denied", "/home/x[/b]/[old]")

    app = WizardApp(None, detector=detector, blink=False, offer_resume=False, suggest_mirror=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")  # detect
        await settle(pilot)
        assert "/home/x[/b]/[old]" in screen_text(app).replace("\n", "")
