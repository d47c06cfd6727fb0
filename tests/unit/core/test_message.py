"""Message serialization (agent spec §5.4)."""

from __future__ import annotations

import pytest

from openhands.core.message import ImageContent, Message, TextContent, ToolCall

EPHEMERAL = {"type": "ephemeral"}


def _text(text: str, cache: bool = False) -> TextContent:
    return TextContent(text=text, cache_prompt=cache)


def test_string_form_joins_text_and_drops_images() -> None:
    msg = Message(
        role="user",
        content=[_text("a"), ImageContent(image_urls=["http://img"]), _text("b")],
    )
    assert msg.model_dump() == {"content": "a\nb", "role": "user"}


@pytest.mark.parametrize("flag", ["cache_enabled", "vision_enabled", "function_calling_enabled"])
def test_any_flag_selects_list_form(flag: str) -> None:
    msg = Message(role="user", content=[_text("hi")], **{flag: True})
    assert msg.model_dump() == {"content": [{"type": "text", "text": "hi"}], "role": "user"}


def test_forced_string_serializer_wins() -> None:
    msg = Message(
        role="user",
        content=[_text("hi", cache=True)],
        cache_enabled=True,
        vision_enabled=True,
        function_calling_enabled=True,
        force_string_serializer=True,
    )
    assert msg.model_dump() == {"content": "hi", "role": "user"}


def test_cache_control_on_marked_text() -> None:
    msg = Message(role="system", content=[_text("a"), _text("b", cache=True)], cache_enabled=True)
    assert msg.model_dump()["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": EPHEMERAL},
    ]


def test_images_only_with_vision_and_cache_on_last_url() -> None:
    image = ImageContent(image_urls=["u1", "u2"], cache_prompt=True)
    with_vision = Message(role="user", content=[_text("see"), image], vision_enabled=True)
    assert with_vision.model_dump()["content"] == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "u1"}},
        {"type": "image_url", "image_url": {"url": "u2"}, "cache_control": EPHEMERAL},
    ]
    without_vision = Message(role="user", content=[_text("see"), image], cache_enabled=True)
    assert without_vision.model_dump()["content"] == [{"type": "text", "text": "see"}]


def test_tool_message_cache_control_moves_to_message() -> None:
    msg = Message(
        role="tool",
        content=[_text("result", cache=True)],
        cache_enabled=True,
        tool_call_id="call_1",
        name="execute_bash",
    )
    assert msg.model_dump() == {
        "content": [{"type": "text", "text": "result"}],
        "role": "tool",
        "cache_control": EPHEMERAL,
        "tool_call_id": "call_1",
        "name": "execute_bash",
    }


def test_tool_message_string_form_keeps_ids() -> None:
    msg = Message(role="tool", content=[_text("out")], tool_call_id="c", name="think")
    assert msg.model_dump() == {
        "content": "out",
        "role": "tool",
        "tool_call_id": "c",
        "name": "think",
    }


def test_tool_message_without_name_is_rejected() -> None:
    with pytest.raises(ValueError):
        Message(role="tool", content=[_text("out")], tool_call_id="c").model_dump()


def test_assistant_tool_calls_from_dicts_and_objects() -> None:
    class _Fn:
        name = "finish"
        arguments = '{"message": "ok"}'

    class _Call:
        id = "call_2"
        function = _Fn()

    msg = Message(
        role="assistant",
        content=[],
        function_calling_enabled=True,
        tool_calls=[
            {"id": "call_1", "type": "function", "function": {"name": "think", "arguments": "{}"}},
            _Call(),
        ],
    )
    assert isinstance(msg.tool_calls[0], ToolCall)  # type: ignore[index]
    assert msg.model_dump() == {
        "content": [],
        "role": "assistant",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "think", "arguments": "{}"}},
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "finish", "arguments": '{"message": "ok"}'},
            },
        ],
    }


def test_contains_image() -> None:
    assert Message(role="user", content=[ImageContent(image_urls=["u"])]).contains_image
    assert not Message(role="user", content=[_text("t")]).contains_image


def test_content_round_trips_through_validation() -> None:
    msg = Message(role="user", content=[_text("t"), ImageContent(image_urls=["u"])])
    assert isinstance(msg.content[1], ImageContent)
    copy = msg.model_copy(update={"vision_enabled": True})
    assert copy.model_dump()["content"][1] == {"type": "image_url", "image_url": {"url": "u"}}
