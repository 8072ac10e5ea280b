"""Chinese complete (issue 18, point 7): every catalogue text, every error path we can reach on
the command line (bad arguments, bad profile files) and the Run log's GPU-check lines, in
Chinese, hold no English sentence. Commands, package names, versions, paths, option names and
product names may stay as they are; a run of English words with a function word ("the", "is",
"to"...) may not."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest

from tests.test_runner_helpers import Recorder
from tests.test_text_parity import catalogue
from wizard.choose.resolver import recommend
from wizard.cli.main import main
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.run.runner import Runner
from wizard.text import set_language

FUNCTION_WORDS = set(
    "the a an is are was be to of and or not no for with on in this that it its you your can cannot "
    "will would has have do does from by as at if when than then there here which what how why".split()
)
# Code and data inside a sentence: `code`, "$ command", URLs, paths, --options, pins, {fields}.
CODE = re.compile(
    r"`[^`]*`|\$ [^\n]*|https?://\S+|(?:~|\.{0,2})/[\w./~+-]+|--?[\w-]+|\b[\w.-]+==[\w.]+|\{[^}]*\}|'[^']*'"
    r"|\b\w+(?:[-.]\w+)+\b"  # names with dashes or dots: no-nvidia-gpu, libcudnn.so.8, ubuntu-22.04
)
RUN = re.compile(r"[A-Za-z][A-Za-z']*(?:[ ,]+[A-Za-z][A-Za-z']*){2,}")
# Names of things, quoted as they are called (a manual's title, NVML's and nvidia-smi's own status
# words: the line a person finds in their own output).
ALLOWED = {
    "CUDA Installation Guide for Linux",
    "GPU is lost",
    "GPU access blocked by the operating system",
    "No devices were found",  # nvidia-smi's own line
    "system not yet initialized",  # NVML's own error string
    "required for CUDA and OpenCL applications",  # the Container Toolkit's words for "compute"
    "Function not implemented",  # ENOSYS's strerror, as modprobe prints it
    "Driver Not Loaded",  # NVML's own error string
    "driver version is insufficient",  # cudaErrorInsufficientDriver's own words (35)
}


def english_sentences(text: str) -> list[str]:
    text = CODE.sub(" ", text)
    found = []
    for m in RUN.finditer(text):
        if m.group() in ALLOWED:
            continue
        words = [w.lower() for w in re.split(r"[ ,]+", m.group())]
        if any(w in FUNCTION_WORDS for w in words):
            found.append(m.group())
    return found


def test_the_detector_finds_english_and_lets_code_through() -> None:
    assert english_sentences("错误：the following arguments are required: --tf")
    assert english_sentences("已检查：/x has the tf-gpu-wizard cuda-cache block")
    assert english_sentences("（最高支持 CUDA 12.6；is not known）")
    assert english_sentences("运行 `pip install tensorflow==2.21.0`，然后 --mirror NAME") == []
    assert english_sentences("TensorFlow 2.21.0 在 NVIDIA GeForce RTX 4060 Laptop GPU 上") == []


@pytest.fixture
def zh() -> Any:
    set_language("zh")
    yield
    set_language("en")


def _filled(template: str) -> str:
    names = {n for _, n, _, _ in string.Formatter().parse(template) if n}
    try:
        return template.format(**{n.split(".")[0].split("[")[0]: "⟨值⟩" for n in names})
    except (KeyError, IndexError, ValueError):
        return template


def test_every_chinese_catalogue_text_is_chinese() -> None:
    bad = {}
    for key, template in catalogue("zh").items():
        found = english_sentences(_filled(str(template)))
        if found:
            bad[key] = found
    assert bad == {}


BAD_ARGS = [
    ["--bogus"],
    ["plan", "--tf"],
    ["plan", "--method", "nope"],
    ["monitor", "--count", "x"],
    ["monitor", "--interval", "x"],
    ["recommend", "--json", "--bogus", "--also"],
    ["nosuchcommand"],
]


@pytest.mark.parametrize("argv", BAD_ARGS, ids=lambda a: " ".join(a))
def test_bad_arguments_are_told_in_chinese(
    zh: None, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "错误" in err
    message = err.strip().splitlines()[-1]
    assert english_sentences(message) == [], message


def _bad_profiles(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "folder.json").mkdir()
    files = {
        "empty": "",
        "not-json": "{x",
        "trailing": '{"schema": 1} extra',
        "array": "[1, 2]",
        "schema": json.dumps({"schema": 99}),
        "deep": "[" * 100_000,
    }
    out = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        out[name] = str(path)
    (tmp_path / "latin1.json").write_bytes(b'{"label": "caf\xe9"}')
    out["latin1"] = str(tmp_path / "latin1.json")
    out["folder"] = str(tmp_path / "folder.json")
    out["missing"] = str(tmp_path / "missing.json")
    out["devnull"] = "/dev/null"
    out["no-demo"] = "no-such-demo"
    return out


@pytest.mark.parametrize(
    "case",
    [
        "empty",
        "not-json",
        "trailing",
        "array",
        "schema",
        "deep",
        "latin1",
        "folder",
        "missing",
        "devnull",
        "no-demo",
    ],
)
def test_bad_profile_files_are_told_in_chinese(
    zh: None, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _bad_profiles(tmp_path)[case]
    assert main(["detect", "--profile", ref]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert english_sentences(err) == [], err


def test_the_gpu_check_reads_as_chinese_sentences_in_the_run_log(zh: None) -> None:
    profile = load_demo("wsl2-rtx4060-laptop")
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    verify = plan.step("verify")
    events = Recorder()
    runner = Runner(plan, events, profile=profile)
    for argv in verify.commands:
        runner._execute(verify, argv)  # the simulated output a student reads in the Run log
    check_lines = [line for line in events.lines if "GPU" in line]
    assert check_lines
    for line in events.lines:
        assert '{"' not in line, line  # no raw JSON event
    worded = " ".join(events.lines)
    assert "GPU 检查通过" in worded and "算力" in worded


@pytest.mark.parametrize("name", ["ubuntu-22.04-h100-driver535-server", "debian-12-gtx1060-laptop"])
def test_plan_and_dry_run_in_chinese_hold_no_english_outside_the_profiles_own_words(
    zh: None, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = load_demo(name)
    data_words = set(english_sentences(profile.label)) | {
        s for note in profile.notes for s in english_sentences(str(note))
    }
    for argv in (["plan", "--profile", name], ["apply", "--dry-run", "--profile", name]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        found = [s for s in english_sentences(out) if not any(s in d or d in s for d in data_words)]
        assert found == [], (argv, found)
