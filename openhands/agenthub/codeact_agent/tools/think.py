"""``think``: write down reasoning without doing anything."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

THINK_TOOL_NAME = "think"

_DESCRIPTION = """\
Write down a thought. Nothing is run and nothing changes; the thought is only added to \
the log. Use it to reason through a hard problem: to weigh possible causes of a bug, to \
compare approaches before choosing one, to plan a refactoring, or to check that test \
results really support a conclusion."""

ThinkTool: Tool = function_tool(
    name=THINK_TOOL_NAME,
    description=_DESCRIPTION,
    properties={"thought": {"type": "string", "description": "The thought to record."}},
    required=["thought"],
)
