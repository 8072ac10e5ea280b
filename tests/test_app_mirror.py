"""The Plan screen's package source: the catalogue's mirrors in a list, the plan rebuilt on the
chosen one (every install by the wizard's uv gets it as uv's --default-index), --mirror passed to the app, and the suggestion
shown to a zh_CN user. The catalogue is the test's own (TF_GPU_WIZARD_HOME)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Select

from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle, to_plan
from wizard.mirror.catalogue import add_mirror

INDEX = "http://127.0.0.1:8999/simple"


def _installs(plan: Any) -> list[tuple[str, ...]]:
    """The plan's installs: the wizard's own uv (`uv pip install`), as every non-Windows plan has."""
    return [
        c for s in plan.steps for c in s.commands if c[0].endswith("/uv") and c[1:3] == ("pip", "install")
    ]


async def test_choosing_a_mirror_rebuilds_the_plan_on_its_index() -> None:
    add_mirror("lab", INDEX, None)
    app = build_app("wsl2-rtx4060-laptop")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_plan(pilot)
        select = app.screen.query_one("#plan-mirror", Select)
        assert [value for _, value in select._options] == ["default", "lab"]
        before = app.session.plan
        assert all("--default-index" not in c for c in _installs(before))
        select.value = "lab"
        await settle(pilot)
        plan = app.session.plan
        assert plan is not before and app.session.mirror == "lab"
        assert _installs(plan) and all(c[3:5] == ("--default-index", INDEX) for c in _installs(plan))
        assert "lab" in screen_text(app)
        select.value = "default"
        await settle(pilot)
        assert all("--default-index" not in c for c in _installs(app.session.plan))


async def test_mirror_given_to_the_app_is_used_and_preselected() -> None:
    add_mirror("lab", INDEX, None)
    app = build_app("wsl2-rtx4060-laptop", mirror="lab")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_plan(pilot)
        assert app.screen.query_one("#plan-mirror", Select).value == "lab"
        assert all(c[3:5] == ("--default-index", INDEX) for c in _installs(app.session.plan))


@pytest.mark.parametrize(("locale", "suggested"), [("zh_CN.UTF-8", True), ("en_US.UTF-8", False)])
async def test_a_zh_cn_user_is_told_about_the_mirror(
    monkeypatch: pytest.MonkeyPatch, locale: str, suggested: bool
) -> None:
    monkeypatch.setenv("LANG", locale)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    add_mirror("lab", INDEX, None)
    app = build_app("wsl2-rtx4060-laptop", suggest_mirror=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_plan(pilot)
        await settle(pilot)
        shown = [str(n.message) for n in app._notifications]
        assert any("--mirror lab" in m for m in shown) == suggested


async def test_no_mirror_tip_on_a_native_windows_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its steps set up WSL2; pip runs later, inside Ubuntu, where the wizard asks again.
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    add_mirror("lab", INDEX, None)
    app = build_app("windows11-rtx3070", suggest_mirror=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_plan(pilot)
        await settle(pilot)
        assert not [n for n in app._notifications if "--mirror" in str(n.message)]


async def test_the_zh_suggestion_is_short_at_80x24_and_stays_on_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36, point 14: with no catalogue the zh suggestion was a paragraph that covered half the
    Plan screen at 80x24 and followed onto Run. Now: one sentence and where the rest is; gone on Run."""
    from rich.cells import cell_len

    from screens.plan_screen import SHORT_ADVICE
    from screens.run_screen import RunScreen
    from wizard.text import set_language, t

    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    set_language("zh")
    try:
        app = build_app("wsl2-rtx4060-laptop", suggest_mirror=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await to_plan(pilot)
            await settle(pilot)
            shown = [str(n.message) for n in app._notifications]
            assert shown and all(
                cell_len(m) <= SHORT_ADVICE + cell_len(t("keys.mirror.more")) + 1 for m in shown
            )
            assert any(t("keys.mirror.more") in m for m in shown)
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, RunScreen)
            assert not list(app._notifications)
            await pilot.press("ctrl+q")
    finally:
        set_language("en")
