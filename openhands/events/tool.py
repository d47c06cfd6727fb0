from typing import Any

from pydantic import BaseModel


class ToolCallMetadata(BaseModel):
    """Which tool call of which LLM response produced an action (top-level ``tool_call_metadata``)."""

    function_name: str
    tool_call_id: str
    model_response: dict[str, Any]
    total_calls_in_response: int
