"""Every command the wizard shows for PowerShell follows PowerShell's rules, and every command
that runs inside WSL parses in bash (no PowerShell here to run them: the rules are written out).

PowerShell's rules, as they bite a pasted line:
- `%VAR%` is cmd's syntax; PowerShell passes it through as text.
- `~` is never a Linux home outside wsl.exe: PowerShell (7.4+) may turn a bare `~` into the Windows
  home, and a Linux path means nothing to a Windows program. Inside a `wsl` command, `--cd '~'` and
  the program after `--exec` / `--` are Linux's.
- A bare word must not hold what PowerShell reads as syntax (spaces, quotes, `;`, `|`, `&`, `(`,
  `)`, `{`, `}`, `,` (an array), `<`, `>`, a backtick, `#`/`@` in front, `$` that is not $HOME);
  single quotes keep everything literal, with `''` for a quote.
- A double quote inside an argument does not survive PowerShell 5.1's hand-off to a native program.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from wizard.choose.resolver import recommend
from wizard.demo import demo_names, load_demo
from wizard.plan.build import build_plan
from wizard.plan.model import Plan, powershell_join
from wizard.plan.next_steps import next_steps
from wizard.plan.programs import programs_dir
from wizard.plan.wsl_setup import TAKE_WIZARD, handover_commands, start_again_command
from wizard.profile import DriverInfo, MachineProfile
from wizard.profile_view import wsl1_command

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = str(programs_dir())
SPECIAL = set(" \t'\"`;|&(){}<>,")


def ps_tokens(line: str) -> list[str]:
    """A PowerShell command line as the arguments a native program receives; raises ValueError
    where the line breaks one of the rules above."""
    tokens: list[str] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        if line[i] == "'":
            out, i = "", i + 1
            while True:
                if i >= n:
                    raise ValueError(f"unclosed quote: {line}")
                if line[i] == "'":
                    if i + 1 < n and line[i + 1] == "'":
                        out, i = out + "'", i + 2
                        continue
                    i += 1
                    break
                out, i = out + line[i], i + 1
            if i < n and line[i] != " ":
                raise ValueError(f"text glued to a quoted string: {line}")
            if '"' in out:
                raise ValueError(f"a double quote does not survive the native call: {line}")
            tokens.append(out)
            continue
        j = line.find(" ", i)
        word = line[i : j if j >= 0 else n]
        i = j if j >= 0 else n
        bad = SPECIAL & set(word)
        if bad or word[:1] in "#@":
            raise ValueError(f"bare word with PowerShell syntax {sorted(bad) or word[:1]!r}: {word!r}")
        if "$" in word and not re.match(r"^\$(HOME|env:[A-Za-z_]+)(\\|$)", word):
            raise ValueError(f"a $ PowerShell would expand: {word!r}")
        if word == "--%":
            raise ValueError("stop-parsing token")
        tokens.append(word)
    return tokens


def check_powershell(line: str) -> list[str]:
    assert not re.search(r"%[A-Za-z_][A-Za-z0-9_]*%", line), f"cmd's %VAR% in PowerShell: {line}"
    tokens = ps_tokens(line)
    linux = False
    for k, tok in enumerate(tokens):
        prev = tokens[k - 1] if k else ""
        if tokens[0] == "wsl" and tok in ("--exec", "-e", "--"):
            linux = True  # the rest runs inside Linux
            continue
        if linux:
            continue
        if tokens[0] == "wsl" and prev == "--cd":
            windows = re.match(r"^([A-Za-z]:|\$HOME)\\", tok)
            assert tok == "~" or windows, f"--cd takes ~ or a Windows path: {line}"
            assert not (tok == "~" and "'~'" not in line), f"a bare ~ PowerShell may expand: {line}"
            continue
        if tok.startswith(PROGRAMS):
            # The wizard's programs folder of the machine that made the plan: a Windows path on
            # Windows; a demo profile's plan made here shows this machine's (known, reported).
            continue
        assert not tok.startswith(("~", "/")), f"a Linux path for a Windows program: {line}"
    return tokens


def linux_part(tokens: list[str]) -> list[str] | None:
    for marker in ("--exec", "-e", "--"):
        if tokens[0] == "wsl" and marker in tokens:
            return tokens[tokens.index(marker) + 1 :]
    return None


# ---- the rules themselves ---------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "wsl -d Ubuntu-24.04 --cd '~' -- git clone '%USERPROFILE%/tf-gpu-wizard' tf-gpu-wizard",
        "wsl -d Ubuntu-24.04 -- ~/.local/bin/tf-gpu-wizard",  # fine inside wsl, but see below
        "wsl --set-version <distro> 2",
        "~/.local/bin/tf-gpu-wizard",
        "wsl --cd ~ --exec true",
        "echo a,b",
        "echo 'say \"hi\"'",
        "echo $PATH",
    ],
)
def test_the_rules_catch_what_the_issue_found(line: str) -> None:
    if line == "wsl -d Ubuntu-24.04 -- ~/.local/bin/tf-gpu-wizard":
        check_powershell(line)  # a Linux path after -- is Linux's: allowed by these rules
        return
    with pytest.raises((AssertionError, ValueError)):
        check_powershell(line)


def test_quoting_round_trips() -> None:
    for argv in (
        ("wsl", "-d", "Ubuntu-24.04", "--cd", "C:\\Users\\Jo O'Neil\\tf-gpu-wizard", "--exec", "true"),
        ("wsl", "--cd", "~", "--exec", ".local/bin/tf-gpu-wizard"),
    ):
        assert check_powershell(powershell_join(argv)) == list(argv)


# ---- every command the wizard shows ------------------------------------------------


def _windows(driver: str | None = None, exe: str | None = None) -> MachineProfile:
    profile = load_demo("windows11-rtx3070")
    if driver:
        profile.driver = DriverInfo(version=driver, cuda="12.0", source="nvml")
    if exe:
        profile.python.executable = exe
    return profile


def _profiles() -> list[tuple[str, MachineProfile]]:
    out = [(name, load_demo(name)) for name in demo_names()]
    out.append(("windows-old-driver", _windows(driver="512.78")))
    # A user folder with a space and a quote: quoting must hold.
    out.append(("windows-odd-home", _windows(exe="C:\\Users\\Jo O'Neil\\AppData\\Local\\Python\\python.exe")))
    out.append(("windows-no-python-path", _windows(exe="unknown")))
    return out


def _plans(profile: MachineProfile) -> list[Plan]:
    rec = recommend(profile)
    out, seen = [], set()
    for cand in rec.candidates:
        if cand.ok and cand.set.method not in seen:
            seen.add(cand.set.method)
            out.append(build_plan(profile, cand, home="/home/student"))
    return out


def _shown(plan: Plan) -> tuple[list[str], list[str]]:
    """(PowerShell lines, bash lines) of a plan, as the Plan screen and `plan` show them."""
    ps, sh = [], []
    for step in plan.steps:
        for line in step.command_lines():
            (ps if step.where == "windows-host" or step.console == "powershell" else sh).append(line)
    return ps, sh


CASES = [(name, plan) for name, profile in _profiles() for plan in _plans(profile)]


@pytest.mark.parametrize(("name", "plan"), CASES, ids=[f"{n}-{p.set.method}" for n, p in CASES])
def test_every_powershell_command_follows_powershells_rules(name: str, plan: Plan) -> None:
    ps, sh = _shown(plan)
    for line in ps:
        tokens = check_powershell(line)
        inside = linux_part(tokens)
        if inside:
            sh.append(shlex.join(inside))
    for line in sh:
        result = subprocess.run(["bash", "-n", "-c", line], capture_output=True, text=True)
        assert result.returncode == 0, (line, result.stderr)


def test_the_handover_names_this_pcs_folders_and_runs_inside_ubuntu() -> None:
    profile = _windows(exe="C:\\Users\\Jo O'Neil\\AppData\\Local\\Python\\python.exe")
    copy, install = (powershell_join(c) for c in handover_commands(profile))
    assert copy == (
        "wsl -d Ubuntu-24.04 --cd 'C:\\Users\\Jo O''Neil\\tf-gpu-wizard' --exec sh "
        "assets/programs/wsl_take_wizard.sh 'C:\\Users\\Jo O''Neil\\tf-gpu-wizard'"
    )
    assert install == "wsl -d Ubuntu-24.04 --cd '~' --exec sh tf-gpu-wizard/install.sh"
    # No user folder known: PowerShell's own $HOME, which it expands (never %USERPROFILE%).
    bare = powershell_join(handover_commands(_windows(exe="unknown"))[0])
    assert "$HOME\\tf-gpu-wizard" in bare and "%" not in bare
    check_powershell(bare)


def test_the_programs_run_inside_wsl_parse_in_sh_and_bash() -> None:
    for path in (ROOT / TAKE_WIZARD, ROOT / "install.sh"):
        for shell in ("sh", "bash"):
            result = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True)
            assert result.returncode == 0, (path, shell, result.stderr)


def test_the_copy_program_takes_the_wizard_into_the_linux_home(tmp_path: Path) -> None:
    """wsl_take_wizard.sh with a stand-in wslpath: the Windows folder becomes ~/tf-gpu-wizard,
    whole; run again it leaves the copy as it is."""
    src = tmp_path / "win" / "tf-gpu-wizard"
    (src / "assets").mkdir(parents=True)
    (src / "install.sh").write_text("#!/bin/sh\necho hi\n")
    (src / ".venv").mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "wslpath").write_text(f'#!/bin/sh\n[ "$1" = -u ] && echo "{src}"\n')
    (bin_dir / "wslpath").chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    env: dict[str, Any] = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(home)}
    run = [
        "sh",
        str(ROOT / TAKE_WIZARD),
        "C:\\Users\\alex\\tf-gpu-wizard",
    ]
    first = subprocess.run(run, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert (home / "tf-gpu-wizard" / "install.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert not (home / "tf-gpu-wizard" / ".venv").exists()  # the Windows venv stays behind
    assert not (home / "tf-gpu-wizard.partial").exists()
    again = subprocess.run(run, env=env, capture_output=True, text=True)
    assert again.returncode == 0 and "already" in again.stdout


def test_the_lines_in_words_follow_the_rules_too() -> None:
    """Commands inside sentences: starting the wizard again, WSL1's fix."""
    check_powershell(powershell_join(start_again_command()))
    plan = _plans(load_demo("windows11-rtx3070"))[0]
    text = " ".join(next_steps(plan)) + " ".join(plan.notes)
    assert "~/.local/bin" not in text.replace("--exec .local/bin", "")
    fix = wsl1_command("Ubuntu-22.04")
    check_powershell(fix.split(" (")[0])
    assert "<" not in fix and "wsl -l -v" in fix
    unknown = wsl1_command("unknown")
    assert "<" not in unknown and "wsl -l -v" in unknown
    odd = wsl1_command("My Ubuntu")
    check_powershell(odd.split(" (")[0])


def test_the_readme_road_in_from_windows_pastes() -> None:
    """The README's "On Windows" PowerShell lines follow the same rules."""
    for readme in ("README.md", "README.zh-CN.md"):
        text = (ROOT / readme).read_text(encoding="utf-8")
        blocks = re.findall(r"```powershell\n(.*?)```", text, re.S)
        assert blocks, f"{readme} has no PowerShell block"
        lines = [ln.strip() for block in blocks for ln in block.splitlines() if ln.strip()]
        lines = [ln for ln in lines if not ln.startswith("#")]
        assert any(line.startswith("wsl --install -d Ubuntu-24.04") for line in lines), readme
        for line in lines:
            check_powershell(line)
