"""Command-line flags of the headless entrypoint (`python -m openhands.core.main`)."""

from __future__ import annotations

import argparse
from importlib import metadata

from openhands.core.config.config_utils import DEFAULT_CONFIG_FILE


def openhands_version() -> str:
    try:
        return metadata.version("openhands")
    except metadata.PackageNotFoundError:
        return "0.59.0"


def get_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Run an OpenHands agent on a task, headless.")
    parser.add_argument(
        "--config-file",
        default=DEFAULT_CONFIG_FILE,
        help=f"Path to the TOML config file (default: {DEFAULT_CONFIG_FILE}).",
    )
    parser.add_argument("-t", "--task", default="", help="The task for the agent.")
    parser.add_argument(
        "-f", "--file", default=None, help="Read the task from this file (wins over -t)."
    )
    parser.add_argument("-n", "--name", default="", help="Session name (used for the sid).")
    parser.add_argument(
        "-l",
        "--llm-config",
        default=None,
        help="Use the [llm.NAME] section instead of [llm], e.g. `-l gpt4o`.",
    )
    parser.add_argument("-c", "--agent-cls", default=None, help="Agent class (default_agent).")
    parser.add_argument("-i", "--max-iterations", type=int, default=None, help="Iteration cap.")
    parser.add_argument(
        "-b", "--max-budget-per-task", type=float, default=None, help="Budget cap (USD)."
    )
    parser.add_argument(
        "--selected-repo", default=None, help="owner/repo to clone into the workspace."
    )
    parser.add_argument(
        "--replay-trajectory-path",
        default=None,
        help="Replay the actions of this trajectory file instead of a task.",
    )
    parser.add_argument(
        "--no-auto-continue",
        action="store_true",
        default=False,
        help="Read replies from stdin instead of telling the agent to carry on.",
    )
    parser.add_argument(
        "-v",
        "--version",
        action="version",
        version=f"OpenHands version: {openhands_version()}",
    )
    # Accepted for compatibility; the headless entrypoint does not use them.
    parser.add_argument("-d", "--directory", default=None, help="(unused)")
    parser.add_argument("--agent-config", default=None, help="(unused)")
    parser.add_argument("--log-level", default=None, help="(unused)")
    return parser


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse `argv` (default: `sys.argv[1:]`)."""
    return get_parser().parse_args(argv)
