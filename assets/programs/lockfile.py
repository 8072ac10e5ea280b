"""tf-gpu-wizard: the environment's lock file (usage: lockfile.py place|check|repair|pylock|compile ...).

place SRC DEST SHA256   copy the lock SRC to DEST (whole: temp, fsync, rename) when its sha256 is
                        SHA256; a lock that differs from the one the plan showed is refused.
check DEST SHA256       exit 0 when DEST is that lock and every package in it is installed whole
                        (installed_ok.py, beside this file, checks each against its RECORD).
repair [--uv UV] DEST   uninstall the packages of the lock an interrupted install left damaged;
                        with --uv, a damaged file linked from uv's cache (uv's default) means the
                        cached copy is damaged too: those packages are cleaned from the cache, so
                        the install that follows fetches them again rather than relinking them.
pylock DEST OUT UV PYTHON PLATFORM
                        the lock as a PEP 751 pylock.toml (uv names each file's URL on the index
                        this machine uses), the same files: every sha256 of DEST is in OUT.
compile OUT UV PYTHON PLATFORM REQ...
                        no lock is recorded for this machine: resolve one here with uv, every
                        package pinned with its sha256, for this Python and platform (printed first).
Runs in the target environment's Python (3.7 and newer), standard library only.
"""

import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_whole(path, data):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        os.makedirs(folder)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def requirements(path):
    """The name==version of each line (uv writes `--hash` options on continuation lines)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                out.append(line.split()[0])
    return out


def installed_ok(mode, reqs, options=()):
    if not reqs:
        return 0
    return subprocess.call([sys.executable, os.path.join(HERE, "installed_ok.py"), mode, *options, *reqs])


def place(src, dest, sha):
    try:
        got = digest(src)
    except OSError as exc:
        print(f"cannot read the plan's lock {src}: {exc.strerror}; make the plan again", file=sys.stderr)
        return 1
    if got != sha:
        print(f"lock {src} has sha256 {got}, not {sha} as the plan showed: not used", file=sys.stderr)
        return 1
    with open(src, "rb") as f:
        data = f.read()
    write_whole(dest, data)
    count = len(requirements(dest))
    print(f"wrote {dest}: {count} packages, each with its sha256 (lock {sha[:16]})")
    return 0


def check(dest, sha):
    if not os.path.isfile(dest):
        print(f"no lock at {dest}", file=sys.stderr)
        return 1
    if digest(dest) != sha:
        print(f"{dest} is not the plan's lock (sha256 differs)", file=sys.stderr)
        return 1
    return installed_ok("check", requirements(dest))


def repair(dest, uv=None):
    if not os.path.isfile(dest):
        return 0
    return installed_ok("repair", requirements(dest), ("--uv", uv) if uv else ())


def compile_lock(out, uv, python, platform, reqs):
    cmd = [uv, "pip", "compile", "-", "--python-version", python, "--python-platform", platform]
    cmd += ["--only-binary", ":all:", "--generate-hashes", "--no-header", "--quiet", "-o", out + ".tmp"]
    print("$ " + " ".join(cmd) + "  <<< " + " ".join(reqs), flush=True)
    proc = subprocess.run(cmd, input="".join(r + "\n" for r in reqs).encode("utf-8"))
    if proc.returncode != 0:
        return proc.returncode
    os.replace(out + ".tmp", out)
    print(f"wrote {out}: {len(requirements(out))} packages")
    return 0


def pylock(dest, out, uv, python, platform):
    cmd = [uv, "pip", "compile", dest, "--python-version", python, "--python-platform", platform]
    cmd += ["--only-binary", ":all:", "--no-header", "--quiet", "-o", out]
    print("$ " + " ".join(cmd), flush=True)
    code = subprocess.call(cmd)
    if code != 0:
        return code
    with open(dest, encoding="utf-8") as f:
        wanted = [w.split(":", 1)[1] for w in f.read().split() if w.startswith("--hash=sha256:")]
    with open(out, encoding="utf-8") as f:
        text = f.read()
    missing = [h for h in wanted if h not in text]
    if missing:
        print(f"{out} names other files than {dest} ({len(missing)} hashes differ)", file=sys.stderr)
        return 1
    print(f"wrote {out}: the {len(wanted)} files of {dest} in PEP 751 form")
    return 0


def main(argv):
    if len(argv) >= 4 and argv[0] == "place":
        return place(argv[1], argv[2], argv[3])
    if len(argv) == 3 and argv[0] == "check":
        return check(argv[1], argv[2])
    if len(argv) == 2 and argv[0] == "repair":
        return repair(argv[1])
    if len(argv) == 4 and argv[0] == "repair" and argv[1] == "--uv":
        return repair(argv[3], argv[2])
    if len(argv) == 6 and argv[0] == "pylock":
        return pylock(*argv[1:])
    if len(argv) >= 6 and argv[0] == "compile":
        return compile_lock(argv[1], argv[2], argv[3], argv[4], argv[5:])
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
