"""Chinese, round 2 (issue 18): the paths the trial still found in English. OS errors on every
command path, probe notes, the Detect Python line, the Blackwell citations, and a sweep of every
subcommand in Chinese over demo profiles. The detector is test_story_zh's."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from tests.test_story_zh import english_sentences
from wizard.cli.main import main
from wizard.text import set_language

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language("en")


def test_no_module_shows_python_s_own_os_error_words() -> None:
    """`exc.strerror` is the C library's English; only error_words may read it (it words it)."""
    offenders = []
    for path in [*ROOT.joinpath("wizard").rglob("*.py"), *ROOT.joinpath("screens").rglob("*.py")]:
        if path.name == "error_words.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "strerror":
                # `if exc.strerror:` as a test is fine; using it as text is not.
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    allowed = {"wizard/safe/atomic.py"}  # tests it is set, then words it through os_error
    assert [o for o in offenders if o.split(":")[0] not in allowed] == []


@pytest.mark.parametrize(
    "argv",
    [
        ["doctor", "--log", "/nonexist.log"],
        ["detect", "--profile", "wsl2-rtx4060-laptop", "--save", "/nonexist/dir/p.json"],
        ["fleet", "export", "-i", "/nonexist/inventory.ini", "-o", "/nonexist/out"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_os_errors_on_the_command_line_are_chinese(
    zh: None, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)
    assert code != 0
    err = capsys.readouterr().err.strip()
    assert err and "Traceback" not in err
    assert "No such file" not in err and english_sentences(err) == [], err


@pytest.mark.parametrize("name", ["wsl2-rtx4060-laptop", "ubuntu-22.04-2x-a100-server"])
def test_detect_s_python_line_names_the_python_s_kind_in_chinese(zh: None, name: str) -> None:
    from wizard.demo import load_demo
    from wizard.profile_view import part_rows

    profile = load_demo(name)
    (_, value), _ = part_rows("python", profile)
    kind = value.split(" · ")[1]
    assert kind in {"系统 Python", "虚拟环境（venv）", "conda 环境"} or kind.startswith("conda 环境"), value


def _demo_names() -> list[str]:
    return sorted(p.stem for p in ROOT.joinpath("assets", "profiles").glob("*.json"))


@pytest.mark.parametrize("name", _demo_names())
def test_detect_s_probe_notes_are_chinese_on_every_demo(
    zh: None, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from wizard.demo import load_demo

    assert main(["detect", "--profile", name]) == 0
    out = capsys.readouterr().out
    notes = out.split("检测备注：", 1)[1] if "检测备注：" in out else ""
    label = load_demo(name).label or ""
    found = [s for s in english_sentences(" ".join(notes.split())) if s not in label]
    assert found == [], found


def test_a_note_probed_in_english_reads_chinese_when_the_profile_is_read_in_chinese() -> None:
    from wizard.probe.os_platform import wsl1_fix
    from wizard.profile import MachineProfile

    profile = MachineProfile(notes=[wsl1_fix("Ubuntu-22.04"), wsl1_fix("")])
    saved = profile.to_json()  # written by an English session
    assert "this is WSL1" in saved
    set_language("zh")
    try:
        again = MachineProfile.from_json(saved)
        assert str(again.notes[0]).startswith("这是 WSL1")
        assert "wsl --set-version Ubuntu-22.04 2" in str(again.notes[0])
        assert "wsl -l -v" in str(again.notes[1]) and english_sentences(str(again.notes[1])) == []
    finally:
        set_language("en")


def test_a_note_with_an_unknown_code_is_not_trusted_as_a_key() -> None:
    from wizard.profile import MachineProfile

    p = MachineProfile.from_dict(
        {
            "schema": 1,
            "notes": [{"code": "detect.no_problems", "text": "x"}, {"code": "probe.nope"}, 3, "free"],
        }
    )
    assert [str(n) for n in p.notes] == ["x", "free"]


@pytest.mark.parametrize("command", ["recommend", "detect", "doctor"])
def test_the_blackwell_citations_read_chinese_with_the_issue_as_the_citation(
    zh: None, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # detect and recommend lead with one line; the sources are one flag away (issue 36, point 18)
    explain = ["--explain"] if command in ("detect", "recommend") else []
    main([command, "--profile", "ubuntu-24.04-rtx5090", *explain])
    out = " ".join(capsys.readouterr().out.split())
    for issue in ("#99592", "#101746", "#97387", "#90291"):
        assert f"tensorflow/tensorflow{issue}（TF" in out.replace(" ", ""), issue
    assert "WSL2 上的 RTX 5070 Ti" in out
    assert english_sentences(out) == [], english_sentences(out)


def test_each_citation_is_worded_from_its_facts_in_english_too() -> None:
    from wizard.choose.driver_view import citation_text
    from wizard.choose.knowledge import load_knowledge

    blackwell = next(a for a in load_knowledge().architectures if a.name == "Blackwell")
    texts = [citation_text(r) for r in blackwell.reports]
    assert texts[1] == (
        "tensorflow/tensorflow#101746 (TF 2.20.0 and 2.16.2, RTX 5080 Laptop: CUDA_ERROR_INVALID_PTX in kernel_gen)"
    )
    assert texts[3] == "tensorflow/tensorflow#90291 (TF 2.18, RTX 5070 Ti on WSL2: CUDA_ERROR_INVALID_HANDLE)"


SWEEP_PROFILES = [
    "wsl2-rtx4060-laptop",
    "wsl1-ubuntu-22.04",
    "windows11-rtx3070",
    "ubuntu-24.04-rtx5090",
    "ubuntu-20.04-gtx1080-driver470",
    "no-nvidia-gpu",
    "ubuntu-22.04-rtx3060-driver-not-loaded",
    "ubuntu-22.04-rtx3090-cuda11.8",
]
HELP = [
    ["--help"],
    *([c, "--help"] for c in ("detect", "recommend", "plan", "apply", "monitor", "bench", "doctor")),
]
HELP += [
    ["fleet", "--help"],
    ["fleet", "export", "--help"],
    ["fleet", "report", "--help"],
    ["mirror", "--help"],
]
PER_PROFILE = [
    ["detect"],
    ["recommend"],
    ["plan"],
    ["apply", "--dry-run"],
    ["doctor"],
    ["monitor", "--count", "2"],
]


def _said(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    try:
        main(argv)
    except SystemExit:
        pass  # --help
    captured = capsys.readouterr()
    return captured.out + "\n" + captured.err


@pytest.mark.parametrize("argv", HELP, ids=lambda a: " ".join(a))
def test_every_help_page_is_chinese(zh: None, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    out = _said(argv, capsys)
    assert "用法" in out
    assert [s for line in out.splitlines() for s in english_sentences(line)] == []


@pytest.mark.parametrize("name", SWEEP_PROFILES)
def test_every_command_on_demo_machines_is_chinese(
    zh: None, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Data (GPU names, versions, paths, commands) may stay as it is; a sentence may not."""
    bad = {}
    for argv in PER_PROFILE:
        argv = [*argv, "--profile", name]
        if argv[0] == "monitor":
            argv += ["--interval", "0.01"]
        out = _said(argv, capsys)
        found = [s for line in out.splitlines() for s in english_sentences(" ".join(line.split()))]
        if found:
            bad[" ".join(argv[:2])] = found
    assert bad == {}


def test_each_demo_label_in_english_is_the_file_s_own() -> None:
    import json

    from tests.test_text_parity import catalogue

    labels = {k.split(".", 2)[2]: v for k, v in catalogue("en").items() if k.startswith("demo.label.")}
    for path in ROOT.joinpath("assets", "profiles").glob("*.json"):
        assert labels.get(path.stem) == json.loads(path.read_text(encoding="utf-8"))["label"], path.stem
