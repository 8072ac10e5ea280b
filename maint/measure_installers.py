"""Time pip against uv installing TensorFlow into a fresh environment (a maintainer's tool).

    .venv/bin/python -m maint.measure_installers [--requirement tensorflow-cpu==2.21.0] [--runs 1]

For each run it makes a new environment and installs the requirement three ways, with
the very commands a plan shows (wizard.plan.installer, on this machine's detected profile,
so uv gets pip's index settings as the plan passes them):
- pip, with pip's own cache as it is (warm after the first run on a machine);
- uv with an empty cache (a first install with uv: everything downloaded);
- uv again with the cache the cold run filled (a re-install, or a second environment).
It prints one line per install and a summary. Nothing outside a temporary folder changes.
Needs uv on PATH or in this Python's bin folder (`pip install uv`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wizard.plan.installer import PIP, Installer, choose_installer
from wizard.probe.detect import detect

DEFAULT_REQUIREMENT = "tensorflow-cpu==2.21.0"


def _run(argv: list[str] | tuple[str, ...], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace")[-2000:]
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{tail}")
    return seconds


def _fresh_env(installer: Installer, base_python: str, where: Path, env: dict[str, str] | None) -> str:
    python = str(where / "bin" / "python")
    for argv in installer.venv_commands(base_python, str(where), python):
        _run(argv, env)
    return python


def measure(requirement: str, runs: int, base_python: str) -> dict[str, list[float]]:
    import os

    profile = detect()
    uv = choose_installer(profile)
    if not uv.is_uv:
        raise SystemExit("uv was not found (install it with `pip install uv`); nothing to compare")
    times: dict[str, list[float]] = {"pip": [], "uv cold cache": [], "uv warm cache": []}
    with tempfile.TemporaryDirectory(prefix="measure-installers-") as tmp:
        root = Path(tmp)
        for n in range(runs):
            py = _fresh_env(PIP, base_python, root / f"pip-{n}", None)
            t = _run(PIP.install_command(py, requirement))
            times["pip"].append(t)
            print(f"pip            run {n + 1}: {t:6.1f} s", flush=True)

            cache = root / f"uv-cache-{n}"
            env = dict(os.environ, UV_CACHE_DIR=str(cache))
            for label, name in (("uv cold cache", "uv-cold"), ("uv warm cache", "uv-warm")):
                py = _fresh_env(uv, base_python, root / f"{name}-{n}", env)
                t = _run(uv.install_command(py, requirement), env)
                times[label].append(t)
                print(f"{label:14} run {n + 1}: {t:6.1f} s", flush=True)
            shutil.rmtree(cache, ignore_errors=True)
    return times


def main(argv: list[str] | None = None) -> int:
    summary = (__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m maint.measure_installers", description=summary)
    parser.add_argument("--requirement", default=DEFAULT_REQUIREMENT)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--python", default=sys.executable, help="the Python the environments are made with")
    args = parser.parse_args(argv)
    print(f"Installing {args.requirement} into a fresh environment ({args.runs} run(s) each)", flush=True)
    times = measure(args.requirement, max(1, args.runs), args.python)
    print()
    pip = statistics.median(times["pip"])
    for label, values in times.items():
        med = statistics.median(values)
        print(f"{label:14} median {med:6.1f} s  ({pip / med:4.1f}x pip's speed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
