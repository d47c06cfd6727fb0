"""``finish``: end the task with a message for the user."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

FINISH_TOOL_NAME = "finish"

_DESCRIPTION = """\
Say that you are done: either the task is complete, or you cannot go on without the \
user. Call it only after checking your work. The message tells the user what was done, \
what could not be done and why, and anything they need to do next."""

FinishTool: Tool = function_tool(
    name=FINISH_TOOL_NAME,
    description=_DESCRIPTION,
    properties={
        "message": {
            "type": "string",
            "description": "The final message to the user.",
        }
    },
    required=["message"],
)
