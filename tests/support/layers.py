"""Which floor each module of a package sits on, and which imports go up.

A package is described bottom to top as a list of `Floor`s. Each floor names modules or
subpackages by dotted name; a module belongs to the floor of its longest matching name, so a
single module can sit on another floor than its package (``pkg.core.main`` above ``pkg.core``).
The root package itself (its ``__init__``) is matched only by its exact name, so a module that
no floor names is reported instead of silently landing on the root's floor.

An import is fine when the imported module sits on a lower floor, in the same unit (the floor
entry both modules fall under), or on the same floor when that floor lets its members import
each other. Imports under ``if TYPE_CHECKING:`` cost nothing at run time, so they may also
reach the importer's own floor; reaching a higher one still couples the layers and counts.
Imports inside functions count like top-level ones, and so does
``importlib.import_module("pkg.…")`` with a literal name.

`tests/unit/test_layers.py` holds this project's floors and allowed exceptions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_IMPORT_MODULE_CALLS = frozenset({"import_module", "importlib.import_module"})
_TYPE_CHECKING_FLAGS = frozenset({"TYPE_CHECKING", "typing.TYPE_CHECKING"})


@dataclass(frozen=True)
class Floor:
    """One floor of the building: its members, why they are here, and peer rules."""

    name: str
    members: tuple[str, ...]
    why: str
    peers_import_each_other: bool = False


@dataclass(frozen=True)
class Import:
    """One import statement (or ``import_module`` call) naming a module of the package."""

    importer: str
    imported: str
    path: Path
    line: int
    typing_only: bool


@dataclass(frozen=True)
class Violation:
    """An import that reaches a higher floor, or a peer its floor keeps apart."""

    found: Import
    importer_floor: str
    imported_floor: str

    def __str__(self) -> str:
        where = f"{self.found.path}:{self.found.line} imports {self.found.imported}"
        kind = " (typing only)" if self.found.typing_only else ""
        if self.importer_floor == self.imported_floor:
            return f"{where}{kind} (peers on layer {self.imported_floor} do not import each other)"
        return f"{where}{kind} (layer {self.imported_floor} above {self.importer_floor})"


@dataclass(frozen=True)
class _Place:
    level: int
    floor: Floor
    member: str


class LayerMap:
    """The floors of one root package, bottom first."""

    def __init__(self, root: str, floors: Sequence[Floor]) -> None:
        self.root = root
        self.floors = tuple(floors)
        self._places: dict[str, _Place] = {}
        for level, floor in enumerate(self.floors):
            for member in floor.members:
                if member in self._places:
                    raise ValueError(f"{member} is listed on two floors")
                self._places[member] = _Place(level, floor, member)

    def place_of(self, module: str) -> _Place | None:
        """The floor entry that owns ``module`` (longest dotted prefix), or None."""
        parts = module.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if candidate == self.root and module != self.root:
                return None
            place = self._places.get(candidate)
            if place is not None:
                return place
        return None

    def floor_name(self, module: str) -> str | None:
        place = self.place_of(module)
        return None if place is None else place.floor.name

    def check(self, found: Import) -> Violation | None:
        """The violation ``found`` commits, if any (modules outside the map are not checked)."""
        low = self.place_of(found.importer)
        high = self.place_of(found.imported)
        if low is None or high is None or high.level < low.level or high.member == low.member:
            return None
        if high.level == low.level and (found.typing_only or low.floor.peers_import_each_other):
            return None
        return Violation(found, low.floor.name, high.floor.name)


# --- reading the imports --------------------------------------------------------------------


def module_name(path: Path, source_root: Path) -> str:
    """``src/pkg/a/b.py`` → ``pkg.a.b``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(source_root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(source_root: Path, root: str) -> dict[str, Path]:
    """Every module of the ``root`` package under ``source_root``, by dotted name."""
    files = sorted((source_root / root).rglob("*.py"))
    return {
        module_name(path, source_root): path for path in files if "__pycache__" not in path.parts
    }


def collect_imports(source_root: Path, root: str) -> list[Import]:
    """Every import of a ``root`` module made by a ``root`` module, in file order."""
    modules = package_modules(source_root, root)
    found: list[Import] = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        visitor = _ImportVisitor(name, path.name == "__init__.py", frozenset(modules))
        visitor.visit(tree)
        shown = path.relative_to(source_root)
        found.extend(
            Import(name, imported, shown, line, typing_only)
            for imported, line, typing_only in visitor.found
            if imported == root or imported.startswith(root + ".")
        )
    return found


class _ImportVisitor(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, known: frozenset[str]) -> None:
        self._package = module if is_package else module.rpartition(".")[0]
        self._known = known
        self._typing_depth = 0
        self.found: list[tuple[str, int, bool]] = []

    def _add(self, imported: str, line: int) -> None:
        self.found.append((imported, line, self._typing_depth > 0))

    def visit_If(self, node: ast.If) -> None:
        if _dotted(node.test) in _TYPE_CHECKING_FLAGS:
            self._typing_depth += 1
            for child in node.body:
                self.visit(child)
            self._typing_depth -= 1
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = self._absolute(node.module, node.level)
        for alias in node.names:
            # `from pkg import sub` imports the submodule when there is one.
            candidate = f"{base}.{alias.name}"
            self._add(candidate if candidate in self._known else base, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        if _dotted(node.func) in _IMPORT_MODULE_CALLS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                self._add(first.value, node.lineno)
        self.generic_visit(node)

    def _absolute(self, module: str | None, level: int) -> str:
        if level == 0:
            return module or ""
        parts = self._package.split(".")
        base = parts[: len(parts) - (level - 1)]
        return ".".join([*base, module] if module else base)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


# --- verdicts -------------------------------------------------------------------------------


def _matches(allowed_name: str, module: str) -> bool:
    return module == allowed_name or module.startswith(allowed_name + ".")


def is_allowed(violation: Violation, allowed: Iterable[tuple[str, str]]) -> bool:
    """True when an exception covers it (names match as modules or as package prefixes)."""
    found = violation.found
    return any(
        _matches(importer, found.importer) and _matches(imported, found.imported)
        for importer, imported in allowed
    )


def violations(layers: LayerMap, imports: Iterable[Import]) -> list[Violation]:
    """Every import that goes up a floor or crosses to a peer its floor keeps apart."""
    return [v for v in (layers.check(found) for found in imports) if v is not None]


def unplaced(layers: LayerMap, modules: Iterable[str]) -> list[str]:
    """Modules no floor names: a new package must be given its floor."""
    return sorted(name for name in modules if layers.place_of(name) is None)


def unused_exceptions(
    allowed: Mapping[tuple[str, str], str], found: Sequence[Violation]
) -> list[tuple[str, str]]:
    """Exceptions that excuse nothing any more, so the list only ever shrinks to the truth."""
    return [key for key in allowed if not any(is_allowed(v, [key]) for v in found)]


def cycles(layers: LayerMap, imports: Iterable[Import]) -> list[list[str]]:
    """Groups of floor entries that import each other at run time (directly or round a loop)."""
    graph: dict[str, set[str]] = {}
    for found in imports:
        low, high = layers.place_of(found.importer), layers.place_of(found.imported)
        if found.typing_only or low is None or high is None or low.member == high.member:
            continue
        graph.setdefault(low.member, set()).add(high.member)
        graph.setdefault(high.member, set())
    return [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]


def _strongly_connected(graph: Mapping[str, set[str]]) -> Iterator[list[str]]:
    """Tarjan's algorithm, iterative so deep packages cannot hit the recursion limit."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = lowlink[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowlink[parent] = min(lowlink[parent], lowlink[node])
                if lowlink[node] == index[node]:
                    group: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    yield group
            elif child not in index:
                index[child] = lowlink[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                lowlink[node] = min(lowlink[node], index[child])
