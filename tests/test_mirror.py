"""Package mirrors: the catalogue the machine provides, what pip/uv/conda already use, the speed
probe, and `plan --mirror` putting the index into every pip/uv/conda command.

"Mirrors" here are HTTP servers on 127.0.0.1 (one fast, one that sleeps); no test reaches
another host. The catalogue lives in the test's TF_GPU_WIZARD_HOME (conftest).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PureWindowsPath

import pytest

from tests.apps.uv_machine import uv_path
from wizard.mirror.advice import DEFAULT, resolve, suggest
from wizard.mirror.catalogue import (
    Mirror,
    MirrorError,
    add_mirror,
    load_catalogue,
    remove_mirror,
    system_file,
    user_file,
)
from wizard.mirror.configured import parse_condarc, read_configured
from wizard.mirror.probe import ProbeResult, Target, probe_all, probe_one
from wizard.plan.mirror import rewrite_command
from wizard.sysio import System

CLI = [sys.executable, "-m", "wizard"]
SHELLCHECK = Path(sys.executable).with_name("shellcheck")
SIMPLE_PAGE = b"<!DOCTYPE html><html><body></body></html>\n"


# ---- local "mirrors" --------------------------------------------------------------------------


class Mirrors:
    """Two index servers on 127.0.0.1: `fast` answers at once, `slow` sleeps first. Both record paths."""

    def __init__(self, slow_seconds: float) -> None:
        self.seen: list[tuple[str, str]] = []
        self.servers: list[ThreadingHTTPServer] = []
        self.fast = self._serve("fast", 0.0)
        self.slow = self._serve("slow", slow_seconds)

    def _serve(self, name: str, delay: float) -> str:
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append((name, self.path))
                time.sleep(delay)
                body = SIMPLE_PAGE * 2000  # ~90 KiB: the probe reads only the first 64
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the probe gave up on us: that is the point of the slow one

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/simple"

    def close(self) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()


@pytest.fixture
def mirrors() -> Iterator[Mirrors]:
    m = Mirrors(slow_seconds=2.0)
    yield m
    m.close()


def closed_port_url() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple"  # nothing listens there any more


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PIP_CONFIG_FILE": os.devnull, **(env or {})}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, check=False, env=full)


# ---- the catalogue ----------------------------------------------------------------------------


def test_add_list_remove_keeps_every_other_line(tmp_path: Path) -> None:
    path = tmp_path / "mirrors.toml"
    path.write_text('# our lab\n[mirror.lab]\npypi = "https://lab.example.edu/simple"  # inside only\n')
    add_mirror("home", "https://idx.example.net/pypi/simple/", None, "at home", path=path)
    add_mirror("lab", "https://lab2.example.edu/simple", "https://lab2.example.edu/conda-forge", path=path)
    text = path.read_text()
    assert text.startswith("# our lab\n")  # the hand-written comment stays
    assert "lab.example.edu" not in text  # replaced, not duplicated
    cat = load_catalogue(system=tmp_path / "none.toml", user=path)
    assert cat.problems == []
    assert cat.mirrors["home"] == Mirror(
        "home", "https://idx.example.net/pypi/simple", None, "at home", "user"
    )
    assert cat.mirrors["lab"].conda == "https://lab2.example.edu/conda-forge"
    assert remove_mirror("home", path=path) is True
    assert remove_mirror("home", path=path) is False
    assert load_catalogue(system=tmp_path / "none.toml", user=path).names == ["lab"]
    assert path.read_text().startswith("# our lab\n")


def test_user_entry_replaces_the_system_one_and_a_bad_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    system, user = tmp_path / "etc.toml", tmp_path / "user.toml"
    system.write_text(
        '[mirror.lab]\npypi = "https://a.example.edu/simple"\n[mirror.it]\nconda = "https://a.example.edu/c"\n'
    )
    user.write_text('[mirror.lab]\npypi = "https://b.example.edu/simple"\n[mirror.bad]\npypi = "not a url"\n')
    cat = load_catalogue(system=system, user=user)
    assert cat.mirrors["lab"].pypi == "https://b.example.edu/simple" and cat.mirrors["lab"].origin == "user"
    assert cat.mirrors["it"].origin == "system"
    assert "bad" not in cat.mirrors and len(cat.problems) == 1 and "bad" in cat.problems[0]
    user.write_text("[mirror.lab\n")  # damaged: reported, and never overwritten by add
    assert load_catalogue(system=system, user=user).problems
    with pytest.raises(MirrorError, match="cannot be used"):
        add_mirror("x", "https://c.example.edu/simple", None, path=user)
    assert user.read_text() == "[mirror.lab\n"


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("tuna", "ftp://x.example.edu/simple"),
        ("tuna", "https://x.example.edu/a b"),
        ("tuna", "https://x.example.edu/\x1b[2J"),
        ("default", "https://x.example.edu/simple"),
        ("a/b", "https://x.example.edu/simple"),
        ("", "https://x.example.edu/simple"),
    ],
)
def test_bad_names_and_addresses_are_refused(tmp_path: Path, name: str, url: str) -> None:
    with pytest.raises(MirrorError):
        add_mirror(name, url, None, path=tmp_path / "m.toml")
    assert not (tmp_path / "m.toml").exists()


def test_mirror_cli_add_list_remove_and_one_line_errors() -> None:
    added = run_cli("mirror", "add", "campus", "--pypi", "http://127.0.0.1:9/simple", "--note", "lab")
    assert added.returncode == 0, added.stderr
    assert user_file().is_file() and not system_file().exists()
    listed = run_cli("mirror", "list", "--json")
    import json

    data = json.loads(listed.stdout)
    assert [m["name"] for m in data["mirrors"]] == ["campus"]
    bad = run_cli("mirror", "add", "campus", "--pypi", "nonsense")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    gone = run_cli("mirror", "remove", "campus")
    assert gone.returncode == 0
    again = run_cli("mirror", "remove", "campus")
    assert again.returncode == 1 and len(again.stderr.strip().splitlines()) == 1


# ---- what the machine is already configured to use ------------------------------------------


def test_configured_indexes_are_read_from_pip_uv_and_conda_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "pip.conf").write_text("[global]\nindex-url = https://etc.example.edu/simple\n")
    conf = root / "home" / "student" / ".config"
    (conf / "pip").mkdir(parents=True)
    (conf / "pip" / "pip.conf").write_text(
        "[global]\nindex-url = https://user.example.edu/simple\nextra-index-url = https://x.example.edu/s\n"
    )
    (conf / "uv").mkdir()
    (conf / "uv" / "uv.toml").write_text('[[index]]\nurl = "https://uv.example.edu/simple"\ndefault = true\n')
    (root / "home" / "student" / ".condarc").write_text(
        "channel_alias: https://conda.example.edu/anaconda\nchannels:\n  - conda-forge  # ours\n  - 'bioconda'\n"
    )
    env = {"HOME": "/home/student"}
    found = read_configured(System(root=root), env, Path("/home/student"))
    assert found.pip_index is not None and found.pip_index.value == "https://user.example.edu/simple"
    assert found.pip_index.source == "/home/student/.config/pip/pip.conf"  # the user's file wins
    assert [s.value for s in found.pip_extra] == ["https://x.example.edu/s"]
    assert found.uv_index is not None and found.uv_index.value == "https://uv.example.edu/simple"
    assert [s.value for s in found.conda_channels] == ["conda-forge", "bioconda"]
    assert found.conda_alias is not None and found.conda_alias.value == "https://conda.example.edu/anaconda"
    # The environment beats every file, as it does for pip and uv themselves.
    env |= {
        "PIP_INDEX_URL": "https://env.example.edu/simple",
        "UV_DEFAULT_INDEX": "https://uvenv.example.edu/s",
    }
    found = read_configured(System(root=root), env, Path("/home/student"))
    assert found.pip_index is not None and (found.pip_index.value, found.pip_index.source) == (
        "https://env.example.edu/simple",
        "PIP_INDEX_URL",
    )
    assert found.uv_index is not None and found.uv_index.source == "UV_DEFAULT_INDEX"
    empty = read_configured(System(root=tmp_path / "bare"), {}, Path("/home/nobody"))
    assert not empty.any


def test_condarc_flow_lists() -> None:
    assert parse_condarc("channels: [conda-forge, 'defaults']\n") == (["conda-forge", "defaults"], None)


# ---- the speed probe ----------------------------------------------------------------------------


def test_probe_ranks_the_fast_mirror_first_and_gives_up_on_the_slow_one(mirrors: Mirrors) -> None:
    targets = [Target("slow", mirrors.slow), Target("fast", mirrors.fast), Target("gone", closed_port_url())]
    started = time.monotonic()
    results = probe_all(targets, timeout=0.8)
    elapsed = time.monotonic() - started
    assert results[0].name == "fast"
    by_name = {r.name: r for r in results}
    assert by_name["fast"].ok and by_name["fast"].received == 64 * 1024
    assert not by_name["slow"].ok and not by_name["gone"].ok
    assert elapsed < 2.0  # all at once, each within its limit (the slow one sleeps 2 s)
    assert ("fast", "/simple/pip/") in mirrors.seen  # the small page pip itself would ask for


def test_probe_of_a_conda_channel_reads_its_repodata(mirrors: Mirrors) -> None:
    result = probe_one(Target("c", mirrors.fast.replace("/simple", "/conda-forge"), "conda"), timeout=2)
    assert result.ok and ("fast", "/conda-forge/noarch/repodata.json") in mirrors.seen


def _result(name: str, ok: bool, seconds: float) -> ProbeResult:
    return ProbeResult(Target(name, f"http://127.0.0.1:9/{name}"), ok, seconds, 100 if ok else 0)


def test_suggestions_from_locale_and_from_the_probe(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    add_mirror("lab", "http://127.0.0.1:9/simple", None, path=path)
    cat = load_catalogue(system=tmp_path / "none.toml", user=path)
    bare = read_configured(System(root=tmp_path / "bare"), {}, Path("/home/x"))
    by_locale = suggest(cat, bare, locale="zh_CN.UTF-8")
    assert by_locale is not None and by_locale.mirror is not None and by_locale.mirror.name == "lab"
    assert suggest(cat, bare, locale="en_US.UTF-8") is None
    assert suggest(cat, bare, locale="zh_TW.UTF-8") is None  # the slow default is a mainland matter
    empty = load_catalogue(system=tmp_path / "none.toml", user=tmp_path / "none2.toml")
    no_cat = suggest(empty, bare, locale="zh_CN.UTF-8")
    assert no_cat is not None and no_cat.mirror is None and "mirror add" in no_cat.message
    slow = suggest(cat, bare, results=[_result(DEFAULT, True, 4.0), _result("lab", True, 0.3)])
    assert slow is not None and slow.reason == "probe" and slow.mirror is not None and "lab" in slow.message
    fast = suggest(cat, bare, results=[_result(DEFAULT, True, 0.2), _result("lab", True, 0.1)])
    assert fast is not None and fast.mirror is None and fast.reason == "default_fast"
    silent = suggest(cat, bare, results=[_result(DEFAULT, False, 3.0), _result("lab", False, 3.0)])
    assert silent is not None and silent.mirror is None and silent.reason == "none_answered"


def test_mirror_probe_cli_against_local_mirrors(mirrors: Mirrors) -> None:
    for name, url in (("quick", mirrors.fast), ("sleepy", mirrors.slow)):
        assert run_cli("mirror", "add", name, "--pypi", url).returncode == 0
    # The default index here is a local one too (PIP_INDEX_URL), so nothing leaves this machine.
    result = run_cli("mirror", "probe", "--timeout", "1", env={"PIP_INDEX_URL": closed_port_url()})
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines() if line.startswith("  ")]
    assert lines[0][0] == "quick"  # fastest first
    assert "--mirror quick" in result.stdout  # the default did not answer: the fast mirror is suggested


def test_zh_cn_locale_suggests_a_mirror_when_planning(tmp_path: Path) -> None:
    assert run_cli("mirror", "add", "lab", "--pypi", "http://127.0.0.1:9/simple").returncode == 0
    zh = run_cli("plan", "--profile", "wsl2-rtx4060-laptop", env={"LANG": "zh_CN.UTF-8", "LC_ALL": ""})
    assert zh.returncode == 0 and "--mirror lab" in zh.stderr
    en = run_cli("plan", "--profile", "wsl2-rtx4060-laptop", env={"LANG": "en_US.UTF-8", "LC_ALL": ""})
    assert en.returncode == 0 and "--mirror" not in en.stderr


# ---- the plan on a mirror -------------------------------------------------------------------------


def _commands(plan: dict[str, object]) -> list[list[str]]:
    return [cmd for step in plan["steps"] for cmd in step["commands"]]  # type: ignore[index,union-attr]


def _is_pip_install(cmd: list[str]) -> bool:
    return cmd[1:4] == ["-m", "pip", "install"]


def _is_uv_install(cmd: list[str]) -> bool:
    """The wizard's own uv (a demo plan names it where the demo user has it)."""
    return PureWindowsPath(cmd[0]).name in ("uv", "uv.exe") and cmd[1:3] == ["pip", "install"]


