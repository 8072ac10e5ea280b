"""tf-gpu-wizard: is a pip requirement installed whole? Is an environment's pip whole?
usage: installed_ok.py check|repair [--uv UV] REQ...
       installed_ok.py env X.Y          installed_ok.py repair-env [--uv UV] DIR

"check REQ..." exits 0 when every requirement ("name[extras]==version" or "name") is installed with
every file its RECORD lists, for it and for the packages it needs, as rpm -V checks a package: a
regular file, of the recorded size, with the recorded sha256. A kill during pip's unpack leaves the
metadata of a package whose files are gone or cut short, and a same-size overwrite keeps the size:
neither may pass. "repair REQ..." uninstalls the damaged ones (so the install that follows puts them
back); with --uv, a damaged file that is a hard link into uv's cache (uv's default) means the cached
copy is damaged too, so that package is cleaned from the cache and fetched again.
Runs in the target environment's Python, standard library only.

"env X.Y" (in the environment's Python) exits 0 when it is a virtual environment of Python X.Y whose
pip is whole: pip's RECORD digests match, its `pip` command is there and runs, and no `~`-named
leftover of an interrupted pip is in site-packages. A kill of `pip install --upgrade pip` leaves a
`pip/` that imports while `python -m pip` fails, or a working pip with an empty dist-info and no
`bin/pip`: both fail here. "repair-env DIR" (any Python, the environment may not exist yet) removes
those leftovers and a damaged pip, so that the venv step's next command installs pip again; with
--uv, a damaged pip file linked from uv's cache has pip cleaned from the cache first.

A dist-info that a kill left with its RECORD and no METADATA is damaged; the repair removes it.

Fast: a file whose digest was proven is remembered in the environment (.tf-gpu-wizard-verified.json)
by its inode, size, mtime, ctime, link count and the digest it matched; it is hashed again when one
of them changed. The ctime is the tripwire: a write that sets the mtime back still sets the ctime
(no user call sets that back). A new ctime hashes the file again even when the link count moved
with it: uv hard-links its cache into every environment it builds, so a new link (another
environment built from the same cache, or one removed) sets the ctime of every file it links, and a
write through any of those links in between changes this environment's file too; the two cannot
be told apart, so the file is hashed (once: its new ctime is then remembered). `apply --verify`
removes this cache first (wizard/run/proof.py). tensorflow-cpu (13,000 files, 1.2 GB): 2 to 4 s
when every file is hashed, 0.3 s after.
"""

import base64
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

try:
    from importlib import metadata as md
except ImportError:  # Python 3.7 (TensorFlow 2.10's oldest) has no importlib.metadata: read .dist-info
    import csv
    import email
    import glob

    class _Hash:
        def __init__(self, text):
            self.mode, _, self.value = text.partition("=")

    class _File:
        def __init__(self, base, rel, digest, size):
            self._path, self.size = os.path.join(base, rel), int(size) if size else None
            self.suffix = os.path.splitext(rel)[1]
            self.hash = _Hash(digest) if digest else None

        def locate(self):
            return self._path

    class _Dist:
        def __init__(self, path):
            self._path = path
            try:
                with open(os.path.join(path, "METADATA"), encoding="utf-8") as f:
                    self.metadata = email.message_from_file(f)
            except OSError:  # a kill during the unpack: RECORD without METADATA
                self.metadata = email.message_from_string("")
            self.version = self.metadata["Version"]
            self.requires = self.metadata.get_all("Requires-Dist")
            record, base = os.path.join(path, "RECORD"), os.path.dirname(path)
            self.files = None
            if os.path.exists(record):
                with open(record, newline="", encoding="utf-8") as f:
                    rows = [[*r, "", ""] for r in csv.reader(f) if r]
                    self.files = [_File(base, r[0], r[1], r[2]) for r in rows]

    class md:  # stands in for the module
        class PackageNotFoundError(Exception):
            pass

        @staticmethod
        def distribution(name):
            key = re.sub(r"[-_.]+", "_", name).lower()
            for folder in sys.path:
                for info in glob.glob(os.path.join(folder or ".", "*.dist-info")):
                    found = os.path.basename(info)[: -len(".dist-info")].rsplit("-", 1)[0]
                    if re.sub(r"[-_.]+", "_", found).lower() == key:
                        return _Dist(info)
            raise md.PackageNotFoundError(name)


