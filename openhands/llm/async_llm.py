"""AsyncLLM: the LLM's completion pipeline awaited over ``litellm.acompletion``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import litellm
from litellm.types.utils import ModelResponse

from openhands.core.exceptions import UserCancelledError
from openhands.llm.call_params import build_call_params
from openhands.llm.llm import LLM, PreparedCall
from openhands.utils.shutdown_listener import should_continue, should_exit

T = TypeVar("T")

# The coroutine function every AsyncLLM awaits, read at call time: patch
# ``openhands.llm.async_llm.litellm_acompletion`` to intercept the calls.
litellm_acompletion: Callable[..., Awaitable[Any]] = litellm.acompletion

# How often a call under way looks at the process-wide shutdown flag.
CANCEL_POLL_SECONDS = 0.1


async def _shutdown_requested() -> None:
    while should_continue():
        await asyncio.sleep(CANCEL_POLL_SECONDS)


async def run_unless_shutdown(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable``; if the process starts shutting down first, cancel it and raise
    UserCancelledError."""
    if should_exit():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise UserCancelledError("The LLM call was cancelled: the process is shutting down")
    task = asyncio.ensure_future(awaitable)
    watcher = asyncio.ensure_future(_shutdown_requested())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        raise UserCancelledError("The LLM call was cancelled: the process is shutting down")
    return task.result()


class AsyncLLM(LLM):
    """``await llm.async_completion(messages=..., tools=..., **kwargs)``: the same arguments,
    message handling, mock tool calling, retries, metrics and errors as ``completion``.
    Unlike ``completion``, the sampling controls are not adjusted for reasoning models.

    A call under way is cancelled when the process starts shutting down
    (:class:`UserCancelledError`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # 0.59's async calls pass the sampling controls through unchanged (call_params.py).
        self._call_params = build_call_params(self.config, self.features, adapt_sampling=False)
        self._async_completion: Callable[..., Awaitable[ModelResponse]] = self._with_retries(
            self._async_completion_attempt
        )

    @property
    def async_completion(self) -> Callable[..., Awaitable[ModelResponse]]:
        return self._async_completion

    async def _call_acompletion(self, **kwargs: Any) -> Any:
        """The one place that awaits LiteLLM (looked up at call time, so it can be patched)."""
        return await litellm_acompletion(**kwargs)

    async def _send(self, call: PreparedCall, **overrides: Any) -> Any:
        """Await LiteLLM for ``call``, translating its errors like ``completion`` does.

        ``overrides`` are arguments the retry policy changes between attempts."""
        try:
            return await run_unless_shutdown(
                self._call_acompletion(messages=call.messages, **{**call.call_kwargs, **overrides})
            )
        except UserCancelledError:
            raise
        except Exception as exc:
            error = self._call_failed(call, exc)
            if error is None:
                raise
            raise error from exc

    async def _async_completion_attempt(self, *args: Any, **kwargs: Any) -> ModelResponse:
        call = self._prepare_call(args, kwargs)
        response = await self._send(call)
        return self._finish_call(call, response)
