"""Which language the wizard speaks: the locale (POSIX order), TF_GPU_WIZARD_LANG, then --lang;
and what a Chinese reader sees from every command. Commands, package names and versions
stay as they are in either language.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from wizard.text import LANG_ENV, language_from, locale_name, parse_language
from wizard.tomlcompat import tomllib

CLI = [sys.executable, "-m", "wizard"]
DEMO = "wsl2-rtx4060-laptop"
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE", LANG_ENV)


def zh(key: str) -> str:
    """A zh catalogue value, read from the file (area.key or area.table.key)."""
    from pathlib import Path

    area, *rest = key.split(".")
    data = tomllib.loads(
        (Path(__file__).parent.parent / "assets/text/zh" / f"{area}.toml").read_text("utf-8")
    )
    for part in rest:
        data = data[part]
    assert isinstance(data, str)
    return data


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in LOCALE_VARS}
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=120, check=False, env={**base, **env}
    )


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL decides when set
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": ""}, "zh"),  # set but empty does not count
        ({"LANG": "zh_CN.UTF-8", LANG_ENV: "en"}, "en"),
        ({"LANG": "C.UTF-8", LANG_ENV: "zh"}, "zh"),
        (
            {"LANG": "zh_CN.UTF-8", LANG_ENV: "klingon"},
            "zh",
        ),  # a bad override falls back (the CLI refuses it)
    ],
)
def test_language_follows_the_locale_and_the_override(env: dict[str, str], expected: str) -> None:
    assert language_from(env) == expected


def test_locale_names() -> None:
    assert locale_name({"LC_ALL": "", "LC_MESSAGES": "zh_CN.GB18030", "LANG": "en_US"}) == "zh_CN.GB18030"
    assert [parse_language(v) for v in ("zh", "ZH-cn", "zh_CN.UTF-8@pinyin", "en_GB", "C", "fr")] == [
        "zh",
        "zh",
        "zh",
        "en",
        None,
        None,
    ]


def test_zh_locale_speaks_chinese_and_lang_overrides_it_before_or_after_the_command() -> None:
    heading = zh("recommend.title_simulated")
    assert heading in run("recommend", "--profile", DEMO, LANG="zh_CN.UTF-8").stdout
    assert heading in run("--lang", "zh", "recommend", "--profile", DEMO, LANG="en_US.UTF-8").stdout
    assert heading in run("recommend", "--profile", DEMO, "--lang=zh").stdout
    english = run("recommend", "--profile", DEMO, "--lang", "en", LANG="zh_CN.UTF-8").stdout
    assert heading not in english and "TensorFlow setups for this machine" in english
    assert zh("recommend.title_simulated") in run("recommend", "--profile", DEMO, **{LANG_ENV: "zh"}).stdout


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--lang", "fr", "plan"], {}), (["plan", "--lang"], {}), (["plan"], {LANG_ENV: "klingon"})],
)
def test_a_bad_language_is_one_line_and_exit_2(args: list[str], env: dict[str, str]) -> None:
    result = run(*args, "--profile", DEMO, **env)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def _command_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith(("$ ", "PS> "))]


def test_plan_in_chinese_keeps_commands_packages_and_versions() -> None:
    en = run("plan", "--profile", DEMO, "--lang", "en").stdout
    cn = run("plan", "--profile", DEMO, "--lang", "zh").stdout
    assert zh("plan.view.where_user") in cn
    assert not any(line.strip().startswith("why: ") for line in cn.splitlines())
    assert _command_lines(cn) == _command_lines(en) and len(_command_lines(en)) >= 5
    assert "tensorflow 2.21.0" in cn and "--require-hashes" in cn
    # Step titles keep their package names and versions.
    assert re.findall(r"\d+\.\d+(?:\.\d+)?", cn.split("\n", 1)[0]) == re.findall(
        r"\d+\.\d+(?:\.\d+)?", en.split("\n", 1)[0]
    )


def test_every_command_prints_chinese_without_the_english_it_used_to_hard_code() -> None:
    outputs = {
        "detect": run("detect", "--profile", DEMO, "--lang", "zh", COLUMNS="200").stdout,
        "recommend": run("recommend", "--profile", DEMO, "--lang", "zh").stdout,
        "plan": run("plan", "--profile", DEMO, "--lang", "zh").stdout,
        "apply": run("apply", "--dry-run", "--new", "--profile", DEMO, "--lang", "zh").stdout,
        "monitor": run("monitor", "--count", "1", "--profile", DEMO, "--lang", "zh", COLUMNS="200").stdout,
        "bench": run("bench", "--profile", DEMO, "--lang", "zh", COLUMNS="200").stdout,
        "doctor": run(
            "doctor", "--profile", "wsl2-linux-driver-inside", "--lang", "zh", COLUMNS="200"
        ).stdout,
    }
    for name, out in outputs.items():
        assert re.search(r"[\u4e00-\u9fff]", out), f"{name} printed no Chinese"
    assert "pip：" in outputs["detect"] and "pip: " not in outputs["detect"]
    assert " cores" not in outputs["monitor"] and "个核心" in outputs["monitor"]
    assert "Fix:" not in outputs["doctor"] and zh("doctor.fix") in outputs["doctor"]
    assert zh("runner.cli.would_run") in outputs["apply"]
    assert zh("bench.about.matmul") in outputs["bench"]
    helptext = run("--lang", "zh", "mirror", "add", "--help").stdout
    assert helptext.startswith(zh("cli.usage")) and zh("cli.help_help") in helptext
    assert zh("mirror.cli.pypi_help") in helptext and "show this help" not in helptext


def test_exported_script_comments_in_chinese_and_shellcheck_clean(tmp_path: object) -> None:
    from pathlib import Path

    script = run("plan", "--profile", DEMO, "--script", "--lang", "zh").stdout
    comments = [line for line in script.splitlines() if line.startswith("# ") and "shellcheck" not in line]
    assert comments and all(re.search(r"[\u4e00-\u9fff]", c) for c in comments[:3])
    path = Path(str(tmp_path)) / "install.sh"
    path.write_text(script, encoding="utf-8")
    shellcheck = Path(sys.executable).with_name("shellcheck")
    checked = subprocess.run([str(shellcheck), str(path)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout


def test_lang_inside_the_students_doctor_run_command_is_theirs() -> None:
    # `doctor --run CMD...`: a --lang after --run belongs to the student's command, not to us.
    out = run(
        "doctor",
        "--profile",
        DEMO,
        "--run",
        sys.executable,
        "-c",
        "import sys; print(sys.argv)",
        "--lang",
        "fr",
    )
    assert "'--lang', 'fr'" in out.stdout, out.stderr
    assert "language" not in out.stderr.lower()


def test_lang_after_a_sub_action_works() -> None:
    out = run("mirror", "list", "--lang", "zh")
    assert out.returncode == 0, out.stderr
    assert zh("mirror.cli.empty").split("`")[0][:6] in out.stdout
