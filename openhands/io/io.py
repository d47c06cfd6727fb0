"""Reading the task and the user's replies from the terminal, a file or a pipe."""

from __future__ import annotations

import argparse
import sys

PROMPT = ">> "
END_OF_MESSAGE = "/exit"


def read_input(cli_multiline_input: bool = False) -> str:
    """One line from the user, or with ``cli_multiline_input`` every line up to ``/exit``.

    End of input also ends a message, so a closed pipe gives what was read so far
    rather than an EOFError.
    """
    if not cli_multiline_input:
        try:
            return input(PROMPT).rstrip()
        except EOFError:
            return ""
    print(f'Enter your message (enter "{END_OF_MESSAGE}" on a new line to finish):')
    lines: list[str] = []
    while True:
        try:
            line = input(PROMPT).rstrip()
        except EOFError:
            break
        if line == END_OF_MESSAGE:
            break
        lines.append(line)
    return "\n".join(lines)


def read_task_from_file(file_path: str) -> str:
    """The whole text of ``file_path`` (UTF-8)."""
    with open(file_path, encoding="utf-8") as handle:
        return handle.read()


def read_task(args: argparse.Namespace, cli_multiline_input: bool) -> str:
    """The task: ``--file`` first, then ``--task``, then a piped stdin; else empty."""
    file_path = getattr(args, "file", None)
    if file_path:
        return read_task_from_file(file_path)
    task = getattr(args, "task", None)
    if task:
        return str(task)
    if not sys.stdin.isatty():
        return read_input(cli_multiline_input)
    return ""
