"""After success: the environment is ready to work in, and every ending says how.

The hello script, the CUDA cache block in the activate script, the optional Jupyter
kernel, and the one text (wizard.plan.next_steps) that the Run screen, `apply` and the
exported script all end with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.apps.uv_machine import demo_as_this_machine, machine_with_uv, uv_path
from wizard.assets import asset, asset_file
from wizard.choose.resolver import recommend
from wizard.cli import main
from wizard.demo import demo_names, load_demo
from wizard.plan import shellblock
from wizard.plan.build import build_plan
from wizard.plan.last_mile import CUDA_CACHE_BLOCK, hello_path
from wizard.plan.model import Plan
from wizard.plan.next_steps import next_steps
from wizard.plan.programs import program_name
from wizard.plan.script import render_script

HOME = "/home/student"


def _plan(name: str, method: str | None = None, venv: Path | None = None, here: bool = False) -> Plan:
    """The demo's plan; `here`: for this machine with the demo's facts, to run its commands."""
    profile = demo_as_this_machine(name) if here else load_demo(name)
    rec = recommend(profile, prefer_method=method)
    assert rec.recommended is not None
    return build_plan(profile, rec.recommended, home=HOME, venv=venv)


@pytest.mark.parametrize("name", demo_names())
def test_every_environment_plan_ends_with_the_hello_script(name: str) -> None:
    plan = _plan(name)
    ids = [s.id for s in plan.steps]
    if "wsl-wizard" in ids:  # native Windows: the environment is made inside WSL, by the wizard there
        return
    hello = plan.step("hello")
    assert ids.index("hello") > ids.index("verify")
    gpu = plan.set.method != "cpu"
    assert hello.check.argv[-1 if gpu else -2] == hello_path(plan.venv)
    assert ("--cpu" in hello.check.argv) is not gpu
    source = hello.commands[0][-2]
    assert program_name(source) == "hello_gpu.py"  # a file, so the command is one short line
    assert source.startswith(HOME + "/.local/share/tf-gpu-wizard/programs/")  # the demo user's


def test_the_hello_copy_command_writes_the_shipped_script(tmp_path: Path) -> None:
    plan = _plan("no-nvidia-gpu", venv=tmp_path / "env", here=True)
    (argv,) = plan.step("hello").commands
    argv = (sys.executable, *argv[1:])  # the environment's Python is not there in this test
    subprocess.run(argv, check=True)
    written = Path(hello_path(plan.venv))
    assert written.read_bytes() == asset_file("programs/hello_gpu.py").read_bytes()
    assert not list(written.parent.glob("*.tmp"))
    compile(written.read_text(), str(written), "exec")


def test_cuda_cache_only_where_the_gpu_runs_ptx() -> None:
    assert "cuda-cache" in [s.id for s in _plan("ubuntu-24.04-rtx5090").steps]  # Blackwell: PTX
    assert "cuda-cache" not in [s.id for s in _plan("wsl2-rtx4060-laptop").steps]  # sm_89 in the wheel
    assert "cuda-cache" not in [s.id for s in _plan("no-nvidia-gpu").steps]


def test_cuda_cache_block_in_a_real_activate_script(tmp_path: Path) -> None:
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    activate = venv / "bin" / "activate"
    original = activate.read_text()
    step = _plan("ubuntu-24.04-rtx5090", venv=venv, here=True).step("cuda-cache")
    for _ in range(2):  # twice: one block
        for argv in step.commands:
            subprocess.run(list(argv), check=True)
    assert subprocess.run(list(step.check.argv)).returncode == 0
    text = activate.read_text()
    assert text.count(shellblock.markers(CUDA_CACHE_BLOCK)[0]) == 1
    assert original in text  # every line of the script is still there
    env = {k: v for k, v in os.environ.items() if k != "CUDA_CACHE_MAXSIZE"}
    out = subprocess.run(
        ["bash", "-c", f'source "{activate}" && printf "%s" "$CUDA_CACHE_MAXSIZE"'],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert out.stdout == "4294967296"
    assert shellblock.remove_block(activate, CUDA_CACHE_BLOCK)
    assert activate.read_text().strip() == original.strip()


def test_conda_sets_the_cache_in_its_activate_d_script() -> None:
    plan = _plan("windows11-rtx3070", method="conda")
    assert plan.step("hello")  # conda too
    linux = _plan("ubuntu-24.04-rtx5090", method="conda")
    (argv,) = linux.step("conda-activate").commands
    assert "export CUDA_CACHE_MAXSIZE=4294967296" in argv
    assert any("CUDA_CACHE_MAXSIZE" in line for line in next_steps(linux))


def test_jupyter_is_optional_off_and_checks_the_kernel_it_registered(tmp_path: Path) -> None:
    plan = _plan("wsl2-rtx4060-laptop")
    step = plan.step("jupyter")
    assert step.optional and not step.enabled
    assert step.commands[1][1:4] == ("-m", "ipykernel", "install")
    # The check is a shipped program with two paths, not a `python -c` one-liner.
    _python, program_path, spec_arg = step.check.argv
    assert program_path.endswith("kernel_ok.py") and spec_arg.endswith("kernel.json")
    kernel_ok = str(asset("programs/kernel_ok.py"))
    spec = tmp_path / "kernel.json"

    def check(argv: list[str]) -> subprocess.CompletedProcess[str]:
        spec.write_text(json.dumps({"argv": argv, "display_name": "x"}))
        return subprocess.run([sys.executable, kernel_ok, str(spec)], capture_output=True, text=True)

    # This Python, and a launcher that imports here (the standard library's, as ipykernel is not here).
    assert check([sys.executable, "-m", "json.tool", "-f", "{connection_file}"]).returncode == 0
    other = check(["/somewhere/else/python", "-m", "ipykernel_launcher"])
    assert other.returncode == 1 and "/somewhere/else/python" in other.stderr
    missing = check([sys.executable, "-m", "no_such_kernel_launcher"])
    assert missing.returncode == 1 and "no_such_kernel_launcher does not import" in missing.stderr
    spec.write_text("{not json")
    broken = subprocess.run([sys.executable, kernel_ok, str(spec)], capture_output=True, text=True)
    assert broken.returncode == 1 and "no readable kernel spec" in broken.stderr


def test_next_steps_say_activate_hello_jupyter_vscode() -> None:
    plan = _plan("wsl2-rtx4060-laptop")
    lines = next_steps(plan)
    text = "\n".join(lines)
    assert f"source {plan.venv}/bin/activate" in text
    assert f"python {hello_path(plan.venv)}" in text
    assert "localhost" in text and "Windows" in text  # WSL2: Windows' browser reaches Jupyter
    assert plan.python in text  # VS Code's interpreter
    lock = f"{plan.venv}/tf-gpu-wizard.lock.txt"
    writes_lock = any(lock in argv for s in plan.active_steps for argv in s.commands)
    assert (lock in text) is writes_lock
    native = "\n".join(next_steps(_plan("ubuntu-24.04-rtx4090-fresh")))
    assert "localhost" not in native
    cpu = "\n".join(next_steps(_plan("no-nvidia-gpu")))
    assert "hello_gpu.py --cpu" in cpu


def test_lock_line_when_the_file_is_there() -> None:
    plan = _plan("no-nvidia-gpu")
    lock = f"{plan.venv}/tf-gpu-wizard.lock.txt"
    assert any(lock in line for line in next_steps(plan, exists=lambda p: p == lock))


def test_conda_activation_works_without_conda_init() -> None:
    plan = _plan("ubuntu-24.04-rtx5090", method="conda")
    conda = plan.step("conda-env").commands[0][0]
    base = str(Path(conda).parent.parent)
    lines = next_steps(plan)
    # The command on a line of its own under its sentence: a narrow screen cannot part it.
    assert lines[1].endswith(":") and lines[2] == f"    source {base}/bin/activate {plan.venv}"


def test_the_exported_script_ends_with_the_same_words(tmp_path: Path) -> None:
    plan = _plan("wsl2-rtx4060-laptop")
    script = render_script(plan)
    path = tmp_path / "s.sh"
    path.write_text(script)
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    tail = script[script.index("All steps done") :]
    for line in next_steps(plan):
        assert line.replace("'", "'\"'\"'") in tail


def test_apply_ends_with_the_next_steps(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["apply", "--profile", "no-nvidia-gpu", "--yes"])
    out = capsys.readouterr().out
    assert rc == 0, out[-2000:]
    end = out[out.rindex("Your TensorFlow environment is ready") :]
    assert "Activate it in each new terminal:\n    source " in end
    assert "hello_gpu.py --cpu" in end and "VS Code" in end


@pytest.mark.slow
def test_the_jupyter_step_for_real(tmp_path: Path) -> None:
    """Its commands, run in a real environment (made by uv, as the plan would), pass its check."""
    profile = machine_with_uv()
    rec = recommend(profile)
    assert rec.recommended is not None
    home = tmp_path / "home"
    plan = build_plan(profile, rec.recommended, home=home, venv=tmp_path / "my env")
    step = plan.step("jupyter")
    assert step.commands[0][:3] == (uv_path(), "pip", "install")
    env = dict(os.environ, HOME=str(home))
    for argv in plan.step("venv").commands + step.commands:
        done = subprocess.run(list(argv), capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
    assert subprocess.run(list(step.check.argv), env=env).returncode == 0
    spec = json.loads((home / ".local/share/jupyter/kernels/my-env/kernel.json").read_text())
    assert spec["display_name"].startswith("TensorFlow ")


def test_apply_with_jupyter_switches_the_step_on(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["apply", "--profile", "wsl2-rtx4060-laptop", "--with", "jupyter", "--yes", "--dry-run"])
    out = capsys.readouterr().out
    assert rc == 0
    jupyter = out[out.index("Register the environment as a Jupyter kernel") :]
    assert "[optional, on]" in jupyter.splitlines()[0]
    assert main(["plan", "--profile", "wsl2-rtx4060-laptop", "--with", "verify"]) == 2
    assert "not an optional step" in capsys.readouterr().err
