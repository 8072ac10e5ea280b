"""tf_proof.py: TensorFlow starts once for the CPU verify and the hello proof, and the hello step's
check accepts the verify run's record only while the script and the environment are unchanged.

A real virtual environment (made by the wizard's own uv) holds a small stand-in `tensorflow`
package; the hello script counts its runs in a file, so each test sees whether it ran again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wizard.plan.programs import program
from wizard.probe.installers import bundled_uv

FAKE_TF = """__version__ = "2.21.0"
class _T:
    device = "/job:localhost/replica:0/task:0/device:CPU:0"
    def __float__(self):
        return 1.0
class random:
    @staticmethod
    def uniform(shape):
        return _T()
def matmul(a, b):
    return _T()
def reduce_sum(t):
    return _T()
"""

HELLO = """import pathlib, sys
import tensorflow
runs = pathlib.Path(sys.argv[0]).with_name("runs.txt")
runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
print("Hello from the CPU", sys.argv[1:])
sys.exit(0 if pathlib.Path(sys.argv[0]).with_name("ok").exists() else "did not learn")
"""


@pytest.fixture
def env(tmp_path: Path) -> Path:
    uv = bundled_uv()
    if not uv:
        pytest.skip("the wizard's uv is not installed")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(FAKE_TF)
    return venv


def _hello(tmp_path: Path, ok: bool = True) -> Path:
    script = tmp_path / "share" / "hello_gpu.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(HELLO)
    if ok:
        (script.parent / "ok").write_text("")
    return script


def _proof(env: Path, *args: str) -> subprocess.CompletedProcess[str]:
    py = str(env / "bin" / "python")
    return subprocess.run([py, program("tf_proof.py"), *args], capture_output=True, text=True, check=False)


def _runs(script: Path) -> int:
    runs = script.with_name("runs.txt")
    return len(runs.read_text()) if runs.exists() else 0


def test_one_start_proves_both_and_the_hello_check_does_not_run_it_again(env: Path, tmp_path: Path) -> None:
    script = _hello(tmp_path)
    verify = _proof(env, "cpu", str(script))
    assert verify.returncode == 0, verify.stderr
    assert "matmul on /job:localhost/replica:0/task:0/device:CPU:0 ok" in verify.stdout
    assert "Hello from the CPU ['--cpu']" in verify.stdout and _runs(script) == 1
    check = _proof(env, "hello", str(script), "--cpu")
    assert check.returncode == 0 and "proven without a second start" in check.stdout
    assert _runs(script) == 1


def test_a_same_size_overwrite_in_the_environment_makes_the_check_run_the_script(
    env: Path, tmp_path: Path
) -> None:
    script = _hello(tmp_path)
    assert _proof(env, "cpu", str(script)).returncode == 0
    package = next((env / "lib").glob("python*/site-packages/tensorflow/__init__.py"))
    data = package.read_bytes()
    package.write_bytes(data.replace(b"2.21.0", b"2.99.0"))  # same size, other bytes
    check = _proof(env, "hello", str(script), "--cpu")
    assert check.returncode == 0 and "proven without" not in check.stdout
    assert _runs(script) == 2  # it ran as the student runs it


def test_an_edited_script_or_other_arguments_run_it_again(env: Path, tmp_path: Path) -> None:
    script = _hello(tmp_path)
    assert _proof(env, "cpu", str(script)).returncode == 0
    assert _proof(env, "hello", str(script)).returncode == 0 and _runs(script) == 2  # no --cpu: not recorded
    script.write_text(HELLO + "# edited\n")
    assert _proof(env, "hello", str(script), "--cpu").returncode == 0 and _runs(script) == 3


def test_a_hello_script_that_fails_in_the_verify_run_fails_its_own_check(env: Path, tmp_path: Path) -> None:
    script = _hello(tmp_path, ok=False)
    verify = _proof(env, "cpu", str(script))
    assert verify.returncode == 0  # the matmul, the verify's own proof, passed
    assert "did not pass here" in verify.stdout
    check = _proof(env, "hello", str(script), "--cpu")
    assert check.returncode != 0 and "did not learn" in check.stderr and _runs(script) == 2


def test_a_failing_tensorflow_clears_an_older_record(env: Path, tmp_path: Path) -> None:
    script = _hello(tmp_path)
    assert _proof(env, "cpu", str(script)).returncode == 0
    package = next((env / "lib").glob("python*/site-packages/tensorflow/__init__.py"))
    package.write_text("raise ImportError('libtensorflow_cc.so.2: cannot open shared object file')\n")
    assert _proof(env, "cpu", str(script)).returncode != 0
    package.write_text(FAKE_TF)  # put back: the files changed since the proof, so no record holds
    assert _proof(env, "hello", str(script), "--cpu").returncode == 0 and _runs(script) == 2
