"""The doctor's "About this machine" says a machine state's fix once: its title, what detect saw
(the deciding line first), then the fix; not the fix as the body and again as "Fix:", nor again in
the block of the set's driver step, whose fix that state's is. English and Chinese."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.demo import load_profile
from wizard.probe.state_view import blocking_words
from wizard.text import set_language

ROOT = Path(__file__).resolve().parent.parent
# Each broken demo and the line that decided its state.
DEMOS = {
    "ubuntu-22.04-rtx3060-secure-boot": "Loading of unsigned module is rejected",
    "ubuntu-22.04-rtx3060-mismatch-after-update": "Driver/library version mismatch",
}
SEEN = {"en": "detect saw:", "zh": "detect 看到："}


def _doctor(tmp_path: Path, lang: str, demo: str) -> str:
    log = tmp_path / "train.log"
    log.write_text("Traceback (most recent call last):\nRuntimeError: something odd\n", encoding="utf-8")
    env = {
        **os.environ,
        "TF_GPU_WIZARD_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "400",
    }
    argv = [sys.executable, "-m", "wizard", "--lang", lang, "--profile", demo, "doctor", "--log", str(log)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("demo", DEMOS)
def test_a_states_fix_is_said_once(tmp_path: Path, lang: str, demo: str) -> None:
    set_language(lang)
    try:
        w = blocking_words(load_profile(demo))
    finally:
        set_language("en")
    assert w is not None
    out = _doctor(tmp_path, lang, demo)
    flat = " ".join(out.split())
    fix = " ".join(w.fix.split())
    assert flat.count(fix) == 1, out  # once, as the fix
    assert f"{' '.join(w.title.split())} {SEEN[lang]}" in flat, out  # then what was seen, not the title
    assert DEMOS[demo] in flat
