"""SIGKILL a real CPU `apply --yes` at random moments of every step; each resume must finish whole.

    .venv/bin/python -m maint.kill_trial [--kills 26] [--seed 19] [--keep DIR]

Everything happens in a temporary home (HOME, the wizard's state, the uv cache, the environment);
the machine's pip configuration is passed on (PIP_CONFIG_FILE) so the plan asks the same index.
uv is taken off PATH: the wizard uses its own (the `uv` dependency).

The kills come in chains, one chain per fresh environment:
1. start `apply --yes --new` into a new (deleted) environment;
2. for each step of the plan in turn: wait until it is running, then a random time within its
   usual length, and SIGKILL: half the kills in each step the runner alone (its command lives on in its own
   session, as after a crash of the wizard), the others the runner and every process under it (as
   a power cut leaves an unpack half-written); then start `apply --yes` again: the resume, which the
   next kill interrupts in the next step;
3. the last resume runs to the end, and the result is checked whole: exit 0, the journal finished,
   the environment's pip and TensorFlow proven by installed_ok.py (RECORD digests), `pip --version`
   runs (TensorFlow itself ran in the plan's verify step, which always runs).
It prints a line per kill (the step the kill landed in, how long after the step began) and the count.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The usual length of each step here (the verify runs the hello script too: tf_proof.py; the hello
# step's check then finds that run's record, unless a kill or a change voided it).
STEP_SECONDS = {"venv": 2.0, "tensorflow": 9.0, "verify": 12.0, "hello": 1.0}


def _no_uv_path() -> str:
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "uv").exists()]
    return os.pathsep.join(keep)


def _pip_config() -> str | None:
    for f in (Path.home() / ".config/pip/pip.conf", Path.home() / ".pip/pip.conf", Path("/etc/pip.conf")):
        if f.exists():
            return str(f)
    return None


class Trial:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.home = root / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.venv = self.home / ".venvs" / "tf-gpu"
        self.env = {
            **os.environ,
            "HOME": str(self.home),
            "TF_GPU_WIZARD_HOME": str(root / "wizard"),
            "UV_CACHE_DIR": str(root / "uv-cache"),
            "PATH": _no_uv_path(),
            "TF_CPP_MIN_LOG_LEVEL": "2",
        }
        conf = _pip_config()
        if conf:
            self.env["PIP_CONFIG_FILE"] = conf
        self.env.pop("VIRTUAL_ENV", None)
        self.rng = random.Random(seed)
        self.journal = root / "wizard" / "state" / "run.json"
        self.wizard = [sys.executable, "-c", "import sys; from wizard.cli.main import main; sys.exit(main())"]

    def apply(self, *extra: str) -> subprocess.Popen[bytes]:
        log = open(self.root / "apply.out", "ab")  # the child writes to it
        return subprocess.Popen(
            [*self.wizard, "apply", "--yes", *extra], env=self.env, stdout=log, stderr=subprocess.STDOUT
        )

    def running_step(self) -> tuple[str | None, float]:
        try:
            state = json.loads(self.journal.read_text())
        except (OSError, ValueError):
            return None, 0.0
        steps = state.get("steps", {})
        running = [step_id for step_id, rec in steps.items() if rec.get("status") == "running"]
        # Two at once: the install's digest proof alongside the verify (Step.alongside_previous_check).
        return ("+".join(running) if running else None), 0.0

    def descendants(self, pid: int) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
        found, todo = [], [pid]
        while todo:
            for child in children.get(todo.pop(), []):
                found.append(child)
                todo.append(child)
        return found

    def leftovers(self) -> list[int]:
        """Commands the runner started in their own sessions (they outlive a killed runner)."""
        mine = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if f"TF_GPU_WIZARD_HOME={self.env['TF_GPU_WIZARD_HOME']}".encode() in environ:
                mine.append(int(entry.name))
        return mine

    def kill_during(self, proc: subprocess.Popen[bytes], target: str, everything: bool) -> tuple[str, float]:
        """SIGKILL a random moment into `target` (or whatever runs then); (where it landed, seconds in)."""
        began: float | None = None
        delay = self.rng.uniform(0.0, STEP_SECONDS.get(target, 5.0))
        deadline = time.monotonic() + 900
        landed = "?"
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return "(finished first)", 0.0
            step, _ = self.running_step()
            if step is not None and target in step.split("+") and began is None:
                began = time.monotonic()
            if began is not None and time.monotonic() - began >= delay:
                landed = step or "between steps"
                break
            time.sleep(0.01)
        victims = [proc.pid] + (self.descendants(proc.pid) if everything else [])
        if everything:
            victims += [p for p in self.leftovers() if p not in victims]
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
        return landed, time.monotonic() - (began or time.monotonic())

    def resume_whole(self) -> str:
        proc = self.apply()
        rc = proc.wait(timeout=1800)
        return self.whole(rc)

    def whole(self, rc: int) -> str:
        if rc != 0:
            return f"resume exited {rc}"
        state = json.loads(self.journal.read_text())
        if not state.get("finished"):
            return "journal not finished"
        py = str(self.venv / "bin" / "python")
        programs = self.root / "wizard" / "data" / "programs"
        for argv in (
            [py, str(programs / "installed_ok.py"), "env", f"{sys.version_info[0]}.{sys.version_info[1]}"],
            [py, str(programs / "installed_ok.py"), "check", "tensorflow-cpu==2.21.0"],
            [str(self.venv / "bin" / "pip"), "--version"],
        ):  # TensorFlow itself ran in the run's own verify step (it always runs)
            done = subprocess.run(argv, env=self.env, capture_output=True, text=True)
            if done.returncode != 0:
                return f"not whole: {' '.join(argv[-2:])}: {(done.stdout + done.stderr).strip()[-300:]}"
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m maint.kill_trial", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--kills", type=int, default=26)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--keep", type=Path, default=None, help="work in DIR and keep it")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="kill-trial-"))
    trial = Trial(root, args.seed)
    steps = list(STEP_SECONDS)
    print(f"first install into {trial.venv}", flush=True)
    first = trial.resume_whole()
    if first:
        print("the first install did not finish whole:", first)
        return 1
    whole = landed_in = chains = kills = 0
    spread: dict[str, int] = {}
    started = time.monotonic()
    while kills < args.kills:
        # One chain: a fresh environment, a kill in each step in turn, each followed by a resume,
        # then the last resume runs to the end and the result is proven whole.
        chains += 1
        shutil.rmtree(trial.venv, ignore_errors=True)
        proc = trial.apply("--new")
        for target in steps:
            if kills >= args.kills:
                break
            # Both kinds of kill in every step: the kind flips each chain as well as each kill.
            everything = (kills + chains) % 2 == 1
            landed, after = trial.kill_during(proc, target, everything=everything)
            kills += 1
            spread[landed] = spread.get(landed, 0) + 1
            landed_in += any(part in steps for part in landed.split("+"))
            what = "all" if everything else "runner"
            print(
                f"kill {kills:2} (chain {chains}): {what:6} in {landed:16} {after:5.1f} s into it", flush=True
            )
            proc = trial.apply()  # the resume
        problem = trial.whole(proc.wait(timeout=1800))
        whole += not problem
        print(f"chain {chains}: " + ("resumed whole" if not problem else "NOT WHOLE: " + problem), flush=True)
    print()
    print(f"{kills} SIGKILLs, {landed_in} inside a step ({spread}); {whole} of {chains} chains whole")
    print(f"{time.monotonic() - started:.0f} s; work folder {root}")
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if whole == chains else 1


if __name__ == "__main__":
    raise SystemExit(main())
