"""One marked block in a shell start-up file (~/.bashrc): added once, backed up, removable.

    # >>> tf-gpu-wizard cuda >>>
    export PATH=...
    # <<< tf-gpu-wizard cuda <<<

The same operations exist twice on purpose: as Python (`add_block`, `remove_block`,
used by the wizard itself and by tests) and as small bash programs (`ADD_SH`,
`REMOVE_SH`) that plan steps and the exported script run, with the file, the
markers and the body passed as arguments, never pasted into the program.
A test holds the two to the same result.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from wizard.plan.model import Check

TAG = "tf-gpu-wizard"

ADD_SH = """\
f=$1 begin=$2 end=$3 body=$4
if [ -f "$f" ] && grep -qxF -- "$begin" "$f"; then exit 0; fi
if [ -f "$f" ]; then cp -p -- "$f" "$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S).bak"; fi
{ printf "\\n%s\\n" "$begin"; printf "%s" "$body"; printf "%s\\n" "$end"; } >> "$f"
"""

REMOVE_SH = """\
f=$1 begin=$2 end=$3
[ -f "$f" ] && grep -qxF -- "$begin" "$f" || exit 0
cp -p -- "$f" "$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S).bak"
awk -v b="$begin" -v e="$end" \\
  "\\$0 == b {skip = 1; next} skip && \\$0 == e {skip = 0; next} !skip" "$f" > "$f.tmp-$$"
mv -- "$f.tmp-$$" "$f"
"""


def markers(name: str) -> tuple[str, str]:
    return f"# >>> {TAG} {name} >>>", f"# <<< {TAG} {name} <<<"


def _normal_body(body: str) -> str:
    return body if body.endswith("\n") or not body else body + "\n"


def backup_suffix() -> str:
    return f"{TAG}-{time.strftime('%Y%m%d-%H%M%S')}"


def add_command(path: Path, name: str, body: str) -> tuple[str, ...]:
    begin, end = markers(name)
    # The backup's date is taken by the shell at run time, not frozen into the plan.
    return ("bash", "-c", ADD_SH, "_", str(path), begin, end, _normal_body(body))


def remove_command(path: Path, name: str) -> tuple[str, ...]:
    begin, end = markers(name)
    return ("bash", "-c", REMOVE_SH, "_", str(path), begin, end)


def present_check(path: Path, name: str) -> Check:
    begin, _ = markers(name)
    return Check(("grep", "-qxF", "--", begin, str(path)), f"{path} has the {TAG} {name} block")


def has_block(path: Path, name: str) -> bool:
    begin, _ = markers(name)
    try:
        return begin in path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False


def _backup(path: Path) -> Path:
    backup = path.with_name(f"{path.name}.{backup_suffix()}.bak")
    shutil.copy2(path, backup)
    return backup


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    if path.exists():
        shutil.copymode(path, tmp)
    os.replace(tmp, path)


def add_block(path: Path, name: str, body: str) -> bool:
    """Append the block unless it is there; back up an existing file first. True if changed."""
    if has_block(path, name):
        return False
    begin, end = markers(name)
    old = ""
    if path.exists():
        _backup(path)
        old = path.read_text(encoding="utf-8", errors="replace")
    _write_atomic(path, f"{old}\n{begin}\n{_normal_body(body)}{end}\n")
    return True


def remove_block(path: Path, name: str) -> bool:
    """Delete the block (markers included), after a backup. True if changed."""
    if not has_block(path, name):
        return False
    begin, end = markers(name)
    _backup(path)
    kept: list[str] = []
    skip = False
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True):
        bare = line.rstrip("\n")
        if bare == begin:
            skip = True
            continue
        if skip and bare == end:
            skip = False
            continue
        if not skip:
            kept.append(line)
    _write_atomic(path, "".join(kept))
    return True
