"""The LLM wrapper: one configured model, called through LiteLLM with retries and metrics."""

from __future__ import annotations

import copy
import functools
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

with warnings.catch_warnings():
    # LiteLLM's types build their pydantic schemas lazily and warn (harmlessly) while at it;
    # build them here, once, where the warning can be silenced.
    warnings.simplefilter("ignore")
    import httpx  # noqa: F401  (a module attribute: tests patch ``openhands.llm.llm.httpx.get``)
    import litellm
    from litellm import create_pretrained_tokenizer
    from litellm.types.utils import Message as LiteLLMMessage
    from litellm.types.utils import ModelResponse

    ModelResponse()

from openhands.core.config import LLMConfig
from openhands.core.exceptions import LLMNoResponseError
from openhands.core.logger import openhands_logger as logger
from openhands.core.message import Message
from openhands.llm.call_params import build_call_params, rewrite_openhands_model
from openhands.llm.completion_log import write_completion_log
from openhands.llm.cost import CostUnavailable, completion_cost
from openhands.llm.debug_mixin import DebugMixin
from openhands.llm.fn_call_converter import (
    convert_fncall_messages_to_non_fncall_messages,
    convert_non_fncall_messages_to_fncall_messages,
)
from openhands.llm.fn_call_tags import STOP_WORD
from openhands.llm.litellm_debug import enable_litellm_debug_logging, register_llm_secrets
from openhands.llm.metrics import Metrics
from openhands.llm.model_features import ModelFeatures, get_features
from openhands.llm.model_info import (
    lookup_model_info,
    resolve_max_input_tokens,
    resolve_max_output_tokens,
)
from openhands.llm.openai_body import install as install_openai_body_fast_path
from openhands.llm.retry_mixin import RetryListener, RetryMixin

# LiteLLM prints a "give feedback" banner on every exception unless told not to.
litellm.suppress_debug_info = True
# ... except with DEBUG_LLM, which also turns LiteLLM's verbose logging on (secrets masked).
enable_litellm_debug_logging()
# Chat bodies of plain JSON skip the OpenAI SDK's type walk (openai_body.py explains).
install_openai_body_fast_path()

FORCE_VISION_ENV = "OPENHANDS_FORCE_VISION"
_TRUE = frozenset({"1", "true", "yes", "on"})
_STRING_SERIALIZER_MODELS = ("deepseek", "openrouter/anthropic/claude-sonnet-4")
_NO_EXAMPLE_MODELS = ("openhands-lm", "devstral")
# How LiteLLM's error reads when a provider's answer has no choices.
_NO_CHOICES_MARK = "response with no 'choices'"

MessageLike = Message | dict[str, Any]

# The function every ``LLM`` calls, bound when the ``LLM`` is created: patch
# ``openhands.llm.llm.litellm_completion`` before constructing one to intercept its calls.
litellm_completion: Callable[..., Any] = litellm.completion


@dataclass
class PreparedCall:
    """One attempt's request, ready for LiteLLM, and what is needed to read its answer."""

    messages: list[dict[str, Any]]
    kwargs: dict[str, Any]  # the caller's arguments besides messages (and mocked tools)
    call_kwargs: dict[str, Any]  # what LiteLLM gets besides messages
    tools: list[dict[str, Any]]  # the mocked tools; empty for a native call
    fncall_messages: list[dict[str, Any]] | None  # the messages before mocking, if mocked
    started: float = 0.0

    @property
    def mock(self) -> bool:
        return self.fncall_messages is not None


