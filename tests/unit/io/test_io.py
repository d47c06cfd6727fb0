"""openhands.io.io: the task and replies from the terminal, a file or a pipe."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from openhands.io import read_input, read_task, read_task_from_file


def _feed(monkeypatch: pytest.MonkeyPatch, text: str, *, tty: bool = False) -> None:
    stdin = io.StringIO(text)
    stdin.isatty = lambda: tty  # type: ignore[method-assign]
    monkeypatch.setattr("sys.stdin", stdin)


def test_one_line_without_trailing_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    _feed(monkeypatch, "fix the bug   \nsecond line\n")
    assert read_input() == "fix the bug"


def test_multiline_until_exit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _feed(monkeypatch, "line 1\n  line 2  \n/exit\nnot read\n")
    assert read_input(cli_multiline_input=True) == "line 1\n  line 2"
    assert '"/exit"' in capsys.readouterr().out  # the user is told how to finish


def test_end_of_input_ends_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    _feed(monkeypatch, "only line")
    assert read_input(cli_multiline_input=True) == "only line"
    _feed(monkeypatch, "")
    assert read_input() == ""


def test_task_from_file_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task_file = tmp_path / "task.md"
    task_file.write_text("Ünïcode task\nwith two lines\n", encoding="utf-8")
    assert read_task_from_file(str(task_file)) == "Ünïcode task\nwith two lines\n"
    _feed(monkeypatch, "from stdin\n")
    args = argparse.Namespace(file=str(task_file), task="from -t")
    assert read_task(args, cli_multiline_input=False) == "Ünïcode task\nwith two lines\n"


def test_task_argument_then_pipe_then_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    _feed(monkeypatch, "from stdin\n")
    assert read_task(argparse.Namespace(file=None, task="from -t"), False) == "from -t"
    assert read_task(argparse.Namespace(file=None, task=""), False) == "from stdin"
    _feed(monkeypatch, "typed\n", tty=True)  # an interactive terminal is not read here
    assert read_task(argparse.Namespace(), False) == ""


def test_missing_task_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_task(argparse.Namespace(file=str(tmp_path / "nope"), task=None), False)
