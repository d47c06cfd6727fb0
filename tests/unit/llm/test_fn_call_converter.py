"""Mock function calling conversions (agent spec §3), without the network."""

from __future__ import annotations

import json

import pytest

from openhands.core.exceptions import FunctionCallConversionError, FunctionCallValidationError
from openhands.llm.fn_call_converter import (
    convert_fncall_messages_to_non_fncall_messages,
    convert_non_fncall_messages_to_fncall_messages,
)
from openhands.llm.fn_call_prompt import (
    EXAMPLE_SUFFIX,
    describe_function,
    in_context_example,
    system_suffix,
)
from openhands.llm.fn_call_tags import render_function_call, repair_stop_word
from tests.unit.llm.tools import (
    BROWSER,
    DEFAULT_TOOLS,
    EXECUTE_BASH,
    FINISH,
    NO_PARAMETERS,
    STR_REPLACE_EDITOR,
    TASK_TRACKER,
    THINK,
)


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _assistant_text(text: str) -> dict:
    return {"role": "assistant", "content": text}


def _to_native(text: str, tools: list | None = None) -> dict:
    return convert_non_fncall_messages_to_fncall_messages(
        [_assistant_text(text)], tools or DEFAULT_TOOLS
    )[-1]


# --- function list ----------------------------------------------------------------------


def test_function_block_has_the_exact_layout() -> None:
    assert describe_function(2, TASK_TRACKER) == (
        "---- BEGIN FUNCTION #2: task_tracker ----\n"
        "Description: View or replace the task list.\n"
        "Parameters:\n"
        "  (1) command (string, required): What to do.\n"
        "Allowed values: [`view`, `plan`]\n"
        "  (2) task_list (array, optional): The full list.\n"
        "---- END FUNCTION #2 ----"
    )


def test_missing_type_and_description_get_defaults() -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "f",
            "description": "d",
            "parameters": {"type": "object", "properties": {"x": {}}, "required": []},
        },
    }
    assert "  (1) x (string, optional): No description provided" in describe_function(1, tool)


def test_function_without_parameters_says_so() -> None:
    block = describe_function(1, NO_PARAMETERS)
    assert "No parameters are required for this function." in block
    assert "Parameters:" not in block


def test_system_suffix_lists_functions_separated_by_blank_lines() -> None:
    suffix = system_suffix([THINK, FINISH])
    assert "---- END FUNCTION #1 ----\n\n---- BEGIN FUNCTION #2: finish ----" in suffix
    assert "<function=" in suffix and "</function>" in suffix
    assert "IMPORTANT" in suffix


# --- request side -----------------------------------------------------------------------


def test_system_string_gets_the_suffix() -> None:
    out = convert_fncall_messages_to_non_fncall_messages(
        [{"role": "system", "content": "You are helpful."}], [THINK], False
    )
    assert out[0]["content"] == "You are helpful." + system_suffix([THINK])


def test_system_list_suffix_goes_to_last_text_item_or_a_new_one() -> None:
    cached = {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}}
    msgs = [{"role": "system", "content": [{"type": "text", "text": "a"}, cached]}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, [THINK], False)
    assert out[0]["content"][1]["text"] == "b" + system_suffix([THINK])
    assert out[0]["content"][1]["cache_control"] == {"type": "ephemeral"}

    msgs = [{"role": "system", "content": []}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, [THINK], False)
    assert out[0]["content"] == [{"type": "text", "text": system_suffix([THINK])}]


def test_input_messages_are_not_modified() -> None:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    snapshot = json.dumps(msgs)
    convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert json.dumps(msgs) == snapshot


def test_only_the_first_user_message_gets_the_example() -> None:
    msgs = [
        {"role": "user", "content": "task"},
        {"role": "user", "content": "more"},
    ]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    example = in_context_example(DEFAULT_TOOLS)
    assert out[0]["content"] == example + "task" + EXAMPLE_SUFFIX
    assert out[1]["content"] == "more"


def test_example_can_be_disabled() -> None:
    msgs = [{"role": "user", "content": "task"}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS, False)
    assert out[0]["content"] == "task"


