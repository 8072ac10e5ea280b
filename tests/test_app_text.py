"""Every message the app's screens ask for exists in assets/text/en/app.toml."""

from __future__ import annotations

import re
from pathlib import Path

from wizard.choose.choice import METHODS
from wizard.text import has

SCREENS = Path(__file__).resolve().parent.parent / "screens"
APP_KEY = re.compile(r't\(\s*"(app\.[A-Za-z0-9_.\-]+)"')


def test_every_literal_app_key_exists() -> None:
    missing = []
    for path in sorted(SCREENS.rglob("*.py")):
        for key in APP_KEY.findall(path.read_text(encoding="utf-8")):
            if not has(key):
                missing.append(f"{path.name}: {key}")
    assert not missing


def test_keys_built_at_run_time_exist() -> None:
    from screens.widgets.run_step_list import STATUSES
    from wizard.probe import PARTS

    keys = [f"app.method.{m}" for m in METHODS]
    keys += [f"app.run.status_{s}" for s in STATUSES]
    keys += [f"app.severity.{s}" for s in ("error", "warning", "info")]
    keys += [f"app.detect.part.{p}" for p in (name for name, _ in PARTS)]
    assert [k for k in keys if not has(k)] == []
