"""The reference's path to the command-line parsers; they live in ``openhands.core.arguments``
(standard library only, so ``openhands --help`` stays fast)."""

from openhands.core.arguments import (
    DEFAULT_EVAL_OUTPUT_DIR,
    add_common_arguments,
    add_evaluation_arguments,
    add_headless_arguments,
    get_cli_parser,
    get_evaluation_parser,
    get_headless_parser,
    get_parser,
    openhands_version,
    parse_arguments,
)

__all__ = [
    "DEFAULT_EVAL_OUTPUT_DIR",
    "add_common_arguments",
    "add_evaluation_arguments",
    "add_headless_arguments",
    "get_cli_parser",
    "get_evaluation_parser",
    "get_headless_parser",
    "get_parser",
    "openhands_version",
    "parse_arguments",
]
