"""What an exception from the LLM provider means, decided in one place (agent.md §8.4, §8.6).

LiteLLM raises its own exception classes (and the OpenAI SDK's, for some providers), and
some providers report a full context window only in the message of a generic error. This
module is the only place outside the LLM client that knows those classes and phrases;
the controller asks it and then acts on the answer by type:

- :func:`context_window_error`: the prompt no longer fits, as the shared
  :class:`~openhands.core.exceptions.LLMContextWindowExceedError` (None for anything else);
- :func:`provider_error_kind`: which of the provider's failures it is (None when it is not
  a provider failure a user should see as it is).

The raw exception is left untouched: ``LLM.completion`` still raises LiteLLM's classes (what
the reference's callers catch), and the controller reports them with their own type name.
"""

from __future__ import annotations

from enum import Enum

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

from openhands.core.exceptions import LLMContextWindowExceedError


class ProviderErrorKind(Enum):
    """A provider failure the user is told about, by what it means for them."""

    RATE_LIMIT = "rate_limit"
    AUTHENTICATION = "authentication"
    SERVICE_UNAVAILABLE = "service_unavailable"
    INTERNAL_SERVER_ERROR = "internal_server_error"
    OUT_OF_CREDITS = "out_of_credits"
    CONTENT_POLICY = "content_policy"
    # Any other of the provider's answers (a timeout, a bad request, an unknown model).
    OTHER = "other"


# Phrases providers use when the prompt is longer than the model's context window; LiteLLM
# does not always wrap those answers in ContextWindowExceededError.
_CONTEXT_WINDOW_PHRASES = (
    "contextwindowexceedederror",
    "prompt is too long",
    "input length and `max_tokens` exceed context limit",
    "please reduce the length of either one",
    "the request exceeds the available context size",
    "context length exceeded",
)

# The provider failures whose text reaches the user as it is. (The reference leaves
# ServiceUnavailableError and APIConnectionError out of its list, which made their status
# unreachable; both are in here.)
_REPORTED_AS_IS: tuple[type[Exception], ...] = (
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
)


def context_window_error(exc: BaseException) -> LLMContextWindowExceedError | None:
    """The shared context-window error when ``exc`` is the provider saying the prompt is
    too long; None for anything else (an ``LLMContextWindowExceedError`` raised by an
    agent itself included: it already says what it means)."""
    if isinstance(exc, ContextWindowExceededError):
        return LLMContextWindowExceedError()
    if not isinstance(exc, BadRequestError | OpenAIError):
        return None
    text = str(exc).lower()
    too_long = any(phrase in text for phrase in _CONTEXT_WINDOW_PHRASES) or (
        "sambanovaexception" in text and "maximum context length" in text
    )
    return LLMContextWindowExceedError() if too_long else None


def provider_error_kind(exc: BaseException) -> ProviderErrorKind | None:
    """Which provider failure ``exc`` is, checked in the order of the §8.6 table; None when
    it is not one whose text the user may see."""
    if not isinstance(exc, _REPORTED_AS_IS):
        return None
    text = str(exc)
    if isinstance(exc, RateLimitError):
        return ProviderErrorKind.RATE_LIMIT
    if isinstance(exc, AuthenticationError):
        return ProviderErrorKind.AUTHENTICATION
    if isinstance(exc, ServiceUnavailableError | APIConnectionError | APIError):
        return ProviderErrorKind.SERVICE_UNAVAILABLE
    if isinstance(exc, InternalServerError):
        return ProviderErrorKind.INTERNAL_SERVER_ERROR
    if isinstance(exc, BadRequestError) and "ExceededBudget" in text:
        return ProviderErrorKind.OUT_OF_CREDITS
    if isinstance(exc, ContentPolicyViolationError) or (
        isinstance(exc, BadRequestError) and "ContentPolicyViolationError" in text
    ):
        return ProviderErrorKind.CONTENT_POLICY
    return ProviderErrorKind.OTHER
