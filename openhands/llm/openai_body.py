"""Chat-completion request bodies sent without the OpenAI SDK's per-request type walk.

LiteLLM sends OpenAI-compatible chat completions through the ``openai`` SDK, whose
``Completions.create`` passes the whole body through ``maybe_transform``: a walk of every
message against the parameter TypedDicts, run once per member of every union on the way,
which renames aliased keys and formats dates and files. With an instant model that walk is
most of an agent step (py-spy over ``bench/compare/workload_agent.py``: 80 % of the
controller thread, ~40 ms a step at 100 messages, and it grows with the conversation).

The chat-completion parameters have no alias or format anywhere: :func:`install` checks
that against the installed SDK and changes nothing when it finds one. For a body of plain
JSON values the walk then returns the body without its omitted (``NotGiven``/``Omit``)
entries, which is what the fast path returns; a body holding anything else (a pydantic
model, a date, a file, a tuple) still goes through the SDK's own transform.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from types import ModuleType

import typing_extensions

logger = logging.getLogger(__name__)

_Transform = Callable[[object, object], object]
_AsyncTransform = Callable[[object, object], Awaitable[object]]
_MARK = "_openhands_plain_body_fast_path"


def is_plain_json(value: object) -> bool:
    """Whether ``value`` is made only of dicts with string keys, lists, strings, numbers,
    booleans and None (exact types: subclasses such as enums may need the SDK's walk)."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            for key, nested in item.items():  # type: ignore[attr-defined]
                if type(key) is not str:
                    return False
                pending.append(nested)
        elif kind is list:
            pending.extend(item)  # type: ignore[arg-type]
        elif kind not in (str, int, float, bool) and item is not None:
            return False
    return True


def needs_transform(expected_type: object, property_info: type) -> bool:
    """Whether any annotation reachable from ``expected_type`` carries a ``property_info``
    with an alias or a format, the only things the SDK's walk changes in plain JSON."""
    seen: set[int] = set()
    pending: list[object] = [expected_type]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if typing_extensions.get_origin(current) is typing_extensions.Annotated:
            inner, *metadata = typing_extensions.get_args(current)
            for meta in metadata:
                if isinstance(meta, property_info) and (
                    getattr(meta, "alias", None) or getattr(meta, "format", None)
                ):
                    return True
            pending.append(inner)
        elif typing_extensions.is_typeddict(current):
            hints = typing_extensions.get_type_hints(current, include_extras=True)
            pending.extend(hints.values())
        else:
            pending.extend(typing_extensions.get_args(current))
    return False


def plain_body(data: object, is_given: Callable[[object], bool]) -> dict[str, object] | None:
    """``data`` without its omitted entries when it is a plain JSON object, else None."""
    if type(data) is not dict:
        return None
    body = {key: value for key, value in data.items() if is_given(value)}  # type: ignore[attr-defined]
    return body if is_plain_json(body) else None


def install() -> bool:
    """Put the fast path in front of the SDK's transform for chat completions (once).

    Returns whether it is in place: False when the installed SDK's chat parameters need
    its walk (or the SDK's layout is not the one this was written against)."""
    try:
        from openai._utils import PropertyInfo, is_given
        from openai.resources.chat.completions import completions
        from openai.types.chat import completion_create_params
    except ImportError as error:
        logger.debug("OpenAI SDK layout not recognised (%s): chat bodies walked as usual", error)
        return False
    if getattr(completions, _MARK, False):
        return True
    params = (
        completion_create_params.CompletionCreateParamsStreaming,
        completion_create_params.CompletionCreateParamsNonStreaming,
    )
    if any(needs_transform(param, PropertyInfo) for param in params):
        logger.info("The OpenAI SDK's chat parameters have aliases: bodies walked as usual")
        return False
    _patch(completions, frozenset(params), is_given)
    return True


def _patch(
    completions: ModuleType, params: frozenset[object], is_given: Callable[[object], bool]
) -> None:
    original: _Transform = completions.maybe_transform
    original_async: _AsyncTransform = completions.async_maybe_transform

    def maybe_transform(data: object, expected_type: object) -> object:
        if expected_type in params:
            body = plain_body(data, is_given)
            if body is not None:
                return body
        return original(data, expected_type)

    async def async_maybe_transform(data: object, expected_type: object) -> object:
        if expected_type in params:
            body = plain_body(data, is_given)
            if body is not None:
                return body
        return await original_async(data, expected_type)

    completions.maybe_transform = maybe_transform  # type: ignore[attr-defined]
    completions.async_maybe_transform = async_maybe_transform  # type: ignore[attr-defined]
    setattr(completions, _MARK, True)


__all__ = ["install", "is_plain_json", "needs_transform", "plain_body"]
