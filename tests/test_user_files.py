"""The user's own files and root commands: the ~/.bashrc block under kill -9, .wslconfig merged key by
key, and the Linux-driver removal given only exact paths. The real programs from the plan run against
real files; Windows interop (cmd.exe, wslpath) and dpkg/apt are stand-ins on PATH that record what
they were asked.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from wizard.demo import load_demo
from wizard.plan import shellblock
from wizard.plan.linux import CUDA_ENV_BODY
from wizard.plan.programs import program
from wizard.plan.wsl import REMOVE_DRIVER, WSLCONFIG, linux_driver_files, windows_steps
from wizard.profile import LibCuda

USER_LINES = "# my aliases\nalias ll='ls -l'\nexport EDITOR=vim\n# caf\xe9 in Latin-1 below\n"
BEGIN, END = shellblock.markers("cuda")


def _exe(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _block_state(text: str) -> str:
    lines = text.splitlines()
    if BEGIN not in lines:
        assert END not in lines
        return "absent"
    start = lines.index(BEGIN)
    assert lines.index(END) > start, "a start marker without its end: a half-written block"
    return "complete"


# ---- ~/.bashrc -------------------------------------------------------------------------------------


def test_kill_9_at_random_moments_leaves_the_block_complete_or_absent(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    original = USER_LINES.encode("latin-1")
    rc.write_bytes(original)
    add = list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY))
    remove = list(shellblock.remove_command(rc, "cuda"))
    started = time.monotonic()  # how long one whole run takes here: kills land all over it
    subprocess.run(add, check=True)
    subprocess.run(remove, check=True)
    span = (time.monotonic() - started) / 2 * 1.3
    rng = random.Random(9)
    kills, seen = 0, {"absent": 0, "complete": 0}
    for n in range(60):
        proc = subprocess.Popen(add if n % 2 == 0 else remove, start_new_session=True)
        time.sleep(rng.uniform(0.0, span))
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kills += proc.wait() == -signal.SIGKILL  # it was still running: killed part-way
        data = rc.read_bytes()
        seen[_block_state(data.decode("latin-1"))] += 1
        assert data.startswith(original), "the user's lines are kept, byte for byte"
    check = shellblock.present_check(rc, "cuda")
    state = _block_state(rc.read_bytes().decode("latin-1"))
    assert (subprocess.run(list(check.argv)).returncode == 0) == (state == "complete")
    print(f"\n.bashrc kill points: {kills} kills, block states seen {seen}")
    assert kills >= 15
    for leftover in tmp_path.glob(".tf-gpu-wizard.*"):  # SIGKILL gives no chance to clean up
        leftover.unlink()


def _fsize_limit(limit: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        import resource

        # Default SIGXFSZ action: the process is killed exactly at the write that crosses the limit.
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_killed_between_the_markers_writes_the_block_is_absent(tmp_path: Path) -> None:
    """Deterministic kill point: the write after the start marker crosses a file-size limit, so the
    kernel kills the program right there (the old program then left the start marker alone)."""
    rc = tmp_path / ".bashrc"
    original = USER_LINES.encode("latin-1")
    rc.write_bytes(original)
    limit = len(original) + len(f"\n{BEGIN}\n") + 5
    proc = subprocess.run(
        list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)), preexec_fn=_fsize_limit(limit)
    )
    assert proc.returncode == -signal.SIGXFSZ
    assert rc.read_bytes() == original and _block_state(rc.read_text("latin-1")) == "absent"
    # The next run, with room on the disk, adds the whole block.
    subprocess.run(list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)), check=True)
    assert _block_state(rc.read_text("latin-1")) == "complete"
    assert rc.read_bytes().startswith(original)


def test_a_half_block_from_an_old_version_is_not_done_and_removal_keeps_user_lines(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    # What the old append-in-three-writes left after a kill: the start marker, then the user's lines.
    rc.write_text(f"export A=1\n\n{BEGIN}\nexport B=2\nalias gs='git status'\n")
    check = shellblock.present_check(rc, "cuda")
    assert subprocess.run(list(check.argv)).returncode == 1, "a start marker alone is not the block"
    assert not shellblock.has_block(rc, "cuda")
    subprocess.run(list(shellblock.remove_command(rc, "cuda")), check=True)
    assert rc.read_text() == "export A=1\n\nexport B=2\nalias gs='git status'\n"
    rc.write_text(f"export A=1\n{BEGIN}\nexport B=2\n")
    subprocess.run(list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)), check=True)
    text = rc.read_text()
    assert text.startswith("export A=1\nexport B=2\n") and text.count(BEGIN) == 1
    assert subprocess.run(list(check.argv)).returncode == 0


def test_removal_takes_exactly_the_block(tmp_path: Path) -> None:
    rc, py = tmp_path / "sh.bashrc", tmp_path / "py.bashrc"
    body = f"before\n{BEGIN}\nexport X=1\n{END}\nafter\n{BEGIN}\nmine\n"
    for f in (rc, py):
        f.write_text(body)
    subprocess.run(list(shellblock.remove_command(rc, "cuda")), check=True)
    shellblock.remove_block(py, "cuda")
    assert rc.read_text() == py.read_text() == "before\nafter\nmine\n"


def test_a_symlinked_bashrc_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "bashrc"
    real.parent.mkdir()
    real.write_text("export A=1\n")
    rc = tmp_path / ".bashrc"
    rc.symlink_to(real)
    subprocess.run(list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)), check=True)
    assert rc.is_symlink() and BEGIN in real.read_text()


# ---- .wslconfig ------------------------------------------------------------------------------------


@pytest.fixture
def windows_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "winhome"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _exe(bin_dir / "cmd.exe", "#!/bin/sh\nprintf 'C:\\\\Users\\\\student\\r\\n'\n")
    _exe(bin_dir / "wslpath", f"#!/bin/sh\necho '{home}'\n")
    return home, {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _wslconfig_step_command() -> list[str]:
    profile = load_demo("wsl2-rtx4060-laptop")
    from wizard.choose.resolver import recommend
    from wizard.plan.model import PlanInputs

    rec = recommend(profile)
    assert rec.recommended is not None
    inputs = PlanInputs(rec.recommended, Path("/home/student/.venvs/tf-gpu"), Path("/home/student"))
    step = next(s for s in windows_steps(profile, inputs) if s.id == "wslconfig")
    (argv,) = step.commands
    return list(argv)


def test_wslconfig_keys_are_merged_and_every_other_line_kept(
    windows_home: tuple[Path, dict[str, str]],
) -> None:
    home, env = windows_home
    conf = home / ".wslconfig"
    before = (
        "# tuned by me\r\n[wsl2]\r\nmemory=4GB\r\nswap=0\r\nkernelCommandLine = quiet\r\n\r\n"
        "[experimental]\r\nautoMemoryReclaim=gradual\r\nmemory=keep-this\r\n"
    )
    conf.write_bytes(before.encode())
    argv = _wslconfig_step_command()
    assert tuple(argv[:2]) == ("bash", program(WSLCONFIG))  # a program file: the printed command pastes
    out = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    after = conf.read_bytes().decode()
    memory, cpus = argv[-2], argv[-1]
    for line in before.split("\r\n"):
        if line and line != "memory=4GB":
            assert line + "\r\n" in after, f"lost: {line!r}"
    assert f"memory={memory}GB\r\n" in after and f"processors={cpus}\r\n" in after
    wsl2 = after.split("[experimental]")[0]
    assert f"memory={memory}GB" in wsl2 and f"processors={cpus}" in wsl2  # inside [wsl2]
    assert "memory=keep-this" in after.split("[experimental]")[1]  # other sections untouched
    backups = list(home.glob(".wslconfig.tf-gpu-wizard-*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes() == before.encode()
    assert sorted(p.name for p in home.iterdir() if not p.name.endswith(".bak")) == [".wslconfig"]
    # A file without [wsl2] gets the section added at the end; a missing file is created.
    conf.write_text("[boot]\nsystemd=true\n")
    subprocess.run(argv, env=env, check=True, capture_output=True)
    assert conf.read_text() == f"[boot]\nsystemd=true\n\n[wsl2]\nmemory={memory}GB\nprocessors={cpus}\n"
    conf.unlink()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    assert conf.read_text() == f"[wsl2]\nmemory={memory}GB\nprocessors={cpus}\n"


# ---- the Linux driver inside WSL: exact paths only ----------------------------------------------------


def test_a_glob_libcuda_path_never_reaches_the_removal_step() -> None:
    profile = load_demo("wsl2-linux-driver-inside")
    real = linux_driver_files(profile)
    assert real, "the demo has a Linux libcuda inside WSL"
    profile.libcuda += [
        LibCuda("*"),
        LibCuda("/usr/lib/x86_64-linux-gnu/libcuda.so.[1]"),
        LibCuda("/usr/lib/*/libcuda.so"),
        LibCuda("relative/libcuda.so.1"),
        LibCuda("/usr/lib/../lib/libcuda.so.1"),
        LibCuda("/usr/lib/x\nrm -rf ~/libcuda.so"),
    ]
    assert linux_driver_files(profile) == real


@pytest.fixture
def fake_dpkg(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    # dpkg-query answers like the real one for one owned file; apt-get only records its arguments.
    _exe(
        bin_dir / "dpkg-query",
        f"#!/bin/sh\necho \"dpkg-query $*\" >> '{log}'\n"
        'for a in "$@"; do case $a in /usr/lib/x86_64-linux-gnu/libcuda.so.1) '
        'echo "libnvidia-compute-535:amd64: $a";; esac; done\n',
    )
    _exe(bin_dir / "apt-get", f"#!/bin/sh\necho \"apt-get $*\" >> '{log}'\n")
    return log, {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_the_removal_program_refuses_patterns_and_ends_options(
    fake_dpkg: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    log, env = fake_dpkg
    env = {**env, "TMPDIR": str(tmp_path), "TF_GPU_WIZARD_BACKUPS": str(tmp_path)}
    remover = program(REMOVE_DRIVER)
    for bad in ("*", "/usr/lib/*/libcuda.so", "/usr/lib/libcuda.so.[1]", "libcuda.so.1", "-rf"):
        out = subprocess.run(["bash", remover, bad], env=env, capture_output=True, text=True)
        assert out.returncode == 2 and "refused" in out.stderr, bad
    assert not log.exists(), "a refused path never reaches dpkg or apt"
    good = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    out = subprocess.run(["bash", remover, good], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == f"dpkg-query -S -- {good}"
    assert calls[1] == "apt-get purge -y -- libnvidia-compute-535"
