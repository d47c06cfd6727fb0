"""``request_condensation``: ask for older history to be summarised or dropped."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

CONDENSATION_REQUEST_TOOL_NAME = "request_condensation"

_DESCRIPTION = """\
Ask for the conversation history to be condensed: older events are summarised or \
dropped to free up context. Use it when the history has become long and much of it no \
longer matters for the rest of the task."""

CondensationRequestTool: Tool = function_tool(
    name=CONDENSATION_REQUEST_TOOL_NAME,
    description=_DESCRIPTION,
    properties={},
    required=[],
)
