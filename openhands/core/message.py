"""Chat messages as the agent builds them, and their serialization into LLM request dicts.

A :class:`Message` holds typed content items. ``model_dump()`` gives the dict sent to the
model, in one of two forms:

* **list form** (when caching, vision or function calling is enabled and the string form
  is not forced): ``content`` is a list of ``{"type": "text" | "image_url", ...}`` items,
  with ``cache_control`` on marked items (moved to the message itself for ``tool`` role);
* **string form**: ``content`` is the text items joined with ``"\\n"``; images are dropped.

Either form carries ``tool_calls`` (assistant) or ``tool_call_id`` and ``name`` (tool).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_serializer

EPHEMERAL_CACHE_CONTROL: dict[str, str] = {"type": "ephemeral"}


class ContentType(str, Enum):
    TEXT = "text"
    IMAGE_URL = "image_url"


class TextContent(BaseModel):
    type: Literal["text"] = "text"
    text: str
    cache_prompt: bool = False

    @model_serializer
    def serialize(self) -> dict[str, Any]:
        """``model_dump()``: the LLM item, ``cache_control`` included when caching."""
        item: dict[str, Any] = {"type": "text", "text": self.text}
        if self.cache_prompt:
            item["cache_control"] = dict(EPHEMERAL_CACHE_CONTROL)
        return item

    def serialize_model(self) -> dict[str, Any]:
        """The reference's name for ``serialize`` (what ``model_dump()`` returns)."""
        return self.serialize()

    def to_llm_items(self) -> list[dict[str, Any]]:
        return [self.serialize()]


class ImageContent(BaseModel):
    type: Literal["image_url"] = "image_url"
    image_urls: list[str]
    cache_prompt: bool = False

    @model_serializer
    def serialize(self) -> list[dict[str, Any]]:
        """``model_dump()``: a **list**, one LLM item per URL; the last one carries
        ``cache_control`` when caching."""
        items: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": url}} for url in self.image_urls
        ]
        if self.cache_prompt and items:
            items[-1]["cache_control"] = dict(EPHEMERAL_CACHE_CONTROL)
        return items

    def serialize_model(self) -> list[dict[str, Any]]:
        """The reference's name for ``serialize`` (what ``model_dump()`` returns)."""
        return self.serialize()

    def to_llm_items(self) -> list[dict[str, Any]]:
        return self.serialize()


Content = TextContent | ImageContent


class ToolCallFunction(BaseModel):
    name: str
    arguments: str = "{}"


class ToolCall(BaseModel):
    """One call in an assistant message's ``tool_calls`` (OpenAI shape)."""

    id: str
    type: Literal["function"] = "function"
    function: ToolCallFunction

    @classmethod
    def coerce(cls, value: Any) -> ToolCall:
        """Accept our own model, a dict, or any object with ``id`` and ``function.name``/``.arguments``
        (e.g. the tool calls on a LiteLLM response)."""
        if isinstance(value, ToolCall):
            return value
        if isinstance(value, dict):
            return cls.model_validate(value)
        function = value.function
        return cls(
            id=value.id,
            function=ToolCallFunction(name=function.name, arguments=function.arguments or "{}"),
        )

    def to_llm_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.function.name, "arguments": self.function.arguments},
        }


class Message(BaseModel):
    role: Literal["user", "system", "assistant", "tool"]
    content: list[Content] = Field(default_factory=list)
    cache_enabled: bool = False
    vision_enabled: bool = False
    function_calling_enabled: bool = False
    force_string_serializer: bool = False
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _coerce_tool_calls(cls, value: Any) -> Any:
        if value is None:
            return None
        return [ToolCall.coerce(v) for v in value]

    @property
    def contains_image(self) -> bool:
        return any(isinstance(c, ImageContent) for c in self.content)

    @property
    def uses_list_form(self) -> bool:
        wants_list = self.cache_enabled or self.vision_enabled or self.function_calling_enabled
        return wants_list and not self.force_string_serializer

    @model_serializer
    def serialize(self) -> dict[str, Any]:
        data = self._list_form() if self.uses_list_form else self._string_form()
        self._add_tool_keys(data)
        return data

    def serialize_model(self) -> dict[str, Any]:
        """The reference's name for ``serialize``: the message as sent to the LLM."""
        return self.serialize()

    def _string_form(self) -> dict[str, Any]:
        text = "\n".join(c.text for c in self.content if isinstance(c, TextContent))
        return {"content": text, "role": self.role}

    def _list_form(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        message_cache_control = False
        for content in self.content:
            if isinstance(content, ImageContent) and not self.vision_enabled:
                continue
            produced = content.to_llm_items()
            if self.role == "tool":
                for item in produced:
                    if item.pop("cache_control", None) is not None:
                        message_cache_control = True
            items.extend(produced)
        data: dict[str, Any] = {"content": items, "role": self.role}
        if message_cache_control:
            data["cache_control"] = dict(EPHEMERAL_CACHE_CONTROL)
        return data

    def _add_tool_keys(self, data: dict[str, Any]) -> None:
        if self.tool_calls is not None:
            data["tool_calls"] = [call.to_llm_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            if self.name is None:
                raise ValueError("a tool message needs the name of the function it answers")
            data["tool_call_id"] = self.tool_call_id
            data["name"] = self.name
