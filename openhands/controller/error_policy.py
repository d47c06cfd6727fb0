"""What an exception from a step means for the conversation (agent.md §8.4, §8.6).

Three pure decisions:
- :func:`is_context_window_error`: the prompt no longer fits → condense instead of failing;
- :func:`reportable_exception`: which exceptions reach the user as they are, and which
  are replaced by a generic "unexpected error" (their text may be unhelpful or leak);
- :func:`react_to_exception`: the agent state, RuntimeStatus and ``last_error`` for it.
The checks are ``isinstance`` tests against LiteLLM's own exception classes, in table order.
"""

from __future__ import annotations

from dataclasses import dataclass

from litellm.exceptions import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ContentPolicyViolationError,
    ContextWindowExceededError,
    InternalServerError,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
)
from openai import OpenAIError

from openhands.core.exceptions import (
    FunctionCallNotExistsError,
    FunctionCallValidationError,
    LLMContextWindowExceedError,
    LLMMalformedActionError,
    LLMNoActionError,
    LLMResponseError,
)
from openhands.core.schema import AgentState
from openhands.runtime.runtime_status import RuntimeStatus

# Errors in what the LLM produced: shown to the agent as an ErrorObservation, then it retries.
RECOVERABLE_AGENT_ERRORS: tuple[type[Exception], ...] = (
    LLMMalformedActionError,
    LLMNoActionError,
    LLMResponseError,
    FunctionCallValidationError,
    FunctionCallNotExistsError,
)

# Phrases providers use when the prompt is longer than the model's context window.
_CONTEXT_WINDOW_PHRASES = (
    "contextwindowexceedederror",
    "prompt is too long",
    "input length and `max_tokens` exceed context limit",
    "please reduce the length of either one",
    "the request exceeds the available context size",
    "context length exceeded",
)

# Passed to the user as they are; anything else becomes a generic RuntimeError.
# (The reference omits ServiceUnavailableError and APIConnectionError here, which made
# their row of the status table unreachable.)
_REPORTABLE: tuple[type[Exception], ...] = (
    Timeout,
    APIError,
    APIConnectionError,
    ServiceUnavailableError,
    BadRequestError,
    NotFoundError,
    InternalServerError,
    AuthenticationError,
    RateLimitError,
    ContentPolicyViolationError,
    LLMContextWindowExceedError,
)

UNEXPECTED_ERROR_MESSAGE = (
    "There was an unexpected error while running the agent: {name}. "
    "You can refresh the page or ask the agent to try again."
)


def is_context_window_error(exc: BaseException) -> bool:
    if isinstance(exc, ContextWindowExceededError):
        return True
    if not isinstance(exc, BadRequestError | OpenAIError):
        return False
    text = str(exc).lower()
    if any(phrase in text for phrase in _CONTEXT_WINDOW_PHRASES):
        return True
    return "sambanovaexception" in text and "maximum context length" in text


def reportable_exception(exc: Exception) -> Exception:
    if isinstance(exc, _REPORTABLE):
        return exc
    return RuntimeError(UNEXPECTED_ERROR_MESSAGE.format(name=type(exc).__name__))


def format_last_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def retries_exhausted(exc: BaseException) -> bool:
    """True when the LLM wrapper marked the exception as its last retry attempt."""
    attempt = getattr(exc, "retry_attempt", None)
    maximum = getattr(exc, "max_retries", None)
    return isinstance(attempt, int) and isinstance(maximum, int) and attempt >= maximum


@dataclass(frozen=True)
class ErrorReaction:
    state: AgentState
    last_error: str
    # Reported through the status callback when set.
    runtime_status: RuntimeStatus | None = None


def react_to_exception(exc: BaseException, has_status_callback: bool) -> ErrorReaction:
    """The §8.6 table. Without a status callback every exception simply means ERROR."""
    last_error = format_last_error(exc)
    if not has_status_callback:
        return ErrorReaction(AgentState.ERROR, last_error)
    if isinstance(exc, RateLimitError):
        if retries_exhausted(exc):
            return ErrorReaction(
                AgentState.ERROR, RuntimeStatus.AGENT_RATE_LIMITED_STOPPED_MESSAGE.value
            )
        return ErrorReaction(AgentState.RATE_LIMITED, last_error)
    status = _status_for(exc)
    if status == RuntimeStatus.ERROR:
        return ErrorReaction(AgentState.ERROR, last_error, status)
    return ErrorReaction(AgentState.ERROR, status.value, status)


def _status_for(exc: BaseException) -> RuntimeStatus:
    text = str(exc)
    if isinstance(exc, AuthenticationError):
        return RuntimeStatus.ERROR_LLM_AUTHENTICATION
    if isinstance(exc, ServiceUnavailableError | APIConnectionError | APIError):
        return RuntimeStatus.ERROR_LLM_SERVICE_UNAVAILABLE
    if isinstance(exc, InternalServerError):
        return RuntimeStatus.ERROR_LLM_INTERNAL_SERVER_ERROR
    if isinstance(exc, BadRequestError) and "ExceededBudget" in text:
        return RuntimeStatus.ERROR_LLM_OUT_OF_CREDITS
    if isinstance(exc, ContentPolicyViolationError) or (
        isinstance(exc, BadRequestError) and "ContentPolicyViolationError" in text
    ):
        return RuntimeStatus.ERROR_LLM_CONTENT_POLICY_VIOLATION
    return RuntimeStatus.ERROR