def test_first_user_list_wraps_first_text_item() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:x"}}
    msgs = [{"role": "user", "content": [image, {"type": "text", "text": "t"}]}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    example = in_context_example(DEFAULT_TOOLS)
    assert out[0]["content"] == [image, {"type": "text", "text": example + "t" + EXAMPLE_SUFFIX}]


def test_first_user_list_without_text_gets_items_before_and_after() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:x"}}
    msgs = [{"role": "user", "content": [image]}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    example = in_context_example(DEFAULT_TOOLS)
    assert out[0]["content"] == [
        {"type": "text", "text": example},
        image,
        {"type": "text", "text": EXAMPLE_SUFFIX},
    ]


def test_example_only_uses_tools_that_are_offered() -> None:
    assert in_context_example([THINK]) == ""
    only_finish = in_context_example([FINISH])
    assert "<function=finish>" in only_finish
    assert "<function=execute_bash>" not in only_finish
    full = in_context_example(DEFAULT_TOOLS)
    for name in ("execute_bash", "str_replace_editor", "browser", "finish"):
        assert f"<function={name}>" in full
    no_browser = in_context_example([EXECUTE_BASH, STR_REPLACE_EDITOR, FINISH])
    assert "<function=browser>" not in no_browser
    assert "START OF EXAMPLE" in full and "NEW TASK DESCRIPTION" in full


def test_example_steps_follow_the_prescribed_order() -> None:
    example = in_context_example(DEFAULT_TOOLS)
    markers = [
        "ls -la /workspace",
        "<parameter=command>create</parameter>",
        "ModuleNotFoundError",
        "pip3 install",
        "<function=browser>",
        "kill 4250",
        "<parameter=command>str_replace</parameter>",
        "curl -s",
        "<function=finish>",
    ]
    positions = [example.index(m) for m in markers]
    assert positions == sorted(positions)


def test_example_calls_validate_against_their_tools() -> None:
    """A model imitating the example must produce calls that pass validation."""
    example = in_context_example(DEFAULT_TOOLS)
    turns = example.split("ASSISTANT: ")[1:]
    assert len(turns) >= 8
    for turn in turns:
        call_text = turn.split("\nUSER: ")[0]
        converted = _to_native(call_text)
        assert converted.get("tool_calls"), call_text


def test_assistant_call_is_rendered_in_tags() -> None:
    args = {"command": "ls", "security_risk": "LOW"}
    msgs = [
        {
            "role": "assistant",
            "content": "Listing.",
            "tool_calls": [_call("c1", "execute_bash", args)],
        }
    ]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert out[0] == {
        "role": "assistant",
        "content": "Listing.\n\n<function=execute_bash>\n<parameter=command>ls</parameter>\n"
        "<parameter=security_risk>LOW</parameter>\n</function>",
    }


def test_assistant_call_without_content_is_left_stripped() -> None:
    msgs = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("c", "think", {"thought": "x"})],
        }
    ]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert out[0]["content"].startswith("<function=think>")


def test_assistant_list_content_with_trailing_image_gets_new_text_item() -> None:
    image = {"type": "image_url", "image_url": {"url": "u"}}
    msgs = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, image],
            "tool_calls": [_call("c", "think", {"thought": "x"})],
        }
    ]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    content = out[0]["content"]
    assert content[:2] == [{"type": "text", "text": "a"}, image]
    assert content[2]["text"].startswith("<function=think>")


def test_rendering_of_values() -> None:
    rendered = render_function_call(
        "f", {"multi": "a\nb", "n": 3, "flag": True, "lst": [1, 2], "obj": {"k": "v"}}
    )
    assert rendered == (
        "<function=f>\n"
        "<parameter=multi>\na\nb\n</parameter>\n"
        "<parameter=n>3</parameter>\n"
        "<parameter=flag>True</parameter>\n"
        "<parameter=lst>[1, 2]</parameter>\n"
        '<parameter=obj>{"k": "v"}</parameter>\n'
        "</function>"
    )


def test_more_than_one_call_is_a_conversion_error() -> None:
    calls = [_call("a", "think", {"thought": "1"}), _call("b", "think", {"thought": "2"})]
    with pytest.raises(FunctionCallConversionError):
        convert_fncall_messages_to_non_fncall_messages(
            [{"role": "assistant", "content": "", "tool_calls": calls}], DEFAULT_TOOLS
        )


def test_unparsable_arguments_are_a_conversion_error() -> None:
    call = {"id": "a", "type": "function", "function": {"name": "think", "arguments": "{oops"}}
    with pytest.raises(FunctionCallConversionError):
        convert_fncall_messages_to_non_fncall_messages(
            [{"role": "assistant", "content": "", "tool_calls": [call]}], DEFAULT_TOOLS
        )


def test_unknown_role_is_a_conversion_error() -> None:
    with pytest.raises(FunctionCallConversionError):
        convert_fncall_messages_to_non_fncall_messages(
            [{"role": "developer", "content": "x"}], DEFAULT_TOOLS
        )


