"""Parse ``browser_actions`` code into calls of the allowed browser functions.

The agent writes BrowserGym-style action code (``click('12')``, ``fill('3', 'hi')``, one call
per line). It is never executed: Python's ``ast`` reads it, each statement must be a plain call
of a known function, and every argument must be a literal. Anything else is refused before a
single call runs, so half-valid code cannot act on the page.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class ActionParseError(ValueError):
    """The action code is not a sequence of allowed calls with literal arguments."""


# Signatures only: binding arguments against them checks arity and names and fills defaults.
# The bodies never run; the page-side implementation lives in ``browser.env``.
def _goto(url: str) -> None: ...
def _go_back() -> None: ...
def _go_forward() -> None: ...
def _noop(wait_ms: float = 1000) -> None: ...
def _scroll(delta_x: float, delta_y: float) -> None: ...
def _fill(bid: str, value: str, enable_autocomplete_menu: bool = False) -> None: ...
def _clear(bid: str) -> None: ...
def _select_option(bid: str, options: str | list[str]) -> None: ...
def _click(bid: str, button: str = "left", modifiers: list[str] | None = None) -> None: ...
def _dblclick(bid: str, button: str = "left", modifiers: list[str] | None = None) -> None: ...
def _hover(bid: str) -> None: ...
def _focus(bid: str) -> None: ...
def _press(bid: str, key_comb: str) -> None: ...
def _drag_and_drop(from_bid: str, to_bid: str) -> None: ...
def _upload_file(bid: str, file: str | list[str]) -> None: ...
def _send_msg_to_user(text: str) -> None: ...


_SIGNATURES: dict[str, Callable[..., None]] = {
    "goto": _goto,
    "go_back": _go_back,
    "go_forward": _go_forward,
    "noop": _noop,
    "scroll": _scroll,
    "fill": _fill,
    "clear": _clear,
    "select_option": _select_option,
    "click": _click,
    "dblclick": _dblclick,
    "hover": _hover,
    "focus": _focus,
    "press": _press,
    "drag_and_drop": _drag_and_drop,
    "upload_file": _upload_file,
    "send_msg_to_user": _send_msg_to_user,
}
ALLOWED_FUNCTIONS: frozenset[str] = frozenset(_SIGNATURES)
# Element ids are strings, but a model may well write click(12); accept and normalise.
_BID_PARAMS = frozenset({"bid", "from_bid", "to_bid"})


@dataclass(frozen=True)
class BrowserCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    source: str = ""


def parse_actions(code: str) -> list[BrowserCall]:
    """The calls in ``code``, in order; ActionParseError says what is wrong otherwise."""
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as exc:
        raise ActionParseError(f"Invalid action code: {exc.msg} (line {exc.lineno})") from exc
    calls = [_parse_statement(stmt, code) for stmt in tree.body]
    if not calls:
        raise ActionParseError("No browser action given")
    return calls


def _parse_statement(stmt: ast.stmt, code: str) -> BrowserCall:
    source = ast.get_source_segment(code, stmt) or ""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        raise ActionParseError(f"Only function calls are allowed, got: {source!r}")
    call = stmt.value
    if not isinstance(call.func, ast.Name):
        raise ActionParseError(f"Only plain function names can be called, got: {source!r}")
    name = call.func.id
    signature = _SIGNATURES.get(name)
    if signature is None:
        allowed = ", ".join(sorted(ALLOWED_FUNCTIONS))
        raise ActionParseError(f"Unknown browser action {name!r}; allowed: {allowed}")
    args = [_literal(arg, source) for arg in call.args]
    kwargs: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise ActionParseError(f"'**' arguments are not allowed: {source!r}")
        kwargs[keyword.arg] = _literal(keyword.value, source)
    try:
        bound = inspect.signature(signature).bind(*args, **kwargs)
    except TypeError as exc:
        raise ActionParseError(f"{name}(): {exc}") from exc
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    for param in _BID_PARAMS & arguments.keys():
        if isinstance(arguments[param], int) and not isinstance(arguments[param], bool):
            arguments[param] = str(arguments[param])
        if not isinstance(arguments[param], str):
            raise ActionParseError(f"{name}(): {param} must be a string element id")
    if name in ("click", "dblclick") and arguments["modifiers"] is None:
        arguments["modifiers"] = []
    return BrowserCall(name, arguments, source)


def _literal(node: ast.expr, source: str) -> Any:
    if isinstance(node, ast.Starred):
        raise ActionParseError(f"'*' arguments are not allowed: {source!r}")
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError) as exc:
        raise ActionParseError(
            f"Arguments must be literals (strings, numbers, lists…): {source!r}"
        ) from exc
