"""A demo's plan names the demo machine's paths, never this machine's home beside them.

Under `--profile <demo>` the venv, ~/.bashrc, the wizard's uv and programs, the finish's next
steps, the password prompt's user and the doctor's --run environment are the demo user's: the
home the profile names (its Python under /home/sam), else one made-up demo home (/home/student).
The wizard's own state (journal, the simulated run's log) stays in the wizard's state folder
(test_app_run shows its log line), and a demo never reads or writes the real user's .bashrc or venv.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from screens.password_modal import PasswordModal
from tests.apps.screen_text import screen_text
from tests.apps.wizard_app import build_app, run_screen, settle, to_choose, to_finished, to_password
from wizard.cli import main
from wizard.demo import demo_names, load_demo
from wizard.plan.build import default_venv_for, machine_home, machine_user
from wizard.plan.demo_paths import DEMO_HOME
from wizard.profile import MachineProfile

SAM = "ubuntu-22.04-rtx3090-cuda11.8"  # its Python is /home/sam/tf/bin/python
NO_HOME = "wsl2-rtx4060-laptop"  # /usr/bin/python3: the profile names no home


@pytest.fixture
def real_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This machine's user, with a .bashrc and the wizard's venv where a real run would put them."""
    home = tmp_path / "real-home-q7"
    (home / ".venvs" / "tf-gpu" / "bin").mkdir(parents=True)
    (home / ".bashrc").write_text("# the real user's\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USER", "realuser-q7")
    monkeypatch.setenv("LOGNAME", "realuser-q7")
    return home


def untouched(home: Path) -> bool:
    return (home / ".bashrc").read_text() == "# the real user's\n" and sorted(
        p.name for p in (home / ".venvs" / "tf-gpu").iterdir()
    ) == ["bin"]


def flat(text: str) -> str:
    """Text without its whitespace: a long path wrapped across lines is still found."""
    return "".join(text.split())