def test_tool_message_becomes_user_execution_result() -> None:
    msgs = [{"role": "tool", "content": "out", "tool_call_id": "c", "name": "execute_bash"}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert out == [{"role": "user", "content": "EXECUTION RESULT of [execute_bash]:\nout"}]


def test_tool_message_without_name_uses_function() -> None:
    msgs = [{"role": "tool", "content": [{"type": "text", "text": "out"}], "tool_call_id": "c"}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert out[0]["content"] == [{"type": "text", "text": "EXECUTION RESULT of [function]:\nout"}]


def test_tool_cache_control_moves_to_last_item() -> None:
    image = {"type": "image_url", "image_url": {"url": "u"}}
    msgs = [
        {
            "role": "tool",
            "content": [{"type": "text", "text": "out"}, image],
            "cache_control": {"type": "ephemeral"},
            "tool_call_id": "c",
            "name": "browser",
        }
    ]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert "cache_control" not in out[0]
    assert out[0]["content"][-1] == {**image, "cache_control": {"type": "ephemeral"}}
    assert out[0]["content"][0]["text"] == "EXECUTION RESULT of [browser]:\nout"

    msgs = [{"role": "tool", "content": "o", "cache_control": {"type": "ephemeral"}, "name": "x"}]
    out = convert_fncall_messages_to_non_fncall_messages(msgs, DEFAULT_TOOLS)
    assert out[0]["content"] == [
        {
            "type": "text",
            "text": "EXECUTION RESULT of [x]:\no",
            "cache_control": {"type": "ephemeral"},
        }
    ]


# --- response side ----------------------------------------------------------------------


def test_text_call_becomes_a_native_tool_call() -> None:
    text = "Let me look.\n<function=execute_bash>\n<parameter=command>ls -l</parameter>\n<parameter=security_risk>LOW</parameter>\n</function>"
    out = _to_native(text)
    assert out["content"] == "Let me look."
    assert out["tool_calls"] == [
        {
            "index": 1,
            "id": "toolu_01",
            "type": "function",
            "function": {
                "name": "execute_bash",
                "arguments": json.dumps({"command": "ls -l", "security_risk": "LOW"}),
            },
        }
    ]


@pytest.mark.parametrize(
    ("cut", "expected"),
    [
        ("<function=think>\n<parameter=thought>hi</parameter>\n</", "...</function>"),
        ("<function=think>\n<parameter=thought>hi</parameter>", "...\n</function>"),
    ],
)
def test_stop_word_is_repaired(cut: str, expected: str) -> None:
    repaired = repair_stop_word(cut)
    assert repaired.endswith(expected.removeprefix("..."))
    out = _to_native(cut)
    assert json.loads(out["tool_calls"][0]["function"]["arguments"]) == {"thought": "hi"}


def test_stop_word_is_not_repaired_with_two_calls() -> None:
    text = "<function=a>\n<function=b>\n"
    assert repair_stop_word(text) == text


def test_malformed_parameter_tag_is_normalised() -> None:
    out = _to_native("<function=think>\n<parameter=thought=deep idea</parameter>\n</function>")
    assert json.loads(out["tool_calls"][0]["function"]["arguments"]) == {"thought": "deep idea"}


def test_values_are_not_trimmed() -> None:
    text = "<function=think>\n<parameter=thought>\n  spaced \n</parameter>\n</function>"
    args = json.loads(_to_native(text)["tool_calls"][0]["function"]["arguments"])
    assert args == {"thought": "\n  spaced \n"}


def test_newline_after_function_tag_is_required() -> None:
    text = "<function=think><parameter=thought>x</parameter></function>"
    out = _to_native(text)
    assert "tool_calls" not in out
    assert out["content"] == text


def test_plain_text_is_kept() -> None:
    assert _to_native("Just an answer.") == {"role": "assistant", "content": "Just an answer."}


def test_integer_and_array_parameters_are_converted() -> None:
    text = (
        "<function=str_replace_editor>\n<parameter=command>insert</parameter>\n"
        "<parameter=path>/a</parameter>\n<parameter=insert_line>7</parameter>\n"
        "<parameter=view_range>[1, 5]</parameter>\n<parameter=security_risk>LOW</parameter>\n"
        "</function>"
    )
    args = json.loads(_to_native(text)["tool_calls"][0]["function"]["arguments"])
    assert args["insert_line"] == 7
    assert args["view_range"] == [1, 5]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("<function=nope>\n</function>", "nope"),
        (
            "<function=think>\n<parameter=mood>x</parameter>\n<parameter=thought>t</parameter>\n</function>",
            "mood",
        ),
        (
            "<function=str_replace_editor>\n<parameter=command>insert</parameter>\n<parameter=path>/a</parameter>\n<parameter=insert_line>seven</parameter>\n<parameter=security_risk>LOW</parameter>\n</function>",
            "integer",
        ),
        (
            "<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/a</parameter>\n<parameter=view_range>[1,</parameter>\n<parameter=security_risk>LOW</parameter>\n</function>",
            "array",
        ),
        ("<function=task_tracker>\n<parameter=command>delete</parameter>\n</function>", "allowed"),
        (
            "<function=execute_bash>\n<parameter=command>ls</parameter>\n</function>",
            "security_risk",
        ),
    ],
    ids=[
        "unknown-function",
        "unknown-parameter",
        "bad-integer",
        "bad-array",
        "enum",
        "missing-required",
    ],
)
def test_validation_errors(text: str, fragment: str) -> None:
    with pytest.raises(FunctionCallValidationError) as info:
        _to_native(text)
    assert fragment in str(info.value)


