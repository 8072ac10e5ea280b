"""tf-gpu-wizard's fleet check: is this host still what its receipt proved? Changes nothing.

Standalone (standard library only), run with the host's python3 by `tf-gpu-wizard fleet check`:

    python3 fleet_check.py --venv ENV --lock LOCKFILE --digest SHA256 --receipt RECEIPT.json

It proves the artifacts, not their labels: the installed lock file's sha256 against the class's;
every package of the lock in the environment's site-packages, at the locked version, with every
file its RECORD lists of the recorded size and sha256 (as installed_ok.py checks; a file whose
size, mtime, ctime and inode are those installed_ok.py last proved is not hashed again, and any
write changes its ctime); the driver and GPUs that nvidia-smi reports against the host's last
receipt. It prints one JSON object; its exit status is 0 whenever the check ran.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time

SCHEMA = 1
MAX_FILES_NAMED = 5
SMI_TIMEOUT_S = 20


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256_file(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def lock_requirements(path: str) -> list[tuple[str, str]]:
    """(name, version) of each `name==version` line (hash options on continuation lines)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                name, _, version = line.split()[0].split(";")[0].partition("==")
                out.append((re.sub(r"\[.*\]", "", name), version))
    return out


def conda_names(path: str) -> set[str] | None:
    """The packages an explicit conda lock (`conda list --explicit --sha256`) names, by normalised
    name; None for any other file. conda installs them (its own checks prove their files), so here
    they only count as locked, never as put in by hand."""
    names = set()
    with open(path, encoding="utf-8") as f:
        lines = [x.strip() for x in f.read().splitlines()]
    if "@EXPLICIT" not in lines:
        return None
    for line in lines:
        m = re.match(r"^\S+/([^/#]+)\.(?:conda|tar\.bz2)#", line)
        if m:
            names.add(norm(m.group(1).rsplit("-", 2)[0]))
    return names


def site_dirs(venv: str) -> list[str]:
    found, seen = [], set()
    for lib in ("lib", "lib64"):
        folder = os.path.join(venv, lib)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            site = os.path.join(folder, name, "site-packages")
            if name.startswith("python") and os.path.isdir(site) and os.path.realpath(site) not in seen:
                seen.add(os.path.realpath(site))
                found.append(site)
    return found


def installed(sites: list[str]) -> dict[str, tuple[str, str, str]]:
    """normalised name -> (name, version, dist-info folder)."""
    out = {}
    for site in sites:
        for entry in sorted(os.listdir(site)):
            if not entry.endswith(".dist-info"):
                continue
            folder = os.path.join(site, entry)
            name, version = entry[: -len(".dist-info")], ""
            try:
                with open(os.path.join(folder, "METADATA"), encoding="utf-8", errors="replace") as f:
                    for line in f:
                        if line.startswith("Name:"):
                            name = line[5:].strip()
                        elif line.startswith("Version:"):
                            version = line[8:].strip()
                        elif not line.strip():
                            break
            except OSError:
                pass
            out[norm(name)] = (name, version, folder)
    return out


def digest(path: str, mode: str) -> str:
    h = hashlib.new(mode)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii")


def changed_files(folder: str, proven: dict) -> tuple[list[str], int]:
    """The files of a dist-info's RECORD that are missing or differ, (relative paths, total)."""
    site = os.path.dirname(folder)
    try:
        with open(os.path.join(folder, "RECORD"), newline="", encoding="utf-8") as f:
            rows = [[*r, "", ""] for r in csv.reader(f) if r]
    except (OSError, UnicodeDecodeError, csv.Error):
        return ["RECORD"], 1
    bad: list[str] = []
    for rel, hashed, size, *_ in rows:
        if rel.endswith(".pyc") or not (hashed or size):
            continue
        path = os.path.normpath(os.path.join(site, rel))
        try:
            st = os.stat(path)
        except OSError:
            bad.append(rel)
            continue
        if not stat.S_ISREG(st.st_mode) or (size and st.st_size != int(size)):
            bad.append(rel)
            continue
        mode, _, value = hashed.partition("=")
        if not hashed or mode not in hashlib.algorithms_available:
            continue
        if proven.get(path) == [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, hashed]:
            continue  # proven by installed_ok.py and not written since (a write sets ctime)
        try:
            if digest(path, mode) != value:
                bad.append(rel)
        except OSError:
            bad.append(rel)
    return bad[:MAX_FILES_NAMED], len(bad)


