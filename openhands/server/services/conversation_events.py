"""Reading a conversation's events over REST: search, trajectory, remember-prompt (§6.4)."""

from __future__ import annotations

import asyncio
import logging
import os
import re
from itertools import islice
from typing import Any

from openhands.events.action import ChangeAgentStateAction, NullAction
from openhands.events.event import Event
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import AgentStateChangedObservation, NullObservation
from openhands.events.serialization import event_to_dict, event_to_trajectory
from openhands.server.errors import ErrorBodyError, InvalidLimitError
from openhands.storage.data_models.settings import Settings
from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)

MAX_LIMIT = 100
# How long `remember-prompt` waits for the user's LLM (seconds, env REMEMBER_PROMPT_TIMEOUT).
# One attempt, no retries: the browser is waiting on the answer.
DEFAULT_REMEMBER_PROMPT_TIMEOUT = 30.0
_UPDATE_PROMPT = re.compile(r"<update_prompt>(.*?)</update_prompt>", re.DOTALL)


def search_events(
    file_store: FileStore,
    conversation_id: str,
    user_id: str | None,
    start_id: int,
    end_id: int | None,
    reverse: bool,
    event_filter: EventFilter | None,
    limit: int,
) -> tuple[list[dict[str, Any]], bool]:
    """(events, has_more), read straight from the store; blocking."""
    if limit < 0 or limit > MAX_LIMIT:
        raise InvalidLimitError()
    store = EventStore(conversation_id, file_store, user_id)
    # Ids past the latest event cannot match: without the clamp a huge `end_id` would make
    # the store look for billions of missing files while the request hangs.
    latest = store.cur_id - 1
    end = latest if end_id is None else min(end_id, latest)
    found = list(
        store.search_events(
            start_id=start_id, end_id=end, reverse=reverse, filter=event_filter, limit=limit + 1
        )
    )
    return [event_to_dict(event) for event in found[:limit]], len(found) > limit


def trajectory(event_store: EventStore, include_screenshots: bool = False) -> list[dict[str, Any]]:
    events = event_store.search_events(filter=EventFilter(exclude_hidden=True))
    return [event_to_trajectory(event, include_screenshots) for event in events]


def _relevant(event: Event) -> bool:
    if getattr(event, "hidden", False):
        return False
    return not isinstance(
        event,
        NullAction | NullObservation | ChangeAgentStateAction | AgentStateChangedObservation,
    )


def events_around(event_store: EventStore, event_id: int) -> list[Event]:
    """Up to 4 relevant events before ``event_id`` and up to 5 from it onward, in order."""
    # islice stops the (lazy) reads once enough are found: a long history is not read whole.
    # An id outside the stored ones is clamped (a huge one would scan billions of ids).
    event_id = max(0, min(event_id, event_store.cur_id))
    before = list(
        islice(
            (
                e
                for e in event_store.search_events(end_id=event_id - 1, reverse=True)
                if _relevant(e)
            ),
            4,
        )
    )
    after = list(
        islice((e for e in event_store.search_events(start_id=event_id) if _relevant(e)), 5)
    )
    return [*reversed(before), *after]


def remember_prompt_request(events: list[Event]) -> str:
    lines = "\n".join(f"- [{e.source}] {e.message}" for e in events if e.message)
    return (
        "The events below come from a conversation between a user and a coding agent. Write "
        "a short instruction for a repository microagent that captures what the agent should "
        "remember next time (conventions, commands, pitfalls). Put only the instruction "
        "between <update_prompt> and </update_prompt>.\n\n" + lines
    )


def extract_update_prompt(reply: str) -> str:
    match = _UPDATE_PROMPT.search(reply)
    return (match.group(1) if match else reply).strip()


async def read_events_around(event_store: EventStore, event_id: int) -> list[Event]:
    return await asyncio.to_thread(events_around, event_store, event_id)


def remember_prompt_timeout() -> float:
    try:
        value = float(os.environ.get("REMEMBER_PROMPT_TIMEOUT", DEFAULT_REMEMBER_PROMPT_TIMEOUT))
    except ValueError:
        return DEFAULT_REMEMBER_PROMPT_TIMEOUT
    return value if value > 0 else DEFAULT_REMEMBER_PROMPT_TIMEOUT


def _complete(prompt: str, settings: Settings, timeout: float) -> str:
    from openhands.core.config import LLMConfig
    from openhands.llm.llm import LLM

    config = LLMConfig(
        model=settings.llm_model or "",
        api_key=settings.llm_api_key,
        base_url=settings.llm_base_url,
        timeout=max(1, round(timeout)),
        num_retries=1,  # total attempts: no retry storm behind a waiting request
    )
    response = LLM(config=config, service_id="remember_prompt").completion(
        messages=[{"role": "user", "content": prompt}]
    )
    return response.choices[0].message.content or ""  # type: ignore[union-attr]


async def complete_remember_prompt(prompt: str, settings: Settings) -> str:
    """The user's LLM's answer to ``prompt``, bounded in time. An LLM that cannot be reached,
    fails or does not answer in time is a 502 / 503 with a message, never a hang or a 500."""
    if not settings.llm_model:
        raise ErrorBodyError("No LLM model configured in the settings", 400)
    timeout = remember_prompt_timeout()
    try:
        # The LLM's own timeout ends the call; the outer one only guards against a client
        # library that ignores it.
        return await asyncio.wait_for(
            asyncio.to_thread(_complete, prompt, settings, timeout), timeout + 5
        )
    except TimeoutError as error:
        raise ErrorBodyError(f"The LLM did not answer within {timeout:g} s", 503) from error
    except Exception as error:
        raise _llm_failure(error, timeout) from error


def _llm_failure(error: Exception, timeout: float) -> ErrorBodyError:
    import litellm

    logger.info("remember-prompt: the LLM call failed: %s", error)
    if isinstance(error, litellm.Timeout):
        return ErrorBodyError(f"The LLM did not answer within {timeout:g} s", 503)
    if isinstance(error, litellm.RateLimitError | litellm.ServiceUnavailableError):
        return ErrorBodyError(f"The LLM is not available right now: {error}", 503)
    return ErrorBodyError(f"The LLM request failed: {type(error).__name__}: {error}", 502)
