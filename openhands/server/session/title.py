"""Conversation titles derived from the first user message (server-api §8.7)."""

from __future__ import annotations

import logging

from openhands.storage.data_models.settings import Settings

logger = logging.getLogger(__name__)

MAX_TITLE_LENGTH = 50
FALLBACK_LENGTH = 30
_PROMPT = (
    "Write a short title (at most {limit} characters) for a conversation that begins with the "
    "message below. Reply with the title only, without quotes.\n\nMessage:\n{message}"
)


def truncate_title(message: str) -> str:
    """The fallback title: the first 30 characters, plus ``...`` when the message is longer."""
    text = message.strip()
    if len(text) <= FALLBACK_LENGTH:
        return text
    return text[:FALLBACK_LENGTH] + "..."


def clip_title(title: str) -> str:
    title = title.strip().strip('"').strip()
    if len(title) > MAX_TITLE_LENGTH:
        return title[: MAX_TITLE_LENGTH - 3] + "..."
    return title


def llm_title(message: str, settings: Settings | None) -> str | None:
    """Ask the user's LLM for a title (blocking); None when there is no LLM or it fails."""
    if settings is None or not settings.llm_model:
        return None
    from openhands.core.config import LLMConfig
    from openhands.llm.llm import LLM

    try:
        config = LLMConfig(
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            base_url=settings.llm_base_url,
            num_retries=1,
        )
        llm = LLM(config=config, service_id="conversation_title")
        prompt = _PROMPT.format(limit=MAX_TITLE_LENGTH, message=message[:2000])
        response = llm.completion(messages=[{"role": "user", "content": prompt}])
        content = response.choices[0].message.content  # type: ignore[union-attr]
    except Exception as error:
        logger.info("Title generation failed: %s", error)
        return None
    title = clip_title(content or "")
    return title or None


def make_title(message: str, settings: Settings | None) -> str:
    return llm_title(message, settings) or truncate_title(message)
