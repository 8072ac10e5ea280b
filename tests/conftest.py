"""Shared test setup: the wizard's state goes to a temp dir; hypothesis has no deadline
(the CI machine has 2 cores and runs real installs beside the property tests)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from wizard.text import LANG_ENV, set_language

# Tests read English whatever the developer's locale; set before any screen module is
# imported, since key bindings take their labels at import. The zh tests ask for zh.
os.environ[LANG_ENV] = "en"
# Plans built while tests are collected (parametrize) write the plan's programs into the wizard's
# data folder: a throwaway one, never the real ~/.local/share. Each test then gets its own home.
os.environ.setdefault("TF_GPU_WIZARD_HOME", tempfile.mkdtemp(prefix="tf-gpu-wizard-collect-"))

settings.register_profile("ci", deadline=None, max_examples=100)
settings.load_profile("ci")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per core (at most 8). Most of a Pilot test's time is spent waiting for
    the app (pauses, paced simulated runs), so a second worker per core fills that time."""
    return min(8, 2 * (os.cpu_count() or 1))


def pytest_configure(config: pytest.Config) -> None:
    """With -n, hand out one test at a time: xdist's default first gives each worker a block of
    consecutive tests, so the slow ones (sorted first, below) would all land on one worker."""
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests (real installs, the fleet's hosts, the walks) first: with `-n auto` they then
    run beside the many quick ones instead of alone at the end. Otherwise the order is kept."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed snapshot test prints what differs (the screen's text, else its styles) in the
    failure's report: the CI log is all a failure on the CI machine leaves behind."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call" and report.failed and "snap_compare" in getattr(item, "fixturenames", ()):
        from pytest_textual_snapshot import node_to_report_path

        from tests.snapshot_diff import report_difference

        if difference := report_difference(node_to_report_path(item)):
            report.sections.append(("snapshot difference", difference))


@pytest.fixture(autouse=True)
def _wizard_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Never touch the real ~/.local/state: every test gets its own wizard home."""
    home = tmp_path_factory.mktemp("wizard-home")
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(home))
    # Screens name the command that starts the wizard again; keep it the same on every checkout.
    monkeypatch.setenv("TF_GPU_WIZARD_START_COMMAND", "~/.local/bin/tf-gpu-wizard")
    # CLI output wraps at the terminal's width: every test sees 100 columns unless it asks for
    # another, whatever terminal (or none) the test run happens to have.
    monkeypatch.setenv("COLUMNS", "100")
    yield home
    set_language(None)  # a test that ran `main(["--lang", ...])` leaves the next one alone
    from wizard.safe.profile_hint import set_session_profile

    set_session_profile(None)  # nor one that ran `main(["--profile", ...])` (hints keep it)


@pytest.fixture
def fixed_snapshot_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The programs a snapshot test's plan writes, in the test's own folder: a demo plan names them
    under the demo user's home (never this folder), so no snapshot holds a temp name, and two runs at
    once (two checkouts, a walk beside the tests) never write or read each other's programs."""
    folder = tmp_path / "programs"
    monkeypatch.setenv("TF_GPU_WIZARD_PROGRAMS", str(folder))
    # The run's log (the snapshots' LOG, a relative name the Run screen shows as it is) lands here too.
    monkeypatch.chdir(tmp_path)
    return folder