@pytest.mark.parametrize(
    ("profile", "method"),
    [("wsl2-rtx4060-laptop", None), ("ubuntu-24.04-rtx4090-fresh", "conda"), ("windows11-rtx3070", "conda")],
)
def test_plan_mirror_name_puts_the_index_into_every_pip_and_conda_command(
    profile: str, method: str | None
) -> None:
    import json

    url, channel = "http://127.0.0.1:8999/simple", "http://127.0.0.1:8999/conda-forge"
    assert run_cli("mirror", "add", "tuna", "--pypi", url, "--conda", channel).returncode == 0
    extra = ["--method", method] if method else []
    before = json.loads(run_cli("plan", "--profile", profile, "--json", *extra).stdout)
    after_run = run_cli("plan", "--profile", profile, "--json", "--mirror", "tuna", *extra)
    assert after_run.returncode == 0, after_run.stderr
    after = json.loads(after_run.stdout)
    pip = [c for c in _commands(after) if _is_pip_install(c)]
    uv = [c for c in _commands(after) if _is_uv_install(c)]
    assert pip or uv, "the plan has installs"
    assert bool(uv) == (profile != "windows11-rtx3070"), "uv everywhere but on native Windows"
    for cmd in pip:
        assert cmd[4:6] == ["--index-url", url]
    for cmd in uv:  # uv's own flag for the index that replaces the default one
        assert cmd[3:5] == ["--default-index", url]
    conda = [
        c for c in _commands(after) if PureWindowsPath(c[0]).name.startswith("conda") and c[1] == "create"
    ]
    for cmd in conda:
        assert cmd[2:5] == ["--override-channels", "-c", channel] and "conda-forge" not in cmd[5:]
    # The conda route builds its environment through condalock.py (solve once, then the explicit lock)
    condalock = [c for c in _commands(after) if len(c) > 2 and PureWindowsPath(c[1]).name == "condalock.py"]
    creates = [c for c in condalock if c[2] == "create"]
    for cmd in creates:
        assert cmd[3:5] == ["--channel", channel] and "conda-forge" not in cmd[5:]
    assert bool(conda or creates) == (method == "conda")

    # Nothing else changed: without the index arguments, the commands are the same.
    def strip(cmd: list[str]) -> list[str]:
        out, skip = [], 0
        for arg in cmd:
            if skip:
                skip -= 1
            elif arg in ("--index-url", "--default-index", "-c", "--channel"):
                skip = 1
            elif arg != "--override-channels":
                out.append(arg)
        return out

    assert [strip(c) for c in _commands(after)] == [strip(c) for c in _commands(before)]
    assert any("tuna" in n for n in after["notes"])


