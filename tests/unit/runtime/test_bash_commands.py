"""Splitting and tmux escaping of agent commands (pure functions)."""

from __future__ import annotations

import pytest

from openhands.runtime.utils.bash_commands import (
    escape_for_tmux,
    is_special_key,
    split_bash_commands,
)


@pytest.mark.parametrize(
    "command",
    [
        "a && b",
        "a; b",
        "a || b",
        "ls | grep x",
        "cat <<EOF\nhello\nls\nEOF",
        "echo one \\\n two",
        "for i in 1 2; do\n echo $i\ndone",
        "echo 'a\nb'",
        "echo $((1 + 2))",  # bashlex cannot parse it: one command
        "",
    ],
)
def test_one_statement(command: str) -> None:
    assert len(split_bash_commands(command)) == 1


def test_lines_are_separate_statements() -> None:
    assert split_bash_commands("echo a\necho b") == ["echo a", "echo b"]


def test_heredoc_body_stays_with_its_statement() -> None:
    parts = split_bash_commands("cat <<EOF > f.txt\nx\nEOF\necho done")
    assert parts == ["cat <<EOF > f.txt\nx\nEOF", "echo done"]


def test_leading_comment_stays_with_first_statement() -> None:
    assert split_bash_commands("# note\nls\npwd") == ["# note\nls", "pwd"]


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("echo hi", "echo hi"),
        ("echo a\\;b", "echo a\\;b"),
        ("find . -exec ls {} \\;", "find . -exec ls {} \\\\;"),
        ("echo semi;", "echo semi\\;"),
    ],
)
def test_escape_for_tmux(text: str, sent: str) -> None:
    assert escape_for_tmux(text) == sent


@pytest.mark.parametrize(
    ("key", "special"), [("C-c", True), (" C-d ", True), ("C-cc", False), ("c", False)]
)
def test_special_keys(key: str, special: bool) -> None:
    assert is_special_key(key) is special
