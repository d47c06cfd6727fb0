"""openhands.cli.fast_help: the help/version answer without heavy imports (cli.md §1.2)."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import openhands
from openhands.cli.fast_help import (
    get_fast_cli_parser,
    get_fast_subparser,
    handle_fast_commands,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
HEAVY_PREFIXES = ("litellm", "prompt_toolkit", "pydantic", "openhands.core.config", "openhands.llm")


def _help_of(parser: argparse.ArgumentParser) -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        parser.print_help()
    return buffer.getvalue()


@pytest.fixture(autouse=True)
def fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # argparse wraps to $COLUMNS; fix it so both parsers format the same way.
    monkeypatch.setenv("COLUMNS", "100")


def test_the_reference_path_gives_the_same_parsers() -> None:
    from openhands.core import arguments
    from openhands.core.config import arg_utils

    assert arg_utils.get_cli_parser is arguments.get_cli_parser
    assert arg_utils.get_headless_parser is arguments.get_headless_parser
    args = get_fast_cli_parser().parse_args(["cli", "-t", "fix it", "--conversation", "c1"])
    assert (args.command, args.task, args.conversation) == ("cli", "fix it", "c1")


def test_get_fast_subparser_unknown_name() -> None:
    with pytest.raises(ValueError, match="nope"):
        get_fast_subparser(get_fast_cli_parser(), "nope")
    with pytest.raises(ValueError):
        get_fast_subparser(argparse.ArgumentParser(), "cli")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help(
    flag: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["openhands", flag])

    assert handle_fast_commands() is True

    out = capsys.readouterr().out
    top, separator, rest = out.partition("\n" + "=" * 80 + "\n")
    assert separator, out
    assert top.startswith("usage: openhands")
    assert "serve" in top
    assert "cli" in top
    assert rest.startswith("CLI command help:\nusage: openhands cli")
    assert "--override-cli-mode" in rest
    # Our CLI is not deprecated (cli.md §12.1).
    assert "DEPRECATION" not in out


@pytest.mark.parametrize("flag", ["--version", "-v"])
def test_version(
    flag: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["openhands", flag])
    assert handle_fast_commands() is True
    assert capsys.readouterr().out == f"OpenHands CLI version: {openhands.get_version()}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["openhands"],
        ["openhands", "cli"],
        ["openhands", "cli", "--help"],
        ["openhands", "-v", "extra"],
        ["openhands", "-t", "task"],
        ["openhands", "--helpme"],
    ],
)
def test_other_command_lines_are_not_handled(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", argv)
    assert handle_fast_commands() is False
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_no_heavy_imports(flag: str) -> None:
    """In a fresh interpreter, answering must not load any heavy package."""
    probe = (
        "import sys\n"
        f"sys.argv = ['openhands', {flag!r}]\n"
        "from openhands.cli.fast_help import handle_fast_commands\n"
        "assert handle_fast_commands()\n"
        f"heavy = sorted(m for m in sys.modules if m.startswith({HEAVY_PREFIXES!r}))\n"
        "print('HEAVY:', heavy, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        check=True,
    )
    assert "HEAVY: []" in result.stderr, result.stderr
    assert result.stdout
