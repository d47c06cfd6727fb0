from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, field_validator


class ResponseDict(dict[str, Any]):
    """An LLM response kept as a plain dict whose keys also read and write as attributes,
    the way LiteLLM's ``ModelResponse`` does (``model_response.id``,
    ``model_response.choices[0].message``), without importing LiteLLM here.

    Nested objects are turned into ``ResponseDict`` in place the first time they are reached
    through an attribute, so changes made through attributes stay in the response.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            value = self[name]
        except KeyError:
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute '{name}'"
            ) from None
        if type(value) is dict:
            value = self[name] = ResponseDict(value)
        elif type(value) is list:
            for i, item in enumerate(value):
                if type(item) is dict:
                    value[i] = ResponseDict(item)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None


class ToolCallMetadata(BaseModel):
    """Which tool call of which LLM response produced an action (top-level ``tool_call_metadata``)."""

    function_name: str
    tool_call_id: str
    model_response: dict[str, Any]
    total_calls_in_response: int

    @field_validator("model_response", mode="before")
    @classmethod
    def _response_as_dict(cls, value: Any) -> Any:
        # A LiteLLM ModelResponse (or any pydantic model) is kept as its dict form.
        if isinstance(value, BaseModel):
            return value.model_dump()
        if isinstance(value, Mapping) and not isinstance(value, dict):
            return dict(value)
        return value

    @field_validator("model_response", mode="after")
    @classmethod
    def _attribute_access(cls, value: dict[str, Any]) -> dict[str, Any]:
        return value if type(value) is ResponseDict else ResponseDict(value)
