"""Helpers shared by the tool definitions (OpenAI function-tool format)."""

from __future__ import annotations

from typing import Any

# An OpenAI/LiteLLM tool: {"type": "function", "function": {name, description, parameters}}.
Tool = dict[str, Any]

RISK_LEVELS = ("LOW", "MEDIUM", "HIGH")
SECURITY_RISK_DESCRIPTION = (
    "How risky this action is: LOW, MEDIUM or HIGH. Judge it with the security risk "
    "policy in the system prompt."
)


def security_risk_property() -> dict[str, Any]:
    return {
        "type": "string",
        "description": SECURITY_RISK_DESCRIPTION,
        "enum": list(RISK_LEVELS),
    }


def function_tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    **extra_parameters: Any,
) -> Tool:
    """Build a function tool whose parameters are a JSON-schema object."""
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": required,
    }
    parameters.update(extra_parameters)
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def tool_name(tool: Tool) -> str:
    return str(tool["function"]["name"])
