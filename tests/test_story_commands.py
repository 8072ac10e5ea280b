"""Commands people can read, and a simulation that reads like the real thing (issue 18, point 9:
the hello script; the lock's one-liner is the lock's own issue)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Plan
from wizard.run.sim import output_for


def _plan(name: str) -> Plan:
    profile = load_demo(name)
    rec = recommend(profile)
    assert rec.recommended is not None
    return build_plan(profile, rec.recommended)


@pytest.mark.parametrize("name", [n for n in demo_names() if n not in ("macos-arm64", "wsl1-ubuntu-22.04")])
def test_the_hello_step_copies_a_shipped_program_with_a_short_command(name: str) -> None:
    plan = _plan(name)
    hello = [s for s in plan.steps if s.id == "hello"]
    if not hello:
        pytest.skip("no hello step in this plan (a hand-over plan)")
    (step,) = hello
    for argv, line in zip(step.commands, step.command_lines(), strict=True):
        assert "-c" not in argv, line
        assert len(line) <= 240, line
    assert any(a.endswith("copy_file.py") for argv in step.commands for a in argv)
    assert any(a.endswith("hello_gpu.py") for argv in step.commands for a in argv)


def test_the_copy_program_writes_the_file_whole(tmp_path: Path) -> None:
    from wizard.plan.programs import program

    src = tmp_path / "src.py"
    src.write_bytes(b"print('hello')\n" * 100)
    dest = tmp_path / "deep" / "er" / "hello_gpu.py"
    done = subprocess.run([sys.executable, program("copy_file.py"), str(src), str(dest)], check=False)
    assert done.returncode == 0 and dest.read_bytes() == src.read_bytes()
    assert [p.name for p in dest.parent.iterdir()] == ["hello_gpu.py"]  # no temp file left
    missing = subprocess.run(
        [sys.executable, program("copy_file.py"), str(tmp_path / "nope"), str(dest)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode != 0 and "Traceback" not in missing.stderr and missing.stderr.strip()


def test_simulated_pip_output_names_packages_not_files() -> None:
    plan = _plan("debian-12-gtx1060-laptop")
    profile = load_demo("debian-12-gtx1060-laptop")
    seen: list[str] = []
    for step in plan.steps:
        for argv in step.commands:
            seen += output_for(argv, profile)
    for line in seen:
        if line.startswith(("Collecting", "  Downloading", "Successfully installed")):
            assert ".txt" not in line and "/" not in line, line
        assert "DEBIAN_FRONTEND" not in line, line
    # The locked install says what it does (the lock, hash-checked), never pip's lines about a file.
    assert any("installing every package of" in line and "sha256" in line for line in seen), seen


def test_simulated_lock_lines_read_in_chinese() -> None:
    """A zh run log has no English sentence of the wizard's own in its simulated lines."""
    from wizard.text import set_language

    plan = _plan("debian-12-gtx1060-laptop")
    profile = load_demo("debian-12-gtx1060-laptop")
    set_language("zh")
    try:
        seen = [line for step in plan.steps for argv in step.commands for line in output_for(argv, profile)]
    finally:
        set_language(None)
    lock_lines = [line for line in seen if "sha256" in line]
    assert lock_lines, seen
    for line in lock_lines:
        assert (
            "(simulated)" not in line and "installing every" not in line and "the plan's lock" not in line
        ), line
    assert any("正在安装" in line for line in lock_lines), lock_lines


def test_simulated_pip_from_the_lock_reads_the_lock() -> None:
    argv = ("/v/bin/python", "-m", "pip", "install", "--require-hashes", "--no-deps", "-r", "/v/x.lock.txt")
    lines = output_for(argv, None)
    assert lines and not any("Collecting /v" in line or "installed /v" in line for line in lines)
    assert any("/v/x.lock.txt" in line for line in lines)


def test_simulated_apt_lists_packages_only() -> None:
    argv = tuple(
        shlex.split("env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv python3-pip")
    )
    (new,) = [line for line in output_for(argv, None) if "NEW packages" in line]
    assert new.endswith("python3-venv python3-pip") and "=" not in new
