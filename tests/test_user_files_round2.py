"""Issue 19, the user's files, round 2: ~/.bashrc markers quoted inside a heredoc, backups made in the
same second, and .wslconfig saved with a BOM or by Notepad in UTF-16 LE. The plan's real programs
(shellblock.sh, wslconfig.sh) and the wizard's Python twin run against real files.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from wizard.demo import load_demo
from wizard.plan import shellblock
from wizard.plan.linux import CUDA_ENV_BODY

BEGIN, END = shellblock.markers("cuda")

# A user's own script in ~/.bashrc that writes a file holding our block (say, a copy of the wizard's
# instructions): both markers are inside the heredoc, they are the user's text, not our block.
HEREDOC_BOTH = (
    "# my setup\n"
    "alias ll='ls -l'\n"
    "write_notes() {\n"
    "  cat > ~/notes.txt <<'EOF'\n"
    f"{BEGIN}\n"
    "export PATH=/somewhere/else:$PATH\n"
    f"{END}\n"
    "EOF\n"
    "}\n"
    "export EDITOR=vim\n"
)
HEREDOC_START = (
    "alias ll='ls -l'\n"
    "cat <<-NOTE >/dev/null\n"
    f"\t{BEGIN}\n"  # <<- strips tabs: bash reads this line as our marker, inside the heredoc
    f"{BEGIN}\n"
    "\tNOTE\n"
    "export EDITOR=vim\n"
)


def _add(rc: Path) -> None:
    subprocess.run(list(shellblock.add_command(rc, "cuda", CUDA_ENV_BODY)), check=True)


def _remove(rc: Path) -> None:
    subprocess.run(list(shellblock.remove_command(rc, "cuda")), check=True)


def _check(rc: Path) -> bool:
    return subprocess.run(list(shellblock.present_check(rc, "cuda").argv)).returncode == 0


def _path_after_sourcing(rc: Path) -> str:
    out = subprocess.run(
        ["bash", "-c", 'source "$1" >/dev/null 2>&1; printf %s "$PATH"', "_", str(rc)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(rc.parent)},
    )
    return out.stdout


@pytest.mark.parametrize("how", ["program", "python"])
def test_markers_quoted_in_a_heredoc_are_not_our_block(tmp_path: Path, how: str) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_text(HEREDOC_BOTH)
    assert not _check(rc), "the heredoc's text is not our block"
    assert not shellblock.has_block(rc, "cuda")
    if how == "program":
        _add(rc)
    else:
        assert shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)
    text = rc.read_text()
    assert text.startswith(HEREDOC_BOTH), "every user line kept, the heredoc untouched"
    assert _check(rc) and shellblock.has_block(rc, "cuda")
    assert "/usr/local/cuda/bin" in _path_after_sourcing(rc).split(":"), "the check proves what it says"
    if how == "program":
        _add(rc)  # idempotent
    assert rc.read_text() == text
    if how == "program":
        _remove(rc)
    else:
        assert shellblock.remove_block(rc, "cuda")
    # Only our real block goes, with the blank line add put before it: the file as it was.
    assert rc.read_text() == HEREDOC_BOTH


@pytest.mark.parametrize("how", ["program", "python"])
def test_a_start_marker_only_in_a_heredoc_deletes_no_user_line(tmp_path: Path, how: str) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_text(HEREDOC_START)
    if how == "program":
        _add(rc)
    else:
        shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)
    assert rc.read_text().startswith(HEREDOC_START)
    assert _check(rc)
    if how == "program":
        _remove(rc)
    else:
        shellblock.remove_block(rc, "cuda")
    assert rc.read_text() == HEREDOC_START


def test_a_comment_naming_a_heredoc_does_not_hide_the_block(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_text("# use cat <<EOF to write files\necho 'a << b'\nx=$((1 << 2))\n")
    _add(rc)
    assert _check(rc)
    assert "/usr/local/cuda/bin" in _path_after_sourcing(rc).split(":")


def test_add_and_remove_in_the_same_second_keep_both_backups(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    original = "alias ll='ls -l'\n"
    rc.write_text(original)
    _add(rc)
    with_block = rc.read_text()
    _remove(rc)
    shellblock.add_block(rc, "cuda", CUDA_ENV_BODY)
    shellblock.remove_block(rc, "cuda")
    backups = sorted(tmp_path.glob(".bashrc.tf-gpu-wizard-*.bak"))
    contents = [b.read_text() for b in backups]
    assert len(backups) == 4, [b.name for b in backups]
    assert original in contents and with_block in contents  # the first two were not overwritten


# ---- .wslconfig -------------------------------------------------------------------------------------


@pytest.fixture
def windows_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "winhome"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (
        ("cmd.exe", "#!/bin/sh\nprintf 'C:\\\\Users\\\\student\\r\\n'\n"),
        ("wslpath", f"#!/bin/sh\necho '{home}'\n"),
    ):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755 | stat.S_IEXEC)
    return home, {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _wslconfig_argv() -> list[str]:
    from wizard.choose.resolver import recommend
    from wizard.plan.model import PlanInputs
    from wizard.plan.wsl import windows_steps

    profile = load_demo("wsl2-rtx4060-laptop")
    rec = recommend(profile)
    assert rec.recommended is not None
    inputs = PlanInputs(rec.recommended, Path("/home/student/.venvs/tf-gpu"), Path("/home/student"))
    step = next(s for s in windows_steps(profile, inputs) if s.id == "wslconfig")
    return list(step.commands[0])


def test_a_utf8_bom_before_wsl2_gives_one_wsl2(windows_home: tuple[Path, dict[str, str]]) -> None:
    home, env = windows_home
    conf = home / ".wslconfig"
    before = "[wsl2]\r\nmemory=4GB\r\nswap=0\r\n"
    conf.write_bytes(b"\xef\xbb\xbf" + before.encode())
    argv = _wslconfig_argv()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    raw = conf.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "the BOM stays"
    text = raw[3:].decode("utf-8")
    assert text.count("[wsl2]") == 1, text
    memory, cpus = argv[-2], argv[-1]
    assert text == f"[wsl2]\r\nmemory={memory}GB\r\nswap=0\r\nprocessors={cpus}\r\n"


def test_a_notepad_utf16_file_stays_utf16(windows_home: tuple[Path, dict[str, str]]) -> None:
    home, env = windows_home
    conf = home / ".wslconfig"
    before = (
        "# Notepad, UTF-16 LE\r\n[wsl2]\r\nswap=0\r\nmemory=2GB\r\n\r\n[experimental]\r\nsparseVhd=true\r\n"
    )
    conf.write_bytes(b"\xff\xfe" + before.encode("utf-16-le"))  # what Notepad's "UTF-16 LE" saves
    argv = _wslconfig_argv()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    raw = conf.read_bytes()
    assert raw.startswith(b"\xff\xfe"), "the BOM stays"
    text = raw[2:].decode("utf-16-le")  # strict: an ASCII line appended would not decode as this
    memory, cpus = argv[-2], argv[-1]
    assert text == (
        "# Notepad, UTF-16 LE\r\n[wsl2]\r\nswap=0\r\n"
        f"memory={memory}GB\r\nprocessors={cpus}\r\n\r\n[experimental]\r\nsparseVhd=true\r\n"
    )
    backups = list(home.glob(".wslconfig.tf-gpu-wizard-*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes() == b"\xff\xfe" + before.encode("utf-16-le")
    # Run again: the same file, nothing doubled.
    subprocess.run(argv, env=env, check=True, capture_output=True)
    assert conf.read_bytes() == raw


def test_a_utf16_file_without_wsl2_gets_it_in_utf16(windows_home: tuple[Path, dict[str, str]]) -> None:
    home, env = windows_home
    conf = home / ".wslconfig"
    conf.write_bytes(b"\xff\xfe" + "[boot]\r\nsystemd=true".encode("utf-16-le"))  # no newline at the end
    argv = _wslconfig_argv()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    text = conf.read_bytes()[2:].decode("utf-16-le")
    memory, cpus = argv[-2], argv[-1]
    assert text == f"[boot]\r\nsystemd=true\r\n\r\n[wsl2]\r\nmemory={memory}GB\r\nprocessors={cpus}\r\n"


@pytest.mark.parametrize(
    ("codec", "newline"),
    [("utf-16-le", "\r\n"), ("utf-16-le", "\n"), ("utf-16-be", "\r\n")],
    ids=["le-crlf", "le-lf", "be-crlf"],
)
def test_a_utf16_file_without_a_bom_stays_utf16_without_a_bom(
    windows_home: tuple[Path, dict[str, str]], codec: str, newline: str
) -> None:
    home, env = windows_home
    conf = home / ".wslconfig"
    lines = ["# written by a script, UTF-16 without a signature", "[wsl2]", "swap=0", "memory=2GB", ""]
    lines += ["[experimental]", "sparseVhd=true", ""]
    before = newline.join(lines)
    conf.write_bytes(before.encode(codec))  # no BOM
    argv = _wslconfig_argv()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    raw = conf.read_bytes()
    assert not raw.startswith((b"\xff\xfe", b"\xfe\xff")), "no BOM added"
    assert len(raw) % 2 == 0
    text = raw.decode(codec)  # strict: a UTF-8 line appended would not decode
    memory, cpus = argv[-2], argv[-1]
    want = ["# written by a script, UTF-16 without a signature", "[wsl2]", "swap=0", f"memory={memory}GB"]
    want += [f"processors={cpus}", "", "[experimental]", "sparseVhd=true", ""]
    assert text == newline.join(want), text
    backups = list(home.glob(".wslconfig.tf-gpu-wizard-*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes() == before.encode(codec)
    subprocess.run(argv, env=env, check=True, capture_output=True)
    assert conf.read_bytes() == raw, "run again: nothing doubled"


def test_a_utf8_file_is_not_taken_for_utf16(windows_home: tuple[Path, dict[str, str]]) -> None:
    home, env = windows_home
    conf = home / ".wslconfig"
    conf.write_bytes(b"[wsl2]\nswap=0\n")
    argv = _wslconfig_argv()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    assert (
        conf.read_bytes().decode("utf-8") == f"[wsl2]\nswap=0\nmemory={argv[-2]}GB\nprocessors={argv[-1]}\n"
    )
