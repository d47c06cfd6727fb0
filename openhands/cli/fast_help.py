"""``openhands --help`` / ``-h`` / ``--version`` / ``-v`` without the heavy imports (cli.md §1.2).

The parser comes from ``openhands.core.arguments`` (standard library only), not through the
config package, whose import builds every pydantic config model first.
"""

from __future__ import annotations

import argparse
import sys

from openhands.cli.deprecation_warning import display_deprecation_warning

HELP_FLAGS = frozenset({"--help", "-h"})
VERSION_FLAGS = frozenset({"--version", "-v"})
HELP_SEPARATOR = "=" * 80


def get_fast_cli_parser() -> argparse.ArgumentParser:
    """The ``openhands`` parser itself: it is built from the standard library alone."""
    from openhands.core.arguments import get_cli_parser

    return get_cli_parser()


def get_fast_subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The subcommand parser ``name`` of ``parser``; ``ValueError`` if there is none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            subparser = action.choices.get(name)
            if isinstance(subparser, argparse.ArgumentParser):
                return subparser
    raise ValueError(f"Subparser '{name}' not found")


def print_fast_help() -> None:
    """The top-level help, a separator line, then the help of the ``cli`` command."""
    parser = get_fast_cli_parser()
    parser.print_help()
    print()
    print(HELP_SEPARATOR)
    print("CLI command help:")
    get_fast_subparser(parser, "cli").print_help()


def print_version() -> None:
    # ``import openhands`` only reads the version (see its docstring), so it is cheap.
    from openhands import get_version

    print(f"OpenHands CLI version: {get_version()}")


def handle_fast_commands() -> bool:
    """Answer ``openhands --help``/``-h``/``--version``/``-v`` if that is the whole command line.

    Returns true when it printed an answer; the caller then exits with status 0.
    """
    if len(sys.argv) != 2:
        return False
    flag = sys.argv[1]
    if flag in HELP_FLAGS:
        display_deprecation_warning()
        print_fast_help()
        return True
    if flag in VERSION_FLAGS:
        display_deprecation_warning()
        print_version()
        return True
    return False
