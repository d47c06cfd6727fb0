"""Texts the bash session shows the agent (runtime.md §4). Agents and tests match them exactly."""

from __future__ import annotations

TIMEOUT_MESSAGE_TEMPLATE = (
    "You may wait longer to see additional output by sending empty command '', "
    "send other commands to interact with the current process, "
    'send keys ("C-c", "C-z", "C-d") to interrupt/kill the previous command before '
    "sending your new command, or use the timeout parameter in execute_bash for future commands."
)

NO_PREVIOUS_COMMAND_LOGS = "ERROR: No previous running command to retrieve logs from."
NO_PREVIOUS_COMMAND_INPUT = "ERROR: No previous running command to interact with."

MULTIPLE_COMMANDS_HEADER = (
    "ERROR: Cannot execute multiple commands at once.\n"
    "Please run each command separately OR chain them into a single command via && or ;\n"
    "Provided commands:\n"
)

PREVIOUS_OUTPUT_PREFIX = "[Below is the output of the previous command.]\n"


def truncated_history_prefix(n_lines: int) -> str:
    return (
        f"[Previous command outputs are truncated. Showing the last {n_lines} lines of the output"
        " below.]\n"
    )


def completed_suffix(exit_code: int, special_key: str | None = None) -> str:
    if special_key:
        return (
            f"\n[The command completed with exit code {exit_code}. "
            f"CTRL+{special_key[-1].upper()} was sent.]"
        )
    return f"\n[The command completed with exit code {exit_code}.]"


def no_change_timeout_suffix(seconds: int) -> str:
    return f"\n[The command has no new output after {seconds} seconds. {TIMEOUT_MESSAGE_TEMPLATE}]"


def hard_timeout_suffix(seconds: float) -> str:
    return f"\n[The command timed out after {float(seconds)} seconds. {TIMEOUT_MESSAGE_TEMPLATE}]"


def busy_suffix(command: str) -> str:
    return (
        f'\n[Your command "{command}" is NOT executed. The previous command is still running - '
        "You CANNOT send new commands until the previous command is completed. By setting "
        f"`is_input` to `true`, you can interact with the current process: "
        f"{TIMEOUT_MESSAGE_TEMPLATE}]"
    )


def multiple_commands_error(commands: list[str]) -> str:
    listed = "\n".join(f"({i}) {cmd}" for i, cmd in enumerate(commands, start=1))
    return MULTIPLE_COMMANDS_HEADER + listed
