"""Splitting agent commands into bash statements and passing them through tmux unchanged."""

from __future__ import annotations

from typing import Any

import bashlex
import bashlex.ast


def split_bash_commands(command: str) -> list[str]:
    """Top-level statements of ``command``, each as written (heredoc bodies included).

    ``&&``, ``||``, ``;``, pipes, compound commands, heredocs and backslash continuations stay
    inside one statement; statements on separate lines are separate. Text bashlex cannot
    parse is one statement.
    """
    if not command.strip():
        return [""]
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises several unrelated types (and NotImplementedError)
        return [command]
    if len(nodes) <= 1:
        return [command]
    # Each statement runs from its own start to the start of the next one, so heredoc
    # bodies and trailing comments stay with the statement they belong to.
    starts = [0] + [node.pos[0] for node in nodes[1:]]
    ends = [*starts[1:], len(command)]
    return [command[a:b].strip() for a, b in zip(starts, ends, strict=True)]


# Characters whose backslash escape tmux would eat on the way to the shell.
_TMUX_SPECIAL = frozenset(";&|><")


def escape_bash_special_chars(command: str) -> str:
    """Double the backslash of every ``\\;``, ``\\&``, ``\\|``, ``\\>`` and ``\\<`` escape.

    Only escapes the shell itself would read count: those inside quotes, ``$(...)`` or
    backtick substitutions and heredoc bodies stay as written, and so does an escaped
    backslash followed by one of these characters. Blank input gives ``''``; text bashlex
    cannot parse is returned unchanged.
    """
    if not command.strip():
        return ""
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises several unrelated types (and NotImplementedError)
        return command
    verbatim: list[tuple[int, int]] = []
    for node in nodes:
        _collect_verbatim_spans(node, verbatim)
    return _double_escapes(command, sorted(verbatim))


def _collect_verbatim_spans(node: Any, spans: list[tuple[int, int]]) -> None:
    """Spans of ``node``'s subtree that are passed on untouched: substitutions and
    heredoc bodies (quotes are handled while scanning)."""
    kind = getattr(node, "kind", None)
    if kind in ("commandsubstitution", "processsubstitution"):
        spans.append(node.pos)
        return
    if kind == "heredoc":
        spans.append(node.pos)
        return
    for value in vars(node).values():
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, bashlex.ast.node):
                _collect_verbatim_spans(child, spans)


def _double_escapes(command: str, verbatim: list[tuple[int, int]]) -> str:
    out: list[str] = []
    quote: str | None = None
    spans = iter(verbatim)
    span = next(spans, None)
    i = 0
    while i < len(command):
        if span is not None and i >= span[0]:
            start = max(i, span[0])
            out.append(command[i:start])
            out.append(command[start : span[1]])
            i = max(span[1], start)
            span = next(spans, None)
            continue
        char = command[i]
        if quote == "'":
            if char == "'":
                quote = None
        elif char == "\\" and i + 1 < len(command):
            escaped = command[i + 1]
            if quote is None and escaped in _TMUX_SPECIAL:
                out.append("\\")
            out.append(char + escaped)
            i += 2
            continue
        elif char in ("'", '"') and quote is None:
            quote = char
        elif char == '"' and quote == '"':
            quote = None
        out.append(char)
        i += 1
    return "".join(out)


def escape_for_tmux(text: str) -> str:
    """Text to give ``tmux send-keys`` so that the shell receives ``text`` byte for byte.

    tmux reads an argument that ends in ``;`` as a command separator and turns a trailing
    ``\\;`` into ``;``. One more backslash before a final ``;`` undoes exactly that (so
    ``find ... {} \\;`` keeps its backslash and ``a;`` keeps its semicolon).
    """
    if text.endswith(";"):
        return text[:-1] + "\\;"
    return text


def is_special_key(command: str) -> bool:
    """``C-<x>`` key names (e.g. ``C-c``) are sent as keys, without Enter."""
    stripped = command.strip()
    return len(stripped) == 3 and stripped.startswith("C-")