def cli(capsys: Any, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("name", demo_names())
def test_no_demo_plan_names_this_machines_home(name: str, real_home: Path, capsys: Any) -> None:
    for argv in (["plan"], ["plan", "--json"], ["apply", "--dry-run"]):
        code, out = cli(capsys, *argv, "--profile", name)
        assert code == 0, out
        assert str(real_home) not in flat(out) and "realuser-q7" not in out
    assert untouched(real_home)


def test_a_demo_plan_is_in_the_home_its_profile_names(real_home: Path, capsys: Any) -> None:
    _, out = cli(capsys, "plan", "--profile", SAM, "--json")
    plan = json.loads(out)
    assert plan["venv"] == "/home/sam/.venvs/tf-gpu"
    venv_step = next(s for s in plan["steps"] if s["id"] == "venv")
    # The machine's own Python makes the environment in that same user's home, with the wizard's
    # uv as README command 1 installs it there.
    assert venv_step["command_lines"][0] == (
        "/home/sam/tf-gpu-wizard/.venv/bin/uv venv --allow-existing --python /home/sam/tf/bin/python"
        " /home/sam/.venvs/tf-gpu"
    )
    _, out = cli(capsys, "plan", "--profile", SAM, "--method", "system-cuda")
    assert (
        "/home/sam/.bashrc" in out
        and "bash /home/sam/.local/share/tf-gpu-wizard/programs/shellblock.sh" in out
    )
    _, out = cli(capsys, "plan", "--profile", NO_HOME)
    assert "Environment: /home/student/.venvs/tf-gpu" in out
    assert "/home/student/.local/share/tf-gpu-wizard/programs/wslconfig.sh" in out


def test_a_folder_typed_for_a_demo_is_in_the_demo_home(real_home: Path, capsys: Any, tmp_path: Path) -> None:
    def venv(typed: str) -> str:
        _, out = cli(capsys, "plan", "--profile", SAM, "--json", "--venv", typed)
        return str(json.loads(out)["venv"])

    assert venv("~/envs/a") == "/home/sam/envs/a"
    assert venv("envs/b") == "/home/sam/envs/b"  # this machine's working folder is not on the demo
    assert venv("/opt/tf") == "/opt/tf"
    # A saved profile that names no home is planned in /home/student, never in the reader's home
    # (issue 36, point 4: lab staff planning from a student's saved profile).
    _, out = cli(capsys, "plan", "--json", "--venv", "~/envs/a", "--profile", str(save_here(tmp_path)))
    assert json.loads(out)["venv"] == "/home/student/envs/a"
    code, out = cli(capsys, "plan", "--profile", str(save_here(tmp_path)))
    assert code == 0 and "Environment: /home/student/.venvs/tf-gpu" in out
    assert "/home/student/.local/share/tf-gpu-wizard/programs/" in out
    assert str(real_home) not in flat(out)


def save_here(tmp_path: Path) -> Path:
    """A profile saved by `detect --save` on this machine: it names no home of its own."""
    profile = load_demo(NO_HOME)
    path = tmp_path / "saved.json"
    profile.save(path)
    return path


def test_machine_home_rules(real_home: Path, tmp_path: Path) -> None:
    assert machine_home(load_demo(SAM)) == PurePosixPath("/home/sam")
    assert machine_home(load_demo("ubuntu-22.04-2x-a100-server")) == PurePosixPath("/home/ml")
    assert machine_home(load_demo(NO_HOME)) == DEMO_HOME
    assert machine_home(load_demo("macos-arm64")) == PurePosixPath("/Users/student")
    assert str(machine_home(load_demo("windows11-rtx3070"))) == "C:\\Users\\alex"
    assert machine_user(load_demo(SAM)) == "sam" and machine_user(load_demo(NO_HOME)) == "student"
    # This machine: this user's home and user; a saved profile that names no home: /home/student.
    here = MachineProfile(platform="linux")
    assert machine_home(here) == real_home and machine_user(here) is None
    saved = MachineProfile.load(save_here(tmp_path))
    assert saved.simulated and saved.demo is None and machine_home(saved) == DEMO_HOME
    assert default_venv_for(load_demo(SAM)) == PurePosixPath("/home/sam/.venvs/tf-gpu")


def test_a_finished_demo_run_ends_with_the_demo_paths(real_home: Path, capsys: Any) -> None:
    code, out = cli(capsys, "apply", "--profile", SAM, "--yes")
    assert code == 0, out
    assert "source /home/sam/.venvs/tf-gpu/bin/activate" in out
    assert "python /home/sam/.venvs/tf-gpu/share/tf-gpu-wizard/hello_gpu.py" in out
    assert str(real_home) not in flat(out)
    assert untouched(real_home)


def test_doctor_run_under_a_demo_is_not_in_the_real_venv(real_home: Path, capsys: Any) -> None:
    probe = [sys.executable, "-c", "import os; print('VENV=' + os.environ.get('VIRTUAL_ENV', '-'))"]
    _, out = cli(capsys, "doctor", "--profile", NO_HOME, "--run", *probe)
    assert "The environment /home/student/.venvs/tf-gpu does not exist" in " ".join(out.split())
    assert str(real_home) not in flat(out)
    # This machine's doctor runs in this user's own venv (the control).
    _, out = cli(capsys, "doctor", "--run", *probe)
    assert f"VENV={real_home / '.venvs' / 'tf-gpu'}" in flat(out)


async def test_the_app_shows_the_demo_paths(real_home: Path) -> None:
    app = build_app(SAM)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        welcome = screen_text(app)
        assert "(default /home/sam/.venvs/tf-gpu)" in " ".join(welcome.split())
        await to_choose(pilot)
        assert "Environment folder /home/sam/.venvs/tf-gpu" in screen_text(app)
        await pilot.press("p")
        await settle(pilot)
        assert "environment /home/sam/.venvs/tf-gpu" in screen_text(app)
        assert str(real_home) not in flat(screen_text(app))
        await pilot.press("escape", "escape", "escape")
        await settle(pilot)
    app = build_app(SAM)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_finished(pilot)
        screen = run_screen(app)
        finish = screen._finished_text()
        assert "source /home/sam/.venvs/tf-gpu/bin/activate" in finish and str(real_home) not in finish
    assert untouched(real_home)


async def test_the_password_prompt_names_the_demo_user(real_home: Path) -> None:
    app = build_app("ubuntu-24.04-rtx4090-fresh")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_password(pilot)
        assert isinstance(app.screen, PasswordModal)
        seen = " ".join(screen_text(app).split())
        assert "(user student)" in seen and "realuser-q7" not in seen
