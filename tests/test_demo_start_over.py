"""A demo machine remembers what its earlier simulated runs finished; Welcome (n) and
`apply --new` start over on a fresh one, and both say so, in English and Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle
from tests.test_app_snapshots_zh import Zh, zh  # noqa: F401  (the zh fixture: screens in Chinese)
from wizard.cli import main
from wizard.demo import load_demo
from wizard.run.journal import demo_memory, journal_for
from wizard.text import t

DEMO = "ubuntu-24.04-rtx4090-fresh"


def flat(text: str) -> str:
    return " ".join(text.split())


def walk_demo(capsys: Any, *extra: str) -> str:
    capsys.readouterr()
    assert main(["--profile", DEMO, "apply", "--yes", *extra]) in (0, 1)
    return capsys.readouterr().out


def finish_demo(capsys: Any) -> str:
    """Walk the demo to its end: the driver step stops the first walk for a (simulated) reboot."""
    first = walk_demo(capsys)
    walk_demo(capsys)
    return first


def test_apply_says_the_demo_remembers_and_new_starts_over(capsys: Any) -> None:
    first = finish_demo(capsys)
    assert "remembers" not in first  # nothing yet
    driver = "sudo apt-get update"
    assert driver in first  # the first walk simulates the driver's commands
    again = walk_demo(capsys)
    done, total = demo_memory(load_demo(DEMO))[1], 5  # type: ignore[index]
    assert done == total
    said = [line for line in again.splitlines() if "--new" in line]
    assert (
        len(said) == 1
        and "remembers its earlier simulated run" in said[0]
        and f"{done} of {total}" in said[0]
    )
    assert driver not in again  # what the first walk did counts as there already
    fresh = walk_demo(capsys, "--new")
    assert t("runner.cli.demo_fresh") in fresh and driver in fresh  # a fresh demo machine: all of it again
    assert "remembers" not in fresh


async def test_welcome_offers_start_over_while_the_demo_remembers(capsys: Any) -> None:
    finish_demo(capsys)
    app = build_app(DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = flat(screen_text(app))
        assert "remembers its earlier simulated run" in seen and "Press n to start over" in seen
        assert f"n {t('app.key.start_over')}" in seen  # the key, in the footer
        await pilot.press("n")
        await settle(pilot)
        seen = flat(screen_text(app))
        assert flat(t("app.welcome.demo_fresh")) in seen and "remembers" not in seen
        assert f"n {t('app.key.start_over')}" not in seen  # nothing left to forget: the key goes
        assert journal_for(True, app.session.profile).load() is None
    # The next walk is a fresh demo machine.
    assert "sudo apt-get update" in walk_demo(capsys)


async def test_a_demo_that_remembers_nothing_shows_no_start_over(capsys: Any) -> None:
    app = build_app(DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = flat(screen_text(app))
        assert "remembers" not in seen and t("app.key.start_over") not in seen


@pytest.mark.usefixtures("zh")
async def test_welcome_start_over_in_chinese(capsys: Any) -> None:
    finish_demo(capsys)
    app = build_app(DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = flat(screen_text(app)).replace(" ", "")
        assert "记得之前的模拟运行" in seen and "按n可在全新的演示机上从头开始" in seen
        assert "n从头开始" in seen
        await pilot.press("n")
        await settle(pilot)
        seen = flat(screen_text(app)).replace(" ", "")
        assert t("app.welcome.demo_fresh").replace(" ", "") in seen


async def test_welcome_under_a_demo_says_detect_reads_the_demo_profile() -> None:
    app = build_app(DEMO)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = flat(screen_text(app))
        assert "the demo profile's machine, not this one" in seen
        assert "read-only look at this machine" not in seen
    app = build_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "read-only look at this machine" in flat(screen_text(app))
