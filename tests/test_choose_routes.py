"""Choose on an RTX 50 (issue 33): the ranked routes are listed with their trade-offs, the cited
ones said so; scroll keys never pick one; `o` picks the next route and the summary names it; `p`
then shows a cited route's commands whole, or plans a route the wizard installs (Run's `o` too)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from screens.choose_screen import ChooseScreen
from screens.plan_screen import PlanScreen
from screens.widgets.candidate_table import CandidateTable
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, settle, to_choose
from wizard.text import set_language

RTX50 = "ubuntu-24.04-rtx5090"


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(tmp_path))


def _choose(app: Any) -> ChooseScreen:
    assert isinstance(app.screen, ChooseScreen)
    return app.screen


def _detail_text(app: Any) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.screen.query_one("#choose-detail").content)
    return " ".join(console.export_text().split())


async def test_the_routes_are_listed_scroll_keys_pick_none_and_o_picks_conda_forge() -> None:
    app = build_app(RTX50)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        screen = _choose(app)
        assert [r.id for r in screen._routes] == ["pip-and-cuda", "conda-cuda128", "ngc-container", "cpu"]
        detail = _detail_text(app)
        assert "Routes for this GPU, best first (o picks one):" in detail
        assert "2. conda-forge TensorFlow 2.19.1, CUDA 12.8 build:" in detail
        assert "(cited from public reports, not run by the wizard)" in detail
        assert "4. CPU only" in detail and "always works, no GPU" in detail
        assert "o route" in screen_text(app)  # the footer shows the key
        chosen = screen.query_one(CandidateTable).highlighted()
        for key in ("pagedown", "end", "pageup", "home", "ctrl+end", "ctrl+home", "pagedown"):
            await pilot.press(key)
            await pilot.pause()
            assert screen._route is None, key
            assert screen.query_one(CandidateTable).highlighted() is chosen, key
        await pilot.press("o")
        await pilot.pause()
        assert screen._route is not None and screen._route.id == "conda-cuda128"
        assert "Route 2 picked: conda-forge TensorFlow 2.19.1" in " ".join(screen_text(app).split())
        detail = _detail_text(app)
        assert "The route picked, whole:" in detail
        assert "conda create -y -n" in detail and "conda run -n" in detail
        for key in ("pagedown", "end", "home"):  # reading the route never changes it
            await pilot.press(key)
            await pilot.pause()
            assert screen._route.id == "conda-cuda128", key
        await pilot.press("p")  # a cited route: the wizard does not install it; its commands, whole
        await settle(pilot)
        assert app.screen is screen and screen.maximized is not None
        # the detail on the whole screen (under the SIMULATED banner, which stays): its commands whole
        assert "conda create -y -n" in _detail_text(app)
        assert "SIMULATED" in screen_text(app)
        assert app.session.candidate is None or app.session.candidate.set.method != "conda-cuda128"


async def test_o_walks_to_the_cpu_route_and_p_plans_it_as_runs_o_does() -> None:
    app = build_app(RTX50)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        for _ in range(3):
            await pilot.press("o")
            await pilot.pause()
        screen = _choose(app)
        assert screen._route.id == "cpu"
        assert "Route 4 picked: CPU only" in " ".join(screen_text(app).split())
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PlanScreen)
        assert app.session.candidate is not None and app.session.candidate.set.method == "cpu"


async def test_after_the_last_route_o_gives_the_choice_back_to_the_row_and_arrows_drop_the_route() -> None:
    app = build_app(RTX50)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        screen = _choose(app)
        for _ in range(4):
            await pilot.press("o")
            await pilot.pause()
        assert screen._route is None  # past the CPU route: the table's row again
        await pilot.press("o")
        await pilot.pause()
        assert getattr(screen._route, "id", None) == "conda-cuda128"
        await pilot.press("down")  # the student chose a row: it is the choice again
        await pilot.pause()
        assert screen._route is None
        assert "picked" not in screen_text(app)


async def test_the_routes_in_chinese() -> None:
    set_language("zh")
    try:
        app = build_app(RTX50)
        async with app.run_test(size=(80, 24)) as pilot:
            await to_choose(pilot)
            assert "这块显卡可走的路线" in _detail_text(app)
            await pilot.press("o")
            await pilot.pause()
            assert "已选路线2" in "".join(screen_text(app).split())
    finally:
        set_language("en")


async def test_no_routes_and_no_key_where_the_wheels_serve_the_gpu_whole() -> None:
    app = build_app("wsl2-rtx3080-laptop-driver527")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_choose(pilot)
        assert _choose(app)._routes == []
        assert _choose(app).check_action("route", ()) is False
        assert "Routes for this GPU" not in _detail_text(app)