def test_exported_script_on_a_mirror_passes_shellcheck_and_pip_really_asks_the_mirror(
    mirrors: Mirrors, tmp_path: Path
) -> None:
    assert run_cli("mirror", "add", "tuna", "--pypi", mirrors.fast).returncode == 0
    result = run_cli("plan", "--profile", "wsl2-rtx4060-laptop", "--script", "--mirror", "tuna")
    assert result.returncode == 0, result.stderr
    script = tmp_path / "install.sh"
    script.write_text(result.stdout)
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0
    checked = subprocess.run([str(SHELLCHECK), str(script)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout
    uv_lines = [line.strip() for line in result.stdout.splitlines() if "/uv pip install " in line]
    assert uv_lines and all(f"--default-index {mirrors.fast} " in line for line in uv_lines)
    # Run the script's first uv install for real (this machine's uv and interpreter, --dry-run):
    # uv asks our mirror.
    argv = shlex.split(uv_lines[0])
    python = argv.index("--python") + 1
    env = tmp_path / "env"  # an empty environment, as the plan's venv step has just made
    subprocess.run([uv_path(), "venv", "-q", "--python", sys.executable, str(env)], check=True)
    argv = [
        uv_path(),
        *argv[1:3],
        "--dry-run",
        "--no-cache",
        *argv[3:python],
        str(env / "bin" / "python"),
        *argv[python + 1 :],
    ]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull, "UV_NO_CONFIG": "1"},
    )
    assert ("fast", "/simple/pip/") in mirrors.seen, done.stderr[-500:]


