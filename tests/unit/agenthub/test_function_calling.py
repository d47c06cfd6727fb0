"""CodeActAgent's tool call → Action mapping and its validation errors (spec §2.3, §2.4)."""

from __future__ import annotations

from typing import Any

import pytest

from openhands.agenthub.codeact_agent.function_calling import response_to_actions
from openhands.core.exceptions import FunctionCallNotExistsError, FunctionCallValidationError
from openhands.events.action import (
    ActionSecurityRisk,
    AgentDelegateAction,
    AgentFinishAction,
    AgentThinkAction,
    BrowseInteractiveAction,
    CmdRunAction,
    CondensationRequestAction,
    FileEditAction,
    FileReadAction,
    IPythonRunCellAction,
    MCPAction,
    MessageAction,
    TaskTrackingAction,
)
from openhands.events.event import FileEditSource, FileReadSource
from tests.unit.agenthub.responses import model_response


def _one(name: str, args: dict[str, Any] | str, **kwargs: Any) -> Any:
    actions = response_to_actions(model_response((name, args)), **kwargs)
    assert len(actions) == 1
    return actions[0]


# --- mapping -------------------------------------------------------------------------------


def test_execute_bash() -> None:
    action = _one("execute_bash", {"command": "ls -la", "security_risk": "MEDIUM"})
    assert isinstance(action, CmdRunAction)
    assert (action.command, action.is_input, action.blocking) == ("ls -la", False, False)
    assert action.timeout is None
    assert action.security_risk == ActionSecurityRisk.MEDIUM


def test_execute_bash_is_input_only_for_the_string_true() -> None:
    assert _one("execute_bash", {"command": "y", "is_input": "true"}).is_input is True
    assert _one("execute_bash", {"command": "y", "is_input": True}).is_input is False
    assert _one("execute_bash", {"command": "y", "is_input": "false"}).is_input is False


def test_execute_bash_timeout_makes_it_blocking() -> None:
    action = _one("execute_bash", {"command": "make", "timeout": "90"})
    assert action.timeout == 90.0
    assert action.blocking is True


def test_execute_ipython_and_browser() -> None:
    cell = _one("execute_ipython_cell", {"code": "print(1)", "security_risk": "LOW"})
    assert isinstance(cell, IPythonRunCellAction)
    assert (cell.code, cell.security_risk) == ("print(1)", ActionSecurityRisk.LOW)
    browse = _one("browser", {"code": "goto('http://x')", "security_risk": "HIGH"})
    assert isinstance(browse, BrowseInteractiveAction)
    assert browse.browser_actions == "goto('http://x')"
    assert browse.security_risk == ActionSecurityRisk.HIGH


def test_finish_think_condensation_and_legacy_delegate() -> None:
    finish = _one("finish", {"message": "Done."})
    assert isinstance(finish, AgentFinishAction)
    assert (finish.final_thought, finish.outputs) == ("Done.", {})
    assert _one("finish", {}).final_thought == ""
    think = _one("think", {"thought": "Maybe a race."})
    assert isinstance(think, AgentThinkAction) and think.thought == "Maybe a race."
    assert isinstance(_one("request_condensation", {}), CondensationRequestAction)
    delegate = _one("delegate_to_browsing_agent", {"task": "find x"})
    assert isinstance(delegate, AgentDelegateAction)
    assert (delegate.agent, delegate.inputs) == ("BrowsingAgent", {"task": "find x"})


def test_editor_view_is_a_file_read() -> None:
    action = _one(
        "str_replace_editor",
        {"command": "view", "path": "/w/a.py", "view_range": [1, 20], "bogus": 1},
    )
    assert isinstance(action, FileReadAction)
    assert (action.path, action.view_range) == ("/w/a.py", [1, 20])
    assert action.impl_source == FileReadSource.OH_ACI