def spec(text):
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^]]*)\])?\s*(?:\(?\s*==\s*([^\s;,)]+))?", text)
    return m.group(1), {e.strip().lower() for e in (m.group(2) or "").split(",") if e.strip()}, m.group(3)


CACHE = os.path.join(sys.prefix, ".tf-gpu-wizard-verified.json")


def no_wait(path, flags):
    """os.open for a state file: a FIFO there never blocks, a link is never followed.

    The one opener of the programs' state files (read_state, write_state: env_proof.py and
    tf_proof.py import them from here)."""
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0), 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", path)
    return fd


def read_state(path):
    """A state file's JSON object; {} where it is missing, damaged or not a regular file."""
    try:
        with open(path, encoding="utf-8", opener=no_wait) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_state(path, data, separators=None, sync=True):
    """A state file written whole (a temp file beside it, then a rename); nothing where it cannot
    be written (a read-only environment)."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8", opener=no_wait) as f:
            json.dump(data, f, separators=separators)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        pass


# The cache's rules: an entry is trusted only while all six fields are the same. Entries written under
# older rules (a new ctime trusted when the link count moved with it) may remember a damaged file as
# proven: a cache without this mark is not read.
CACHE_FORMAT = ("format", 2)


def load_cache():
    data = read_state(CACHE)
    return data if data.get(CACHE_FORMAT[0]) == CACHE_FORMAT[1] else {}


def save_cache(data):
    data[CACHE_FORMAT[0]] = CACHE_FORMAT[1]  # paths are absolute: no file is named "format"
    write_state(CACHE, data, separators=(",", ":"), sync=False)  # read-only: the next check hashes again


def digest(path, mode):
    h = hashlib.new(mode)
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as f:
        n = f.readinto(buf)
        while n:
            h.update(view[:n])
            n = f.readinto(buf)
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii")


def matches(item):
    path, mode, value = item[:3]
    try:
        return digest(path, mode) == value
    except OSError:
        return False


def dist_name(dist, asked):
    """The package's name from its METADATA; the name asked for when a kill left no METADATA."""
    try:
        name = dist.metadata["Name"]
    except Exception:  # a dist-info without METADATA fails differently per Python
        name = None
    return name if isinstance(name, str) and name.strip() else asked


def no_metadata(dist):
    """A dist-info a kill left with its RECORD and without METADATA: no name, no version."""
    try:
        meta = dist.metadata
        return not (meta["Name"] and meta["Version"])
    except Exception:
        return True


def damage(dist, cache, proven, linked=None):
    """Why the installed files differ from the RECORD ("" when they do not); `cache` is brought up to
    date, `proven` notes each path whose entry changed. A changed file with other hard links is
    added to `linked`: uv links its cache into the environment, so its cached copy changed too."""
    files = dist.files
    if files is None:
        return "no RECORD"
    bad, todo = 0, []
    for f in files:
        h = getattr(f, "hash", None)
        if f.suffix == ".pyc" or (f.size is None and h is None):  # RECORD itself, caches pip wrote
            continue
        path = str(f.locate())
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode) or (f.size is not None and st.st_size != f.size):
            bad += 1
            if st is not None and st.st_nlink > 1 and linked is not None:
                linked.append(path)  # cut short through a link: uv's cached copy is cut short too
            cache.pop(path, None)
            continue
        if h is None or h.mode not in hashlib.algorithms_available:
            continue
        key = [st.st_ino, st.st_size, st.st_mtime_ns, h.mode + "=" + h.value, st.st_ctime_ns, st.st_nlink]
        if cache.get(path) == key:
            continue
        # Anything else, a new ctime with a new link count included, is hashed: a link made or
        # removed by another environment cannot be told from a write through one of its links.
        todo.append((path, h.mode, h.value, key, st.st_nlink))
    # hashlib lets go of the GIL while it hashes: the big files are hashed on every core at once,
    # the biggest first (one sha256 stream cannot be split: a 790 MB libtensorflow_cc started last
    # would be hashed alone after all the others).
    todo.sort(key=lambda item: -item[3][1])  # key[1]: the size
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        for (path, _, _, key, links), same in zip(todo, pool.map(matches, todo)):  # noqa: B905 (3.7)
            if same:
                cache[path] = proven[path] = key
            else:
                bad += 1
                if links > 1 and linked is not None:
                    linked.append(path)
                cache.pop(path, None)
                proven[path] = None
    return f"{bad} of {len(files)} recorded files missing or changed" if bad else ""


