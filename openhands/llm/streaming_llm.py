"""StreamingLLM: the LLM's completion as an async stream of LiteLLM chunks."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import litellm
from litellm.types.utils import ModelResponse

from openhands.core.exceptions import LLMNoResponseError, UserCancelledError
from openhands.core.logger import openhands_logger as logger
from openhands.llm.async_llm import AsyncLLM
from openhands.llm.llm import PreparedCall
from openhands.utils.shutdown_listener import should_exit


class StreamingLLM(AsyncLLM):
    """``async for chunk in llm.async_streaming_completion(messages=..., **kwargs)``.

    Chunks are LiteLLM's ``ModelResponseStream`` objects (``choices[0].delta``), requested
    with ``stream=True``. Opening the stream is retried like ``completion``; once it flows
    it is not. When the stream ends, the chunks are assembled into one response for the
    metrics (latency, cost, tokens), the response logger and the completion log. Tools are
    passed natively: mock function calling cannot be streamed (ValueError). The stream stops
    with :class:`UserCancelledError` when the process starts shutting down.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open_stream: Callable[..., Awaitable[Any]] = self._with_retries(self._send)

    @property
    def async_streaming_completion(self) -> Callable[..., AsyncIterator[Any]]:
        return self._stream_completion

    async def _stream_completion(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        if self._uses_mock_function_calling(kwargs):
            raise ValueError(
                f"{self.config.model} has no native function calling, and mock function "
                "calling cannot be streamed; use async_completion for calls with tools"
            )
        call = self._prepare_call(args, {**kwargs, "stream": True})
        stream = await self._open_stream(call)
        chunks: list[Any] = []
        async for chunk in stream:
            if should_exit():
                raise UserCancelledError(
                    "The LLM stream was cancelled: the process is shutting down"
                )
            chunks.append(chunk)
            yield chunk
        self._finish_stream(call, chunks)

    def _finish_stream(self, call: PreparedCall, chunks: list[Any]) -> None:
        if not chunks:
            raise LLMNoResponseError("The stream ended without a chat completion")
        try:
            response = litellm.stream_chunk_builder(chunks, messages=call.messages)
        except Exception as exc:
            # The caller already has every chunk; chunks LiteLLM cannot assemble (e.g. a
            # proxy's bare dicts without ``model``) only cost us the usage accounting.
            logger.warning("Could not assemble the stream's chunks for the metrics: %s", exc)
            self.metrics.add_response_latency(max(0.0, time.time() - call.started), "")
            return
        if not isinstance(response, ModelResponse):  # a text-completion stream
            raise LLMNoResponseError("The stream ended without a chat completion")
        self._finish_call(call, response)
