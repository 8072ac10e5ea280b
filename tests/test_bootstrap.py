"""README command 1 (`./install.sh`) on a machine like a stock Ubuntu / WSL image.

The test builds such a machine's Python for real: the running CPython's binary in a
prefix whose standard library has no `ensurepip` and no pip, so `python3 -m venv` fails
the way Ubuntu's does and `python3 -m pip` does not exist. PATH holds that python3, the
usual system tools and nothing else Python-like. HOME is a temporary folder. Then
install.sh runs in a copy of the repository and must leave a launcher in
~/.local/bin that runs `tf-gpu-wizard --version` and `detect`.

- with uv on PATH: uv makes the venv (no ensurepip needed);
- without uv: install.sh explains, and with no terminal prints the apt-get command and
  exits non-zero; with --yes it runs it (through a `sudo` on PATH that does what
  installing python3-venv does: puts ensurepip back) and goes on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.apps.uv_machine import uv_path
from wizard import __version__

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
MARK = "# tf-gpu-wizard launcher, written by install.sh"
SKIP_IN_COPY = {".venv", ".git", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", ".benchmarks"}


def _install(clone: Path, env: dict[str, str], *args: str, timeout: int) -> subprocess.CompletedProcess[str]:
    """README command 1 as a script runs it: `./install.sh --no-start`, no terminal to answer."""
    return subprocess.run(
        ["sh", "./install.sh", "--no-start", *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _stock_python(root: Path) -> Path:
    """A python3 without ensurepip and pip: a copy of this CPython's binary whose prefix
    links every standard-library module except those two."""
    base = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    if not (stdlib / "os.py").exists():
        pytest.skip("this Python's standard library layout is unusual")
    ver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    prefix = root / "stockpy"
    (prefix / "bin").mkdir(parents=True)
    lib = prefix / "lib" / ver
    lib.mkdir(parents=True)
    for entry in stdlib.iterdir():
        if entry.name in ("ensurepip", "site-packages", "dist-packages", "__pycache__"):
            continue
        (lib / entry.name).symlink_to(entry)
    (lib / "site-packages").mkdir()
    # A build linked against libpython finds it next to its prefix.
    for shared in sorted(stdlib.parent.glob("libpython*")):
        (prefix / "lib" / shared.name).symlink_to(shared)
    exe = prefix / "bin" / ver
    shutil.copy2(base, exe)
    (prefix / "bin" / "python3").symlink_to(ver)
    return prefix / "bin" / "python3"


def _tools_dir(root: Path, extra: dict[str, Path]) -> Path:
    """System tools, minus every python / pip / uv, plus `extra`."""
    tools = root / "tools"
    tools.mkdir()
    for d in ("/usr/local/bin", "/usr/bin", "/bin"):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if (
                name.startswith(("python", "pip", "uv", "tf-gpu-wizard", "sudo", "apt-get"))
                or (tools / name).exists()
            ):
                continue
            (tools / name).symlink_to(os.path.join(d, name))
    for name, target in extra.items():
        (tools / name).symlink_to(target)
    return tools


def _env(root: Path, tools: Path, py: Path) -> dict[str, str]:
    env = {
        # python3 stays in its own prefix's bin, as /usr/bin/python3 does: a venv made from
        # it must find the same standard library (one without ensurepip).
        "PATH": f"{py.parent}:{tools}",
        "HOME": str(root / "home"),
        "LANG": "C.UTF-8",
        "TF_GPU_WIZARD_HOME": str(root / "wizard-home"),
    }
    (root / "home").mkdir(exist_ok=True)
    # Keep the machine's package index settings and warm caches; the rest is a clean user.
    for key, value in os.environ.items():
        if key.startswith(("PIP_", "UV_", "SSL_", "REQUESTS_CA", "HTTP", "NO_PROXY")) or key.lower().endswith(
            "_proxy"
        ):
            env[key] = value
    real_home = Path.home()
    env.setdefault("PIP_CACHE_DIR", str(real_home / ".cache" / "pip"))
    env.setdefault("UV_CACHE_DIR", str(real_home / ".cache" / "uv"))
    return env


def _copy_repo(root: Path) -> Path:
    dest = root / "clone"
    shutil.copytree(
        REPO, dest, ignore=lambda d, names: [n for n in names if n in SKIP_IN_COPY], symlinks=True
    )
    return dest


def _launcher_works(root: Path, env: dict[str, str], clone: Path) -> None:
    launcher = root / "home" / ".local" / "bin" / "tf-gpu-wizard"
    text = launcher.read_text()
    assert MARK in text and str(clone / ".venv" / "bin" / "tf-gpu-wizard") in text
    assert os.access(launcher, os.X_OK)
    out = subprocess.run([str(launcher), "--version"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert __version__ in out.stdout
    det = subprocess.run(
        [str(launcher), "detect", "--json"], env=env, capture_output=True, text=True, timeout=300
    )
    assert det.returncode == 0, det.stderr[-2000:]
    assert '"python"' in det.stdout


@pytest.fixture
def stock(tmp_path: Path) -> tuple[Path, Path]:
    py = _stock_python(tmp_path)
    # The machine the test stands for: no ensurepip, no pip, so venv fails.
    probe = subprocess.run([str(py), "-c", "import ensurepip"], capture_output=True, text=True)
    assert probe.returncode != 0, "the stock python still has ensurepip"
    assert subprocess.run([str(py), "-m", "pip", "--version"], capture_output=True).returncode != 0
    venv = subprocess.run([str(py), "-m", "venv", str(tmp_path / "try")], capture_output=True, text=True)
    assert venv.returncode != 0
    return tmp_path, py


def test_install_sh_is_shellcheck_clean() -> None:
    shellcheck = Path(sys.executable).parent / "shellcheck"
    exe = str(shellcheck) if shellcheck.exists() else shutil.which("shellcheck")
    if exe is None:
        pytest.fail(
            "shellcheck is not installed, but the test extra brings it: the test environment is broken"
        )
    out = subprocess.run([exe, str(REPO / "install.sh")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout


def test_with_uv_on_a_stock_python(stock: tuple[Path, Path]) -> None:
    root, py = stock
    tools = _tools_dir(root, {"uv": Path(uv_path())})
    env = _env(root, tools, py)
    clone = _copy_repo(root)
    out = _install(clone, env, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Using uv" in out.stdout
    assert "+ " in out.stdout and " venv --seed" in out.stdout  # the command was shown
    assert "is not on your PATH" in out.stdout  # ~/.local/bin is not on this PATH
    _launcher_works(root, env, clone)
    # README command 2 still works on the .venv that uv made: it has pip.
    pip = subprocess.run(
        [str(clone / ".venv" / "bin" / "pip"), "--version"], env=env, capture_output=True, text=True
    )
    assert pip.returncode == 0, pip.stderr


def test_without_uv_asks_for_python3_venv_then_goes_on(stock: tuple[Path, Path]) -> None:
    root, py = stock
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    lib = py.parent.parent / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    calls = root / "apt-calls.txt"
    # What `apt-get install python3-venv` does to this Python: ensurepip (with pip's wheel)
    # appears. `sudo` runs its arguments; root runs apt-get without it, as install.sh does.
    fake_apt = root / "fake-apt-get"
    fake_apt.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "apt-get $*" >> "{calls}"\n'
        'if [ "$1 $2 $3" = "install -y python3-venv" ]; then\n'
        f'  ln -s "{stdlib / "ensurepip"}" "{lib / "ensurepip"}"\n'
        "  exit 0\n"
        "fi\n"
        "exit 1\n"
    )
    fake_sudo = root / "fake-sudo"
    fake_sudo.write_text('#!/bin/sh\nexec "$@"\n')
    for f in (fake_apt, fake_sudo):
        f.chmod(0o755)
    sudo = "" if os.geteuid() == 0 else "sudo "
    tools = _tools_dir(root, {"sudo": fake_sudo, "apt-get": fake_apt})
    env = _env(root, tools, py)
    clone = _copy_repo(root)

    # No terminal: it explains, prints the command, installs nothing and fails.
    first = _install(clone, env, timeout=600)
    assert first.returncode != 0
    assert f"    {sudo}apt-get install -y python3-venv" in first.stdout
    assert "run ./install.sh again" in first.stdout
    assert not calls.exists()
    assert not (clone / ".venv").exists()  # the failed venv was not left behind

    # Agreed (--yes): the command is shown, run, and the install goes on to the launcher.
    second = _install(clone, env, "--yes", timeout=900)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert calls.read_text().splitlines() == ["apt-get install -y python3-venv"]
    assert f"+ {sudo}apt-get install -y python3-venv" in second.stdout
    _launcher_works(root, env, clone)


def test_a_foreign_launcher_is_kept_without_a_yes(stock: tuple[Path, Path]) -> None:
    """Someone else's ~/.local/bin/tf-gpu-wizard is not replaced when nobody can answer."""
    root, py = stock
    tools = _tools_dir(root, {"uv": Path(uv_path())})
    env = _env(root, tools, py)
    env["PATH"] = f"{root / 'home' / '.local' / 'bin'}:{env['PATH']}"
    clone = _copy_repo(root)
    bin_dir = root / "home" / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    foreign = bin_dir / "tf-gpu-wizard"
    foreign.write_text("#!/bin/sh\necho mine\n")
    out = _install(clone, env, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert foreign.read_text() == "#!/bin/sh\necho mine\n"
    assert "was not written by install.sh" in out.stdout
    # The way to start it then is the entry point's full path.
    assert f"Start it any time with: {clone / '.venv' / 'bin' / 'tf-gpu-wizard'}" in out.stdout
