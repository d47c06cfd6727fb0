"""Splitting agent commands into bash statements and passing them through tmux unchanged."""

from __future__ import annotations

import bashlex


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
