"""What an exception from a step means for the conversation (agent.md §8.4, §8.6).

Three pure decisions:
- :func:`is_context_window_error`: the prompt no longer fits → condense instead of failing;
- :func:`reportable_exception`: which exceptions reach the user as they are, and which
  are replaced by a generic "unexpected error" (their text may be unhelpful or leak);
- :func:`react_to_exception`: the agent state, RuntimeStatus and ``last_error`` for it.

What a provider's exception means is decided in ``openhands.llm.provider_errors`` (the one
place that knows LiteLLM's classes and messages); these decisions act on its answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from openhands.core.exceptions import (
    FunctionCallNotExistsError,
    FunctionCallValidationError,
    LLMContextWindowExceedError,
    LLMMalformedActionError,
    LLMNoActionError,
    LLMResponseError,
)
from openhands.core.schema import AgentState
from openhands.llm.provider_errors import (
    ProviderErrorKind,
    context_window_error,
    provider_error_kind,
)
from openhands.runtime.runtime_status import RuntimeStatus

# Errors in what the LLM produced: shown to the agent as an ErrorObservation, then it retries.
RECOVERABLE_AGENT_ERRORS: tuple[type[Exception], ...] = (
    LLMMalformedActionError,
    LLMNoActionError,
    LLMResponseError,
    FunctionCallValidationError,
    FunctionCallNotExistsError,
)

# The status each provider failure is reported with; the others report plain ERROR.
_PROVIDER_STATUS: dict[ProviderErrorKind, RuntimeStatus] = {
    ProviderErrorKind.AUTHENTICATION: RuntimeStatus.ERROR_LLM_AUTHENTICATION,
    ProviderErrorKind.SERVICE_UNAVAILABLE: RuntimeStatus.ERROR_LLM_SERVICE_UNAVAILABLE,
    ProviderErrorKind.INTERNAL_SERVER_ERROR: RuntimeStatus.ERROR_LLM_INTERNAL_SERVER_ERROR,
    ProviderErrorKind.OUT_OF_CREDITS: RuntimeStatus.ERROR_LLM_OUT_OF_CREDITS,
    ProviderErrorKind.CONTENT_POLICY: RuntimeStatus.ERROR_LLM_CONTENT_POLICY_VIOLATION,
}

UNEXPECTED_ERROR_MESSAGE = (
    "There was an unexpected error while running the agent: {name}. "
    "You can refresh the page or ask the agent to try again."
)


def is_context_window_error(exc: BaseException) -> bool:
    return context_window_error(exc) is not None


def reportable_exception(exc: Exception) -> Exception:
    """``exc`` itself when its text is fit for the user (a provider failure, or the context
    window error); otherwise a generic error that names only its type."""
    if provider_error_kind(exc) is not None or isinstance(exc, LLMContextWindowExceedError):
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
    kind = provider_error_kind(exc)
    if kind is ProviderErrorKind.RATE_LIMIT:
        if retries_exhausted(exc):
            return ErrorReaction(
                AgentState.ERROR, RuntimeStatus.AGENT_RATE_LIMITED_STOPPED_MESSAGE.value
            )
        return ErrorReaction(AgentState.RATE_LIMITED, last_error)
    status = (
        RuntimeStatus.ERROR if kind is None else _PROVIDER_STATUS.get(kind, RuntimeStatus.ERROR)
    )
    if status == RuntimeStatus.ERROR:
        return ErrorReaction(AgentState.ERROR, last_error, status)
    return ErrorReaction(AgentState.ERROR, status.value, status)
