"""The small bash programs inside plan steps, run for real against stand-in commands and files."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from wizard.plan import shellblock
from wizard.plan.common import DRIVER_AT_LEAST_SH, VENV_WORKS_SH
from wizard.plan.linux import CUDA_ENV_BODY, CUDNN_VERSION_SH
from wizard.plan.wsl import NONE_EXIST_SH, WSLCONFIG_CHECK_SH


def _exe(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _bash(program: str, *args: str, env: dict[str, str] | None = None) -> int:
    return subprocess.run(["bash", "-c", program, "_", *args], capture_output=True, env=env).returncode


# ---- ~/.bashrc block -----------------------------------------------------------------------


def test_shellblock_is_added_once_with_a_backup_and_removed(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_text("alias ll='ls -l'\n")
    assert shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)
    assert not shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)  # idempotent
    text = rc.read_text()
    assert text.count("# >>> tf-gpu-wizard cuda >>>") == 1 and text.startswith("alias ll")
    assert len(list(tmp_path.glob(".bashrc.tf-gpu-wizard-*.bak"))) == 1
    assert shellblock.remove_block(rc, "cuda")
    assert rc.read_text().rstrip("\n") == "alias ll='ls -l'"
    assert not shellblock.remove_block(rc, "cuda")


def test_bash_and_python_versions_of_the_block_agree(tmp_path: Path) -> None:
    py, sh = tmp_path / "py" / ".bashrc", tmp_path / "sh" / ".bashrc"
    for f in (py, sh):
        f.parent.mkdir()
        f.write_text("export A=1\n")
    shellblock.add_block(py, "cuda", CUDA_ENV_BODY)
    for _ in range(2):  # the second run must change nothing
        subprocess.run(list(shellblock.add_command(sh, "cuda", CUDA_ENV_BODY)), check=True)
    assert py.read_text() == sh.read_text()
    check = shellblock.present_check(sh, "cuda")
    assert subprocess.run(list(check.argv)).returncode == 0
    subprocess.run(list(shellblock.remove_command(sh, "cuda")), check=True)
    shellblock.remove_block(py, "cuda")
    assert py.read_text() == sh.read_text() == "export A=1\n"  # the file as it was, byte for byte
    assert subprocess.run(list(check.argv)).returncode == 1


def test_block_in_a_missing_bashrc_creates_it(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    subprocess.run(list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)), check=True)
    assert shellblock.has_block(rc, "cuda") and not list(tmp_path.glob("*.bak"))
    out = subprocess.run(["bash", "-c", f"source {rc!s} && echo $PATH"], capture_output=True, text=True)
    assert out.stdout.startswith("/usr/local/cuda/bin:")


# ---- checks -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reported", "floor", "ok"),
    [
        ("550.54.14", "525.60.13", True),
        ("525.60.13", "525.60.13", True),
        ("470.256.02", "525.60.13", False),
        ("528.33", "528.33", True),
        ("527.99", "528.33", False),
        ("", "525.60.13", False),
    ],
)
def test_driver_version_check(tmp_path: Path, reported: str, floor: str, ok: bool) -> None:
    smi = _exe(tmp_path / "nvidia-smi", f"#!/bin/sh\n[ -n '{reported}' ] || exit 9\necho '{reported}'\n")
    assert (_bash(DRIVER_AT_LEAST_SH, str(smi), floor) == 0) is ok


def test_driver_check_without_nvidia_smi_is_not_satisfied(tmp_path: Path) -> None:
    assert _bash(DRIVER_AT_LEAST_SH, str(tmp_path / "missing"), "525.60.13") != 0


def test_cudnn_version_check(tmp_path: Path) -> None:
    _exe(
        tmp_path / "dpkg-query",
        "#!/bin/sh\n[ \"$3\" = libcudnn8 ] && [ \"$2\" = '-f=${Version}' ] && printf '8.6.0.163-1+cuda11.8'\n",
    )
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    assert _bash(CUDNN_VERSION_SH, "libcudnn8", "8.6.", env=env) == 0
    assert _bash(CUDNN_VERSION_SH, "libcudnn8", "8.9.", env=env) != 0
    assert _bash(CUDNN_VERSION_SH, "libcudnn9", "9.3.", env=env) != 0


def test_none_exist_check(tmp_path: Path) -> None:
    there = tmp_path / "libcuda.so.1"
    assert _bash(NONE_EXIST_SH, str(tmp_path / "a b"), str(tmp_path / "c")) == 0
    there.write_text("")
    assert _bash(NONE_EXIST_SH, str(tmp_path / "a b"), str(there)) == 1


def test_venv_works_check_with_this_python(tmp_path: Path) -> None:
    import sys

    assert _bash(VENV_WORKS_SH, sys.executable) == 0
    assert _bash(VENV_WORKS_SH, str(tmp_path / "no-python")) != 0


def test_wslconfig_check_reads_this_machine() -> None:
    import os

    cpus = str(os.cpu_count())
    assert _bash(WSLCONFIG_CHECK_SH, "1", cpus) == 0  # at least ~1 GB and exactly this many CPUs
    assert _bash(WSLCONFIG_CHECK_SH, "100000", cpus) != 0
