"""tf-gpu-wizard: is a pip requirement installed whole? (usage: installed_ok.py check|repair REQ...)

"check REQ..." exits 0 when every requirement ("name[extras]==version" or "name") is installed with
every file its RECORD lists, for it and for the packages it needs, as rpm -V checks a package: a
regular file, of the recorded size, with the recorded sha256. A kill during pip's unpack leaves the
metadata of a package whose files are gone or cut short, and a same-size overwrite keeps the size:
neither may pass. "repair REQ..." uninstalls the damaged ones (so the install that follows puts them
back). Runs in the target environment's Python, standard library only.

Fast: a file whose digest was proven is remembered in the environment (.tf-gpu-wizard-verified.json)
with its size, mtime, ctime and inode; it is hashed again only when one of them changed. Any write to
a file sets its ctime to now (the kernel does; no user call can set it back), so a change is never
missed. tensorflow-cpu (13,000 files, 1.2 GB): about 2 s the first time, 0.3 s after.
"""

import base64
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys

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
            with open(os.path.join(path, "METADATA"), encoding="utf-8") as f:
                self.metadata = email.message_from_file(f)
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


def load_cache():
    try:
        with open(CACHE, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_cache(data):
    tmp = CACHE + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, CACHE)
    except OSError:
        pass  # a read-only environment: the next check hashes again


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


def damage(dist, cache, proven):
    """Why the installed files differ from the RECORD ("" when they do not); `cache` is brought up to
    date, `proven` notes each path whose entry changed."""
    files = dist.files
    if files is None:
        return "no RECORD"
    bad = 0
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
            cache.pop(path, None)
            continue
        if h is None or h.mode not in hashlib.algorithms_available:
            continue
        key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, h.mode + "=" + h.value]
        if cache.get(path) == key:
            continue
        try:
            same = digest(path, h.mode) == h.value
        except OSError:
            same = False
        if same:
            cache[path] = proven[path] = key
        else:
            bad += 1
            cache.pop(path, None)
            proven[path] = None
    return f"{bad} of {len(files)} recorded files missing or changed" if bad else ""


EXTRA = r"extra\s*==\s*[\x22\x27]([^\x22\x27]+)[\x22\x27]"
seen, problems, broken, todo = set(), [], [], [(r, True) for r in sys.argv[2:]]
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
    if top and want and dist.version != want:
        problems.append(f"{name}: {dist.version} installed, {want} wanted")
    why = damage(dist, cache, proven)
    if why:
        problems.append(f"{name}: damaged ({why})")
        broken.append(dist)
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
if sys.argv[1] == "check":
    sys.exit(1 if problems else 0)
if broken:
    names = [d.metadata["Name"] for d in broken]
    print("uninstalling damaged packages so that pip installs them again:", " ".join(names))
    if subprocess.call([sys.executable, "-m", "pip", "uninstall", "-y", *names]) != 0:
        for d in broken:  # pip cannot uninstall without a RECORD: drop the metadata it trusts
            shutil.rmtree(getattr(d, "_path", ""), ignore_errors=True)
