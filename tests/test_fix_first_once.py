"""Detect's "Fix first" finding names the machine's state once: its title says the state, its
sentence only the driver floor the state stands in the way of (en and zh, the app and the CLI)."""

from __future__ import annotations

import pytest

from screens.detect_screen import DetectScreen
from tests.apps import both_languages
from tests.apps.both_languages import flat as _flat
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, to_detect
from wizard.choose.resolver import recommend
from wizard.cli import main
from wizard.demo import load_demo
from wizard.text import t

lang = both_languages.lang  # the fixture, run in English and in Chinese

STOPPED = ["ubuntu-22.04-rtx3060-secure-boot", "ubuntu-22.04-rtx3060-mismatch-after-update"]


def _state_title(name: str) -> str:
    rec = recommend(load_demo(name))
    assert rec.recommended is not None and rec.recommended.driver is not None
    fix = rec.recommended.driver.fix
    assert fix is not None  # a stopped machine: the plan's first step fixes its state
    return fix.title


def _fix_first_block(text: str) -> str:
    """From the "Fix first" heading to the next blank line, joined (wrapped lines as one)."""
    head = t("recommend.need_step_state", title="").strip(" :：")
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if head in line)
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return _flat("".join(lines[start:end]))


@pytest.mark.parametrize("name", STOPPED)
async def test_detect_screen_says_the_state_once_under_fix_first(name: str, lang: str) -> None:
    app = build_app(name)
    async with app.run_test(size=(80, 50)) as pilot:  # one column, the findings whole
        await to_detect(pilot)
        assert isinstance(app.screen, DetectScreen)
        block = _fix_first_block(screen_text(app))
        assert block.count(_flat(_state_title(name))) == 1, block


@pytest.mark.parametrize("name", STOPPED)
def test_detect_cli_says_the_state_once_under_fix_first(
    name: str, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--lang", lang, "detect", "--profile", name]) == 0
    captured = capsys.readouterr()
    block = _fix_first_block(captured.out + captured.err)
    assert block.count(_flat(_state_title(name))) == 1, block


@pytest.mark.parametrize("name", STOPPED)
def test_the_plans_fix_step_names_the_state_in_its_title_only(name: str, lang: str) -> None:
    from wizard.plan.build import build_plan

    profile = load_demo(name)
    rec = recommend(profile)
    assert rec.recommended is not None
    step = build_plan(profile, rec.recommended).steps[0]
    title = _state_title(name)
    assert title in step.title and title not in step.why
    assert rec.recommended.driver is not None and rec.recommended.driver.fix is not None
    assert rec.recommended.driver.fix.fix in step.why  # the fix is the why
