"""State files that are not files: a symlinked or hard-linked run.lock, a FIFO where the journal
should be, a FIFO .bashrc or mirrors.toml. The wizard never writes through a link and never blocks
on a FIFO: each is one clear line (or set aside as damage), in a second at most.

Real faults: os.symlink, os.link, os.mkfifo, and the real CLI in a subprocess with a time limit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.run.journal import Journal
from wizard.safe.atomic import NotRegular, read_bytes_limited, write_text_atomic
from wizard.safe.lock import RunLock, holder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks, FIFOs and flock are POSIX")

ROOT = Path(__file__).resolve().parents[1]


def _cli(home: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TF_GPU_WIZARD_HOME": str(home), "PYTHONPATH": str(ROOT), "HOME": str(home)}
    code = "import sys; from wizard.cli.main import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def test_a_symlinked_lock_is_refused_and_the_file_it_points_at_keeps_every_byte(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("a file the attacker wants emptied\n")
    lock = tmp_path / "state" / "run.lock"
    lock.parent.mkdir()
    os.symlink(victim, lock)
    with pytest.raises(NotRegular) as caught:
        RunLock(lock).acquire()
    assert "symbolic link" in str(caught.value) and "\n" not in str(caught.value)
    assert victim.read_text() == "a file the attacker wants emptied\n"
    assert holder(lock) is None  # the look does not follow it either


def test_a_hard_linked_lock_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    lock = tmp_path / "run.lock"
    os.link(victim, lock)
    with pytest.raises(NotRegular):
        RunLock(lock).acquire()
    assert victim.read_text() == "keep me\n"


def test_a_plain_lock_still_works_and_says_its_pid(tmp_path: Path) -> None:
    lock = tmp_path / "run.lock"
    with RunLock(lock):
        assert lock.read_text().strip() == str(os.getpid())
    assert lock.read_text() == ""


def test_a_fifo_lock_never_blocks(tmp_path: Path) -> None:
    lock = tmp_path / "run.lock"
    os.mkfifo(lock)
    with pytest.raises(NotRegular) as caught:
        RunLock(lock).acquire()
    assert "FIFO" in str(caught.value)


def test_a_fifo_is_not_read_as_a_file_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "mirrors.toml"
    os.mkfifo(fifo)
    with pytest.raises(NotRegular):
        read_bytes_limited(fifo, 1000)


def test_the_journal_never_writes_through_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "etc-file"
    victim.write_text("root's file\n")
    path = tmp_path / "state" / "run.json"
    path.parent.mkdir()
    os.symlink(victim, path)
    journal = Journal(path=path)
    from tests.test_runner_helpers import make_plan
    from wizard.run.journal import RunState

    journal.save(RunState(plan=make_plan()))
    assert victim.read_text() == "root's file\n"
    assert not path.is_symlink() and '"schema"' in path.read_text()
    # A user file (.bashrc kept in a dotfiles folder) is still written through its link.
    user = tmp_path / "dotfiles-bashrc"
    user.write_text("x\n")
    os.symlink(user, tmp_path / ".bashrc")
    write_text_atomic(tmp_path / ".bashrc", "y\n")
    assert user.read_text() == "y\n" and (tmp_path / ".bashrc").is_symlink()


def test_a_fifo_journal_is_set_aside_and_apply_does_not_hang(tmp_path: Path) -> None:
    state = tmp_path / "wizard" / "state"
    state.mkdir(parents=True)
    os.mkfifo(state / "run.json")
    for args in (("apply", "--dry-run"), ("--profile", "no-nvidia-gpu", "apply", "--dry-run")):
        done = _cli(tmp_path / "wizard", *args)  # a hang is a TimeoutExpired here
        assert "Traceback" not in done.stderr, done.stderr
    # The real journal: the FIFO was set aside with a notice, and the run could go on.
    assert not (state / "run.json").exists() or (state / "run.json").is_file()
    aside = [p for p in state.iterdir() if p.name.startswith("run.corrupt-")]
    assert aside, list(state.iterdir())


def test_a_fifo_journal_with_yes_does_not_hang_holding_the_lock(tmp_path: Path) -> None:
    state = tmp_path / "wizard" / "state"
    state.mkdir(parents=True)
    os.mkfifo(state / "run-simulated-demo-no-nvidia-gpu.json")
    done = _cli(tmp_path / "wizard", "--profile", "no-nvidia-gpu", "apply", "--yes", timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_fifo_caches_in_the_environment_never_block_the_programs(tmp_path: Path) -> None:
    """installed_ok.py's digest cache and tf_proof.py's proof record, each a FIFO: the check still
    answers (it hashes again), the record reads as empty, and neither waits for a writer."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    os.mkfifo(venv / ".tf-gpu-wizard-verified.json")
    os.mkfifo(venv / ".tf-gpu-wizard-verified.json.tmp")
    os.mkfifo(venv / ".tf-gpu-wizard-proofs.json")
    programs = ROOT / "assets" / "programs"
    done = subprocess.run(
        [py, str(programs / "installed_ok.py"), "check", "nothing-installed-here"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "not installed" in done.stdout and "Traceback" not in done.stderr
    code = (
        "import runpy, sys; m = runpy.run_path(sys.argv[1]); "
        "print(m['read_record']()); m['write_record']({'a': 1}); print('written')"
    )
    done = subprocess.run(
        [py, "-c", code, str(programs / "tf_proof.py")], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["{}", "written"], done.stderr


def test_a_program_file_that_is_a_symlink_is_replaced_not_written_through(tmp_path: Path) -> None:
    import os as _os

    from wizard.plan.programs import program, program_bytes, programs_dir

    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    folder = programs_dir()
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "kernel_ok.py"
    if link.exists() or link.is_symlink():
        link.unlink()
    _os.symlink(victim, link)
    path = Path(program("kernel_ok.py"))
    assert victim.read_text() == "keep\n"
    assert path == link and not link.is_symlink()
    assert link.read_bytes() == program_bytes("kernel_ok.py")
