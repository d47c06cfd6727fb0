"""``model_dump()`` of message content items (python-api.md §5.3, checklist item 16)."""

from __future__ import annotations

from openhands.core.message import ImageContent, Message, TextContent


def test_image_content_dumps_to_a_list() -> None:
    assert ImageContent(image_urls=["u"]).model_dump() == [
        {"type": "image_url", "image_url": {"url": "u"}}
    ]
    assert ImageContent(image_urls=[]).model_dump() == []


def test_cached_image_content_marks_only_the_last_item() -> None:
    assert ImageContent(image_urls=["a", "b"], cache_prompt=True).model_dump() == [
        {"type": "image_url", "image_url": {"url": "a"}},
        {"type": "image_url", "image_url": {"url": "b"}, "cache_control": {"type": "ephemeral"}},
    ]


def test_text_content_dump() -> None:
    assert TextContent(text="hi").model_dump() == {"type": "text", "text": "hi"}
    assert TextContent(text="hi", cache_prompt=True).model_dump() == {
        "type": "text",
        "text": "hi",
        "cache_control": {"type": "ephemeral"},
    }


def test_messages_still_flatten_the_content_items() -> None:
    message = Message(
        role="user",
        content=[TextContent(text="see", cache_prompt=True), ImageContent(image_urls=["a", "b"])],
        vision_enabled=True,
    )
    assert message.model_dump()["content"] == [
        {"type": "text", "text": "see", "cache_control": {"type": "ephemeral"}},
        {"type": "image_url", "image_url": {"url": "a"}},
        {"type": "image_url", "image_url": {"url": "b"}},
    ]
    assert message.model_dump_json().count('"image_url"') == 4  # two items, nested key
