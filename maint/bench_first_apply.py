"""The first CPU `apply --yes` with the wizard's own uv against a bare `uv venv` + `uv pip install`.

    .venv/bin/python -m maint.bench_first_apply [--rounds 1] [--requirement tensorflow-cpu==2.21.0]

Side by side in one run, on a machine with no uv on PATH (it is taken off PATH here, so the wizard
must find the binary of its own `uv` dependency), each from an empty uv cache and into a new
environment, in a temporary home:
- "apply": `tf-gpu-wizard apply --yes` of this machine's CPU plan, every step with its checks (the
  venv and its pip, TensorFlow with its RECORD digests, the verify, the hello script; the digests
  are proven while the verify starts TensorFlow, Step.alongside_previous_check);
- "bare": the same uv binary, `uv venv` then `uv pip install` of the same requirement, with the same
  index options the plan passes (pip's configuration, read by the probe).
Rounds alternate which goes first. Prints each time, the medians and the ratio (target: <= 1.5x),
and beside it the bare install plus its first `import tensorflow` (uv compiles no bytecode at install,
so that import compiles TensorFlow's modules: the cost the apply's one TensorFlow start pays).
A maintainer's measurement, not a test: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from maint.kill_trial import _no_uv_path, _pip_config

DEFAULT_REQUIREMENT = "tensorflow-cpu==2.21.0"


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stdout.decode()[-3000:]}")
    return seconds


def _env(root: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir(parents=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "TF_GPU_WIZARD_HOME": str(root / "wizard"),
        "UV_CACHE_DIR": str(root / "uv-cache"),  # empty: a cold cache
        "PATH": _no_uv_path(),
    }
    env.pop("VIRTUAL_ENV", None)
    conf = _pip_config()
    if conf:
        env["PIP_CONFIG_FILE"] = conf
    return env


def run_apply(root: Path) -> tuple[float, dict[str, float]]:
    """The whole apply's seconds, and each step's (from its "==> [n/N]" line to the next)."""
    env = {**_env(root), "TF_GPU_WIZARD_LANG": "en"}
    wizard = [sys.executable, "-c", "import sys; from wizard.cli.main import main; sys.exit(main())"]
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*wizard, "apply", "--yes"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    marks: list[tuple[str, float]] = []
    tail: list[str] = []
    assert proc.stdout is not None
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace").rstrip()
        tail = [*tail[-40:], line]
        if line.startswith("==> ["):
            marks.append((line.split("] ", 1)[-1][:40], time.perf_counter() - started))
    seconds = time.perf_counter() - started
    if proc.wait() != 0:
        raise SystemExit("apply failed:\n" + "\n".join(tail))
    ends = [t for _, t in marks[1:]] + [seconds]
    return seconds, {title: end - begin for (title, begin), end in zip(marks, ends, strict=True)}


def run_bare(root: Path, requirement: str) -> tuple[float, float]:
    from wizard.plan.installer import choose_installer
    from wizard.probe.detect import detect

    env = _env(root)
    installer = choose_installer(detect())
    if not installer.is_uv:
        raise SystemExit("the wizard found no uv of its own: is the `uv` dependency installed?")
    venv = root / "venv"
    py = str(venv / "bin" / "python")
    started = time.perf_counter()
    _timed([installer.uv, "venv", "--python", sys.executable, str(venv)], env)
    _timed(list(installer.install_command(py, requirement)), env)
    bare = time.perf_counter() - started
    # uv compiles no bytecode at install (pip does): the first import pays for it. This second
    # figure is what the apply's one TensorFlow start is compared with, never the target.
    imported = _timed([py, "-c", "import tensorflow"], env)
    return bare, imported


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m maint.bench_first_apply", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--requirement", default=DEFAULT_REQUIREMENT)
    args = parser.parse_args(argv)
    if shutil.which("uv", path=_no_uv_path()):
        raise SystemExit("uv is still on PATH")
    times: dict[str, list[float]] = {
        "apply": [],
        "apply install steps": [],
        "bare": [],
        "bare + import tensorflow": [],
    }
    for n in range(max(1, args.rounds)):
        order = ("bare", "apply") if n % 2 == 0 else ("apply", "bare")
        for what in order:
            with tempfile.TemporaryDirectory(prefix=f"bench-{what}-") as tmp:
                if what == "bare":
                    seconds, imported = run_bare(Path(tmp), args.requirement)
                    times["bare + import tensorflow"].append(seconds + imported)
                    print(f"           {imported:6.1f} s  then the first `import tensorflow`")
                else:
                    seconds, steps = run_apply(Path(tmp))
                    # The steps that make the environment (what the bare commands do), with their checks;
                    # the locked install's digest proof runs alongside the verify (its TensorFlow start),
                    # so its seconds are in the verify's line, not here.
                    install = sum(
                        v for k, v in steps.items() if "TensorFlow runs" not in k and "hello" not in k
                    )
                    times["apply install steps"].append(install)
                    for title, took in steps.items():
                        print(f"           {took:6.1f} s  {title}")
            times[what].append(seconds)
            print(f"round {n + 1}: {what:5} {seconds:6.1f} s", flush=True)
    bare = statistics.median(times["bare"])
    print()
    for label in ("apply", "apply install steps"):
        med = statistics.median(times[label])
        print(f"median {label:20} {med:6.1f} s = {med / bare:.2f}x the bare uv install ({bare:.1f} s)")
    with_import = statistics.median(times["bare + import tensorflow"])
    ratio = statistics.median(times["apply"]) / with_import
    print(f"median bare + first import  {with_import:6.1f} s (the apply is {ratio:.2f}x that)")
    print("target: the whole apply <= 1.25x the bare install + its first import (issue 37)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
