"""Writing what goes to the model and what comes back to the prompt/response loggers.

The loggers are ``llm_prompt_logger`` / ``llm_response_logger`` of ``core/logger.py``; they
are on with ``DEBUG_LLM`` or ``LOG_ALL_EVENTS`` (to ``logs/llm/`` with ``LOG_TO_FILE``, else
to the console). While they are off, nothing is formatted.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from openhands.core.logger import llm_prompt_logger, llm_response_logger
from openhands.core.message import ImageContent, Message, TextContent

MESSAGE_SEPARATOR = "\n\n----------\n\n"

PromptMessages = Message | dict[str, Any] | Sequence[Message | dict[str, Any]]


class DebugMixin:
    """``log_prompt`` / ``log_response`` for an LLM; images are shown only with vision on."""

    def vision_is_active(self) -> bool:
        raise NotImplementedError

    def log_prompt(self, messages: PromptMessages) -> None:
        """One record: the text of every message with content, separated by ``MESSAGE_SEPARATOR``."""
        if not llm_prompt_logger.isEnabledFor(logging.DEBUG):
            return
        if isinstance(messages, Message | dict):
            messages = [messages]
        texts = [text for text in map(self._message_text, messages) if text is not None]
        if texts:
            llm_prompt_logger.debug(MESSAGE_SEPARATOR.join(texts))

    def log_response(self, resp: Any) -> None:
        """One record: the reply's text, then a ``Function call: name(arguments)`` line per call.

        ``resp`` is a LiteLLM ``ModelResponse`` (or its dict form)."""
        if not llm_response_logger.isEnabledFor(logging.DEBUG):
            return
        choices = _get(resp, "choices") or []
        if not choices:
            return
        message = _get(choices[0], "message")
        text = _get(message, "content") or ""
        for call in _get(message, "tool_calls") or []:
            function = _get(call, "function")
            text += f"\nFunction call: {_get(function, 'name')}({_get(function, 'arguments')})"
        if text:
            llm_response_logger.debug(text)

    def _message_text(self, message: Message | dict[str, Any]) -> str | None:
        if isinstance(message, Message):
            items: list[Any] = []
            for item in message.content:
                if isinstance(item, TextContent):
                    items.append({"type": "text", "text": item.text})
                elif isinstance(item, ImageContent):
                    items.extend({"type": "image_url", "image_url": u} for u in item.image_urls)
            content: Any = items
        else:
            content = message.get("content")
        if content is None:
            return None
        if isinstance(content, str):
            return content
        return "\n".join(filter(None, map(self._item_text, content)))

    def _item_text(self, item: Any) -> str:
        if not isinstance(item, dict):
            return str(item)
        if item.get("type") == "text":
            return str(item.get("text", ""))
        if item.get("type") == "image_url":
            if not self.vision_is_active():
                return ""
            image = item.get("image_url")
            return str(image.get("url") if isinstance(image, dict) else image)
        return str(item)


def _get(obj: Any, key: str) -> Any:
    """A field of a LiteLLM object or of its dict form."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)
