"""With uv, a repair downloads nothing uv already has: the plan's own TensorFlow step, run by the real
Runner with the wizard's uv against a real package index on 127.0.0.1 that counts the wheels it
sends. The first install fetches each wheel; a deleted file is put back from uv's cache with no wheel
fetched again; a file overwritten in place (uv hard-links its cache into the env, so the cache took
the same damage) gets that one package fetched again, nothing else.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from packaging.version import Version

from tests.test_install_repair import _overwrite_same_size, _wheel
from tests.test_runner_helpers import Recorder
from wizard.choose.choice import Candidate, VersionSet
from wizard.choose.harvest import WheelFile
from wizard.choose.lock import Lock, LockLine, LockTarget
from wizard.plan.common import tensorflow_step
from wizard.plan.installer import Installer
from wizard.plan.locked import locked_environment_step
from wizard.plan.model import Plan, PlanInputs
from wizard.profile import MachineProfile
from wizard.run.runner import Runner
from wizard.run.sudo import SudoSession

NOT_ROOT = SudoSession(sudo="/nonexistent-sudo", is_root=True)


class Index:
    """A PEP 503 simple index of a folder of wheels; counts the wheel downloads."""

    def __init__(self, wheels: Path) -> None:
        self.fetched: list[str] = []
        fetched, folder = self.fetched, wheels

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                self.do_GET(head=True)

            def do_GET(self, head: bool = False) -> None:
                parts = [p for p in self.path.split("/") if p]
                if parts[:1] == ["files"] and len(parts) == 2:
                    body = (folder / parts[1]).read_bytes()
                    if not head:
                        fetched.append(parts[1])
                    kind = "application/octet-stream"
                    cache = "max-age=365000000, immutable, public"  # what package indexes send for files
                elif parts[:1] == ["simple"] and len(parts) == 2:
                    name = parts[1]
                    links = [
                        f'<a href="/files/{w.name}#sha256={hashlib.sha256(w.read_bytes()).hexdigest()}">{w.name}</a>'
                        for w in sorted(folder.glob("*.whl"))
                        if w.name.split("-")[0].replace("_", "-").lower() == name
                    ]
                    body = ("<html><body>" + "".join(links) + "</body></html>").encode()
                    kind = "text/html"
                    cache = "max-age=600, public"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", cache)
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    pkg = {f"wizdemo/part{i}.py": f"VALUE = {i}\n".encode() * 50 for i in range(10)}
    pkg["wizdemo/__init__.py"] = b"from wizdemo.part1 import VALUE\n" * 4
    _wheel(wheels, "wizdemo", "2.21.0", pkg, ("wizdep>=1",))
    _wheel(wheels, "wizdep", "1.0", {"wizdep/__init__.py": b"X = 1\n" * 100})
    served = Index(wheels)
    yield served
    served.server.shutdown()
    served.server.server_close()


def _uv_env(tmp_path: Path) -> tuple[str, Path, str, dict[str, str]]:
    """The wizard's own uv, a fresh venv made with it, and an environment whose uv cache is
    tmp_path's and which reads no index settings of this machine: (uv, venv, its python, env)."""
    uv_pkg = pytest.importorskip("uv")
    uv = str(uv_pkg.find_uv_bin())
    venv = tmp_path / "venv"
    env = {
        **os.environ,
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "PIP_CONFIG_FILE": os.devnull,
        "UV_NO_CONFIG": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    for key in [k for k in env if k.startswith(("UV_INDEX", "UV_EXTRA_INDEX", "UV_FIND_LINKS", "PIP_"))]:
        env.pop(key)
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=env)
    return uv, venv, str(venv / "bin" / "python"), env


