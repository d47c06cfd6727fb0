"""Conversation titles (server-api §8.7): the default one, the fallback cut from the first
user message, and one written by an LLM.

The text rules (prompt, clipping, fallback) live here once; ``server/session/title.py``
uses them for the server's metadata updater. Nothing here imports the LLM package: the
caller hands in an ``LLMRegistry`` (anything with ``request_extraneous_completion``).
``EventStore`` is a module attribute so that a caller can substitute its own reader.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from openhands.events.action.message import MessageAction
from openhands.events.event import EventSource
from openhands.events.event_store import EventStore

if TYPE_CHECKING:
    from openhands.core.config.llm_config import LLMConfig
    from openhands.storage.data_models.settings import Settings
    from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)

MAX_TITLE_LENGTH = 50
FALLBACK_LENGTH = 30
TITLE_SERVICE_ID = "conversation_title_creator"
# How much of the first message the model sees.
_MESSAGE_EXCERPT = 2000
TITLE_PROMPT = (
    "Write a short title (at most {limit} characters) for a conversation that begins with the "
    "message below. Reply with the title only, without quotes.\n\nMessage:\n{message}"
)


class _CompletionSource(Protocol):
    def request_extraneous_completion(
        self, service_id: str, llm_config: LLMConfig, messages: list[dict[str, Any]]
    ) -> str: ...


def title_prompt(message: str, max_length: int = MAX_TITLE_LENGTH) -> str:
    return TITLE_PROMPT.format(limit=max_length, message=message[:_MESSAGE_EXCERPT])


def truncate_title(message: str) -> str:
    """The fallback title: the first 30 characters, plus ``...`` when the message is longer."""
    text = message.strip()
    if len(text) <= FALLBACK_LENGTH:
        return text
    return text[:FALLBACK_LENGTH] + "..."


def clip_title(title: str, max_length: int = MAX_TITLE_LENGTH) -> str:
    """A model's reply as a title: unquoted, and at most ``max_length`` characters."""
    title = title.strip().strip('"').strip()
    if len(title) > max_length:
        return title[: max_length - 3] + "..."
    return title


def get_default_conversation_title(conversation_id: str) -> str:
    return f"Conversation {conversation_id[:5]}"


async def generate_conversation_title(
    message: str,
    llm_config: LLMConfig,
    llm_registry: _CompletionSource,
    max_length: int = MAX_TITLE_LENGTH,
) -> str | None:
    """Ask the model configured by ``llm_config`` for a title; None for an empty message or
    when the model fails or answers with nothing."""
    if not message or not message.strip():
        return None
    messages = [{"role": "user", "content": title_prompt(message, max_length)}]
    try:
        reply = await asyncio.to_thread(
            llm_registry.request_extraneous_completion, TITLE_SERVICE_ID, llm_config, messages
        )
    except Exception as error:
        logger.info("Title generation failed: %s", error)
        return None
    return clip_title(reply or "", max_length) or None


async def auto_generate_title(
    conversation_id: str,
    user_id: str | None,
    file_store: FileStore,
    settings: Settings | None,
    llm_registry: _CompletionSource,
) -> str:
    """A title from the conversation's first user message: the LLM's when the settings name
    a model and it answers, else the message cut to 30 characters; ``''`` when there is no
    user message or the events cannot be read."""
    try:
        message = await asyncio.to_thread(_first_user_message, conversation_id, user_id, file_store)
        if not message:
            return ""
        if settings is not None and settings.llm_model:
            from openhands.core.config.llm_config import LLMConfig

            config = LLMConfig(
                model=settings.llm_model,
                api_key=settings.llm_api_key,
                base_url=settings.llm_base_url,
            )
            title = await generate_conversation_title(message, config, llm_registry)
            if title:
                return title
        return truncate_title(message)
    except Exception:
        logger.exception("Could not make a title for conversation %s", conversation_id)
        return ""


def _first_user_message(conversation_id: str, user_id: str | None, file_store: FileStore) -> str:
    store = EventStore(conversation_id, file_store, user_id)
    for event in store.search_events():
        if not isinstance(event, MessageAction) or event.source != EventSource.USER:
            continue
        if event.content.strip():
            return event.content
    return ""