def packages(venv: str, lock: str, also: list[str] | None = None) -> list[dict]:
    """What differs from the lock, one entry a package (empty: every package is as locked);
    `also`: the plan's other locks (pip, a step's packages). A package none of them names was put
    in by hand: `extra`."""
    sites = site_dirs(venv)
    if not sites:
        return [{"name": "", "problem": "no-environment", "path": venv}]
    have = installed(sites)
    try:
        with open(os.path.join(venv, ".tf-gpu-wizard-verified.json"), encoding="utf-8") as f:
            proven = json.load(f)
        proven = proven if isinstance(proven, dict) else {}
    except (OSError, ValueError):
        proven = {}
    out = []
    wanted, seen = [], set()
    by_conda: set[str] = set()
    for path in [lock, *(also or [])]:
        try:
            conda = conda_names(path)
            if conda is not None:  # the conda route's lock: conda's packages (python, pip...)
                by_conda |= conda
                continue
            reqs = lock_requirements(path)
        except (OSError, UnicodeDecodeError):
            continue  # a step's lock the plan no longer ships: its packages count as extra
        for name, want in reqs:
            if norm(name) not in seen:
                seen.add(norm(name))
                wanted.append((name, want))
    for key, (name, version, _) in sorted(have.items()):
        if key not in seen and key not in by_conda:
            out.append({"name": name, "version": version, "problem": "extra"})
    for name, want in wanted:
        found = have.get(norm(name))
        if found is None:
            out.append({"name": name, "want": want, "problem": "missing"})
            continue
        if want and found[1] != want:
            out.append({"name": name, "version": found[1], "want": want, "problem": "version"})
            continue
        files, count = changed_files(found[2], proven)
        if count:
            out.append(
                {"name": name, "version": found[1], "problem": "files", "files": files, "count": count}
            )
    return out


def smi() -> tuple[list[str], str | None, str]:
    """(GPU names, driver, why not read) from nvidia-smi, as the receipt reads them."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return [], None, "no nvidia-smi"
    try:
        done = subprocess.run(
            [exe, "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=SMI_TIMEOUT_S, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return [], None, f"nvidia-smi gave no answer in {SMI_TIMEOUT_S} s"
    except OSError as exc:
        return [], None, str(exc)
    if done.returncode != 0:
        return [], None, (done.stdout.strip() or done.stderr.strip() or f"exit {done.returncode}")[:300]
    names, driver = [], None
    for line in done.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2:
            names.append(parts[0])
            driver = parts[1]
    return names, driver, ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--venv", required=True)
    p.add_argument("--lock", required=True)
    p.add_argument("--digest", required=True)
    p.add_argument("--receipt", required=True)
    p.add_argument("--also", action="append", default=[], help="another lock of the plan (repeatable)")
    args = p.parse_args(argv)
    started = time.monotonic()
    try:
        with open(args.receipt, encoding="utf-8") as f:
            receipt = json.load(f)
        receipt = receipt if isinstance(receipt, dict) else {}
    except (OSError, ValueError):
        receipt = {}
    got = sha256_file(args.lock)
    result: dict = {"schema": SCHEMA, "lock": {"digest": got, "want": args.digest}}
    result["packages"] = packages(args.venv, args.lock, args.also) if got is not None else []
    names, driver, why = smi()
    was_gpus = [g.get("name") for g in receipt.get("gpus") or [] if isinstance(g, dict)]
    result["driver"] = {"now": driver, "receipt": receipt.get("driver"), "unread": why}
    result["gpus"] = {"now": names, "receipt": was_gpus}
    result["receipt"] = {"time": receipt.get("time"), "passed": (receipt.get("check") or {}).get("passed")}
    result["seconds"] = round(time.monotonic() - started, 2)
    print(json.dumps(result, ensure_ascii=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
