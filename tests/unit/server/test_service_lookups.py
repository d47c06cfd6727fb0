"""Only the compatibility adapter looks up process-wide services.

The server reaches its services through the request's app (``services_of``, the
``Services`` dependency), the socket server's stored getter or ``scope["app"]``. The
process-wide lookups — ``app_services.running_services()`` and ``openhands.server.shared``
— belong to the adapter (``shared.py``). Outside it they may appear only:

- as ``from openhands.server.shared import module_getattr`` at module level: the
  reference's module attributes (``conversation_manager``, ``config``, …) that its tests
  read and patch on route modules;
- inside one of the functions of ``ENTRY_POINTS``: each is reached with no request and
  no app in hand (the reference's signature), so "this process's" is all there is.

The list only shrinks: an entry that no longer looks anything up fails the test too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.unit.server.test_import_graph import server_modules

ADAPTER = "openhands.server.shared"
REGISTRY = "openhands.server.app_services"  # keeps running_services(); shared.py reads it

ENTRY_POINTS: dict[tuple[str, str], str] = {
    (REGISTRY, "services_of"): "a plain FastAPI app mounting the reference's routers "
    "built no services: it is served the adapter's set",
    (
        "openhands.server.services.conversation_service",
        "_service_for",
    ): "the reference's conversation functions name a user id, no app",
    ("openhands.server.services.pull_requests", "save_pr_metadata"): "the reference's "
    "signature has no app; callers of ours pass ``services``",
    ("openhands.server.utils", "_process_store"): "``get_conversation(id, user_id)`` "
    "takes no request",
    ("openhands.server.routes.mcp", "_services"): "the reference's module-level MCP tools "
    "act on the app running in the process (the app's `/mcp` endpoint uses its own)",
    ("openhands.server.user_auth.user_auth", "UserAuth.config"): "a reference-style "
    "UserAuth subclass built without a config",
    ("openhands.server.user_auth.user_auth", "UserAuth.get_user_settings_store"): "… or "
    "without store classes",
    ("openhands.server.user_auth.user_auth", "UserAuth.get_secrets_store"): "… or "
    "without store classes",
    ("openhands.server.data_models.feedback", "store_feedback"): "the reference's "
    "signature takes only the feedback",
    ("openhands.server.file_config", "load_file_upload_config"): "``config=None`` means "
    "this process's (the reference's tests patch ``shared.config`` for it)",
}


@dataclass(frozen=True)
class Lookup:
    module: str
    function: str  # dotted qualname of the enclosing function; "" at module level
    line: int
    what: str

    def __str__(self) -> str:
        where = f"{self.module}:{self.line}"
        return f"{where} ({self.function or 'module level'}): {self.what}"


def _names_adapter(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The adapter names this import statement binds (empty: not the adapter)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name == ADAPTER]
    if node.module == ADAPTER:
        return [f"{ADAPTER}.{alias.name}" for alias in node.names]
    if node.module == "openhands.server":
        return [ADAPTER for alias in node.names if alias.name == "shared"]
    return []


class _Finder(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[str] = []
        self.functions: list[str] = []
        self.found: list[Lookup] = []

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        is_function = not isinstance(node, ast.ClassDef)
        if is_function:
            self.functions.append(".".join(self.scope))
        self.generic_visit(node)
        if is_function:
            self.functions.pop()
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _enter

    def _add(self, node: ast.AST, what: str) -> None:
        function = self.functions[-1] if self.functions else ""
        self.found.append(Lookup(self.module, function, getattr(node, "lineno", 0), what))

    def visit_Import(self, node: ast.Import) -> None:
        for name in _names_adapter(node):
            self._add(node, f"imports {name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for name in _names_adapter(node):
            self._add(node, f"imports {name}")
        if node.module == REGISTRY and any(a.name == "running_services" for a in node.names):
            self._add(node, "imports running_services")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name == "running_services":
            self._add(node, "calls running_services()")
        if name == "import_module" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and first.value == ADAPTER:
                self._add(node, f"imports {ADAPTER} by name")
        self.generic_visit(node)


def lookups(module: str, path: Path) -> Iterator[Lookup]:
    finder = _Finder(module)
    finder.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    yield from finder.found


def _excused(found: Lookup) -> bool:
    if found.function == "" and found.what == f"imports {ADAPTER}.module_getattr":
        return True
    return (found.module, found.function) in ENTRY_POINTS


def _all_lookups() -> list[Lookup]:
    return [
        found
        for module, path in server_modules().items()
        if module != ADAPTER
        for found in lookups(module, path)
    ]


def test_the_finder_sees_every_form_of_lookup(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import importlib\n"
        "from openhands.server.shared import module_getattr\n"
        "from openhands.server import shared, errors\n"
        "import openhands.server.shared\n"
        "class C:\n"
        "    def f(self):\n"
        "        from openhands.server.app_services import running_services\n"
        "        return running_services()\n"
        "async def g():\n"
        "    return importlib.import_module('openhands.server.shared')\n"
    )
    found = [(f.function, f.what) for f in lookups("m", source)]
    assert found == [
        ("", "imports openhands.server.shared.module_getattr"),
        ("", "imports openhands.server.shared"),
        ("", "imports openhands.server.shared"),
        ("C.f", "imports running_services"),
        ("C.f", "calls running_services()"),
        ("g", "imports openhands.server.shared by name"),
    ]
    excused = [_excused(f) for f in lookups("m", source)]
    assert excused == [True, False, False, False, False, False]


def test_only_the_adapter_looks_up_process_wide_services() -> None:
    stray = [found for found in _all_lookups() if not _excused(found)]
    assert not stray, "process-wide lookups outside the adapter:\n" + "\n".join(map(str, stray))


def test_every_entry_point_still_needs_its_excuse() -> None:
    used = {(found.module, found.function) for found in _all_lookups()}
    stale = sorted(set(ENTRY_POINTS) - used)
    assert not stale, f"these no longer look anything up; drop them from ENTRY_POINTS: {stale}"
