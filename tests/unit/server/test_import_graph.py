"""The modules of `openhands/server` import each other without a cycle.

Only imports that run when a module is loaded count: module level and class bodies.
Imports under ``if TYPE_CHECKING:`` and inside functions run later (or never), so they
cannot take part in an import-time cycle and are left out. Importing ``a.b.c`` also runs
the package ``a.b`` (its ``__init__``), so that package is an edge too unless it encloses
the importer (then it is already being loaded).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "openhands.server"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def server_modules() -> dict[str, Path]:
    root = SOURCE_ROOT / Path(*PACKAGE.split("."))
    return {
        _module_name(path): path
        for path in sorted(root.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _load_time_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Import statements that run while the module body runs."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _load_time_imports(node.body)
            yield from _load_time_imports(node.orelse)
        elif isinstance(node, ast.ClassDef):
            yield from _load_time_imports(node.body)
        elif isinstance(node, (ast.Try, ast.With, ast.For, ast.While)):
            for field in ("body", "orelse", "finalbody"):
                yield from _load_time_imports(getattr(node, field, []))
            for handler in getattr(node, "handlers", []):
                yield from _load_time_imports(handler.body)


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, node.module] if node.module else parts)
    for alias in node.names:
        yield f"{base}.{alias.name}"  # a submodule when there is one, else dropped below
        yield base


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _load_time_imports(tree.body):
            for target in _targets(name, path, node):
                parts = target.split(".")
                for end in range(len(parts), 0, -1):
                    candidate = ".".join(parts[:end])
                    encloses_importer = name == candidate or name.startswith(candidate + ".")
                    if candidate in modules and not encloses_importer:
                        graph[name].add(candidate)
    return graph


def strongly_connected(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that reach each other (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph[node]):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_checker_finds_a_cycle_through_a_package_init(tmp_path: Path) -> None:
    # The checker itself: a two-module loop and a loop through a package __init__ are found,
    # a function-level or TYPE_CHECKING import is not an edge.
    modules = {
        "pkg.a": tmp_path / "a.py",
        "pkg.b": tmp_path / "b.py",
        "pkg.sub": tmp_path / "sub" / "__init__.py",
        "pkg.sub.c": tmp_path / "sub" / "c.py",
        "pkg.d": tmp_path / "d.py",
    }
    (tmp_path / "sub").mkdir()
    modules["pkg.a"].write_text("from pkg import b\n")
    modules["pkg.b"].write_text("import pkg.a\n")
    modules["pkg.sub"].write_text("from pkg.d import x\n")
    modules["pkg.sub.c"].write_text("")
    modules["pkg.d"].write_text(
        "from typing import TYPE_CHECKING\n"
        "from pkg.sub.c import y\n"
        "if TYPE_CHECKING:\n    from pkg import a\n"
        "def f():\n    from pkg import b\n"
    )
    graph = import_graph(modules)
    assert graph["pkg.d"] == {"pkg.sub", "pkg.sub.c"}
    assert strongly_connected(graph) == [["pkg.a", "pkg.b"], ["pkg.d", "pkg.sub"]]


def test_openhands_server_has_no_import_cycle() -> None:
    groups = strongly_connected(import_graph(server_modules()))
    shown = "\n".join(f"{len(group)} modules: {', '.join(group)}" for group in groups)
    assert not groups, f"import cycles inside {PACKAGE}:\n{shown}"
