"""Retries (agent spec §7.5): through the scripted server, and the policy on its own."""

from __future__ import annotations

import litellm
import pytest
from tenacity import RetryCallState

from openhands.llm.llm import LLM
from openhands.llm.retry_mixin import RetryMixin
from openhands.utils import shutdown_listener
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

HI = [{"role": "user", "content": "hi"}]


def test_rate_limit_and_server_error_then_success(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.rate_limit_error(), s.server_error(), s.text("finally"))
    calls: list[tuple[int, int]] = []
    llm = LLM(
        scripted_llm.llm_config(num_retries=3),
        "agent",
        retry_listener=lambda a, m: calls.append((a, m)),
    )
    response = llm.completion(messages=HI)
    assert response.choices[0].message.content == "finally"
    assert calls == [(1, 3), (2, 3)]
    # one attempt is one HTTP request: the provider SDK's own retries are off
    assert len(scripted_llm.completion_requests) == 3


def test_service_unavailable_is_retried(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.service_unavailable(), s.text("ok"))
    llm = LLM(scripted_llm.llm_config(), "agent")
    assert llm.completion(messages=HI).choices[0].message.content == "ok"


def test_attempts_are_limited_and_last_error_reraised(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(*[s.rate_limit_error() for _ in range(5)])
    llm = LLM(scripted_llm.llm_config(num_retries=3), "agent")
    with pytest.raises(litellm.RateLimitError) as info:
        llm.completion(messages=HI)
    assert len(scripted_llm.completion_requests) == 3
    # The exception finally raised says it exhausted the retries (the controller then ends
    # in ERROR instead of waiting in RATE_LIMITED forever, a reference quirk we fix).
    assert info.value.retry_attempt == 3 and info.value.max_retries == 3
    assert scripted_llm.remaining == 2


def test_authentication_error_is_not_retried(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.auth_error(), s.text("unused"))
    llm = LLM(scripted_llm.llm_config(), "agent")
    with pytest.raises(litellm.AuthenticationError):
        llm.completion(messages=HI)
    assert len(scripted_llm.completion_requests) == 1


def test_context_window_error_surfaces_unretried(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.context_window_error(), s.text("unused"))
    llm = LLM(scripted_llm.llm_config(), "agent")
    with pytest.raises(litellm.ContextWindowExceededError):
        llm.completion(messages=HI)
    assert len(scripted_llm.completion_requests) == 1


# --- the policy without HTTP ----------------------------------------------------------


def _rate_limit() -> litellm.RateLimitError:
    return litellm.RateLimitError(message="slow down", llm_provider="openai", model="m")


def test_retried_exceptions_are_annotated() -> None:
    raised: list[Exception] = []

    def flaky() -> str:
        if len(raised) < 2:
            raised.append(_rate_limit())
            raise raised[-1]
        return "done"

    wrapped = RetryMixin().retry_decorator(
        num_retries=4, retry_min_wait=0, retry_max_wait=0, retry_multiplier=0
    )(flaky)
    assert wrapped() == "done"
    assert [(e.retry_attempt, e.max_retries) for e in raised] == [(1, 4), (2, 4)]  # type: ignore[attr-defined]


def test_shutdown_stops_retrying() -> None:
    attempts: list[int] = []

    def always_limited() -> None:
        attempts.append(1)
        raise _rate_limit()

    wrapped = RetryMixin().retry_decorator(
        num_retries=5, retry_min_wait=0, retry_max_wait=0, retry_multiplier=0
    )(always_limited)
    shutdown_listener.request_shutdown()
    try:
        with pytest.raises(litellm.RateLimitError):
            wrapped()
    finally:
        shutdown_listener.reset()
    assert len(attempts) == 1


def test_default_backoff_waits_8_16_32_64() -> None:
    wrapped = RetryMixin().retry_decorator(num_retries=5)(lambda: None)
    retrying = wrapped.retry  # type: ignore[attr-defined]
    waits = []
    for attempt in range(1, 6):
        state = RetryCallState(retrying, fn=None, args=(), kwargs={})
        state.attempt_number = attempt
        waits.append(retrying.wait(state))
    assert waits == [8, 16, 32, 64, 64]