def test_plan_mirror_url_directly_and_unknown_names() -> None:
    url = "http://127.0.0.1:8999/pypi/simple"
    result = run_cli("plan", "--profile", "wsl2-rtx4060-laptop", "--mirror", url)
    assert result.returncode == 0 and f"--default-index {url}" in result.stdout  # uv's flag
    # `--mirror` may also stand before the command, like --profile.
    before = run_cli("--mirror", url, "plan", "--profile", "wsl2-rtx4060-laptop")
    assert before.returncode == 0 and f"--default-index {url}" in before.stdout
    applied = run_cli("apply", "--dry-run", "--new", "--profile", "wsl2-rtx4060-laptop", "--mirror", url)
    assert applied.returncode == 0 and f"uv pip install --default-index {url} " in applied.stdout
    default = run_cli("plan", "--profile", "wsl2-rtx4060-laptop", "--mirror", "default")
    assert default.returncode == 0 and "--default-index" not in default.stdout
    unknown = run_cli("plan", "--profile", "wsl2-rtx4060-laptop", "--mirror", "tuna")
    assert (
        unknown.returncode == 2 and "tuna" in unknown.stderr and len(unknown.stderr.strip().splitlines()) == 1
    )


def test_rewrite_of_uv_conda_and_plain_pip_commands() -> None:
    m = Mirror("lab", pypi="http://10.0.0.5/simple", conda="https://10.0.0.5/conda-forge")
    assert rewrite_command(("uv", "pip", "install", "-i", "http://old/simple", "numpy"), m) == (
        "uv",
        "pip",
        "install",
        "--default-index",
        "http://10.0.0.5/simple",
        "--allow-insecure-host",
        "10.0.0.5",
        "numpy",
    )
    assert rewrite_command(("pip3", "install", "--index-url=https://old/simple", "x"), m) == (
        "pip3",
        "install",
        "--index-url",
        "http://10.0.0.5/simple",
        "--trusted-host",
        "10.0.0.5",
        "x",
    )
    conda = ("/opt/conda/bin/mamba", "install", "-y", "-c", "conda-forge", "--override-channels", "cudnn")
    assert rewrite_command(conda, m) == (
        "/opt/conda/bin/mamba",
        "install",
        "--override-channels",
        "-c",
        "https://10.0.0.5/conda-forge",
        "-y",
        "cudnn",
    )
    for untouched in (
        ("conda", "run", "-p", "/x", "python"),
        ("python", "-c", "print(1)"),
        ("pip", "uninstall", "x"),
    ):
        assert rewrite_command(untouched, m) == untouched
    assert resolve("default", load_catalogue()) is None
