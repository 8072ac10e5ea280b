"""uv for the TensorFlow environment where the probe finds it, pip otherwise.

The probe reads uv and pip's index settings from a fixture machine (System + CannedCommands);
the plan then makes the environment with `uv venv` and installs with `uv pip install
--python ENV/bin/python`, passing pip's index settings (uv does not read pip's config),
with the same constraints file and the same checks as the pip plan.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.apps.uv_machine import machine_with_uv, uv_path
from tests.machines import context, ok, tree
from wizard.choose.resolver import recommend
from wizard.demo import load_demo
from wizard.plan.build import build_plan
from wizard.plan.installer import INSTALLER_ENV, PIP, choose_installer
from wizard.plan.model import Plan
from wizard.probe.installers import probe_installers
from wizard.profile import MachineProfile, PythonInfo

HOME = "/home/student"
UV = "/home/student/.local/bin/uv"


def _with_uv(profile: MachineProfile, **python: object) -> MachineProfile:
    info = replace(profile.python, uv=UV, uv_version="0.8.3", **python)  # type: ignore[arg-type]
    return replace(profile, python=info)


def _plan(profile: MachineProfile, method: str | None = None, pip: bool = False) -> Plan:
    """The plan; `pip`: as the person who picked pip (TF_GPU_WIZARD_INSTALLER=pip) gets it."""
    rec = recommend(profile, prefer_method=method)
    assert rec.recommended is not None
    with pytest.MonkeyPatch.context() as mp:
        if pip:
            mp.setenv(INSTALLER_ENV, "pip")
        return build_plan(profile, rec.recommended, home=HOME)


def test_a_demo_shows_the_wizards_own_uv_where_the_demo_user_has_it() -> None:
    """A demo profile carries no uv, but the real wizard brings its own: the demo plan shows that uv,
    in the demo user's home (README command 1 in ~/tf-gpu-wizard), and pip only when picked."""
    plan = _plan(load_demo("no-nvidia-gpu"))
    own = f"{HOME}/tf-gpu-wizard/.venv/bin/uv"
    assert plan.step("venv").commands[0][:2] == (own, "venv")
    assert plan.step("tensorflow").commands[-1][:3] == (own, "pip", "install")
    texts = [a for s in plan.steps for c in (*s.commands, s.check.argv) for a in c]
    assert not any(a.startswith(("/work/", "/root/", "/tmp/")) for a in texts), "this machine's paths"
    picked = _plan(load_demo("no-nvidia-gpu"), pip=True)
    assert picked.step("tensorflow").commands[-1][1:4] == ("-m", "pip", "install")


def _probe(
    tmp_path: Path, files: dict[str, str], env: dict[str, str], uv_out: str = "uv 0.8.3"
) -> PythonInfo:
    root = tree(tmp_path / "root", files)
    ctx = context(root, {(UV, "--version"): ok(uv_out + "\n")}, env=env)
    info = PythonInfo()
    probe_installers(ctx, info)
    return info


def test_probe_finds_uv_in_the_home_and_reads_pips_index(tmp_path: Path) -> None:
    files = {
        UV: "",
        "/etc/pip.conf": "[global]\nindex-url = https://mirror.example/simple\n",
        f"{HOME}/.config/pip/pip.conf": (
            "[global]\nextra-index-url =\n    https://a.example/simple\n    https://b.example/simple\n"
            "[install]\nfind-links = /srv/wheels\n"
        ),
    }
    # ~/.local/bin is not on PATH yet (a fresh uv install): it is still found.
    info = _probe(tmp_path, files, {"PATH": "/usr/bin:/bin", "HOME": HOME})
    assert (info.uv, info.uv_version) == (UV, "0.8.3")
    assert info.pip_index_url == "https://mirror.example/simple"
    assert info.pip_extra_index_urls == "https://a.example/simple https://b.example/simple"
    assert info.pip_find_links == "/srv/wheels"
    assert not info.pip_index_private


