"""The house shows the pipeline: stage packages, few loose modules, and no import cycle.

The graph is read from the source (ast), so a cycle hidden in a function-level import
counts too; imports under `if TYPE_CHECKING:` do not run and are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("probe", "choose", "plan", "run", "monitor", "bench", "doctor", "cli")


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    """Every module name an import statement in `tree` may load, skipping TYPE_CHECKING blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, base] if base else pkg)
            yield base
            for alias in node.names:
                yield f"{base}.{alias.name}"  # `from pkg import submodule`


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """module -> the modules of this tree that it imports."""
    files = {_module_name(root, p): p for top in packages for p in (root / top).rglob("*.py") if p.is_file()}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets = _imports(tree, name, path.name == "__init__.py")
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """wizard.<stage> -> the other stages it imports (the top-level shared modules left out)."""

    def stage(m: str) -> str | None:
        parts = m.split(".")
        return ".".join(parts[:2]) if len(parts) > 2 and parts[0] == "wizard" and parts[1] in STAGES else None

    out: dict[str, set[str]] = {}
    for mod, targets in graph.items():
        src = stage(mod)
        if src is None:
            continue
        out.setdefault(src, set()).update(s for t in targets if (s := stage(t)) and s != src)
    return out


def test_no_import_cycle_between_modules() -> None:
    graph = import_graph(ROOT, ["wizard", "screens"])
    assert len(graph) > 50  # the walk really found the tree
    assert cycles(graph) == []


def test_no_import_cycle_between_stage_packages() -> None:
    stages = _package_graph(import_graph(ROOT, ["wizard"]))
    assert "wizard.plan" in stages and "wizard.choose" in stages["wizard.plan"]
    assert cycles(stages) == []


def test_the_checker_finds_a_cycle(tmp_path: Path) -> None:
    # A cycle hidden in a function-level import, and one through `from pkg import module`.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.b import g\n")
    (pkg / "b.py").write_text("import pkg.a\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "x.py").write_text("from pkg.sub import y\n")
    (pkg / "sub" / "y.py").write_text("from . import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.d\n")
    (pkg / "d.py").write_text("import pkg.c\n")
    found = cycles(import_graph(tmp_path, ["pkg"]))
    assert sorted(found) == [["pkg.a", "pkg.b"], ["pkg.sub.x", "pkg.sub.y"]]


def test_the_core_is_a_pipeline_of_packages() -> None:
    wizard = ROOT / "wizard"
    loose = sorted(p.name for p in wizard.glob("*.py"))
    assert len(loose) <= 12, loose
    for stage in STAGES:
        assert (wizard / stage / "__init__.py").is_file(), stage
    for init in wizard.glob("*/__init__.py"):
        # Package front doors stay short: they name the entry points, the work lives beside them.
        assert len(init.read_text(encoding="utf-8").splitlines()) <= 40, init
