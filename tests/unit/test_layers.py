"""The packages of `openhands` import downward only (shared/ARCHITECTURE.md).

`FLOORS` is the one place the layer order is written down; `ALLOWED` the one place an
upward import is excused, each with its reason. The checker is `tests/support/layers.py`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.support.layers import (
    Floor,
    Import,
    LayerMap,
    collect_imports,
    cycles,
    is_allowed,
    package_modules,
    unplaced,
    unused_exceptions,
    violations,
)

SOURCE_ROOT = Path(__file__).resolve().parents[2]

FLOORS = (
    Floor(
        "helpers",
        (
            "openhands",
            "openhands.utils.async_utils",
            "openhands.utils.chunk_localizer",
            "openhands.utils.http_session",
            "openhands.utils.import_utils",
            "openhands.utils.shutdown_listener",
            "openhands.utils.sync_bridge",
            "openhands.utils.tenacity_stop",
            "openhands.llm.metrics",
        ),
        "Import nothing of openhands but each other: the root package (its version), "
        "stdlib-only utils, and llm.metrics, a plain pydantic counter that every event "
        "carries, so it sits here rather than with the LLM client.",
        peers_import_each_other=True,
    ),
    Floor(
        "core",
        ("openhands.core",),
        "Config, schema, logger, exceptions, message: known to everyone, knowing no one. "
        "core.setup, core.loop, core.main and core.message_utils live in core by their "
        "public paths but sit higher (see below).",
    ),
    Floor(
        "integrations",
        ("openhands.integrations",),
        "Git provider clients; the stored settings and secrets carry their provider types.",
    ),
    Floor("storage", ("openhands.storage",), "File stores, data models, settings/secrets."),
    Floor("events", ("openhands.events",), "Actions, observations, stream and store."),
    Floor(
        "utils",
        ("openhands.utils", "openhands.core.message_utils", "openhands.io", "openhands.critic"),
        "Helpers over events and stores (titles, prompts, paging). core.message_utils reads "
        "events and their metrics, so it is one of them; so does openhands.io (JSON of "
        "events and metrics, terminal input), and so do the critics (a run's score from its "
        "events).",
    ),
    Floor(
        "services",
        ("openhands.llm", "openhands.microagent", "openhands.security", "openhands.mcp"),
        "What an agent uses; independent of each other.",
    ),
    Floor(
        "runtime",
        ("openhands.runtime",),
        "Where actions run; the rest talks to it through events and reads its "
        "RuntimeStatus. ARCHITECTURE.md draws runtime, memory and controller side by side; "
        "the code orders them runtime < memory < controller, and this keeps it so.",
    ),
    Floor(
        "memory",
        ("openhands.memory",),
        "Condensers, conversation memory, recall. Condensers type the State they are "
        "handed with their own protocol (CondenserState), not the controller's class.",
    ),
    Floor(
        "controller",
        ("openhands.controller",),
        "The Agent seam and the controller; State carries a memory View.",
    ),
    Floor(
        "agenthub",
        ("openhands.agenthub",),
        "The agents subclass controller.agent.Agent, so they sit above the controller "
        "(which finds them by name in the registry, never by import).",
    ),
    Floor(
        "assembly",
        ("openhands.core.setup", "openhands.core.loop"),
        "The one builder and run loop every entry point uses; in core by public path, above "
        "everything it assembles.",
    ),
    Floor(
        "one assembly",
        ("openhands.core.assembly",),
        "assemble_conversation: the builder's steps in one order, the parts as one immutable "
        "set, and the wait for an end state; every entry point calls it.",
    ),
    Floor(
        "resolver",
        ("openhands.resolver",),
        "The issue resolver's provider handlers, templates, patching and send_pull_request: "
        "the web server's resolver route uses them to build a run's task.",
    ),
    Floor(
        "entry points",
        ("openhands.server", "openhands.cli", "openhands.core.main"),
        "Web server, terminal app, headless run: none imports another.",
    ),
    Floor(
        "resolver run",
        ("openhands.resolver.issue_resolver", "openhands.resolver.resolve_issue"),
        "The resolver's command line drives a headless run (core.main's create_runtime and "
        "run_controller), so it sits above that entry point; its command line module "
        "wraps the resolver class.",
        peers_import_each_other=True,
    ),
)

# (importer, imported) → why an upward import is tolerated; names match as modules or as
# package prefixes. Empty: fix the import rather than list it, where that is a small change.
ALLOWED: dict[tuple[str, str], str] = {}

LAYERS = LayerMap("openhands", FLOORS)


@functools.cache
def _project_imports() -> tuple[Import, ...]:
    return tuple(collect_imports(SOURCE_ROOT, "openhands"))


def test_every_module_has_a_floor() -> None:
    assert unplaced(LAYERS, package_modules(SOURCE_ROOT, "openhands")) == []


def test_no_upward_imports() -> None:
    found = violations(LAYERS, _project_imports())
    upward = [str(v) for v in found if not is_allowed(v, ALLOWED)]
    assert upward == [], "upward imports:\n" + "\n".join(upward)
    assert unused_exceptions(ALLOWED, found) == [], "exceptions that excuse nothing any more"


def test_no_import_cycles_between_layers() -> None:
    excused = {v.found for v in violations(LAYERS, _project_imports()) if is_allowed(v, ALLOWED)}
    kept = [found for found in _project_imports() if found not in excused]
    assert cycles(LAYERS, kept) == []


# --- the checker itself, on a tiny package ---------------------------------------------------

FAKE_FLOORS = (
    Floor("low", ("pkg", "pkg.low"), "bottom"),
    Floor("mid", ("pkg.left", "pkg.right"), "peers kept apart"),
    Floor("high", ("pkg.high",), "above both"),
    Floor("top", ("pkg.low.entry",), "a module of the low package that sits above all"),
)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _fake_tree(tmp_path: Path, files: dict[str, str]) -> list[str]:
    base = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/left/__init__.py": "",
        "pkg/right/__init__.py": "",
        "pkg/high/__init__.py": "",
        "pkg/high/b.py": "VALUE = 1\n",
    }
    _write(tmp_path, base | files)
    return [
        str(v) for v in violations(LayerMap("pkg", FAKE_FLOORS), collect_imports(tmp_path, "pkg"))
    ]


def test_checker_flags_an_upward_import(tmp_path: Path) -> None:
    found = _fake_tree(tmp_path, {"pkg/low/a.py": "import os\n\nfrom pkg.high import b\n"})
    assert found == ["pkg/low/a.py:3 imports pkg.high.b (layer high above low)"]


def test_checker_accepts_downward_and_own_package_imports(tmp_path: Path) -> None:
    found = _fake_tree(
        tmp_path,
        {
            "pkg/low/a.py": "from . import c\n",
            "pkg/low/c.py": "",
            "pkg/high/d.py": "from pkg.low import a\nfrom ..left import x\n",
            "pkg/left/x.py": "import pkg.low.c\n",
            "pkg/low/entry.py": "from pkg.high.b import VALUE\n",
        },
    )
    assert found == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def f():\n    from pkg.high import b\n",
            "pkg/low/a.py:2 imports pkg.high.b (layer high above low)",
        ),
        (
            "import importlib\n\nmod = importlib.import_module('pkg.high.b')\n",
            "pkg/low/a.py:3 imports pkg.high.b (layer high above low)",
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.high.b\n",
            "pkg/low/a.py:3 imports pkg.high.b (typing only) (layer high above low)",
        ),
    ],
)
def test_checker_sees_hidden_imports(tmp_path: Path, source: str, expected: str) -> None:
    assert _fake_tree(tmp_path, {"pkg/low/a.py": source}) == [expected]


def test_checker_keeps_peers_apart_except_for_typing(tmp_path: Path) -> None:
    found = _fake_tree(
        tmp_path,
        {
            "pkg/left/x.py": "import pkg.right\n",
            "pkg/right/y.py": "import typing\nif typing.TYPE_CHECKING:\n    import pkg.left.x\n",
        },
    )
    assert found == [
        "pkg/left/x.py:1 imports pkg.right (peers on layer mid do not import each other)"
    ]


def test_checker_reports_modules_without_a_floor_and_cycles(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/low/__init__.py": "import pkg.high\n",
            "pkg/high/__init__.py": "import pkg.low\n",
            "pkg/stray.py": "",
        },
    )
    layers = LayerMap("pkg", FAKE_FLOORS)
    assert unplaced(layers, package_modules(tmp_path, "pkg")) == ["pkg.stray"]
    assert cycles(layers, collect_imports(tmp_path, "pkg")) == [["pkg.high", "pkg.low"]]
