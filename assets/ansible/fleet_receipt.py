"""tf-gpu-wizard's fleet receipt: run the plan's check on this host and write what it proved.

Standalone (standard library only), run by the playbook with the host's python3:

    python3 fleet_receipt.py --host NAME --class CLASS --lock LOCKFILE [--conda-lock FILE] --python ENV_PYTHON
        --out RECEIPT.json -- CHECK_ARGV...

It runs the check (the plan's verify step: the GPU check, or the CPU matmul for a CPU set),
reads the installed TensorFlow from the environment's own metadata, the GPUs and driver from
nvidia-smi when there is one, digests the lock file that was installed, and writes one JSON
object (written whole: temp file, then rename). Its exit status is the check's.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

SCHEMA = 1
CHECK_TIMEOUT_S = 1800
TF_VERSION_PY = (
    "import importlib.metadata as m, sys\n"
    "for n in ('tensorflow', 'tensorflow-cpu', 'tensorflow-intel', 'tensorflow-macos'):\n"
    "    try:\n"
    "        print(n, m.version(n)); sys.exit(0)\n"
    "    except m.PackageNotFoundError:\n"
    "        pass\n"
    "sys.exit(1)\n"
)


def _run(argv: list[str], timeout: float) -> tuple[int, str, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, "", str(exc)
    return done.returncode, done.stdout, done.stderr


def tensorflow(python: str) -> dict:
    rc, out, _ = _run([python, "-c", TF_VERSION_PY], 120)
    if rc != 0 or not out.split():
        return {"distribution": None, "version": None}
    name, version = out.split()[:2]
    return {"distribution": name, "version": version}


def gpus() -> tuple[list[dict], str | None]:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return [], None
    rc, out, _ = _run([smi, "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"], 60)
    if rc != 0:
        return [], None
    found, driver = [], None
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2:
            found.append({"name": parts[0], "compute_capability": parts[2] if len(parts) > 2 else None})
            driver = parts[1]
    return found, driver


def digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def check_result(rc: int, out: str, err: str) -> dict:
    """The check's verdict; the GPU check speaks JSON lines (its `fail` event names the code)."""
    code, message = None, ""
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("event") == "fail":
            code, message = event.get("code"), str(event.get("message", ""))
    if rc != 0 and not message:
        tail = (err.strip() or out.strip()).splitlines()
        message = tail[-1][:400] if tail else f"exit status {rc}"
    if rc == 0:
        lines = [x for x in out.strip().splitlines() if x.strip()]
        message = lines[-1][:400] if lines else "passed"
    return {"passed": rc == 0, "exit_status": rc, "code": code, "message": message}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", required=True)
    p.add_argument("--class", dest="host_class", default="")
    p.add_argument("--lock", required=True)
    p.add_argument("--conda-lock", default="")  # the conda route's explicit lock on the host
    p.add_argument("--python", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--secure-boot", choices=("on", "off", "unknown"), default="unknown")
    p.add_argument("check", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    check = args.check[1:] if args.check[:1] == ["--"] else args.check
    if not check:
        p.error("no check command after --")
    started = time.monotonic()
    rc, out, err = _run(check, CHECK_TIMEOUT_S)
    seconds = round(time.monotonic() - started, 1)
    found, driver = gpus()
    receipt = {
        "schema": SCHEMA,
        "host": args.host,
        "class": args.host_class,
        "time": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "gpus": found,
        "driver": driver,
        "tensorflow": tensorflow(args.python),
        "lock_digest": digest(args.lock),
        "conda_lock_digest": digest(args.conda_lock) if args.conda_lock else None,
        "secure_boot": args.secure_boot,  # as the probe read it before the plan ran
        "check": dict(check_result(rc, out, err), seconds=seconds),
    }
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(receipt, f, indent=2, ensure_ascii=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, args.out)
    print(json.dumps(receipt["check"], ensure_ascii=True))
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
