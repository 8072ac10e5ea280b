"""On a demo whose driver steps run only in simulation (a driver/library mismatch after an update,
Secure Boot, no driver yet), the Run's finish, the monitor and the benchmark read one fact
(wizard.demo.gpu_only_simulated) and say the same: the GPU check passed in simulation only, and on
the machine as detected the benchmark runs on the CPU with no GPU in sight. A demo whose GPU is read
says none of that, and its benchmark runs on the GPU."""

from __future__ import annotations

import io
import sys

import pytest

from screens.run_screen import RunScreen
from tests.apps import both_languages
from tests.apps.both_languages import flat as _flat
from tests.apps.wizard_app import build_app, run_screen, to_run, wait_until
from wizard.bench.runner import SimulatedBenchRun
from wizard.cli import main
from wizard.demo import gpu_only_simulated, load_demo
from wizard.monitor.sim import SimulatedSource
from wizard.text import t

lang = both_languages.lang  # the fixture, run in English and in Chinese

MISMATCH = "ubuntu-22.04-rtx3060-mismatch-after-update"
STOPPED = [MISMATCH, "ubuntu-22.04-rtx3060-secure-boot", "ubuntu-24.04-rtx4090-fresh"]
READ = "wsl2-rtx4060-laptop"


def _apply_to_the_end(
    name: str, lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """`apply --yes` until it finishes (a restart step ends the first run; the next goes on), the
    student pressing Enter at a step done by hand (Secure Boot's key enrolment)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 20))
    out = ""
    for _ in range(3):
        main(["--lang", lang, "--profile", name, "apply", "--yes"])
        out = capsys.readouterr().out
        if t("app.run.finished").split()[0] in out or "All steps are done" in out or "全部步骤" in out:
            break
    return out


@pytest.mark.parametrize("name", STOPPED)
def test_finish_monitor_and_bench_agree_on_a_gpu_reached_only_in_simulation(
    name: str, lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = load_demo(name)
    assert gpu_only_simulated(profile)
    out = _apply_to_the_end(name, lang, capsys, monkeypatch)
    assert _flat(t("demogpu.finish_note")) in _flat(out)  # the finish says what comes next...
    bench = SimulatedBenchRun(profile, delay=0.0)
    assert bench.report.cpu_why == t("bench.demo_driver.cpu_only")  # ...the benchmark: the CPU...
    source = SimulatedSource(profile)
    info = source.open()
    gpus, reason = source.read()
    words = t("monitor.demo_driver.no_gpu")
    assert not gpus and info.no_gpu_reason == words and reason == words  # ...the monitor: no GPU
    source.close()


def test_a_demo_whose_gpu_is_read_has_no_such_note(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = load_demo(READ)
    assert not gpu_only_simulated(profile)
    out = _apply_to_the_end(READ, "en", capsys, monkeypatch)
    assert "bin/activate" in out  # it did finish
    assert _flat(t("demogpu.finish_note")) not in _flat(out)
    assert SimulatedBenchRun(profile, delay=0.0).report.cpu_why is None


async def test_the_run_screen_finish_on_the_mismatch_demo_says_it(lang: str) -> None:
    app = build_app(MISMATCH)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_run(pilot)
        await wait_until(pilot, lambda: run_screen(pilot.app).state in ("restart", "finished"))
        if run_screen(app).state == "restart":
            await pilot.press("n")  # after the simulated restart
        await wait_until(pilot, lambda: run_screen(pilot.app).state == "finished")
        screen = run_screen(app)
        assert isinstance(screen, RunScreen)
        assert _flat(t("demogpu.finish_note")) in _flat(screen._finished_text())
