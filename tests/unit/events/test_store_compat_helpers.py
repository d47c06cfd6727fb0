"""Names and call shapes that scripts and extensions written for the reference rely on:
the store's path helpers, the stream's ``secrets`` attribute and masking helper, the
nested store's ``httpx.get`` calls, and attribute access on a tool call's model response."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock, patch

import pytest
from pydantic import BaseModel

from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.nested_event_store import NestedEventStore
from openhands.events.observation import NullObservation
from openhands.events.serialization.event import event_from_dict, event_to_dict
from openhands.events.stream import EventStream
from openhands.events.tool import ResponseDict, ToolCallMetadata
from openhands.storage.locations import get_conversation_event_filename
from openhands.storage.memory import InMemoryFileStore


def test_path_helpers_name_the_files_the_stream_writes() -> None:
    store = InMemoryFileStore()
    stream = EventStream("conv-a", store, user_id="u1")
    stream.cache_size = 3
    for i in range(3):
        stream.add_event(NullObservation(f"n{i}"), EventSource.AGENT)
    event_path = stream._get_filename_for_id(1, stream.user_id)
    assert event_path == get_conversation_event_filename("conv-a", 1, "u1")
    assert json.loads(store.read(event_path))["content"] == "n1"
    page = json.loads(store.read(stream._get_filename_for_cache(0, 3)))
    assert [item["content"] for item in page] == ["n0", "n1", "n2"]


def test_secrets_attribute_reads_and_replaces_the_map() -> None:
    stream = EventStream("conv-b", InMemoryFileStore())
    stream.set_secrets({"token": "tok-123456"})
    assert stream.secrets == {"token": "tok-123456"}
    stream.secrets = {"other": "pw-abcdef"}  # assigning works like set_secrets
    stream.add_event(CmdRunAction(command="echo pw-abcdef tok-123456"), EventSource.AGENT)
    stored = stream.get_event(0)
    assert isinstance(stored, CmdRunAction)
    assert stored.command == "echo <secret_hidden> tok-123456"


def test_replace_secrets_masks_like_add_event_but_keeps_identity_keys() -> None:
    stream = EventStream("conv-c", InMemoryFileStore())
    stream.set_secrets({"a": "12", "b": "s3cr3t"})
    data = {
        "id": 12,
        "timestamp": "2025-07-12T10:00:00",
        "source": "agent",
        "action": "run",
        "args": {"command": "use s3cr3t", "env": {"timestamp": "s3cr3t-12"}},
    }
    masked = stream._replace_secrets(data)
    assert masked["id"] == 12 and masked["timestamp"] == "2025-07-12T10:00:00"
    assert masked["args"]["command"] == "use <secret_hidden>"
    assert masked["args"]["env"]["timestamp"] == "<secret_hidden>-<secret_hidden>"
    assert data["args"]["command"] == "use s3cr3t"  # the input is left as it was
    inner = stream._replace_secrets({"timestamp": "12"}, is_top_level=False)
    assert inner == {"timestamp": "<secret_hidden>"}


def _page(events: list[dict[str, Any]], has_more: bool = False) -> MagicMock:
    response = MagicMock()
    response.status_code = 200
    response.json.return_value = {"events": events, "has_more": has_more}
    return response


def _message(event_id: int, text: str) -> dict[str, Any]:
    return event_to_dict(
        event_from_dict(
            {"id": event_id, "action": "message", "args": {"content": text}, "source": "user"}
        )
    )


def test_nested_store_calls_module_level_httpx_get_with_the_query_in_the_url() -> None:
    store = NestedEventStore("http://remote/api/conversations/x", "x", None, "key-1")
    with patch("httpx.get") as get:
        get.side_effect = [
            _page([_message(0, "a"), _message(1, "b")], has_more=True),
            _page([_message(2, "c")]),
        ]
        assert [e.id for e in store.search_events(limit=5)] == [0, 1, 2]
    assert get.call_args_list[0].args == (
        "http://remote/api/conversations/x/events?start_id=0&reverse=False&limit=5",
    )
    assert get.call_args_list[0].kwargs == {"headers": {"X-Session-API-Key": "key-1"}}
    assert get.call_args_list[1].args[0].endswith("events?start_id=2&reverse=False&limit=3")


def test_nested_store_filters_with_the_filters_exclude() -> None:
    store = NestedEventStore("http://remote", "x")
    page = _page([_message(0, "a"), _message(1, "b")])
    with (
        patch("httpx.get", return_value=page) as get,
        patch.object(EventFilter, "exclude", side_effect=[True, False]),
    ):
        assert [e.id for e in store.search_events(filter=EventFilter())] == [1]
    assert get.call_args.kwargs == {"headers": {}}


def test_tool_call_metadata_response_reads_like_a_model_response() -> None:
    meta = ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id="call_1",
        model_response={"id": "resp-1", "choices": [{"message": {"content": "hi"}}]},
        total_calls_in_response=1,
    )
    response = meta.model_response
    assert isinstance(response, ResponseDict)
    assert response.id == "resp-1" and response["id"] == "resp-1"
    assert response.choices[0].message.content == "hi"
    response.id = "resp-2"
    assert meta.model_dump()["model_response"]["id"] == "resp-2"
    with pytest.raises(AttributeError):
        _ = response.missing
    action = MessageAction(content="x")
    action._tool_call_metadata = meta
    again = event_from_dict(event_to_dict(action))
    assert again.tool_call_metadata is not None
    assert again.tool_call_metadata.model_response.id == "resp-2"


def test_tool_call_metadata_accepts_a_pydantic_response_object() -> None:
    class FakeResponse(BaseModel):
        id: str
        model: str

    meta = ToolCallMetadata(
        function_name="f",
        tool_call_id="c",
        model_response=FakeResponse(id="r9", model="m"),
        total_calls_in_response=1,
    )
    assert meta.model_response == {"id": "r9", "model": "m"}
    assert meta.model_response.id == "r9"


def test_a_single_event_class_is_a_type_filter(tmp_path: Path) -> None:
    from openhands.events.action import CmdRunAction, MessageAction
    from openhands.events.event import EventSource
    from openhands.events.stream import EventStream
    from openhands.storage.local import LocalFileStore

    stream = EventStream("single-type", LocalFileStore(str(tmp_path)))
    stream.add_event(MessageAction("hi"), EventSource.USER)
    stream.add_event(CmdRunAction("ls"), EventSource.AGENT)
    found = stream.get_matching_events(event_types=CmdRunAction)  # type: ignore[arg-type]
    assert [type(e) for e in found] == [CmdRunAction]
    stream.close()
