"""tf-gpu-wizard: is a pip requirement installed whole? (usage: installed_ok.py check|repair REQ...)

"check REQ..." exits 0 when every requirement ("name[extras]==version" or "name") is installed with
every file pip recorded for it and for the packages it needs, present and of the recorded size: a
kill during pip's unpack leaves the metadata of a package whose files are gone, and that must not
pass. "repair REQ..." uninstalls the damaged ones (so the pip install that follows reinstalls them).
Runs in the target environment's Python, standard library only.
"""

import os
import re
import shutil
import subprocess
import sys

try:
    from importlib import metadata as md
except ImportError:  # Python 3.7 (TensorFlow 2.10's oldest) has no importlib.metadata: read .dist-info
    import csv
    import email
    import glob

    class _File:
        def __init__(self, base, rel, size):
            self._path, self.size = os.path.join(base, rel), int(size) if size else None
            self.suffix = os.path.splitext(rel)[1]

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
                    self.files = [_File(base, r[0], r[2] if len(r) > 2 else "") for r in csv.reader(f) if r]

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


def damage(dist):
    files = dist.files
    if files is None:
        return "no RECORD"
    bad = 0
    for f in files:
        if f.size is not None and f.suffix != ".pyc":
            try:
                bad += os.stat(f.locate()).st_size != f.size
            except OSError:
                bad += 1
    return f"{bad} of {len(files)} recorded files missing or changed" if bad else ""


EXTRA = r"extra\s*==\s*[\x22\x27]([^\x22\x27]+)[\x22\x27]"
seen, problems, broken, todo = set(), [], [], [(r, True) for r in sys.argv[2:]]
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
    why = damage(dist)
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
