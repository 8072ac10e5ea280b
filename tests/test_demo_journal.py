"""A demo machine remembers its simulated runs by the demo's name, in every language.

The journal used to be keyed by the demo's label, which is worded per language: a run in English
and the same demo in Chinese remembered separately. A journal kept under that old key is taken
over. A run in one language carries over to the other, as the demo's memory says it will.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.apps.screen_text import screen_text
from tests.test_app_snapshots_zh import Zh, zh  # noqa: F401  (the zh fixture: screens in Chinese)
from wizard.cli import main
from wizard.demo import load_demo
from wizard.run.journal import demo_memory, journal_for, legacy_keys
from wizard.text import in_language, set_language

DEMO = "ubuntu-22.04-rtx3090-cuda11.8"  # four steps as the user, no restart: a run finishes at once


def apply(capsys: Any, *argv: str) -> str:
    capsys.readouterr()
    assert main(["--profile", DEMO, "apply", *argv]) == 0
    return capsys.readouterr().out


def would(out: str, key: str, lang: str = "en") -> int:
    """How many steps the dry run says this of (`runner.cli.would_run`, `story.status.would_done`)."""
    return out.count(in_language(lang, "runner.cli.would", state=in_language(lang, key)))


@pytest.fixture(autouse=True)
def _english() -> Any:
    yield
    set_language(None)


def test_the_journal_is_the_demos_own_in_every_language() -> None:
    paths = set()
    for lang in ("en", "zh"):
        set_language(lang)
        profile = load_demo(DEMO)
        paths.add(journal_for(True, profile).path)
    assert len(paths) == 1
    assert paths.pop().name == f"run-simulated-demo-{DEMO}.json"
    # Another demo keeps its own.
    assert journal_for(True, load_demo("wsl2-rtx4060-laptop")).path.name == (
        "run-simulated-demo-wsl2-rtx4060-laptop.json"
    )


def test_a_run_in_english_is_remembered_in_chinese(capsys: Any) -> None:
    first = apply(capsys, "--yes")
    assert "[done]" in first
    # The same demo in Chinese: it remembers, and the dry run and the run count those steps as
    # there already (the verify step too: its proof is kept while nothing changed, env_proof.py).
    set_language("zh")
    assert demo_memory(load_demo(DEMO)) is not None
    dry = apply(capsys, "--dry-run", "--lang", "zh")
    assert in_language("zh", "runner.cli.demo_remembers", started="", done=4, total=4)[:8] in dry
    assert would(dry, "story.status.would_satisfied", "zh") == 4
    assert would(dry, "runner.cli.would_run", "zh") == 0
    again = apply(capsys, "--yes", "--lang", "zh")
    satisfied = "[" + in_language("zh", "story.status.satisfied") + "]"
    assert again.count(satisfied) == 4 and "uv venv --allow-existing" not in again  # not made again
    # And back in English, after the Chinese run: still the one memory.
    set_language("en")
    dry = apply(capsys, "--dry-run", "--lang", "en")
    assert "remembers its earlier simulated run" in dry and would(dry, "story.status.would_satisfied") == 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_journal_kept_under_the_old_label_key_is_taken_over(lang: str, capsys: Any) -> None:
    apply(capsys, "--yes")
    profile = load_demo(DEMO)
    new = journal_for(True, profile).path
    # The file as an older wizard named it: by the label in the language the run was made in.
    set_language(lang)
    old_key = legacy_keys(load_demo(DEMO))[0 if lang == "en" else 1]
    set_language(None)
    old = new.with_name(f"run-simulated-{old_key}.json")
    new.rename(old)
    assert not new.exists()
    dry = apply(capsys, "--dry-run")
    assert "remembers its earlier simulated run" in dry and "4 of 4" in dry
    assert new.exists() and not old.exists()


def test_old_keys_are_the_labels_in_each_language() -> None:
    profile = load_demo(DEMO)
    keys = legacy_keys(profile)
    assert keys[0].startswith("ubuntu-22-04-rtx-3090")  # the English label's slug
    assert len(set(keys)) >= 2  # the Chinese label made another name
    assert legacy_keys(load_demo(DEMO)) == keys  # whatever language asks


def test_dry_run_after_a_finished_run_says_what_the_run_then_does(capsys: Any) -> None:
    apply(capsys, "--yes")
    dry = apply(capsys, "--dry-run")
    assert would(dry, "story.status.would_satisfied") == 4 and would(dry, "runner.cli.would_run") == 0
    run = apply(capsys, "--yes")
    assert run.count("[already satisfied]") == 4 and run.count("[done]") == 0


async def test_the_app_in_chinese_remembers_a_run_made_in_english(zh: Zh, capsys: Any) -> None:  # noqa: F811
    apply(capsys, "--yes", "--lang", "en")
    set_language(None)  # the app speaks the fixture's Chinese
    app = zh.wizard.build_app(DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await zh.wizard.settle(pilot)
        seen = "".join(screen_text(app).split())
        assert "这台演示机记得之前的模拟运行" in seen and "4步中有4步算作已完成" in seen
