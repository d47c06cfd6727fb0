"""Exceptions → agent state, RuntimeStatus and last_error (agent.md §8.4, §8.6)."""

from __future__ import annotations

import pytest
from litellm.exceptions import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ContentPolicyViolationError,
    ContextWindowExceededError,
    InternalServerError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
)

from openhands.controller.error_policy import (
    is_context_window_error,
    react_to_exception,
    reportable_exception,
    retries_exhausted,
)
from openhands.core.exceptions import AgentStuckInLoopError, LLMContextWindowExceedError
from openhands.core.schema import AgentState

M, P = "gpt-4o", "openai"


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (AuthenticationError("no", P, M), "STATUS$ERROR_LLM_AUTHENTICATION"),
        (ServiceUnavailableError("down", P, M), "STATUS$ERROR_LLM_SERVICE_UNAVAILABLE"),
        (APIConnectionError("conn", P, M), "STATUS$ERROR_LLM_SERVICE_UNAVAILABLE"),
        (APIError(500, "api", P, M), "STATUS$ERROR_LLM_SERVICE_UNAVAILABLE"),
        (InternalServerError("boom", P, M), "STATUS$ERROR_LLM_INTERNAL_SERVER_ERROR"),
        (BadRequestError("ExceededBudget: spent", M, P), "STATUS$ERROR_LLM_OUT_OF_CREDITS"),
        (ContentPolicyViolationError("bad", M, P), "STATUS$ERROR_LLM_CONTENT_POLICY_VIOLATION"),
        (
            BadRequestError("litellm.ContentPolicyViolationError: x", M, P),
            "STATUS$ERROR_LLM_CONTENT_POLICY_VIOLATION",
        ),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else v,
)
def test_llm_errors_map_to_their_status(exc: Exception, status: str) -> None:
    reaction = react_to_exception(exc, has_status_callback=True)
    assert reaction.state == AgentState.ERROR
    assert reaction.runtime_status is not None and reaction.runtime_status.value == status
    assert reaction.last_error == status


def test_other_errors_keep_their_text_with_the_generic_status() -> None:
    reaction = react_to_exception(AgentStuckInLoopError(), has_status_callback=True)
    assert reaction.state == AgentState.ERROR
    assert reaction.runtime_status is not None and reaction.runtime_status.value == "STATUS$ERROR"
    assert reaction.last_error == "AgentStuckInLoopError: Agent got stuck in a loop"


def test_timeout_is_not_a_service_outage() -> None:
    reaction = react_to_exception(Timeout("slow", M, P), has_status_callback=True)
    assert reaction.runtime_status is not None and reaction.runtime_status.value == "STATUS$ERROR"


def _rate_limit(attempt: int | None, maximum: int | None) -> RateLimitError:
    exc = RateLimitError("429", P, M)
    if attempt is not None:
        exc.retry_attempt = attempt  # type: ignore[attr-defined]
        exc.max_retries = maximum
    return exc


def test_rate_limit_with_retries_left_is_rate_limited() -> None:
    for exc in (_rate_limit(None, None), _rate_limit(2, 5)):
        reaction = react_to_exception(exc, has_status_callback=True)
        assert reaction.state == AgentState.RATE_LIMITED
        assert reaction.runtime_status is None


def test_rate_limit_out_of_retries_is_an_error() -> None:
    reaction = react_to_exception(_rate_limit(5, 5), has_status_callback=True)
    assert reaction.state == AgentState.ERROR
    assert reaction.last_error == "CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"
    assert reaction.runtime_status is None


def test_retries_exhausted_needs_both_numbers() -> None:
    assert retries_exhausted(_rate_limit(3, 3))
    assert not retries_exhausted(_rate_limit(2, 3))
    assert not retries_exhausted(_rate_limit(None, None))
    assert not retries_exhausted(RateLimitError("429", P, M, max_retries=3))


def test_without_a_callback_everything_is_an_error_with_its_text() -> None:
    for exc in (_rate_limit(None, None), AuthenticationError("no", P, M)):
        reaction = react_to_exception(exc, has_status_callback=False)
        assert reaction.state == AgentState.ERROR
        assert reaction.runtime_status is None
        assert reaction.last_error.startswith(type(exc).__name__ + ": ")


@pytest.mark.parametrize(
    "exc",
    [
        ContextWindowExceededError("anything", M, P),
        BadRequestError("Prompt is too long: 300000 tokens", M, P),
        BadRequestError("input length and `max_tokens` exceed context limit", M, P),
        BadRequestError("Please reduce the length of either one", M, P),
        BadRequestError("The request exceeds the available context size", M, P),
        BadRequestError("context length exceeded", M, P),
        BadRequestError("SambaNovaException: maximum context length is 8k", M, P),
        APIError(400, "litellm.ContextWindowExceededError: too big", P, M),
    ],
)
def test_context_window_errors_are_recognised(exc: Exception) -> None:
    assert is_context_window_error(exc)


@pytest.mark.parametrize(
    "exc",
    [
        BadRequestError("invalid temperature", M, P),
        BadRequestError("maximum context length", M, P),  # without the SambaNova marker
        ValueError("prompt is too long"),  # not an LLM error type
    ],
)
def test_other_errors_are_not_context_window_errors(exc: Exception) -> None:
    assert not is_context_window_error(exc)


def test_reportable_exceptions_pass_and_others_are_replaced() -> None:
    auth = AuthenticationError("no", P, M)
    assert reportable_exception(auth) is auth
    window = LLMContextWindowExceedError()
    assert reportable_exception(window) is window
    replaced = reportable_exception(KeyError("k"))
    assert isinstance(replaced, RuntimeError)
    assert str(replaced) == (
        "There was an unexpected error while running the agent: KeyError. "
        "You can refresh the page or ask the agent to try again."
    )
