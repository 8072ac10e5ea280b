"""The CLI in any locale and with closed streams, run as a person's shell runs it.

- Locales built here with localedef (GB2312 as plain `LANG=zh_CN` gives it in glibc, GBK, and
  en_US.ISO-8859-1): detect, bench and monitor print; Chinese comes out as Chinese in the locale's
  own encoding; what it cannot encode is replaced, never raised.
- Closed streams made by the shell (`<&-`, `>&-`): one clear line or a quiet exit, never a
  traceback; `apply` without a terminal says to use --yes; the app says it needs a terminal.
- `plan --script | head -1`: no BrokenPipeError, no "Exception ignored".
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.text import in_language

ROOT = Path(__file__).resolve().parents[1]
DEMO = "ubuntu-22.04-rtx3090-cuda11.8"
WIZARD = f"{shlex.quote(sys.executable)} -c 'import sys; from wizard.cli.main import main; sys.exit(main())'"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shells and glibc locales")


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIO"))}
    env.update(TF_GPU_WIZARD_HOME=str(home), PYTHONPATH=str(ROOT), HOME=str(home), **extra)
    env.pop("TF_GPU_WIZARD_LANG", None)
    return env


def _sh(command: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["bash", "-c", command], env=env, capture_output=True, timeout=timeout)


@pytest.fixture(scope="module")
def locales(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not shutil.which("localedef") or not Path("/usr/share/i18n/charmaps/GB2312.gz").exists():
        pytest.skip("localedef and glibc's charmaps are needed to build the locales")
    folder = tmp_path_factory.mktemp("locales")
    for source, charmap, name in (
        ("zh_CN", "GB2312", "zh_CN"),
        ("zh_CN", "GBK", "zh_CN.GBK"),
        ("en_US", "ISO-8859-1", "en_US.ISO-8859-1"),
    ):
        done = subprocess.run(
            ["localedef", "-i", source, "-f", charmap, str(folder / name)], capture_output=True, text=True
        )
        if not (folder / name).exists():
            pytest.skip(f"localedef could not build {name}: {done.stderr[-300:]}")
    return folder


@pytest.mark.parametrize(
    ("locale", "encoding", "lang"),
    [("zh_CN", "gb2312", "zh"), ("zh_CN.GBK", "gbk", "zh"), ("en_US.ISO-8859-1", "latin-1", "en")],
)
@pytest.mark.parametrize(
    "command",
    [["detect"], ["monitor", "--count", "2", "--interval", "0.2"], ["bench", "--quick"], ["recommend"]],
    ids=lambda c: c[0],
)
def test_output_in_a_non_utf8_locale(
    locales: Path, tmp_path: Path, locale: str, encoding: str, lang: str, command: list[str]
) -> None:
    env = _env(tmp_path, LOCPATH=str(locales), LANG=locale, LC_ALL=locale)
    probe = _sh(f"{shlex.quote(sys.executable)} -c 'import sys; print(sys.stdout.encoding)'", env)
    assert probe.stdout.decode().strip().lower().replace("-", "") in (encoding.replace("-", ""), "iso88591")
    done = _sh(" ".join([WIZARD, "--profile", DEMO, *map(shlex.quote, command)]), env, timeout=240)
    err = done.stderr.decode(encoding, "replace")
    assert "Traceback" not in err and "UnicodeEncodeError" not in err, err[-2000:]
    assert done.returncode == 0, err[-2000:]
    out = done.stdout.decode(encoding)  # the locale's own encoding, whole
    if lang == "zh":
        # Chinese prints as Chinese: a line of the zh text is there in GB2312/GBK bytes.
        assert any("\u4e00" <= ch <= "\u9fff" for ch in out), out[:500]


def test_chinese_detect_in_gbk_shows_the_zh_text(locales: Path, tmp_path: Path) -> None:
    env = _env(tmp_path, LOCPATH=str(locales), LANG="zh_CN.GBK", LC_ALL="zh_CN.GBK")
    done = _sh(f"{WIZARD} --profile {DEMO} apply --dry-run", env)
    assert done.returncode == 0, done.stderr.decode("gbk", "replace")[-2000:]
    out = done.stdout.decode("gbk")
    assert in_language("zh", "runner.cli.would", state=in_language("zh", "runner.cli.would_run")) in out


def test_plan_script_into_head_ends_quietly(tmp_path: Path) -> None:
    env = _env(tmp_path, LANG="C.UTF-8")
    for _ in range(3):  # the pipe closes at a different moment each time
        done = _sh(f"set -o pipefail; {WIZARD} --profile {DEMO} plan --script | head -1", env)
        err = done.stderr.decode()
        assert done.stdout.decode().startswith("#!"), done.stdout[:200]
        assert "BrokenPipeError" not in err and "Exception ignored" not in err and not err.strip(), err
        assert done.returncode == 0


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("plan >&-", "cli.stdout_closed"),
        ("apply --yes >&-", "cli.stdout_closed"),
        ("detect >&-", "cli.stdout_closed"),
    ],
)
def test_a_closed_stdout_is_one_line_on_stderr(tmp_path: Path, command: str, key: str) -> None:
    env = _env(tmp_path, LANG="C.UTF-8")
    done = _sh(f"{WIZARD} --profile {DEMO} {command}", env)
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    assert err.strip() == in_language("en", key), err
    assert done.returncode == 1
    assert not (tmp_path / "state" / f"run-simulated-demo-{DEMO}.json").exists()  # nothing was done


def test_closed_stdout_and_stderr_exit_quietly(tmp_path: Path) -> None:
    done = _sh(f"{WIZARD} --profile {DEMO} plan >&- 2>&-", _env(tmp_path, LANG="C.UTF-8"))
    assert done.returncode == 1 and done.stdout == b"" and done.stderr == b""


def test_apply_without_a_terminal_says_to_use_yes(tmp_path: Path) -> None:
    env = _env(tmp_path, LANG="C.UTF-8")
    for redirect in ("<&-", "</dev/null"):
        done = _sh(f"{WIZARD} --profile {DEMO} apply {redirect}", env)
        err = done.stderr.decode()
        assert "Traceback" not in err and "lost sys.stdin" not in err, err
        # The hint keeps the session's --profile (issue 36): it never acts on this computer.
        want = in_language("en", "runner.cli.no_terminal")
        assert err.strip() == want.replace("tf-gpu-wizard apply", f"tf-gpu-wizard apply --profile {DEMO}"), (
            err
        )
        assert "--yes" in err and done.returncode == 2
    # With --yes it runs, stdin closed and all.
    done = _sh(f"{WIZARD} --profile {DEMO} apply --yes <&-", env)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "Traceback" not in done.stderr.decode()


def test_doctor_log_from_a_closed_stdin_is_one_line(tmp_path: Path) -> None:
    done = _sh(f"{WIZARD} doctor --log - <&-", _env(tmp_path, LANG="C.UTF-8"))
    err = done.stderr.decode()
    assert "Traceback" not in err and "AttributeError" not in err, err
    assert len(err.strip().splitlines()) == 1 and "standard input is closed" in err, err
    assert done.returncode == 2


def test_the_app_without_a_terminal_says_so(tmp_path: Path) -> None:
    env = _env(tmp_path, LANG="C.UTF-8")
    for redirect in ("<&-", "</dev/null"):
        done = _sh(f"{WIZARD} --profile {DEMO} {redirect}", env, timeout=60)
        err = done.stderr.decode()
        assert "Traceback" not in err, err
        want = in_language("en", "cli.app_needs_terminal")
        assert err.strip() == want.replace(
            "tf-gpu-wizard detect", f"tf-gpu-wizard detect --profile {DEMO}"
        ), err
        assert done.returncode == 2


def test_a_closed_stdout_fd_is_never_reused_for_the_lock(tmp_path: Path) -> None:
    """With fd 1 closed, the first file opened would take fd 1 and receive what is printed."""
    done = _sh(f"{WIZARD} --profile {DEMO} apply --yes >&-", _env(tmp_path, LANG="C.UTF-8"))
    assert done.returncode == 1
    for path in (tmp_path / "state").glob("*") if (tmp_path / "state").exists() else ():
        assert path.suffix != ".lock" or path.read_text() == "", path