def test_editor_commands_are_file_edits() -> None:
    action = _one(
        "str_replace_editor",
        {
            "command": "str_replace",
            "path": "/w/a.py",
            "old_str": "a",
            "new_str": "b",
            "view_range": [1, 2],
            "security_risk": "LOW",
        },
    )
    assert isinstance(action, FileEditAction)
    assert (action.command, action.old_str, action.new_str) == ("str_replace", "a", "b")
    assert action.impl_source == FileEditSource.OH_ACI
    assert action.security_risk == ActionSecurityRisk.LOW
    # The command is not checked against the enum.
    assert _one("str_replace_editor", {"command": "write", "path": "/a"}).command == "write"


def test_editor_rejects_unknown_arguments() -> None:
    with pytest.raises(FunctionCallValidationError) as error:
        _one("str_replace_editor", {"command": "create", "path": "/a", "content": "x"})
    assert str(error.value).startswith(
        "Unexpected argument content in tool call str_replace_editor. Allowed arguments are: {"
    )
    assert "'file_text'" in str(error.value)


def test_llm_editor() -> None:
    action = _one("edit_file", {"path": "/a.py", "content": "x = 1", "security_risk": "HIGH"})
    assert isinstance(action, FileEditAction)
    assert (action.start, action.end) == (1, -1)
    assert action.impl_source == FileEditSource.LLM_BASED_EDIT
    assert action.security_risk == ActionSecurityRisk.UNKNOWN  # not set for edit_file
    ranged = _one("edit_file", {"path": "/a.py", "content": "y", "start": 3, "end": 9})
    assert (ranged.start, ranged.end) == (3, 9)


def test_task_tracker_normalises_tasks() -> None:
    action = _one(
        "task_tracker",
        {
            "command": "plan",
            "task_list": [
                {"title": "Write tests"},
                {"id": "x", "title": "", "status": "done", "notes": "n", "extra": 1},
            ],
        },
    )
    assert isinstance(action, TaskTrackingAction)
    assert action.command == "plan"
    assert action.task_list == [
        {"id": "task-1", "title": "Write tests", "status": "todo", "notes": ""},
        {"id": "x", "title": "", "status": "done", "notes": "n"},
    ]
    assert _one("task_tracker", {"command": "view"}).task_list == []


def test_mcp_tools_after_builtins() -> None:
    action = _one("fetch", {"url": "http://x"}, mcp_tool_names=["fetch"])
    assert isinstance(action, MCPAction)
    assert (action.name, action.arguments) == ("fetch", {"url": "http://x"})
    # A built-in name shadows an MCP tool of the same name.
    assert isinstance(_one("think", {"thought": "t"}, mcp_tool_names=["think"]), AgentThinkAction)


def test_dispatch_ignores_whether_the_tool_is_enabled() -> None:
    # No agent config is consulted: browser maps even if browsing is off for the agent.
    assert isinstance(_one("browser", {"code": "go_back()"}), BrowseInteractiveAction)


# --- security risk ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["high", "CRITICAL", 2, None])
def test_invalid_security_risk_keeps_unknown(value: Any) -> None:
    action = _one("execute_bash", {"command": "x", "security_risk": value})
    assert action.security_risk == ActionSecurityRisk.UNKNOWN


def test_missing_security_risk_is_not_an_error() -> None:
    assert _one("execute_bash", {"command": "x"}).security_risk == ActionSecurityRisk.UNKNOWN


# --- validation errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("execute_bash", {}, 'Missing required argument "command" in tool call execute_bash'),
        (
            "execute_bash",
            {"command": "x", "timeout": "soon"},
            "Invalid float passed to 'timeout' argument: soon",
        ),
        ("execute_ipython_cell", {}, 'Missing required argument "code"'),
        ("browser", {"security_risk": "LOW"}, 'Missing required argument "code"'),
        ("edit_file", {"path": "/a"}, 'Missing required argument "content"'),
        ("edit_file", {"content": "x"}, 'Missing required argument "path"'),
        ("str_replace_editor", {"path": "/a"}, 'Missing required argument "command"'),
        ("str_replace_editor", {"command": "view"}, 'Missing required argument "path"'),
        ("task_tracker", {}, 'Missing required argument "command"'),
        ("task_tracker", {"command": "plan"}, 'Missing required argument "task_list"'),
        (
            "task_tracker",
            {"command": "plan", "task_list": "1. a"},
            'Invalid format for "task_list". Expected a list',
        ),
        (
            "task_tracker",
            {"command": "plan", "task_list": ["a"]},
            "Unexpected task format in task_list",
        ),
    ],
)
def test_validation_errors(name: str, args: dict[str, Any], message: str) -> None:
    with pytest.raises(FunctionCallValidationError) as error:
        _one(name, args)
    assert str(error.value).startswith(message)


