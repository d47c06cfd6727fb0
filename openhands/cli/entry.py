"""``openhands``: the console script (cli.md §1).

``openhands --help`` and ``--version`` are answered before anything heavy is imported;
anything else is parsed with the full parser, where a missing or unknown command means
``cli``.
"""

from __future__ import annotations

import sys

import openhands.cli.suppress_warnings  # noqa: F401  (installs the warning filters first)
from openhands.cli.fast_help import handle_fast_commands

COMMANDS = ("cli", "serve")


def main() -> None:
    if handle_fast_commands():
        sys.exit(0)

    from openhands.core.config import get_cli_parser
    from openhands.core.config.arg_utils import openhands_version

    argv = _with_command(sys.argv[1:])
    parser = get_cli_parser()
    args = parser.parse_args(argv)

    if getattr(args, "version", False):
        print(f"OpenHands CLI version: {openhands_version()}")
        sys.exit(0)
    if args.command == "serve":
        from openhands.cli.gui_launcher import launch_gui_server

        launch_gui_server(mount_cwd=args.mount_cwd, gpu=args.gpu)
    elif args.command == "cli":
        from openhands.cli.main import run_cli_command

        run_cli_command(args)
    else:
        parser.print_help()
        sys.exit(1)


def _with_command(argv: list[str]) -> list[str]:
    """Insert ``cli`` unless a command is given (also after a top-level ``--conversation``)."""
    if argv[:1] and argv[0] in COMMANDS:
        return argv
    if argv[:1] == ["--conversation"] and argv[2:3] and argv[2] in COMMANDS:
        return argv
    # `openhands --conversation ID` works too: `cli` knows the option as well.
    return ["cli", *argv]


if __name__ == "__main__":
    main()
