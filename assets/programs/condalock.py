"""tf-gpu-wizard: a conda environment from an explicit lock (usage: condalock.py create|check ...).

create [--channel URL] CONDA PREFIX LOCK SPEC...
        LOCK exists (an earlier install wrote it, or the lab's control node shipped it): create
        PREFIX from it (`conda create -p PREFIX --file LOCK`: exactly those package files, each
        named by URL and sha256). Otherwise solve SPEC once (conda-forge only), then write what
        was installed, every package with its sha256 (`conda list --explicit --sha256`), to LOCK,
        whole; every later install, here or on another machine, installs from it.
        --channel URL (a mirror of conda-forge): the solve uses only URL, and a lock's packages
        are fetched from URL (same subdir and file name; their sha256 still checked).
create --packages DIR CONDA PREFIX LOCK SPEC...
        offline, from package files a lab's control node shipped into DIR: LOCK must exist; every
        package file it names must be in DIR with the sha256 it names, checked here before conda
        runs (one that differs is refused, by name); then `conda create --offline` from those files.
check CONDA PREFIX LOCK
        exit 0 when LOCK names every package with a sha256 and PREFIX holds exactly the packages
        of LOCK, each with that sha256 (as `conda list --explicit --sha256` reports them).
Each command run is printed first. Standard library only (the wizard's own Python runs it).
"""

import hashlib
import os
import re
import shlex
import subprocess
import sys
import urllib.request

# A package line of an explicit file: URL#sha256 (conda list --sha256), also URL#sha256:HEX.
_LINE = re.compile(r"^(?P<url>\S+\.(?:conda|tar\.bz2))#(?:sha256:)?(?P<sha>[0-9a-f]{64})$")


def say(argv):
    print("$ " + " ".join(shlex.quote(a) for a in argv), flush=True)


def run(argv):
    say(argv)
    return subprocess.call(argv)


def packages(text):
    """{file name: sha256} of an explicit lock's package lines; None when a line has no sha256."""
    out = {}
    explicit = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line == "@EXPLICIT":
            explicit = True
            continue
        m = _LINE.match(line)
        if not explicit or m is None:
            return None
        out[m.group("url").rsplit("/", 1)[-1]] = m.group("sha")
    return out if explicit and out else None


def explicit_text(conda, prefix):
    argv = [conda, "list", "--explicit", "--sha256", "-p", prefix]
    say(argv)
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr.strip()[-600:], file=sys.stderr)
        return None
    return proc.stdout


def write_whole(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        os.makedirs(folder)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def on_channel(text, channel):
    """The lock's package lines fetched from `channel`: URL's channel part replaced, subdir, file
    name and sha256 kept."""
    out = []
    for raw in text.splitlines():
        m = _LINE.match(raw.strip())
        if m is None:
            out.append(raw)
            continue
        subdir, name = m.group("url").rsplit("/", 2)[-2:]
        out.append(f"{channel.rstrip('/')}/{subdir}/{name}#{m.group('sha')}")
    return "".join(line + "\n" for line in out)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def from_folder(text, folder):
    """The lock's package lines as file:// URLs of the files in `folder` (the fragment kept), or
    (None, why) where one is missing or its sha256 is not the lock's."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        m = _LINE.match(line)
        if m is None:
            out.append(raw)
            continue
        name = m.group("url").rsplit("/", 1)[-1]
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            return None, f"{name}: not in {folder}"
        got = sha256_of(path)
        if got != m.group("sha"):
            return None, f"{name}: sha256 {got}, the lock names {m.group('sha')}: refused"
        url = "file://" + urllib.request.pathname2url(os.path.abspath(path))
        out.append(url + "#" + line.split("#", 1)[1])
    return "".join(line + "\n" for line in out), ""


def create_offline(conda, prefix, lock, folder):
    try:
        with open(lock, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        print(f"condalock: {lock}: {exc.strerror} (the control node ships it)", file=sys.stderr)
        return 1
    if packages(text) is None:
        print(f"condalock: {lock} is not an explicit lock with a sha256 on every line", file=sys.stderr)
        return 1
    local, why = from_folder(text, folder)
    if local is None:
        print(f"condalock: {why}", file=sys.stderr)
        return 1
    print(f"condalock: {len(packages(text))} package files in {folder} match the lock's sha256", flush=True)
    listed = lock + ".local.txt"
    write_whole(listed, local)
    try:
        return run([conda, "create", "-y", "--offline", "-p", prefix, "--file", listed])
    finally:
        os.remove(listed)


def create(conda, prefix, lock, specs, channel=None):
    if os.path.isfile(lock):
        with open(lock, encoding="utf-8") as f:
            text = f.read()
        if packages(text) is None:
            print(f"condalock: {lock} is not an explicit lock with a sha256 on every line", file=sys.stderr)
            return 1
        if channel is None:
            return run([conda, "create", "-y", "-p", prefix, "--file", lock])
        mirrored = lock + ".channel.txt"
        write_whole(mirrored, on_channel(text, channel))
        try:
            return run([conda, "create", "-y", "-p", prefix, "--file", mirrored])
        finally:
            os.remove(mirrored)
    code = run(
        [conda, "create", "-y", "-p", prefix, "--override-channels", "-c", channel or "conda-forge", *specs]
    )
    if code != 0:
        return code
    text = explicit_text(conda, prefix)
    if text is None or packages(text) is None:
        print("condalock: conda did not list every package with a sha256", file=sys.stderr)
        return 1
    write_whole(lock, text)
    print(f"condalock: wrote {lock} ({len(packages(text))} packages, each with its sha256)", flush=True)
    return 0


def check(conda, prefix, lock):
    try:
        with open(lock, encoding="utf-8") as f:
            want = packages(f.read())
    except OSError as exc:
        print(f"condalock: {lock}: {exc.strerror}", file=sys.stderr)
        return 1
    if want is None:
        print(f"condalock: {lock} is not an explicit lock with a sha256 on every line", file=sys.stderr)
        return 1
    text = explicit_text(conda, prefix)
    have = packages(text) if text is not None else None
    if have is None:
        print(
            f"condalock: {prefix} is not a conda environment whose packages all carry a sha256",
            file=sys.stderr,
        )
        return 1
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    other = sorted(n for n in set(want) & set(have) if want[n] != have[n])
    for label, names in (("missing", missing), ("not in the lock", extra), ("another sha256", other)):
        if names:
            print(f"condalock: {label}: {', '.join(names[:8])}", file=sys.stderr)
    return 1 if missing or extra or other else 0


def main(argv):
    if len(argv) >= 6 and argv[0] == "create" and argv[1] == "--packages":
        return create_offline(argv[3], argv[4], argv[5], argv[2])
    if len(argv) >= 6 and argv[0] == "create" and argv[1] == "--channel":
        return create(argv[3], argv[4], argv[5], argv[6:], channel=argv[2])
    if len(argv) >= 4 and argv[0] == "create" and argv[1] != "--channel":
        return create(argv[1], argv[2], argv[3], argv[4:])
    if len(argv) == 4 and argv[0] == "check":
        return check(argv[1], argv[2], argv[3])
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
