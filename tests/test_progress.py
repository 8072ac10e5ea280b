"""While pip or uv installs and prints nothing, the run log still says what is happening."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.test_runner_helpers import Recorder
from wizard.choose.choice import VersionSet
from wizard.plan.model import Check, Plan, Step
from wizard.run.progress import HEARTBEAT_S, InstallProgress, is_install_command
from wizard.run.runner import Runner


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_install_commands_are_recognised() -> None:
    assert is_install_command(("/env/bin/python", "-m", "pip", "install", "tensorflow"))
    assert is_install_command(("/home/u/.local/bin/uv", "pip", "install", "--python", "p", "x"))
    assert is_install_command(("uv", "venv", "--seed", "/env"))
    assert is_install_command(("/opt/conda/bin/conda", "create", "-y", "-p", "/env"))
    assert not is_install_command(("/env/bin/python", "-c", "print(1)"))
    assert not is_install_command(("apt-get", "install", "-y", "x"))


def test_pip_output_feeds_the_heartbeat(tmp_path: Path) -> None:
    clock = Clock()
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "big").write_bytes(b"x" * 3_000_000)
    watch = InstallProgress(tmp_path, clock=clock)
    watch.saw("Collecting tensorflow-cpu==2.21.0")
    watch.saw("  Downloading tensorflow_cpu-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl (261.4 MB)")
    watch.saw("Collecting numpy>=1.26")
    assert not watch.due()
    clock.now += HEARTBEAT_S
    assert watch.due()
    line = watch.heartbeat()
    assert "0:05" in line and "2 packages collected" in line and "261.4 MB" in line and "3.0 MB" in line
    assert not watch.due()  # one heartbeat per interval
    watch.saw("Installing collected packages: numpy, tensorflow-cpu")
    clock.now += 2 * HEARTBEAT_S
    line = watch.heartbeat()
    assert "0:15" in line and "installing 2 packages" in line


def test_uv_phases_are_named() -> None:
    clock = Clock()
    watch = InstallProgress(None, clock=clock)
    watch.saw("Resolved 32 packages in 1.69s")
    watch.saw("Prepared 28 packages in 8.04s")
    clock.now += HEARTBEAT_S
    assert "uv: Prepared 28 packages" in watch.heartbeat()


def _plan(step: Step, venv: Path) -> Plan:
    return Plan(
        set=VersionSet("2.21.0", "3.11", None, None, "cpu"),
        platform="linux",
        venv=str(venv),
        python=str(venv / "bin" / "python"),
        steps=(step,),
    )


def test_a_silent_install_gets_heartbeats_in_the_run_log(tmp_path: Path) -> None:
    """A real process named pip, silent for 7 s while the environment grows."""
    venv = tmp_path / "env"
    venv.mkdir()
    pip = tmp_path / "bin" / "pip"
    pip.parent.mkdir()
    pip.write_text(
        f"#!{sys.executable}\n"
        "import os, sys, time\n"
        "print('Installing collected packages: a, b, tensorflow-cpu', flush=True)\n"
        "for i in range(7):\n"
        "    time.sleep(1)\n"
        f"    open(os.path.join({str(venv)!r}, f'part{{i}}'), 'wb').write(b'x' * 2_000_000)\n"
        "print('Successfully installed a b tensorflow-cpu', flush=True)\n"
    )
    pip.chmod(0o755)
    step = Step(
        id="tensorflow",
        title="pip install tensorflow-cpu",
        why="test",
        where="user",
        commands=((str(pip), "install", "tensorflow-cpu"),),
        check=Check(("test", "-f", str(venv / "part6")), "the environment grew"),
    )
    rec = Recorder()
    log = tmp_path / "run.log"
    result = Runner(_plan(step, venv), rec, log_path=log).run()
    assert result.outcome == "finished", result.message
    beats = [line for line in rec.lines if "still working" in line]
    assert beats, rec.lines
    assert "installing 3 packages" in beats[0] and "MB" in beats[0]
    assert rec.lines.index(beats[0]) < next(i for i, line in enumerate(rec.lines) if "Successfully" in line)
    assert beats[0] in log.read_text()