def test_unparseable_arguments() -> None:
    with pytest.raises(FunctionCallValidationError) as error:
        _one("execute_bash", '{"command": "ls"')
    assert str(error.value) == 'Failed to parse tool call arguments: {"command": "ls"'


def test_unknown_tool() -> None:
    with pytest.raises(FunctionCallNotExistsError) as error:
        _one("web_read", {"url": "http://x"})
    assert str(error.value) == (
        "Tool web_read is not registered. (arguments: {'url': 'http://x'}). "
        "Please check the tool name and retry with an existing tool."
    )


# --- thought, metadata, several calls ----------------------------------------------------------


def test_several_calls_share_the_response_and_the_first_gets_the_thought() -> None:
    response = model_response(
        ("think", {"thought": "plan"}),
        ("execute_bash", {"command": "ls"}),
        ("request_condensation", {}),
        content="I will look around.",
        response_id="resp-42",
    )
    actions = response_to_actions(response)
    assert [type(a) for a in actions] == [
        AgentThinkAction,
        CmdRunAction,
        CondensationRequestAction,
    ]
    assert actions[0].thought == "I will look around.\nplan"
    assert actions[1].thought == ""
    for index, action in enumerate(actions):
        metadata = action.tool_call_metadata
        assert metadata is not None
        assert metadata.tool_call_id == f"call_{index}"
        assert metadata.total_calls_in_response == 3
        assert metadata.model_response["id"] == "resp-42"
        assert action.response_id == "resp-42"
    assert actions[1].tool_call_metadata.function_name == "execute_bash"


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_list_content_text_parts_are_joined() -> None:
    response = model_response(("execute_bash", {"command": "ls"}))
    response.choices[0].message.content = [  # type: ignore[union-attr]
        {"type": "text", "text": "Part one. "},
        {"type": "image_url", "image_url": {"url": "http://x"}},
        {"type": "text", "text": "Part two."},
    ]
    action = response_to_actions(response)[0]
    assert action.thought == "Part one. Part two."


def test_thought_is_lost_on_actions_without_a_thought_field() -> None:
    actions = response_to_actions(model_response(("request_condensation", {}), content="hmm"))
    assert isinstance(actions[0], CondensationRequestAction)
    assert not hasattr(actions[0], "thought")


def test_no_tool_calls_is_a_message_waiting_for_the_user() -> None:
    (action,) = response_to_actions(model_response(content="Which file?", response_id="r7"))
    assert isinstance(action, MessageAction)
    assert (action.content, action.wait_for_response) == ("Which file?", True)
    assert action.response_id == "r7"
    assert action.tool_call_metadata is None
    (empty,) = response_to_actions(model_response(content=None))
    assert empty.content == ""


def test_exactly_one_choice() -> None:
    response = model_response(content="x")
    response.choices = response.choices * 2
    with pytest.raises(ValueError):
        response_to_actions(response)


class _UndumpableResponse:
    """A response object that only offers attributes (no usable model_dump)."""

    def __init__(self, name: str) -> None:
        call = type("Call", (), {"id": "call-1"})()
        call.function = type("Fn", (), {"name": name, "arguments": "{}"})()
        message = type("Msg", (), {"content": "", "tool_calls": [call]})()
        self.id = "resp-1"
        self.choices = [type("Choice", (), {"message": message})()]

    def model_dump(self) -> Any:
        raise AssertionError("the response must not be dumped before the tool is known")


def test_unknown_tool_is_reported_before_the_response_is_serialised() -> None:
    with pytest.raises(FunctionCallNotExistsError):
        response_to_actions(_UndumpableResponse("no_such_tool"))