EXTRA = r"extra\s*==\s*[\x22\x27]([^\x22\x27]+)[\x22\x27]"


def requirements(action, reqs, uv=None):
    seen, problems, broken, todo = set(), [], [], [(r, True) for r in reqs]
    shared = []  # damaged packages whose damaged files are hard links into uv's cache
    cache, proven = load_cache(), {}
    while todo:
        text, top = todo.pop()
        name, extras, want = spec(text)
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            problems.append(f"{name}: not installed")
            continue
        if no_metadata(dist):
            # Its RECORD is there and its METADATA is not (a kill during the unpack): pip and uv
            # cannot name it to uninstall it, so the repair removes the dist-info itself.
            problems.append(f"{name}: damaged (no METADATA)")
            broken.append((name, dist))
            continue
        if top and want and dist.version != want:
            problems.append(f"{name}: {dist.version} installed, {want} wanted")
        linked = []
        why = damage(dist, cache, proven, linked)
        if linked:
            shared.append(dist_name(dist, name))
        if why:
            problems.append(f"{name}: damaged ({why})")
            broken.append((dist_name(dist, name), dist))
        for req in dist.requires or ():
            marker = req.partition(";")[2]
            need = {e.lower() for e in re.findall(EXTRA, marker)}
            if need and not need & extras:
                continue
            if re.sub(EXTRA + r"|\band\b|\bor\b|[()\s]", "", marker):  # a platform or Python condition
                try:
                    md.distribution(spec(req)[0])
                except md.PackageNotFoundError:
                    continue
            todo.append((req, False))
    if proven:
        save_cache(cache if len(cache) < 200000 else {})  # a damaged file is never remembered as proven
    if problems:
        print("\n".join(problems))
    if action == "check":
        return 1 if problems else 0
    if shared and uv and clean_uv_cache(uv, shared) != 0:
        return 1  # relinking the cache's damaged copy would only bring the same damage back
    nameless = [d for n, d in broken if no_metadata(d)]
    for d in nameless:
        print("removing a dist-info an interrupted install left without METADATA:", getattr(d, "_path", ""))
        shutil.rmtree(str(getattr(d, "_path", "")), ignore_errors=True)
    names = [n for n, d in broken if not no_metadata(d)]
    if names:
        print("uninstalling damaged packages so that pip installs them again:", " ".join(names))
        if subprocess.call([sys.executable, "-m", "pip", "uninstall", "-y", *names]) != 0:
            for _n, d in broken:  # pip cannot uninstall without a RECORD: drop the metadata it trusts
                shutil.rmtree(str(getattr(d, "_path", "")), ignore_errors=True)
    return 0


def clean_uv_cache(uv, names):
    """uv hard-links its cache into environments (its default link mode): a file damaged through
    one link is damaged in the cache and in every environment linked from it. Drop those packages
    from the cache, so the install that follows fetches them (and only them) again, checked against
    their hashes; everything else still comes from the cache."""
    print("the damaged files were linked from uv's cache; cleaning it for:", " ".join(names), flush=True)
    code = subprocess.call([uv, "cache", "clean", *names])
    if code != 0:
        print(f"uv cache clean failed (exit {code}): the damaged copy stays in uv's cache; run it again")
    return code


def site_dirs(env):
    """The environment's site-packages folders, each once (lib64 is often a link to lib)."""
    found, seen = [], set()
    for lib in ("lib", "lib64"):
        folder = os.path.join(env, lib)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            site = os.path.join(folder, name, "site-packages")
            if (
                name.startswith(("python", "pypy"))
                and os.path.isdir(site)
                and os.path.realpath(site) not in seen
            ):
                seen.add(os.path.realpath(site))
                found.append(site)
    windows = os.path.join(env, "Lib", "site-packages")
    return found + ([windows] if os.path.isdir(windows) else [])


def leftovers(site):
    """What pip stashes while it replaces a package ("~ip", "~ip-23.2.1.dist-info"), left by a kill."""
    return sorted(n for n in os.listdir(site) if n.startswith("~"))


