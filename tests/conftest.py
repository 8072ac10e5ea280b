"""Shared test setup: the wizard's state goes to a temp dir; hypothesis has no deadline
(the CI machine has 2 cores and runs real installs beside the property tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", deadline=None, max_examples=100)
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _wizard_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Never touch the real ~/.local/state: every test gets its own wizard home."""
    home = tmp_path_factory.mktemp("wizard-home")
    monkeypatch.setenv("TF_GPU_WIZARD_HOME", str(home))
    yield home
