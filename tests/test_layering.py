"""The core never imports textual: the UI calls the core, never the other way."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

WIZARD = Path(__file__).resolve().parent.parent / "wizard"


def test_no_module_under_wizard_imports_textual() -> None:
    offenders = []
    for path in WIZARD.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "textual"]
    assert offenders == []


def test_importing_every_core_module_loads_no_textual() -> None:
    modules = sorted(
        ".".join(p.relative_to(WIZARD.parent).with_suffix("").parts)
        for p in WIZARD.rglob("*.py")
        if p.name != "__main__.py"
    )
    code = "import importlib, sys\n" + "".join(f"importlib.import_module({m!r})\n" for m in modules)
    code += "assert 'textual' not in sys.modules, 'textual was imported'\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
