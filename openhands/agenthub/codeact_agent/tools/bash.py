"""``execute_bash``: run a command in the persistent shell of the sandbox."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import (
    Tool,
    function_tool,
    security_risk_property,
)
from openhands.utils.prompt import refine_prompt

EXECUTE_BASH_TOOL_NAME = "execute_bash"

_LONG_DESCRIPTION = """\
Run a bash command in a shell session that stays alive between calls, so the working \
directory, environment variables and background jobs carry over.

* One command per call. To run several, chain them with `&&` or `;` instead of putting \
them on separate lines.
* Long-running programs (servers, watchers) should run in the background with their \
output sent to a file, e.g. `python3 app.py > server.log 2>&1 &`, then read the file.
* A command that produces no new output for a while returns early with what it printed \
so far and keeps running. You may then:
  - send an empty `command` to see more output,
  - send text with `is_input` set to `true` to answer a prompt of the running program,
  - send `C-c`, `C-d` or `C-z` with `is_input` set to `true` to interrupt it,
  - or set `timeout` on the next command to wait longer.
* Commands that may wait for input (pagers, installers) should be given flags that \
avoid it, e.g. `--no-pager`, `-y`.
* Very long output is cut in the middle; redirect it to a file and search it with \
`grep`, `head` or `tail` when you need all of it.
* Prefer absolute paths; `cd` only when you mean to stay in the new directory."""

_SHORT_DESCRIPTION = """\
Run a bash command in a persistent shell session. One command per call; chain with `&&` \
or `;`. Run long-running programs in the background with output sent to a file. If a \
command returns before it finished, send an empty command for more output, send input or \
`C-c` with `is_input` set to `true`, or pass a `timeout` in seconds."""


def create_cmd_run_tool(use_short_description: bool = False) -> Tool:
    description = _SHORT_DESCRIPTION if use_short_description else _LONG_DESCRIPTION
    return function_tool(
        name=EXECUTE_BASH_TOOL_NAME,
        description=refine_prompt(description),
        properties={
            "command": {
                "type": "string",
                "description": refine_prompt(
                    "The bash command to run. An empty string shows more output of the "
                    "command that is still running. With `is_input` set to `true`, this is "
                    "the text (or a control key: C-c, C-d, C-z) sent to that command."
                ),
            },
            "is_input": {
                "type": "string",
                "description": (
                    "`true` if `command` is input for the program that is already running, "
                    "`false` (the default) for a new command."
                ),
                "enum": ["true", "false"],
            },
            "timeout": {
                "type": "number",
                "description": (
                    "Optional hard limit in seconds. The command is interrupted once it is "
                    "reached. Without it, a command that stays silent for a while returns "
                    "early and keeps running."
                ),
            },
            "security_risk": security_risk_property(),
        },
        required=["command", "security_risk"],
    )