def test_a_repair_with_uv_downloads_nothing_uv_has(index: Index, tmp_path: Path) -> None:
    uv, venv, py, env = _uv_env(tmp_path)
    installer = Installer("uv", uv, ("--index-url", index.url))
    cand = Candidate(VersionSet("2.21.0", "3.11", None, None, "cpu"), ok=True)
    step = tensorflow_step(
        MachineProfile(),
        PlanInputs(cand, venv, tmp_path),
        distribution="wizdemo",
        python=py,
        installer=installer,
    )
    plan = Plan(cand.set, "linux", str(venv), py, (step,), label="uv cache test")

    first = Recorder()
    result = Runner(plan, first, sudo=NOT_ROOT, env=env).run()
    assert result.outcome == "finished", "\n".join(first.lines[-20:])
    assert set(index.fetched) == {"wizdemo-2.21.0-py3-none-any.whl", "wizdep-1.0-py3-none-any.whl"}
    before = len(index.fetched)  # uv may read a wheel's metadata first, then the wheel

    site = next(venv.glob("lib/python*/site-packages"))
    # A file deleted (uv's cache still has it whole): put back from the cache, nothing fetched.
    (site / "wizdemo" / "part3.py").unlink()
    _repair(plan, env)
    assert len(index.fetched) == before, f"the repair fetched again: {index.fetched[before:]}"

    # Overwritten in place: uv hard-links its cache into the env, so the cached copy took the same
    # damage; that one package (and only it) is fetched again, and the result is whole.
    target = site / "wizdemo" / "__init__.py"
    assert target.stat().st_nlink > 1, "uv linked the file from its cache"
    _overwrite_same_size(target)
    _repair(plan, env)
    again = index.fetched[before:]
    assert again and set(again) == {"wizdemo-2.21.0-py3-none-any.whl"}, again
    check = subprocess.run(list(step.check.argv), env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout


def _repair(plan: Plan, env: dict[str, str]) -> None:
    rec = Recorder()
    result = Runner(plan, rec, sudo=NOT_ROOT, env=env).run()
    assert result.outcome == "finished", "\n".join(rec.lines[-20:])
    assert rec.statuses() == {"tensorflow": "done"}, "repaired, not skipped"


def test_the_locked_install_fetches_a_damaged_package_again_instead_of_relinking_it(
    index: Index, tmp_path: Path
) -> None:
    """The plan's locked step (lockfile.py place / repair --uv / uv pip install --require-hashes):
    a file overwritten in the environment is the same inode as uv's cached copy, so a plain
    reinstall would link the damaged bytes back; the repair cleans that package from uv's cache and
    the install fetches a good copy, checked against the lock's sha256 and the RECORD."""
    uv, venv, py, env = _uv_env(tmp_path)
    wheels = tmp_path / "wheels"
    lines = tuple(
        LockLine(w.name.split("-")[0], w.name.split("-")[1], (WheelFile(w.name, _sha256(w)),))
        for w in sorted(wheels.glob("*.whl"))
    )
    lock = Lock(lines, LockTarget("3.11", "x86_64-manylinux_2_28", Version("2.17")))
    installer = Installer("uv", uv, ("--index-url", index.url))
    cand = Candidate(VersionSet("2.21.0", "3.11", None, None, "cpu"), ok=True)
    step = locked_environment_step(MachineProfile(), PlanInputs(cand, venv, tmp_path), lock, installer)
    repair = next(argv for argv in step.commands if "repair" in argv)
    assert repair[repair.index("repair") + 1 : -1] == ("--uv", uv), "the plan shows the cache clean-up"
    plan = Plan(cand.set, "linux", str(venv), py, (step,), label="uv cache, locked")

    _repair(plan, env)  # the first install
    fetched = len(index.fetched)
    site = next(venv.glob("lib/python*/site-packages"))
    target = site / "wizdemo" / "__init__.py"
    good = target.read_bytes()
    assert target.stat().st_nlink > 1, "uv linked the file from its cache"
    _overwrite_same_size(target)
    assert subprocess.run(list(step.check.argv), env=env, capture_output=True).returncode != 0

    rec = Recorder()
    assert Runner(plan, rec, sudo=NOT_ROOT, env=env).run().outcome == "finished", "\n".join(rec.lines[-20:])
    assert rec.statuses() == {"tensorflow": "done"}, "repaired, not skipped as already done"
    assert any("cleaning it for: wizdemo" in line for line in rec.lines), rec.lines[-20:]
    assert set(index.fetched[fetched:]) == {"wizdemo-2.21.0-py3-none-any.whl"}  # that one, again
    assert target.read_bytes() == good
    assert subprocess.run(list(step.check.argv), env=env, capture_output=True).returncode == 0


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
