"""Conversation titles derived from the first user message (server-api §8.7).

The text rules live in ``openhands.utils.conversation_summary``; this adds the server's
blocking LLM call built from the user's settings."""

from __future__ import annotations

import logging

from openhands.storage.data_models.settings import Settings
from openhands.utils.conversation_summary import (
    MAX_TITLE_LENGTH,
    clip_title,
    title_prompt,
    truncate_title,
)

logger = logging.getLogger(__name__)


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
        prompt = title_prompt(message, MAX_TITLE_LENGTH)
        response = llm.completion(messages=[{"role": "user", "content": prompt}])
        content = response.choices[0].message.content  # type: ignore[union-attr]
    except Exception as error:
        logger.info("Title generation failed: %s", error)
        return None
    title = clip_title(content or "")
    return title or None


def make_title(message: str, settings: Settings | None) -> str:
    return llm_title(message, settings) or truncate_title(message)
