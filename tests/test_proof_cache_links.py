"""The proof caches and uv's hard links. uv hard-links its cache into every environment it builds,
and each new link sets the ctime of every file it links; a write through any of those links
changes every environment linked to that file.

The real faults, made here: an environment installed by the wizard's uv (files hard-linked from
its cache), proven once; then a second environment built from the same uv cache. The first one's
files now have a new ctime and link count (checked): installed_ok.py hashes them again (it cannot
tell a new link from a write through one) and finds them whole, and tf_proof.py's hello record,
keyed by what proves content (inode, size, mtime), does not start "TensorFlow" again. Then a third
environment from the same cache, and 64 bytes overwritten in place through the third one's link,
its mtime set back: the link count moved with the ctime, and the first environment's check still
finds the damage (the digest cache once trusted a new ctime when the link count moved with it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_install_repair import _overwrite_same_size, _wheel
from tests.test_tf_proof import FAKE_TF, HELLO
from wizard.plan.programs import program


def _uv_env(tmp_path: Path) -> tuple[str, dict[str, str]]:
    uv_pkg = pytest.importorskip("uv")
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_NO_CONFIG": "1"}
    env.pop("VIRTUAL_ENV", None)
    for key in [k for k in env if k.startswith(("UV_INDEX", "UV_EXTRA_INDEX", "UV_FIND_LINKS", "PIP_"))]:
        env.pop(key)
    return str(uv_pkg.find_uv_bin()), env


def _build(uv: str, env: dict[str, str], venv: Path, wheels: Path) -> Path:
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    install = [uv, "pip", "install", "-q", "--python", str(py), "--no-index", "--find-links", str(wheels)]
    subprocess.run([*install, "wizdemo"], check=True, env=env)
    return py


COUNT_HASHES = """import atexit, hashlib, sys
_new, _count = hashlib.new, [0]
def _counted(*args, **kwargs):
    _count[0] += 1
    return _new(*args, **kwargs)
hashlib.new = _counted
atexit.register(lambda: sys.stderr.write("files hashed: %d\\n" % _count[0]))
"""


def _run(py: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(py), *args], capture_output=True, text=True, check=False, env=env)


def _hashed(py: Path, check: tuple[str, ...], counter: Path) -> tuple[int, int]:
    """(exit status, files hashed) of installed_ok.py's check."""
    done = _run(py, *check, env={**os.environ, "PYTHONPATH": str(counter)})
    return done.returncode, int(done.stderr.rsplit("files hashed: ", 1)[1].split()[0])


def test_a_second_environment_from_the_same_uv_cache_redoes_no_proof_and_hides_no_damage(
    tmp_path: Path,
) -> None:
    uv, env = _uv_env(tmp_path)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    pkg = {f"wizdemo/part{i}.py": f"VALUE = {i}\n".encode() * 50 for i in range(20)}
    pkg["wizdemo/__init__.py"] = b"from wizdemo.part1 import VALUE\n"
    _wheel(wheels, "wizdemo", "2.21.0", pkg, ("wizdep>=1",))
    _wheel(wheels, "wizdep", "1.0", {"wizdep/__init__.py": b"X = 1\n" * 100})

    first = tmp_path / "first"
    py = _build(uv, env, first, wheels)
    site = next(first.glob("lib/python*/site-packages"))
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(FAKE_TF)
    linked = site / "wizdemo" / "part3.py"
    assert linked.stat().st_nlink > 1, "uv linked the file from its cache"

    counter = tmp_path / "counter"
    counter.mkdir()
    (counter / "sitecustomize.py").write_text(COUNT_HASHES)
    check = (program("installed_ok.py"), "check", "wizdemo==2.21.0")
    status, hashed = _hashed(py, check, counter)
    assert status == 0 and hashed >= 23  # every recorded file of wizdemo (21) and wizdep (2), once
    assert _hashed(py, check, counter) == (0, 0)
    hello = tmp_path / "share" / "hello_gpu.py"
    hello.parent.mkdir()
    hello.write_text(HELLO)
    (hello.parent / "ok").write_text("")
    assert _run(py, program("tf_proof.py"), "cpu", str(hello)).returncode == 0
    runs = hello.with_name("runs.txt")
    assert runs.read_text() == "x"

    before = linked.stat()
    _build(uv, env, tmp_path / "second", wheels)  # the same cache: a new link to every file
    after = linked.stat()
    assert after.st_nlink > before.st_nlink and after.st_ctime_ns != before.st_ctime_ns, "the real fault"
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )

    status, hashed = _hashed(py, check, counter)
    assert status == 0 and hashed >= 23, "a new ctime is hashed again, whatever the link count"
    assert _hashed(py, check, counter) == (0, 0), "and remembered"
    proof = _run(py, program("tf_proof.py"), "hello", str(hello), "--cpu")
    assert proof.returncode == 0 and "proven without a second start" in proof.stdout, proof.stdout
    assert runs.read_text() == "x", "TensorFlow was started again"

    # A third environment from the same cache, and a write through its link that sets the mtime
    # back: the first environment's file changed with its link count.
    ours = site / "wizdemo" / "part4.py"
    seen = ours.stat()  # as the last check saw it
    third = tmp_path / "third"
    _build(uv, env, third, wheels)
    through = next(third.glob("lib/python*/site-packages")) / "wizdemo" / "part4.py"
    good = through.read_bytes()
    _overwrite_same_size(through)
    now = ours.stat()
    assert ours.read_bytes() != good and now.st_nlink > seen.st_nlink, "the real fault"
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (seen.st_ino, seen.st_size, seen.st_mtime_ns)
    done = _run(py, *check)
    assert done.returncode == 1 and "wizdemo: damaged (1 of" in done.stdout, done.stdout
    ours.write_bytes(good)  # put back (through the link: every environment) for what follows
    assert _run(py, *check).returncode == 0

    # What does change content is still found: a same-size overwrite, its mtime set back after.
    # (the plan's TensorFlow step runs this check before the hello step, and repairs what it finds)
    _overwrite_same_size(site / "wizdemo" / "part5.py")
    assert _hashed(py, check, counter) == (1, 1)
    # ... and a file rewritten as an editor does (a new mtime) voids the hello record.
    part = site / "wizdemo" / "part6.py"
    part.write_bytes(part.read_bytes())
    proof = _run(py, program("tf_proof.py"), "hello", str(hello), "--cpu")
    assert proof.returncode == 0 and runs.read_text() == "xx"
