"""SVG snapshots of every screen in Chinese, at 80x24 and 120x40.

The same walks as tests/test_app_snapshots.py and the monitor snapshots, with the language
set to zh. Key bindings and the title take their labels when their module is imported, so
the fixture imports the screens afresh with TF_GPU_WIZARD_LANG=zh (as the CLI does after
reading --lang), and puts the English modules back afterwards for the other tests.
Update only these with `pytest tests/test_app_snapshots_zh.py --snapshot-update`.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from textual.pilot import Pilot

from wizard.text import LANG_ENV, language

# Paths under the wizard's home are the same on every checkout (see conftest.fixed_snapshot_home).
pytestmark = pytest.mark.usefixtures("fixed_snapshot_home")


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
# Relative: in each test's own folder (conftest.fixed_snapshot_home makes it the working folder),
# so two runs at once never share a log, and every snapshot names it the same way.
LOG = Path("apply.log")
FRESH = ("screens", "tests.apps")


def _ours(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in FRESH)


class Zh:
    """The test apps and walks, imported with the language set to zh."""

    def __init__(self) -> None:
        self.wizard: ModuleType = importlib.import_module("tests.apps.wizard_app")
        self.monitor: ModuleType = importlib.import_module("tests.apps.monitor_app")
        self.flaky: ModuleType = importlib.import_module("tests.apps.flaky_runner")

    def app(self, profile: str | None, **kwargs: Any) -> Any:
        kwargs.setdefault("runner_options", {"log_path": LOG})
        return self.wizard.build_app(profile, **kwargs)


@pytest.fixture
def zh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Zh]:
    monkeypatch.chdir(tmp_path)  # the run's log (LOG, relative) in the test's own folder, never the checkout
    monkeypatch.setenv(LANG_ENV, "zh")
    monkeypatch.setenv("HOME", "/home/student")
    monkeypatch.setenv("USER", "student")
    monkeypatch.setenv("LOGNAME", "student")
    assert language() == "zh"
    saved = {name: mod for name, mod in sys.modules.items() if _ours(name)}
    for name in saved:
        del sys.modules[name]
    try:
        yield Zh()
    finally:
        for name in [n for n in sys.modules if _ours(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
        tests_pkg = sys.modules.get("tests")
        if tests_pkg is not None and "tests.apps" in saved:
            tests_pkg.apps = saved["tests.apps"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES)
def test_welcome(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(zh.app(None), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_welcome_simulated(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(zh.app("wsl2-rtx4060-laptop"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_help(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(zh.app("wsl2-rtx4060-laptop"), terminal_size=size, press=["question_mark"])


@pytest.mark.parametrize("size", SIZES)
def test_demo_picker(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(zh.app(None), terminal_size=size, press=["d"])


@pytest.mark.parametrize("size", SIZES)
def test_detect(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("wsl2-rtx4060-laptop")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_detect)


@pytest.mark.parametrize("size", SIZES)
def test_detect_problems(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("wsl2-linux-driver-inside")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_detect)


@pytest.mark.parametrize("size", SIZES)
def test_choose(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_choose)


@pytest.mark.parametrize("size", SIZES)
def test_plan(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("wsl2-rtx4060-laptop")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_plan)


@pytest.mark.parametrize("size", SIZES)
def test_run_windows_host_step(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("wsl2-rtx4060-laptop")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_windows_step)


@pytest.mark.parametrize("size", SIZES)
def test_run_password(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("ubuntu-24.04-rtx4090-fresh")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_password)


@pytest.mark.parametrize("size", SIZES)
def test_run_finished(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("ubuntu-20.04-gtx1080-driver470")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_finished)


@pytest.mark.parametrize("size", SIZES)
def test_run_restart_notice(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("ubuntu-24.04-rtx4090-fresh")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_restart)


def _failing(zh: Zh) -> Any:
    factory = functools.partial(zh.flaky.FlakyRunner, fail_once=["tensorflow"])
    return zh.app("ubuntu-22.04-rtx3090-cuda11.8", runner_factory=factory)


# The notice's hints keep the demo's --profile whatever thread words them (profile_hint.profile_for):
# it once lost it while the Plan screen rendered the script, one line shorter, with or without its scrollbar.
@pytest.mark.parametrize("size", SIZES)
def test_run_failed(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_failing(zh), terminal_size=size, run_before=zh.wizard.to_failed)


@pytest.mark.parametrize("size", SIZES)
def test_doctor(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    async def to_doctor(pilot: Pilot[Any]) -> None:
        await zh.wizard.to_failed(pilot)
        await pilot.press("d")

    assert snap_compare(_failing(zh), terminal_size=size, run_before=to_doctor)


@pytest.mark.parametrize("size", SIZES)
def test_confirm_quit(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    async def to_quit(pilot: Pilot[Any]) -> None:
        await zh.wizard.to_windows_step(pilot)
        await pilot.press("ctrl+q")

    assert snap_compare(zh.app("wsl2-rtx4060-laptop"), terminal_size=size, run_before=to_quit)


@pytest.mark.parametrize("size", SIZES)
def test_resume(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    from wizard.choose.resolver import recommend
    from wizard.demo import load_demo
    from wizard.plan.build import build_plan
    from wizard.run.runner import Runner, RunnerEvents

    class Answers(RunnerEvents):
        def needs_password(self, step: Any, attempt: int) -> str | None:
            return "secret"

    profile = load_demo("ubuntu-24.04-rtx4090-fresh")
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended)
    run = Runner(plan, Answers(), simulate=True, confirm_root=False, log_path=LOG).run()
    assert run.outcome == "restart"
    app = zh.app("ubuntu-24.04-rtx4090-fresh", offer_resume=True)
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_monitor_gpus_and_benchmark(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(zh.monitor.build(), terminal_size=size, run_before=zh.monitor.settle)


@pytest.mark.parametrize("size", SIZES)
def test_monitor_simulated_wsl2(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.monitor.build(profile="wsl2-rtx4060-laptop", bench=False)
    assert snap_compare(app, terminal_size=size, run_before=zh.monitor.settle)


def test_the_screens_really_speak_chinese(zh: Zh) -> None:
    # The fixture's point: labels fixed at import time are Chinese too, and English comes back after.
    from textual.binding import Binding

    from screens.app import WizardApp
    from wizard.text import t

    assert WizardApp.TITLE == t("app.title")
    quit_label = next(b for b in WizardApp.BINDINGS if isinstance(b, Binding) and b.action == "quit")
    assert quit_label.description == t("app.key.quit") != "Quit"


def test_english_screens_are_back_afterwards() -> None:
    from screens.app import WizardApp

    assert language() == "en"
    quit_binding = next(b for b in WizardApp.BINDINGS if getattr(b, "action", "") == "quit")
    assert quit_binding.description == "Quit"  # type: ignore[union-attr]


@pytest.mark.parametrize("size", SIZES)
def test_doctor_answer(zh: Zh, snap_compare: Any, size: tuple[int, int]) -> None:
    app = zh.app("ubuntu-22.04-rtx3060-mismatch-after-update")
    assert snap_compare(app, terminal_size=size, run_before=zh.wizard.to_doctor_answer)
