"""tf-gpu-wizard: is a Jupyter kernel spec this environment's? `python kernel_ok.py KERNEL_JSON`

Run with the environment's Python. Exits 0 when the kernel.json that Jupyter would start names this
very Python (argv[0], links resolved) and the module it launches (`-m ipykernel_launcher`) imports
here: Jupyter then starts this environment. Otherwise exits 1 with one line saying what differs.
Standard library only.
"""

from __future__ import annotations

import importlib
import json
import os
import sys


def problem(spec_path: str) -> str:
    try:
        with open(spec_path, encoding="utf-8") as f:
            spec = json.load(f)
        argv = [str(a) for a in spec["argv"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{spec_path}: no readable kernel spec ({type(exc).__name__})"
    if not argv or os.path.realpath(argv[0]) != os.path.realpath(sys.executable):
        return f"{spec_path}: starts {argv[0] if argv else 'nothing'!r}, not {sys.executable!r}"
    module = argv[argv.index("-m") + 1] if "-m" in argv[:-1] else ""
    if module:
        try:
            importlib.import_module(module)
        except Exception as exc:  # any failure to load the launcher means the kernel cannot start
            return f"{module} does not import in {sys.executable} ({type(exc).__name__}: {exc})"
    return ""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: kernel_ok.py KERNEL_JSON", file=sys.stderr)
        return 2
    why = problem(argv[0])
    if why:
        print(why.encode("ascii", "backslashreplace").decode("ascii"), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
