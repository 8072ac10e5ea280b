"""A mirror address with a password (`https://user:password@host/...`) in mirrors.toml: the
password is in no output (plan, plan --json, plan --script, mirror list and --json), in no
command, script or journal; pip and uv read it from the user's own ~/.netrc (shown by a real uv
install from a 127.0.0.1 index that refuses requests without it)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.test_install_repair import _wheel
from wizard.mirror.secret import mask_text, masked, without_password

ROOT = Path(__file__).resolve().parents[1]
SECRET = "s3cr3t-Pw"
URL = f"https://alice:{SECRET}@mirror.example.edu/pypi/simple"
DEMO = "ubuntu-24.04-rtx4090-fresh"


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TF_GPU_WIZARD_HOME": str(home), "PYTHONPATH": str(ROOT), "HOME": str(home)}
    code = "import sys; from wizard.cli.main import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_forms_of_an_address() -> None:
    assert masked(URL) == "https://alice:****@mirror.example.edu/pypi/simple"
    assert without_password(URL) == "https://alice@mirror.example.edu/pypi/simple"
    assert masked("https://mirror.example.edu/simple") == "https://mirror.example.edu/simple"
    assert SECRET not in mask_text(f"GET {URL} failed: 401")


def test_no_output_and_no_file_holds_the_password(tmp_path: Path) -> None:
    home = tmp_path / "wizard"
    added = _cli(home, "mirror", "add", "campus", "--pypi", URL)
    assert added.returncode == 0, added.stderr
    outputs = {
        "plan": _cli(home, "--profile", DEMO, "--mirror", "campus", "plan"),
        "plan --json": _cli(home, "--profile", DEMO, "--mirror", "campus", "plan", "--json"),
        "plan --script": _cli(home, "--profile", DEMO, "--mirror", "campus", "plan", "--script"),
        "mirror list": _cli(home, "mirror", "list"),
        "mirror list --json": _cli(home, "mirror", "list", "--json"),
        "apply": _cli(home, "--profile", DEMO, "--mirror", "campus", "apply", "--yes"),
    }
    for what, done in outputs.items():
        assert done.returncode == 0, (what, done.stderr[-1000:])
        assert SECRET not in done.stdout + done.stderr, what
    assert "alice:****@mirror.example.edu" in outputs["mirror list"].stdout
    assert "alice@mirror.example.edu" in outputs["plan --script"].stdout  # the commands name the user
    assert "~/.netrc" in outputs["plan"].stdout
    for path in home.rglob("*"):  # the journal, logs, programs: only mirrors.toml holds it
        if path.is_file() and path.name != "mirrors.toml":
            assert SECRET.encode() not in path.read_bytes(), path


class _AuthIndex:
    """A PEP 503 index on 127.0.0.1 that answers 401 without alice's password."""

    def __init__(self, wheels: Path) -> None:
        want = "Basic " + base64.b64encode(f"alice:{SECRET}".encode()).decode()
        self.refused = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                self.do_GET(head=True)

            def do_GET(self, head: bool = False) -> None:
                if self.headers.get("Authorization") != want:
                    owner.refused += 1
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                parts = [p for p in self.path.split("/") if p]
                if parts[:1] == ["files"]:
                    body, kind = (wheels / parts[1]).read_bytes(), "application/octet-stream"
                else:
                    links = "".join(f'<a href="/files/{w.name}">{w.name}</a>' for w in wheels.glob("*.whl"))
                    body, kind = f"<html><body>{links}</body></html>".encode(), "text/html"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port = self.server.server_address[1]


def test_uv_takes_the_password_from_the_users_netrc(tmp_path: Path) -> None:
    uv_pkg = pytest.importorskip("uv")
    from wizard.mirror.catalogue import Mirror
    from wizard.plan.mirror import rewrite_command

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "wizdemo", "1.0", {"wizdemo/__init__.py": b"X = 1\n"})
    index = _AuthIndex(wheels)
    try:
        url = f"http://alice:{SECRET}@127.0.0.1:{index.port}/simple"
        venv = tmp_path / "venv"
        uv = str(uv_pkg.find_uv_bin())
        env = {
            **os.environ,
            "UV_CACHE_DIR": str(tmp_path / "cache"),
            "UV_NO_CONFIG": "1",
            "HOME": str(tmp_path),
        }
        env.pop("VIRTUAL_ENV", None)
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=env)
        argv = rewrite_command(
            (uv, "pip", "install", "--python", str(venv / "bin" / "python"), "wizdemo"), Mirror("m", pypi=url)
        )
        assert SECRET not in " ".join(argv)
        empty = tmp_path / "empty-netrc"
        empty.write_text("")
        empty.chmod(0o600)
        refused = subprocess.run(argv, env={**env, "NETRC": str(empty)}, capture_output=True, timeout=120)
        assert refused.returncode != 0 and index.refused > 0  # without the user's config: no way in
        netrc = tmp_path / ".netrc"
        netrc.write_text(f"machine 127.0.0.1 login alice password {SECRET}\n")
        netrc.chmod(0o600)
        done = subprocess.run(
            argv, env={**env, "NETRC": str(netrc)}, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert (next(venv.glob("lib/python*/site-packages")) / "wizdemo" / "__init__.py").exists()
    finally:
        index.server.shutdown()
        index.server.server_close()
