"""Retrying LLM calls: exponential backoff over the transient LiteLLM errors (tenacity)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from litellm.exceptions import (
    APIConnectionError,
    InternalServerError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
)
from tenacity import (
    RetryCallState,
    retry,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)
from tenacity.stop import stop_base

from openhands.core.exceptions import LLMNoResponseError
from openhands.core.logger import openhands_logger as logger
from openhands.utils.shutdown_listener import should_exit

RetryListener = Callable[[int, int], None]
F = TypeVar("F", bound=Callable[..., Any])

LLM_RETRY_EXCEPTIONS: tuple[type[BaseException], ...] = (
    APIConnectionError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
    InternalServerError,
    LLMNoResponseError,
)


class _StopOnShutdown(stop_base):
    def __call__(self, retry_state: RetryCallState) -> bool:
        return should_exit()


class RetryMixin:
    """Gives a class ``retry_decorator`` for wrapping its calls to the model."""

    def retry_decorator(
        self,
        num_retries: int,
        retry_exceptions: tuple[type[BaseException], ...] = LLM_RETRY_EXCEPTIONS,
        retry_min_wait: float = 8,
        retry_max_wait: float = 64,
        retry_multiplier: float = 8,
        retry_listener: RetryListener | None = None,
    ) -> Callable[[F], F]:
        """``num_retries`` is the total number of attempts, the first one included."""

        def before_sleep(retry_state: RetryCallState) -> None:
            exc = retry_state.outcome.exception() if retry_state.outcome else None
            attempt = retry_state.attempt_number
            logger.warning(
                "LLM call failed (%s), attempt %d of %d; retrying", exc, attempt, num_retries
            )
            if retry_listener is not None:
                retry_listener(attempt, num_retries)
            # A deterministic sampler would likely give the same empty answer again.
            if isinstance(exc, LLMNoResponseError) and not retry_state.kwargs.get("temperature"):
                retry_state.kwargs["temperature"] = 1.0

        def mark_attempt(retry_state: RetryCallState) -> None:
            # Every failed attempt is marked, the last one included, so the controller can
            # tell an exhausted rate limit (→ ERROR) from one still being retried.
            exc = retry_state.outcome.exception() if retry_state.outcome else None
            if exc is not None:
                exc.retry_attempt = retry_state.attempt_number  # type: ignore[attr-defined]
                exc.max_retries = num_retries  # type: ignore[attr-defined]

        decorator = retry(
            reraise=True,
            after=mark_attempt,
            stop=stop_after_attempt(num_retries) | _StopOnShutdown(),
            wait=wait_exponential(
                multiplier=retry_multiplier, min=retry_min_wait, max=retry_max_wait
            ),
            retry=retry_if_exception_type(retry_exceptions),
            before_sleep=before_sleep,
        )
        return decorator  # type: ignore[return-value]