def test_call_in_an_earlier_text_item_is_a_conversion_error() -> None:
    content = [
        {"type": "text", "text": "<function=think>\n<parameter=thought>x</parameter>\n</function>"},
        {"type": "text", "text": "trailing"},
    ]
    with pytest.raises(FunctionCallConversionError):
        convert_non_fncall_messages_to_fncall_messages(
            [{"role": "assistant", "content": content}], DEFAULT_TOOLS
        )


def test_call_in_last_text_item_of_a_list() -> None:
    content = [
        {"type": "text", "text": "intro"},
        {
            "type": "text",
            "text": "ok\n<function=think>\n<parameter=thought>x</parameter>\n</function>",
        },
    ]
    out = convert_non_fncall_messages_to_fncall_messages(
        [{"role": "assistant", "content": content}], DEFAULT_TOOLS
    )[0]
    assert out["content"] == [{"type": "text", "text": "intro"}, {"type": "text", "text": "ok"}]
    assert out["tool_calls"][0]["function"]["name"] == "think"


def test_ids_count_calls_over_the_whole_list() -> None:
    call = "<function=think>\n<parameter=thought>{}</parameter>\n</function>"
    msgs = [
        {"role": "user", "content": "go"},
        _assistant_text(call.format("a")),
        {"role": "user", "content": "EXECUTION RESULT of [think]:\nlogged"},
        _assistant_text("no call here"),
        _assistant_text(call.format("b")),
    ]
    out = convert_non_fncall_messages_to_fncall_messages(msgs, DEFAULT_TOOLS)
    assert out[1]["tool_calls"][0]["id"] == "toolu_01"
    assert out[2] == {
        "role": "tool",
        "name": "think",
        "content": "logged",
        "tool_call_id": "toolu_01",
    }
    assert "tool_calls" not in out[3]
    assert out[4]["tool_calls"][0]["id"] == "toolu_02"


def test_round_trip_gives_the_same_messages() -> None:
    tools = [EXECUTE_BASH, STR_REPLACE_EDITOR, BROWSER, FINISH, THINK]
    original = [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "Fix the bug."},
        {
            "role": "assistant",
            "content": "Looking around.",
            "tool_calls": [
                {
                    "index": 1,
                    "id": "toolu_01",
                    "type": "function",
                    "function": {
                        "name": "execute_bash",
                        "arguments": json.dumps({"command": "ls", "security_risk": "LOW"}),
                    },
                }
            ],
        },
        {"role": "tool", "name": "execute_bash", "content": "a.py", "tool_call_id": "toolu_01"},
        {
            "role": "assistant",
            "content": "Viewing.",
            "tool_calls": [
                {
                    "index": 1,
                    "id": "toolu_02",
                    "type": "function",
                    "function": {
                        "name": "str_replace_editor",
                        "arguments": json.dumps(
                            {
                                "command": "view",
                                "path": "/a.py",
                                "view_range": [1, 3],
                                "security_risk": "LOW",
                            }
                        ),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "name": "str_replace_editor",
            "content": "x = 1",
            "tool_call_id": "toolu_02",
        },
        {"role": "assistant", "content": "Done."},
    ]
    plain = convert_fncall_messages_to_non_fncall_messages(original, tools)
    assert all("tool_calls" not in m for m in plain)
    assert all(m["role"] != "tool" for m in plain)
    back = convert_non_fncall_messages_to_fncall_messages(plain, tools)
    assert back == original
