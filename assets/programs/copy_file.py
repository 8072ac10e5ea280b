"""Copy one file whole: `python copy_file.py SOURCE DEST`.

The wizard's plan uses it to put the hello script into the environment. DEST's folder is made
when missing; the copy is written beside DEST, flushed to disk and renamed over it, so DEST is
always either the old file or the whole new one. Standard library only.
"""

from __future__ import annotations

import os
import sys


def copy_whole(source: str, dest: str) -> None:
    with open(source, "rb") as f:
        data = f.read()
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    tmp = dest + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, dest)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: copy_file.py SOURCE DEST", file=sys.stderr)
        return 2
    try:
        copy_whole(argv[0], argv[1])
    except OSError as exc:
        print(f"copy_file.py: {exc.filename or argv[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