def record_damage(site, info, linked=None):
    """ "" when every file the dist-info's RECORD names is there with its size and digest; a bad
    file with other hard links (uv's cache) is added to `linked`."""
    record = os.path.join(site, info, "RECORD")
    try:
        with open(record, newline="", encoding="utf-8") as f:
            import csv

            rows = [[*r, "", ""] for r in csv.reader(f) if r]
    except (OSError, UnicodeDecodeError):
        return f"{info}: no RECORD"
    bad = 0
    for rel, hashed, size, *_ in rows:
        path = os.path.normpath(os.path.join(site, rel))
        if rel.endswith(".pyc") or not (hashed or size):
            continue
        try:
            ok = os.path.isfile(path) and (not size or os.path.getsize(path) == int(size))
            mode, _, value = hashed.partition("=")
            if ok and hashed and mode in hashlib.algorithms_available:
                ok = digest(path, mode) == value
        except (OSError, ValueError):
            ok = False
        bad += not ok
        if not ok and linked is not None and os.path.isfile(path) and os.stat(path).st_nlink > 1:
            linked.append(path)
    return f"{info}: {bad} of {len(rows)} recorded files missing or changed" if bad else ""


def pip_problems(env, site, linked=None):
    problems = [f"left by an interrupted pip: {n}" for n in leftovers(site)]
    infos = sorted(n for n in os.listdir(site) if n.lower().startswith("pip-") and n.endswith(".dist-info"))
    if not infos:
        problems.append("pip: not installed")
    problems += [why for why in (record_damage(site, info, linked) for info in infos) if why]
    if len(infos) > 1:
        problems.append("pip: more than one version recorded: " + " ".join(infos))
    scripts = os.path.join(env, "Scripts" if os.name == "nt" else "bin")
    if not any(os.path.exists(os.path.join(scripts, n)) for n in ("pip", "pip.exe")):
        problems.append(f"pip: no pip command in {scripts}")
    return problems


def env_check(want):
    problems = []
    if sys.prefix == getattr(sys, "base_prefix", sys.prefix):
        problems.append(f"{sys.executable} is not in a virtual environment")
    have = "{}.{}".format(*sys.version_info[:2])
    if have != want:
        problems.append(f"Python {have}, {want} wanted")
    sites = site_dirs(sys.prefix)
    problems += pip_problems(sys.prefix, sites[0]) if sites else ["no site-packages"]
    if not problems:
        scripts = os.path.dirname(sys.executable)
        pip = os.path.join(scripts, "pip" if os.path.exists(os.path.join(scripts, "pip")) else "pip.exe")
        # Run as the student will: `pip --version` imports pip._internal, which a half pip has not.
        run = subprocess.run([pip, "--version"], capture_output=True)
        if run.returncode != 0:
            last = (run.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
            problems.append(f"pip does not run: {last}")
    if problems:
        print("\n".join(problems))
    return 1 if problems else 0


def env_repair(env, uv=None):
    for site in site_dirs(env):
        for name in leftovers(site):
            print("removing what an interrupted pip left:", os.path.join(site, name))
            path = os.path.join(site, name)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        scripts = os.path.join(env, "Scripts" if os.name == "nt" else "bin")
        ours = [
            os.path.join(site, n)
            for n in os.listdir(site)
            if re.fullmatch(r"pip(-.*\.dist-info)?", n.lower())
        ]
        ours += [
            os.path.join(scripts, n)
            for n in (os.listdir(scripts) if os.path.isdir(scripts) else ())
            if re.fullmatch(r"pip(3(\.[0-9]+)?)?(\.exe)?", n)
        ]
        linked = []
        if not ours or not pip_problems(env, site, linked):
            continue  # no pip at all (a new env: the next command installs it), or a whole one
        if linked and uv and clean_uv_cache(uv, ["pip"]) != 0:
            return 1
        print("removing a damaged pip so that it is installed again:", site)
        for path in ours:
            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.unlink(path)
    return 0


if __name__ == "__main__":
    action = sys.argv[1]
    if action == "env":
        sys.exit(env_check(sys.argv[2]))
    if action == "repair-env":
        uv_env = sys.argv[3] if sys.argv[2:3] == ["--uv"] else None
        sys.exit(env_repair(sys.argv[-1], uv_env))
    args = sys.argv[2:]
    uv = None
    if args[:1] == ["--uv"]:
        uv, args = args[1], args[2:]
    sys.exit(requirements(action, args, uv))