def test_environment_beats_pip_conf_and_a_password_is_never_kept(tmp_path: Path) -> None:
    files = {UV: "", "/etc/pip.conf": "[global]\nindex-url = https://mirror.example/simple\n"}
    env = {"PATH": "/home/student/.local/bin", "HOME": HOME, "PIP_INDEX_URL": "https://ci.example/simple"}
    assert _probe(tmp_path / "a", files, env).pip_index_url == "https://ci.example/simple"
    env["PIP_EXTRA_INDEX_URL"] = "https://bob:s3cret@private.example/simple"
    info = _probe(tmp_path / "b", files, env)
    assert info.pip_index_private
    assert "s3cret" not in repr(info)
    assert info.pip_index_url is None and info.pip_extra_index_urls is None


def test_uvs_own_index_is_left_to_uv(tmp_path: Path) -> None:
    files = {
        UV: "",
        "/etc/pip.conf": "[global]\nindex-url = https://mirror.example/simple\n",
        f"{HOME}/.config/uv/uv.toml": 'index-url = "https://uv-mirror.example/simple"\n',
    }
    info = _probe(tmp_path, files, {"PATH": "/home/student/.local/bin", "HOME": HOME})
    assert info.uv_index_configured
    plan = _plan(replace(load_demo("no-nvidia-gpu"), python=info))
    install = plan.step("tensorflow").commands[-1]
    assert install[:3] == (UV, "pip", "install")
    assert "--index-url" not in install and "https://mirror.example/simple" not in install


def test_a_broken_uv_is_not_used(tmp_path: Path) -> None:
    info = _probe(tmp_path, {UV: ""}, {"PATH": "/home/student/.local/bin", "HOME": HOME}, uv_out="garbage")
    assert info.uv is None


def test_cpu_plan_with_uv_has_the_same_checks_and_constraints() -> None:
    base = load_demo("no-nvidia-gpu")
    pip_plan = _plan(base, pip=True)
    uv_plan = _plan(_with_uv(base))
    venv = uv_plan.venv
    py = f"{venv}/bin/python"
    make, repair, seed = uv_plan.step("venv").commands
    assert make == (UV, "venv", "--allow-existing", "--python", base.python.executable, venv)
    assert repair[0] == py and repair[-4:] == ("repair-env", "--uv", UV, venv)  # a killed pip left
    assert seed == (UV, "pip", "install", "--python", py, "pip")  # pip for the student, no upgrade
    install = uv_plan.step("tensorflow").commands[-1]
    assert install[:5] == (UV, "pip", "install", "--python", f"{venv}/bin/python")
    assert install[-1] == pip_plan.step("tensorflow").commands[-1][-1]  # the same lock file
    assert "--require-hashes" in install and "--no-deps" in install
    for step_id in ("venv", "tensorflow", "verify", "hello"):
        assert uv_plan.step(step_id).check == pip_plan.step(step_id).check, step_id
    # Every command but the installer itself is the pip plan's (the lock placed, then repaired);
    # uv's repair also cleans its cache of a damaged package (--uv), so the install fetches it again.
    pip_cmds = [c for c in pip_plan.step("tensorflow").commands if "pip" not in c[:4]]
    uv_cmds = [c for c in uv_plan.step("tensorflow").commands if c[0] != UV]
    assert len(uv_cmds) == 2 and uv_cmds[0] == pip_cmds[0]
    assert uv_cmds[1] == (*pip_cmds[1][:3], "--uv", UV, *pip_cmds[1][3:])


def test_uv_gets_pips_index_settings_on_its_command_line() -> None:
    profile = _with_uv(
        load_demo("wsl2-rtx4060-laptop"),
        pip_index_url="https://mirror.example/simple",
        pip_extra_index_urls="https://a.example/simple",
        pip_find_links="/srv/wheels",
    )
    install = _plan(profile).step("tensorflow").commands[-1]
    text = " ".join(install)
    assert "--index-url https://mirror.example/simple" in text
    assert "--extra-index-url https://a.example/simple" in text
    assert "--find-links /srv/wheels" in text
    assert "--index-strategy unsafe-best-match" in text  # pip's rule across several indexes