class LLM(RetryMixin, DebugMixin):
    """One model for one service (``agent``, ``condenser``, ...), called through LiteLLM.

    ``completion(messages=..., tools=..., **kwargs)`` accepts :class:`Message` objects or
    plain dicts and returns LiteLLM's ``ModelResponse``. For models without native tool
    calling, tools are mocked in the prompt (see ``fn_call_converter``) and the response
    still carries native ``tool_calls``.
    """

    def __init__(
        self,
        config: LLMConfig,
        service_id: str,
        metrics: Metrics | None = None,
        retry_listener: RetryListener | None = None,
    ) -> None:
        # What the caller asked for; ``config`` below gets resolved defaults and rewrites.
        self.original_config = copy.deepcopy(config)
        self.config = copy.deepcopy(config)
        rewrite_openhands_model(self.config)
        register_llm_secrets(
            self.config.api_key, self.config.aws_access_key_id, self.config.aws_secret_access_key
        )
        self.service_id = service_id
        self.metrics = metrics if metrics is not None else Metrics(model_name=self.config.model)
        self.retry_listener = retry_listener
        self.cost_metric_supported = True
        self.features: ModelFeatures = get_features(self.config.model)
        self.model_info: dict[str, Any] | None = None
        self._model_info_done = False
        self.init_model_info()
        self._call_params = build_call_params(self.config, self.features)
        self._tokenizer: Any = None
        self._tokenizer_loaded = self.config.custom_tokenizer is None
        # Read from the module namespace now, so a patch in place at construction wins.
        self._completion_unwrapped: Callable[..., Any] = litellm_completion
        self._completion: Callable[..., ModelResponse] = self._with_retries(
            self._completion_attempt
        )

    def _with_retries(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` under this LLM's retry policy (sync or async alike)."""
        return self.retry_decorator(
            num_retries=self.config.num_retries,
            retry_min_wait=self.config.retry_min_wait,
            retry_max_wait=self.config.retry_max_wait,
            retry_multiplier=self.config.retry_multiplier,
            retry_listener=self.retry_listener,
        )(fn)

    def init_model_info(self) -> None:
        """Look up the model's info and fill unset token limits from it (once per instance).

        OpenRouter models are looked up in LiteLLM by their full name, LiteLLM proxy models
        at the proxy's ``/v1/model/info``, all others (and those two, failing that) by name.
        """
        if self._model_info_done:
            return
        self._model_info_done = True
        self.model_info = lookup_model_info(
            self.config.model, self.config.base_url, self.config.api_key
        )
        self.config.max_input_tokens = resolve_max_input_tokens(
            self.config.max_input_tokens, self.model_info
        )
        self.config.max_output_tokens = resolve_max_output_tokens(
            self.config.model, self.config.max_output_tokens, self.model_info
        )

    # --- capabilities ------------------------------------------------------------------

    def is_function_calling_active(self) -> bool:
        if self.config.native_tool_calling is not None:
            return self.config.native_tool_calling
        return self.features.supports_function_calling

    def is_caching_prompt_active(self) -> bool:
        return self.config.caching_prompt and self.features.supports_prompt_cache

    def vision_is_active(self) -> bool:
        return not self.config.disable_vision and self._supports_vision()

    def _supports_vision(self) -> bool:
        if os.environ.get(FORCE_VISION_ENV, "").strip().lower() in _TRUE:
            return True
        return self._model_supports_vision

    @functools.cached_property
    def _model_supports_vision(self) -> bool:
        """LiteLLM's answer for this model, asked once: each lookup walks its model tables."""
        model = self.config.model
        candidates = [model] + ([model.rsplit("/", 1)[1]] if "/" in model else [])
        for candidate in candidates:
            try:
                if litellm.supports_vision(candidate):
                    return True
            except Exception:  # unknown model
                continue
        return bool(self.model_info and self.model_info.get("supports_vision"))

    def _uses_string_serializer(self) -> bool:
        model = self.config.model
        if any(marker in model for marker in _STRING_SERIALIZER_MODELS):
            return True
        return "kimi-k2-instruct" in model and "groq" in model

    # --- messages ----------------------------------------------------------------------

    def format_messages_for_llm(self, messages: MessageLike | Sequence[MessageLike]) -> list[dict]:
        """Serialize messages with this model's flags (caching, vision, function calling)."""
        if isinstance(messages, Message | dict):
            messages = [messages]
        flags = {
            "cache_enabled": self.is_caching_prompt_active(),
            "vision_enabled": self.vision_is_active(),
            "function_calling_enabled": self.is_function_calling_active(),
        }
        string_serializer = self._uses_string_serializer()
        formatted: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, dict):
                formatted.append(message)
                continue
            update = {
                **flags,
                "force_string_serializer": message.force_string_serializer or string_serializer,
            }
            formatted.append(message.model_copy(update=update).model_dump())
        return formatted

    def get_token_count(self, messages: MessageLike | Sequence[MessageLike]) -> int:
        """Tokens in ``messages`` by LiteLLM's counter for this model (0 if it cannot count)."""
        dicts = self.format_messages_for_llm(messages)
        try:
            return int(
                litellm.token_counter(
                    model=self.config.model,
                    messages=dicts,
                    custom_tokenizer=self._custom_tokenizer(),
                )
            )
        except Exception as exc:
            logger.error(f"Error getting token count for\n model {self.config.model}\n{exc}")
            return 0

    def _custom_tokenizer(self) -> Any:
        if not self._tokenizer_loaded and self.config.custom_tokenizer is not None:
            self._tokenizer_loaded = True
            try:
                self._tokenizer = create_pretrained_tokenizer(self.config.custom_tokenizer)
            except Exception as exc:
                logger.warning("Could not load tokenizer %s: %s", self.config.custom_tokenizer, exc)
        return self._tokenizer

    # --- completion --------------------------------------------------------------------

    @property
    def completion(self) -> Callable[..., ModelResponse]:
        """Call the model (with retries): ``llm.completion(messages=..., tools=..., **kw)``.
        ``messages`` may also be passed first, positionally."""
        return self._completion

    def _uses_mock_function_calling(self, kwargs: dict[str, Any]) -> bool:
        return bool(kwargs.get("tools")) and not self.is_function_calling_active()

    def _to_mock_request(
        self, messages: list[dict], kwargs: dict[str, Any]
    ) -> tuple[list[dict], list[dict[str, Any]]]:
        """Describe the tools in the prompt instead of passing them (changes ``kwargs``)."""
        model = self.config.model.lower()
        tools = kwargs.pop("tools")
        with_example = not any(marker in model for marker in _NO_EXAMPLE_MODELS)
        converted = convert_fncall_messages_to_non_fncall_messages(
            messages, tools, add_in_context_learning_example=with_example
        )
        if self.features.supports_stop_words and not self.config.disable_stop_word:
            kwargs["stop"] = [STOP_WORD]
        if "openhands-lm" in model:
            kwargs["tool_choice"] = "none"
        else:
            kwargs.pop("tool_choice", None)
        return converted, tools

    def _prepare_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> PreparedCall:
        """Format the messages, mock the tools if needed, merge the call parameters."""
        kwargs = dict(kwargs)
        if args:
            kwargs["messages"] = args[0]
        messages = self.format_messages_for_llm(kwargs.pop("messages", []))
        mock = self._uses_mock_function_calling(kwargs)
        fncall_messages = copy.deepcopy(messages) if mock else None
        tools: list[dict[str, Any]] = []
        if mock:
            messages, tools = self._to_mock_request(messages, kwargs)
        if not messages:
            raise ValueError("The messages list is empty. At least one message is required.")
        if "litellm_proxy" not in self.config.model:
            kwargs.pop("extra_body", None)
        litellm.modify_params = self.config.modify_params
        self.log_prompt(messages)
        return PreparedCall(
            messages=messages,
            kwargs=kwargs,
            call_kwargs={**self._call_params, **kwargs},
            tools=tools,
            fncall_messages=fncall_messages,
            started=time.time(),
        )

    def _call_failed(self, call: PreparedCall, exc: Exception) -> LLMNoResponseError | None:
        """The error to raise instead of ``exc``, or None to let ``exc`` through.

        Some LiteLLM releases raise on an answer without choices instead of returning it:
        the same no-response case as in :meth:`_finish_call` (retried with temperature 1).
        """
        if _NO_CHOICES_MARK not in str(exc):
            return None
        self.metrics.add_response_latency(max(0.0, time.time() - call.started), "")
        return LLMNoResponseError("Response choices is less than 1. " + str(exc)[:500])

    def _finish_call(self, call: PreparedCall, response: ModelResponse) -> ModelResponse:
        """Latency, the no-choices check, un-mocking, cost/tokens and the completion log."""
        # Mapping access: a ModelResponse and a plain dict answer (mocks, proxies) alike.
        self.metrics.add_response_latency(
            max(0.0, time.time() - call.started), response.get("id") or ""
        )
        if not response.get("choices"):
            raise LLMNoResponseError(
                "Response choices is less than 1. Response: " + str(response)[:500]
            )
        raw_response = copy.deepcopy(response) if call.mock else None
        if call.mock:
            self._to_native_response(response, call.messages, call.tools)
        self.log_response(response)
        cost = self._post_completion(response)
        if self.config.log_completions:
            write_completion_log(
                self.config.log_completions_folder,
                self.config.model,
                messages=call.messages,
                response=raw_response if call.mock else response,
                kwargs=call.kwargs,
                cost=cost,
                fncall_messages=call.fncall_messages,
                fncall_response=response if call.mock else None,
            )
        return response

    def _completion_attempt(self, *args: Any, **kwargs: Any) -> ModelResponse:
        call = self._prepare_call(args, kwargs)
        try:
            response = self._completion_unwrapped(messages=call.messages, **call.call_kwargs)
        except Exception as exc:
            error = self._call_failed(call, exc)
            if error is None:
                raise
            raise error from exc
        return self._finish_call(call, response)

    @staticmethod
    def _to_native_response(
        response: ModelResponse, messages: list[dict], tools: list[dict[str, Any]]
    ) -> None:
        reply = response.choices[0].message  # type: ignore[union-attr]
        reply_dict = {"role": reply.role or "assistant", "content": reply.content}
        converted = convert_non_fncall_messages_to_fncall_messages([*messages, reply_dict], tools)[
            -1
        ]
        response.choices[0].message = LiteLLMMessage(  # type: ignore[union-attr]
            content=converted.get("content"),
            role="assistant",
            tool_calls=converted.get("tool_calls"),
        )

    # --- accounting --------------------------------------------------------------------

    def _post_completion(self, response: ModelResponse) -> float:
        cost = 0.0
        if self.cost_metric_supported:
            try:
                cost = completion_cost(response, self.config)
                self.metrics.add_cost(cost)
            except CostUnavailable:
                logger.debug("No price known for %s; cost tracking is off", self.config.model)
                self.cost_metric_supported = False
        usage = response.get("usage")
        if usage is not None:
            details = _field(usage, "prompt_tokens_details")
            extra = _field(usage, "model_extra") or {}
            self.metrics.add_token_usage(
                prompt_tokens=int(_field(usage, "prompt_tokens") or 0),
                completion_tokens=int(_field(usage, "completion_tokens") or 0),
                cache_read_tokens=int(_field(details, "cached_tokens") or 0),
                cache_write_tokens=int(extra.get("cache_creation_input_tokens", 0) or 0),
                context_window=int(self.config.max_input_tokens or 0),
                response_id=response.get("id") or "",
            )
        return cost

    def reset(self) -> None:
        """Start a fresh Metrics (the old object is left to whoever still holds it)."""
        self.metrics = Metrics(model_name=self.config.model)

    def __str__(self) -> str:
        return f"LLM(model={self.config.model}, service_id={self.service_id})"

    __repr__ = __str__


def _field(value: Any, name: str) -> Any:
    """``value.name`` or ``value[name]``: usage records come as objects or as plain dicts."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)
