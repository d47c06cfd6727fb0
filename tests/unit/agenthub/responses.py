"""LiteLLM response objects for tests of tool call → Action mapping."""

from __future__ import annotations

import json
from typing import Any

from litellm.types.utils import (
    ChatCompletionMessageToolCall,
    Choices,
    Function,
    ModelResponse,
)
from litellm.types.utils import Message as LiteLLMMessage


def model_response(
    *calls: tuple[str, dict[str, Any] | str], content: Any = "", response_id: str = "resp-1"
) -> ModelResponse:
    tool_calls = [
        ChatCompletionMessageToolCall(
            id=f"call_{index}",
            type="function",
            function=Function(
                name=name, arguments=args if isinstance(args, str) else json.dumps(args)
            ),
        )
        for index, (name, args) in enumerate(calls)
    ]
    message = LiteLLMMessage(content=content, role="assistant", tool_calls=tool_calls or None)
    return ModelResponse(id=response_id, choices=[Choices(message=message, index=0)])
