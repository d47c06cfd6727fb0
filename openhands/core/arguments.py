"""Command-line parsers: the `openhands` app (`get_cli_parser`), the headless entrypoint
`python -m openhands.core.main` (`get_headless_parser`) and evaluation harnesses
(`get_evaluation_parser`). The three share the common arguments.

Standard library only, outside the config package: `openhands --help` builds the parser
without paying for the pydantic config models. `openhands.core.config.arg_utils` is the
reference's path to these names.
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_CONFIG_FILE = "config.toml"

DEFAULT_EVAL_OUTPUT_DIR = "evaluation/evaluation_outputs/outputs"
_FALSE_STRINGS = frozenset({"", "false", "0", "no", "off"})


def openhands_version() -> str:
    from openhands import get_version

    return get_version()


def _flag_value(text: str) -> bool:
    """`--override-cli-mode VALUE`: anything but false/0/no/off (any case) is true."""
    return text.strip().lower() not in _FALSE_STRINGS


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of all three parsers (cli.md §1.3)."""
    parser.add_argument(
        "--config-file",
        type=str,
        default=DEFAULT_CONFIG_FILE,
        help=f"Path to the TOML config file (default: {DEFAULT_CONFIG_FILE}).",
    )
    parser.add_argument("-t", "--task", type=str, default="", help="The task for the agent.")
    parser.add_argument(
        "-f", "--file", type=str, default=None, help="Read the task from this file (wins over -t)."
    )
    parser.add_argument(
        "-n", "--name", type=str, default="", help="Session name (used for the session id)."
    )
    parser.add_argument(
        "--log-level", type=str, default=None, help="Log level name (debug, info, ...)."
    )
    parser.add_argument(
        "-l",
        "--llm-config",
        type=str,
        default=None,
        help="Use the [llm.NAME] section as the default LLM config, e.g. `-l gpt4o`.",
    )
    parser.add_argument(
        "--agent-config", type=str, default=None, help="Name of an [agent.NAME] section."
    )
    parser.add_argument(
        "-v", "--version", action="store_true", default=False, help="Print the version and exit."
    )


def add_headless_arguments(parser: argparse.ArgumentParser) -> None:
    """What the headless and evaluation parsers add to the common arguments."""
    parser.add_argument(
        "-d", "--directory", type=str, default=None, help="Working directory (unused)."
    )
    parser.add_argument(
        "-c", "--agent-cls", type=str, default=None, help="Agent class (default_agent)."
    )
    parser.add_argument(
        "-i", "--max-iterations", type=int, default=None, help="Most agent steps per task."
    )
    parser.add_argument(
        "-b",
        "--max-budget-per-task",
        type=float,
        default=None,
        help="Most LLM spend per task (USD); the agent stops beyond it.",
    )
    parser.add_argument(
        "--no-auto-continue",
        action="store_true",
        default=False,
        help="Read replies from stdin instead of telling the agent to carry on.",
    )
    parser.add_argument(
        "--selected-repo",
        type=str,
        default=None,
        help="owner/repo to clone into the workspace.",
    )
    # Ours: the same as `replay_trajectory_path` in config.toml. Left out of --help so that
    # the help text lists exactly the reference's options (scripts and tests compare it).
    parser.add_argument(
        "--replay-trajectory-path",
        type=str,
        default=None,
        help=argparse.SUPPRESS,
    )


def add_evaluation_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--eval-output-dir",
        type=str,
        default=DEFAULT_EVAL_OUTPUT_DIR,
        help="Where the evaluation results go.",
    )
    parser.add_argument(
        "--eval-n-limit", type=int, default=None, help="Evaluate at most this many instances."
    )
    parser.add_argument(
        "--eval-num-workers", type=int, default=4, help="Instances evaluated in parallel."
    )
    parser.add_argument("--eval-note", type=str, default=None, help="Note added to the run name.")
    parser.add_argument(
        "--eval-ids", type=str, default=None, help="Comma-separated ids of the instances to run."
    )


def get_cli_parser() -> argparse.ArgumentParser:
    """`openhands [--conversation ID] {serve,cli} ...`; the `cli` command takes the common
    arguments plus `--override-cli-mode` and `--conversation`."""
    parser = argparse.ArgumentParser(
        prog="openhands",
        description=(
            "OpenHands: an AI software engineer. Two commands: `serve` starts the web GUI, "
            "`cli` the terminal app. `openhands` without a command is `openhands cli`."
        ),
    )
    parser.add_argument(
        "--conversation", type=str, default=None, help="Id of a stored conversation to continue."
    )
    commands = parser.add_subparsers(dest="command", help="The command to run.")

    serve = commands.add_parser(
        "serve", help="Start the web GUI (this app's server on http://localhost:3000)."
    )
    serve.add_argument(
        "--mount-cwd",
        action="store_true",
        default=False,
        help="Mount the current directory into the sandboxes as /workspace.",
    )
    serve.add_argument(
        "--gpu", action="store_true", default=False, help="Give the sandboxes all GPUs."
    )

    cli = commands.add_parser("cli", help="Run the terminal app (the default).")
    add_common_arguments(cli)
    cli.add_argument(
        "--override-cli-mode",
        type=_flag_value,
        default=False,
        help="Keep the config's runtime and confirmation settings instead of the CLI defaults.",
    )
    # Also after `cli`, where the reference does not accept it. SUPPRESS keeps a value given
    # before `cli` from being reset to None by the subcommand's default.
    cli.add_argument(
        "--conversation",
        type=str,
        default=argparse.SUPPRESS,
        help="Id of a stored conversation to continue.",
    )
    return parser


def get_headless_parser() -> argparse.ArgumentParser:
    """Flags of `python -m openhands.core.main`."""
    parser = argparse.ArgumentParser(description="Run the agent via CLI")
    add_common_arguments(parser)
    add_headless_arguments(parser)
    return parser


def get_evaluation_parser() -> argparse.ArgumentParser:
    """The headless flags plus those of evaluation harnesses (`--eval-*`)."""
    parser = argparse.ArgumentParser(description="Run OpenHands in evaluation mode")
    add_common_arguments(parser)
    add_headless_arguments(parser)
    add_evaluation_arguments(parser)
    return parser


# The project's former name for the headless parser.
get_parser = get_headless_parser


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse `argv` (default: `sys.argv[1:]`) with the headless parser."""
    return get_headless_parser().parse_args(sys.argv[1:] if argv is None else argv)
