"""Mock function calling: convert native tool-call messages to plain text and back.

For models without native tool calling, :func:`convert_fncall_messages_to_non_fncall_messages`
describes the tools in the system prompt and renders past calls and their results in the tag
grammar of :mod:`openhands.llm.fn_call_tags`. :func:`convert_non_fncall_messages_to_fncall_messages`
parses the model's text reply back into OpenAI-style ``tool_calls`` (ids ``toolu_01``,
``toolu_02``, ... counted over the whole list).

The reference's public names for the prompt pieces (``convert_tools_to_description``,
``get_example_for_tools``, the ``*_PATTERN`` strings, ...) are the objects of
:mod:`openhands.llm.fn_call_prompt` and :mod:`openhands.llm.fn_call_tags` under these names.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from openhands.core.exceptions import FunctionCallConversionError, FunctionCallValidationError
from openhands.llm.fn_call_prompt import (
    EXAMPLE_SUFFIX,
    SYSTEM_PROMPT_SUFFIX_TEMPLATE,
    TOOL_EXAMPLES,
    describe_functions,
    in_context_example,
    system_suffix,
)
from openhands.llm.fn_call_tags import (
    EXECUTION_RESULT_PATTERN,
    EXECUTION_RESULT_PREFIX,
    EXECUTION_RESULT_REGEX,
    FUNCTION_OPEN,
    FUNCTION_PATTERN,
    FUNCTION_REGEX,
    PARAMETER_PATTERN,
    PARAMETER_REGEX,
    STOP_WORD,
    normalize_malformed_parameters,
    render_function_call,
    repair_stop_word,
)
from openhands.utils.prompt import refine_prompt

Message = dict[str, Any]
Tool = dict[str, Any]

# The reference's names for the prompt pieces (the same objects, not copies).
convert_tools_to_description = describe_functions
get_example_for_tools = in_context_example
IN_CONTEXT_LEARNING_EXAMPLE_PREFIX = in_context_example
IN_CONTEXT_LEARNING_EXAMPLE_SUFFIX = EXAMPLE_SUFFIX
STOP_WORDS: list[str] = [STOP_WORD]
FN_REGEX_PATTERN = FUNCTION_PATTERN
FN_PARAM_REGEX_PATTERN = PARAMETER_PATTERN
TOOL_RESULT_REGEX_PATTERN = EXECUTION_RESULT_PATTERN
_fix_stopword = repair_stop_word
_normalize_parameter_tags = normalize_malformed_parameters


# --------------------------------------------------------------------------------------
# Content helpers (string content or a list of {"type": ...} items)
# --------------------------------------------------------------------------------------


def _text_indexes(content: list[dict[str, Any]]) -> list[int]:
    return [i for i, item in enumerate(content) if item.get("type") == "text"]


def _append_text(content: Any, addition: str) -> Any:
    """Append to a string, or to the last item if it is text, else add a text item."""
    if content is None:
        return addition
    if isinstance(content, str):
        return content + addition
    if content and content[-1].get("type") == "text":
        content[-1]["text"] += addition
    else:
        content.append({"type": "text", "text": addition})
    return content


def _append_to_last_text(content: Any, addition: str) -> Any:
    """Append to a string, or to the last text item wherever it is, else add a text item."""
    if content is None or isinstance(content, str):
        return (content or "") + addition
    indexes = _text_indexes(content)
    if indexes:
        content[indexes[-1]]["text"] += addition
    else:
        content.append({"type": "text", "text": addition})
    return content


def _tool_name(tool: Tool) -> str:
    return str(tool["function"]["name"])


# --------------------------------------------------------------------------------------
# Native → text (request side)
# --------------------------------------------------------------------------------------


def _wrap_first_user(content: Any, prefix: str, suffix: str) -> Any:
    if isinstance(content, str):
        return prefix + content + suffix
    indexes = _text_indexes(content)
    if indexes:
        item = content[indexes[0]]
        item["text"] = prefix + item["text"] + suffix
        return content
    return [{"type": "text", "text": prefix}, *content, {"type": "text", "text": suffix}]


def convert_tool_call_to_string(tool_call: dict[str, Any]) -> str:
    """Render one native tool call (``{id, type: "function", function: {name, arguments}}``)
    in the tag format; a malformed call raises FunctionCallConversionError."""
    for key in ("function", "id", "type"):
        if key not in tool_call:
            raise FunctionCallConversionError(f"Tool call must contain {key!r}: {tool_call}")
    if tool_call["type"] != "function":
        raise FunctionCallConversionError(
            f"Tool call type must be 'function', got {tool_call['type']!r}"
        )
    function = tool_call["function"]
    raw = function.get("arguments")
    try:
        arguments = json.loads(raw) if raw else {}
    except (json.JSONDecodeError, TypeError) as exc:
        raise FunctionCallConversionError(
            f"Could not parse the arguments of tool call {function.get('name')}: {raw}"
        ) from exc
    if not isinstance(arguments, dict):
        raise FunctionCallConversionError(
            f"The arguments of tool call {function.get('name')} are not a JSON object: {raw}"
        )
    return render_function_call(function["name"], arguments)


def _render_assistant_call(message: Message) -> Message:
    tool_calls = message.pop("tool_calls")
    if len(tool_calls) != 1:
        raise FunctionCallConversionError(
            f"Mock function calling allows exactly one tool call per assistant message, "
            f"got {len(tool_calls)}: {tool_calls}"
        )
    rendered = "\n\n" + convert_tool_call_to_string(tool_calls[0])
    content = message.get("content")
    if isinstance(content, list):
        content = _append_text(content, rendered)
        if content and content[-1].get("type") == "text":
            content[-1]["text"] = content[-1]["text"].lstrip()
    else:
        content = ((content or "") + rendered).lstrip()
    message["content"] = content
    return message


def _render_tool_result(message: Message) -> Message:
    prefix = EXECUTION_RESULT_PREFIX.format(name=message.get("name") or "function")
    content = message.get("content")
    cache_control = message.pop("cache_control", None)
    if not isinstance(content, list):
        text = prefix + (content or "")
        if cache_control is None:
            return {"role": "user", "content": text}
        content = [{"type": "text", "text": text}]
    else:
        indexes = _text_indexes(content)
        if indexes:
            content[indexes[0]]["text"] = prefix + content[indexes[0]]["text"]
        else:
            content.insert(0, {"type": "text", "text": prefix})
    if cache_control is not None:
        content[-1]["cache_control"] = cache_control
    return {"role": "user", "content": content}


def convert_fncall_messages_to_non_fncall_messages(
    messages: list[Message],
    tools: list[Tool],
    add_in_context_learning_example: bool = True,
) -> list[Message]:
    """Rewrite native tool-call messages as plain text the model can read (on a deep copy)."""
    messages = copy.deepcopy(messages)
    suffix = system_suffix(tools)
    example = in_context_example(tools) if add_in_context_learning_example else ""
    seen_user = False
    converted: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            message["content"] = _append_to_last_text(message.get("content"), suffix)
        elif role == "user":
            if not seen_user and example:
                message["content"] = _wrap_first_user(
                    message.get("content"), example, EXAMPLE_SUFFIX
                )
            seen_user = True
        elif role == "assistant":
            if message.get("tool_calls"):
                message = _render_assistant_call(message)
            else:
                message.pop("tool_calls", None)
        elif role == "tool":
            message = _render_tool_result(message)
        else:
            raise FunctionCallConversionError(f"Unexpected role {role!r} in messages")
        converted.append(message)
    return converted


# --------------------------------------------------------------------------------------
# Text → native (response side)
# --------------------------------------------------------------------------------------


def _strip_suffix(content: Any, suffix: str) -> Any:
    if isinstance(content, str):
        return content.removesuffix(suffix)
    indexes = _text_indexes(content or [])
    if indexes:
        item = content[indexes[-1]]
        item["text"] = item["text"].removesuffix(suffix)
    return content


def _unwrap_first_user(content: Any, prefix: str, suffix: str) -> Any:
    if isinstance(content, str):
        return content.removeprefix(prefix).removesuffix(suffix)
    indexes = _text_indexes(content)
    if (
        len(indexes) >= 2
        and content[indexes[0]]["text"] == prefix
        and (content[indexes[-1]]["text"] == suffix)
    ):
        return [item for i, item in enumerate(content) if i not in (indexes[0], indexes[-1])]
    if indexes:
        item = content[indexes[0]]
        item["text"] = item["text"].removeprefix(prefix).removesuffix(suffix)
    return content


def _coerce_parameter(function: str, name: str, value: str, spec: dict[str, Any]) -> Any:
    param_type = spec.get("type")
    if param_type == "integer":
        try:
            return int(value)
        except ValueError as exc:
            raise FunctionCallValidationError(
                f"Parameter '{name}' of function '{function}' must be an integer, got: {value!r}"
            ) from exc
    if param_type == "array":
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise FunctionCallValidationError(
                f"Parameter '{name}' of function '{function}' must be a JSON array, got: {value!r}"
            ) from exc
    return value


def _parse_call(function: str, body: str, tools: list[Tool]) -> dict[str, Any]:
    tool = next((t for t in tools if _tool_name(t) == function), None)
    if tool is None:
        available = [_tool_name(t) for t in tools]
        raise FunctionCallValidationError(
            f"Function '{function}' is not among the available tools: {available}"
        )
    schema = tool["function"].get("parameters") or {}
    properties: dict[str, Any] = schema.get("properties", {}) or {}
    required = set(schema.get("required", []) or [])
    params: dict[str, Any] = {}
    for match in PARAMETER_REGEX.finditer(body):
        name, raw = match.group(1), match.group(2)
        if name not in properties:
            raise FunctionCallValidationError(
                f"Parameter '{name}' is not allowed for function '{function}'. "
                f"Allowed parameters: {set(properties)}"
            )
        value = _coerce_parameter(function, name, raw, properties[name])
        allowed = properties[name].get("enum")
        if allowed is not None and value not in allowed:
            raise FunctionCallValidationError(
                f"Parameter '{name}' of function '{function}' has value {value!r}, "
                f"which is not one of the allowed values: {allowed}"
            )
        params[name] = value
    missing = required - set(params)
    if missing:
        raise FunctionCallValidationError(
            f"Missing required parameters for function '{function}': {sorted(missing)}"
        )
    return params


def _call_text(content: Any) -> tuple[str | None, int | None]:
    """The text that may hold a call: the string, or the last text item (returned with its index).

    A call in an earlier text item cannot be mapped back and is an error.
    """
    if isinstance(content, str):
        return content, None
    indexes = _text_indexes(content or [])
    if not indexes:
        return None, None
    for i in indexes[:-1]:
        if FUNCTION_REGEX.search(content[i]["text"]):
            raise FunctionCallConversionError(
                "A function call was found in a text item other than the last one of the "
                "assistant message."
            )
    return content[indexes[-1]]["text"], indexes[-1]


def _convert_assistant(message: Message, tools: list[Tool], call_id: str) -> Message | None:
    """Parse a text call into ``tool_calls``; None if the message holds no call."""
    content = message.get("content")
    text, index = _call_text(content)
    if text is None:
        return None
    text = normalize_malformed_parameters(repair_stop_word(text))
    match = FUNCTION_REGEX.search(text)
    if match is None:
        return None
    function, body = match.group(1), match.group(2)
    params = _parse_call(function, body, tools)
    before = text.split(FUNCTION_OPEN, 1)[0].strip()
    if index is None:
        new_content: Any = before
    else:
        new_content = copy.deepcopy(content)
        new_content[index]["text"] = before
    converted = dict(message)
    converted["content"] = new_content
    converted["tool_calls"] = [
        {
            "index": 1,
            "id": call_id,
            "type": "function",
            "function": {"name": function, "arguments": json.dumps(params)},
        }
    ]
    return converted


def _convert_execution_result(message: Message, call_id: str | None) -> Message | None:
    """A user message carrying an ``EXECUTION RESULT of [name]:`` block → a tool message.

    The block may sit anywhere in the text (or in the first text item of a list that has
    one); the tool message gets the stripped result, as a string or as one text item.
    """
    content = message.get("content")
    if isinstance(content, str):
        match = EXECUTION_RESULT_REGEX.search(content)
        if match is None:
            return None
        new_content: Any = match.group(2).strip()
    else:
        match = None
        for item in content or []:
            if item.get("type") == "text":
                match = EXECUTION_RESULT_REGEX.search(item.get("text", ""))
                if match is not None:
                    break
        if match is None:
            return None
        new_content = [{"type": "text", "text": match.group(2).strip()}]
    return {
        "role": "tool",
        "name": match.group(1),
        "content": new_content,
        "tool_call_id": call_id,
    }


def convert_non_fncall_messages_to_fncall_messages(
    messages: list[Message], tools: list[Tool]
) -> list[Message]:
    """Turn text function calls and ``EXECUTION RESULT`` messages back into native form."""
    messages = copy.deepcopy(messages)
    suffix = system_suffix(tools)
    example = in_context_example(tools)
    counter = 1
    last_call_id: str | None = None
    seen_user = False
    converted: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            message["content"] = _strip_suffix(message.get("content"), suffix)
        elif role == "user":
            if not seen_user and example:
                message["content"] = _unwrap_first_user(
                    message.get("content"), example, EXAMPLE_SUFFIX
                )
            seen_user = True
            result = _convert_execution_result(message, last_call_id)
            if result is not None:
                message = result
        elif role == "assistant":
            call_id = f"toolu_{counter:02d}"
            parsed = _convert_assistant(message, tools, call_id)
            if parsed is not None:
                message = parsed
                last_call_id = call_id
                counter += 1
        converted.append(message)
    return converted


# --------------------------------------------------------------------------------------
# Several calls per assistant message → one call per message
# --------------------------------------------------------------------------------------


def convert_from_multiple_tool_calls_to_single_tool_call_messages(
    messages: list[Message], ignore_final_tool_result: bool = False
) -> list[Message]:
    """Split assistant messages that carry several tool calls into one message per call.

    Each call is placed right before its tool result, so the list reads call, result, call,
    result. The original content stays with the first call (later ones get ``""``). Calls
    still waiting for a result when a user, system or unrelated tool message arrives, or at
    the end of the list (unless ``ignore_final_tool_result``, which drops them), raise
    FunctionCallConversionError. Messages with at most one call are kept as they are.
    """
    converted: list[Message] = []
    pending: dict[str, Message] = {}
    for message in messages:
        role = message.get("role")
        tool_calls = message.get("tool_calls") or []
        if role == "assistant" and len(tool_calls) > 1:
            for i, call in enumerate(tool_calls):
                pending[call["id"]] = {
                    "role": "assistant",
                    "content": message.get("content") if i == 0 else "",
                    "tool_calls": [call],
                }
            continue
        if role == "tool" and message.get("tool_call_id") in pending:
            converted.append(pending.pop(message["tool_call_id"]))
        elif pending and role != "assistant":
            raise FunctionCallConversionError(
                f"Tool calls {sorted(pending)} have no result before a {role!r} message"
            )
        converted.append(message)
    if pending and not ignore_final_tool_result:
        raise FunctionCallConversionError(f"Tool calls {sorted(pending)} have no result")
    return converted


__all__ = [
    "FN_PARAM_REGEX_PATTERN",
    "FN_REGEX_PATTERN",
    "IN_CONTEXT_LEARNING_EXAMPLE_PREFIX",
    "IN_CONTEXT_LEARNING_EXAMPLE_SUFFIX",
    "STOP_WORDS",
    "SYSTEM_PROMPT_SUFFIX_TEMPLATE",
    "TOOL_EXAMPLES",
    "TOOL_RESULT_REGEX_PATTERN",
    "FunctionCallConversionError",
    "FunctionCallValidationError",
    "convert_fncall_messages_to_non_fncall_messages",
    "convert_from_multiple_tool_calls_to_single_tool_call_messages",
    "convert_non_fncall_messages_to_fncall_messages",
    "convert_tool_call_to_string",
    "convert_tools_to_description",
    "get_example_for_tools",
    "refine_prompt",
]
