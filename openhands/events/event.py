"""The root of every action and observation.

Concrete events are dataclasses whose declared fields are their wire ``args``/``extras``.
The base attributes (id, timestamp, source, cause, ...) are deliberately *not* dataclass
fields: they live in private attributes behind properties so they can never leak into
``args``/``extras``. Their defaults are class attributes, which keeps construction cheap.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from openhands.events.tool import ToolCallMetadata
    from openhands.llm.metrics import Metrics


class EventSource(str, Enum):
    AGENT = "agent"
    USER = "user"
    ENVIRONMENT = "environment"


class FileEditSource(str, Enum):
    LLM_BASED_EDIT = "llm_based_edit"
    OH_ACI = "oh_aci"


class FileReadSource(str, Enum):
    OH_ACI = "oh_aci"
    DEFAULT = "default"


class RecallType(str, Enum):
    WORKSPACE_CONTEXT = "workspace_context"
    KNOWLEDGE = "knowledge"


class Event:
    """Not a dataclass itself: its private attributes must never become wire fields of the
    dataclass subclasses (a dataclass only collects fields from dataclass bases)."""

    INVALID_ID: ClassVar[int] = -1

    # Defaults of the private base attributes (class level, shadowed per instance on set).
    _id: int = -1
    _timestamp: str | None = None
    _source: EventSource | None = None
    _cause: int | None = None
    _timeout: float | None = None
    _llm_metrics: Metrics | None = None
    _tool_call_metadata: ToolCallMetadata | None = None
    _response_id: str | None = None

    @property
    def message(self) -> str:
        return ""

    @property
    def id(self) -> int:
        return self._id

    @id.setter
    def id(self, value: int | None) -> None:
        self._id = Event.INVALID_ID if value is None else value

    @property
    def timestamp(self) -> str | None:
        return self._timestamp

    @timestamp.setter
    def timestamp(self, value: Any) -> None:
        if isinstance(value, datetime):
            self._timestamp = value.isoformat()
        elif isinstance(value, str):
            self._timestamp = value

    @property
    def source(self) -> EventSource | None:
        return self._source

    @source.setter
    def source(self, value: EventSource | str | None) -> None:
        self._source = None if value is None else EventSource(value)

    @property
    def cause(self) -> int | None:
        return self._cause

    @cause.setter
    def cause(self, value: int | None) -> None:
        self._cause = value

    @property
    def timeout(self) -> float | None:
        return self._timeout

    def set_hard_timeout(self, value: float | None, blocking: bool = True) -> None:
        self._timeout = value
        if hasattr(self, "blocking"):
            self.blocking = blocking  # type: ignore[attr-defined]

    @property
    def llm_metrics(self) -> Metrics | None:
        return self._llm_metrics

    @llm_metrics.setter
    def llm_metrics(self, value: Metrics | None) -> None:
        self._llm_metrics = value

    @property
    def tool_call_metadata(self) -> ToolCallMetadata | None:
        return self._tool_call_metadata

    @tool_call_metadata.setter
    def tool_call_metadata(self, value: ToolCallMetadata | None) -> None:
        self._tool_call_metadata = value

    @property
    def response_id(self) -> str | None:
        return self._response_id

    @response_id.setter
    def response_id(self, value: str | None) -> None:
        self._response_id = value