def test_a_private_index_keeps_pip() -> None:
    profile = _with_uv(load_demo("no-nvidia-gpu"), pip_index_private=True)
    assert choose_installer(profile) == PIP
    assert _plan(profile).step("tensorflow").commands[-1][1:4] == ("-m", "pip", "install")


def test_uv_brings_the_python_without_root_or_a_ppa() -> None:
    """Ubuntu 20.04's Python 3.8 is too old: uv installs the wanted one into the home."""
    profile = _with_uv(load_demo("ubuntu-20.04-gtx1080-driver470"))
    plan = _plan(profile)
    python = plan.step("python")
    want = plan.set.python
    assert python.where == "user" and python.commands == ((UV, "python", "install", want),)
    assert python.check.argv == (UV, "python", "find", want)
    assert not any("deadsnakes" in " ".join(c) for s in plan.steps for c in s.commands)
    assert plan.step("venv").commands[0][-3:] == ("--python", want, plan.venv)


def test_no_venv_package_is_needed_with_uv() -> None:
    """A stock Debian/Ubuntu Python without ensurepip: pip needs python3-venv, uv does not."""
    base = load_demo("no-nvidia-gpu")
    stock = replace(base, python=replace(base.python, venv_module=False, pip=False))
    assert "python-venv" in [s.id for s in _plan(stock, pip=True).steps] or base.os.id not in (
        "ubuntu",
        "debian",
    )
    assert "python-venv" not in [s.id for s in _plan(_with_uv(stock)).steps]
    assert not any(s.needs_root for s in _plan(_with_uv(stock)).steps)


@pytest.mark.slow
def test_the_plans_uv_commands_make_a_working_environment(tmp_path: Path) -> None:
    """The venv step's uv commands, run for real, pass the venv step's own check."""
    profile = machine_with_uv()
    rec = recommend(profile)
    assert rec.recommended is not None
    plan = build_plan(profile, rec.recommended, venv=tmp_path / "env")
    step = plan.step("venv")
    assert step.commands[0][0] == uv_path()
    assert not (tmp_path / "env").exists()
    for argv in step.commands:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    assert subprocess.run(list(step.check.argv), capture_output=True).returncode == 0


def test_the_wizards_own_uv_is_found_and_pip_is_the_persons_pick(monkeypatch: pytest.MonkeyPatch) -> None:
    """uv is a dependency of the wizard: this machine's probe finds the binary its package ships, and
    every environment is made with it, unless the person picks pip."""
    from wizard.plan.installer import INSTALLER_ENV
    from wizard.probe.context import ProbeContext
    from wizard.probe.installers import bundled_uv, find_uv

    own = bundled_uv()
    assert own is not None and Path(own).exists()
    monkeypatch.setenv("PATH", "/nonexistent")  # no uv on PATH: the wizard's own is still there
    found = find_uv(ProbeContext())
    assert found is not None and found[0] == own
    profile = _with_uv(load_demo("no-nvidia-gpu"))
    assert choose_installer(profile).is_uv
    monkeypatch.setenv(INSTALLER_ENV, "pip")
    assert choose_installer(profile) == PIP
    assert _plan(profile).step("tensorflow").commands[-1][1:4] == ("-m", "pip", "install")


def test_a_locked_file_installs_with_hashes_and_no_deps_with_either_installer() -> None:
    from wizard.plan.installer import Installer

    for installer in (PIP, Installer("uv", UV, ("--index-url", "https://mirror.example/simple"))):
        argv = installer.locked_install_command("/env/bin/python", "/env/lock.txt")
        assert argv[-4:] == ("--require-hashes", "--no-deps", "-r", "/env/lock.txt")
        assert ("--index-url" in argv) == installer.is_uv
