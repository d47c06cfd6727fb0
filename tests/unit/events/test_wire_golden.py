"""The JSON of every action and observation, written out by hand from events.md §4/§5.

test_serialization.py checks that ``args``/``extras`` follow the dataclass fields; these
tests pin the fields themselves: their names, order, defaults, the type strings, the
``message`` of each type, and the envelope's key order (§3.1). A field renamed, reordered or
given a new default shows up here as a diff against the spec, not against the code.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
    AgentDelegateAction,
    AgentFinishAction,
    AgentRejectAction,
    AgentThinkAction,
    BrowseInteractiveAction,
    BrowseURLAction,
    ChangeAgentStateAction,
    CmdRunAction,
    CondensationAction,
    CondensationRequestAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
    MessageAction,
    NullAction,
    RecallAction,
    SystemMessageAction,
    TaskTrackingAction,
)
from openhands.events.event import EventSource, FileEditSource, FileReadSource, RecallType
from openhands.events.observation import (
    AgentCondensationObservation,
    AgentDelegateObservation,
    AgentStateChangedObservation,
    AgentThinkObservation,
    BrowserOutputObservation,
    CmdOutputObservation,
    ErrorObservation,
    FileDownloadObservation,
    FileEditObservation,
    FileReadObservation,
    FileWriteObservation,
    IPythonRunCellObservation,
    MCPObservation,
    NullObservation,
    RecallObservation,
    SuccessObservation,
    TaskTrackingObservation,
    UserRejectObservation,
)
from openhands.events.serialization import event_from_dict, event_to_dict
from openhands.events.serialization.registry import ACTION_CLASSES, OBSERVATION_CLASSES
from openhands.events.stream import EventStreamSubscriber
from openhands.events.tool import ToolCallMetadata
from openhands.llm.metrics import Metrics

FENCE = "```"

# (event built with only its required arguments, the JSON the spec gives for it,
#  the smallest input the spec allows for that type: required fields only).
ActionCase = tuple[Action, dict[str, Any], dict[str, Any]]

ACTION_CASES: list[ActionCase] = [
    (
        MessageAction("Write hello.py"),
        {
            "message": "Write hello.py",
            "action": "message",
            "args": {
                "content": "Write hello.py",
                "file_urls": None,
                "image_urls": None,
                "wait_for_response": False,
                "security_risk": -1,
            },
        },
        {"content": "Write hello.py"},
    ),
    (
        SystemMessageAction("You are a helpful agent."),
        {
            "message": "You are a helpful agent.",
            "action": "system",
            "args": {
                "content": "You are a helpful agent.",
                "tools": None,
                "openhands_version": "0.59.0",
                "agent_class": None,
            },
        },
        {"content": "You are a helpful agent."},
    ),
    (
        CmdRunAction("python hello.py"),
        {
            "message": "Running command: python hello.py",
            "action": "run",
            "args": {
                "command": "python hello.py",
                "is_input": False,
                "thought": "",
                "blocking": False,
                "is_static": False,
                "cwd": None,
                "hidden": False,
                "confirmation_state": "confirmed",
                "security_risk": -1,
            },
        },
        {"command": "python hello.py"},
    ),
    (
        IPythonRunCellAction("x = 1"),
        {
            "message": "Running Python code interactively: x = 1",
            "action": "run_ipython",
            "args": {
                "code": "x = 1",
                "thought": "",
                "include_extra": True,
                "confirmation_state": "confirmed",
                "security_risk": -1,
                "kernel_init_code": "",
            },
        },
        {"code": "x = 1"},
    ),
    (
        BrowseURLAction("https://example.org"),
        {
            "message": "I am browsing the URL: https://example.org",
            "action": "browse",
            "args": {
                "url": "https://example.org",
                "thought": "",
                "security_risk": -1,
                "return_axtree": False,
            },
        },
        {"url": "https://example.org"},
    ),
    (
        BrowseInteractiveAction("click('12')"),
        {
            "message": f"I am interacting with the browser:\n{FENCE}\nclick('12')\n{FENCE}",
            "action": "browse_interactive",
            "args": {
                "browser_actions": "click('12')",
                "thought": "",
                "browsergym_send_msg_to_user": "",
                "security_risk": -1,
                "return_axtree": False,
            },
        },
        {"browser_actions": "click('12')"},
    ),
    (
        FileReadAction("/workspace/a.py"),
        {
            "message": "Reading file: /workspace/a.py",
            "action": "read",
            "args": {
                "path": "/workspace/a.py",
                "start": 0,
                "end": -1,
                "thought": "",
                "security_risk": -1,
                "impl_source": "default",
                "view_range": None,
            },
        },
        {"path": "/workspace/a.py"},
    ),
    (
        FileWriteAction("/workspace/b.py", "print(2)\n"),
        {
            "message": "Writing file: /workspace/b.py",
            "action": "write",
            "args": {
                "path": "/workspace/b.py",
                "content": "print(2)\n",
                "start": 0,
                "end": -1,
                "thought": "",
                "security_risk": -1,
            },
        },
        {"path": "/workspace/b.py", "content": "print(2)\n"},
    ),
    (
        FileEditAction("/workspace/c.py"),
        {
            "message": "",  # Quirk: FileEditAction has no message
            "action": "edit",
            "args": {
                "path": "/workspace/c.py",
                "command": "",
                "file_text": None,
                "old_str": None,
                "new_str": None,
                "insert_line": None,
                "content": "",
                "start": 1,
                "end": -1,
                "thought": "",
                "security_risk": -1,
                "impl_source": "oh_aci",
            },
        },
        {"path": "/workspace/c.py"},
    ),
    (
        MCPAction("fetch"),
        {
            "message": (
                "I am interacting with the MCP server with name:\n"
                f"{FENCE}\nfetch\n{FENCE}\nand arguments:\n{FENCE}\n{{}}\n{FENCE}"
            ),
            "action": "call_tool_mcp",
            "args": {"name": "fetch", "arguments": {}, "thought": "", "security_risk": -1},
        },
        {"name": "fetch"},
    ),
    (
        AgentThinkAction(),
        {"message": "I am thinking...: ", "action": "think", "args": {"thought": ""}},
        {},
    ),
    (
        AgentFinishAction(),
        {
            "message": "All done! What's next on the agenda?",
            "action": "finish",
            "args": {"final_thought": "", "outputs": {}, "thought": ""},
        },
        {},
    ),
    (
        AgentRejectAction(),
        {
            "message": "Task is rejected by the agent.",
            "action": "reject",
            "args": {"outputs": {}, "thought": ""},
        },
        {},
    ),
    (
        AgentDelegateAction("BrowsingAgent", {"task": "find it"}),
        {
            "message": "I'm asking BrowsingAgent for help with this task.",
            "action": "delegate",
            "args": {"agent": "BrowsingAgent", "inputs": {"task": "find it"}, "thought": ""},
        },
        {"agent": "BrowsingAgent", "inputs": {"task": "find it"}},
    ),
    (
        RecallAction(RecallType.WORKSPACE_CONTEXT),
        {
            "message": "Retrieving content for: ",
            "action": "recall",
            "args": {"recall_type": "workspace_context", "query": "", "thought": ""},
        },
        {"recall_type": "workspace_context"},
    ),
    (
        ChangeAgentStateAction("paused"),
        {
            "message": "Agent state changed to paused",
            "action": "change_agent_state",
            "args": {"agent_state": "paused", "thought": ""},
        },
        {"agent_state": "paused"},
    ),
    (NullAction(), {"message": "No action", "action": "null", "args": {}}, {}),
    (
        CondensationAction(forgotten_event_ids=[4, 9]),
        {
            "message": "Condenser is dropping the events: [4, 9].",
            "action": "condensation",
            "args": {
                "forgotten_event_ids": [4, 9],
                "forgotten_events_start_id": None,
                "forgotten_events_end_id": None,
                "summary": None,
                "summary_offset": None,
            },
        },
        {"forgotten_event_ids": [4, 9]},
    ),
    (
        CondensationRequestAction(),
        {
            "message": "Requesting a condensation of the conversation history.",
            "action": "condensation_request",
            "args": {},
        },
        {},
    ),
    (
        TaskTrackingAction(),
        {
            "message": "Clearing the task list.",
            "action": "task_tracking",
            "args": {"command": "view", "task_list": [], "thought": ""},
        },
        {},
    ),
]

ObservationCase = tuple[Any, dict[str, Any], dict[str, Any]]

DEFAULT_METADATA = {
    "exit_code": -1,
    "pid": -1,
    "username": None,
    "hostname": None,
    "working_dir": None,
    "py_interpreter_path": None,
    "prefix": "",
    "suffix": "",
}

OBSERVATION_CASES: list[ObservationCase] = [
    (
        NullObservation(""),
        {"message": "No observation", "observation": "null", "content": "", "extras": {}},
        {},
    ),
    (
        CmdOutputObservation("hello", command="python hello.py"),
        {
            "message": "Command `python hello.py` executed with exit code -1.",
            "observation": "run",
            "content": "hello",
            "extras": {
                "command": "python hello.py",
                "metadata": DEFAULT_METADATA,
                "hidden": False,
            },
            "success": False,  # the default exit code -1 is a failure
        },
        {"command": "python hello.py"},
    ),
    (
        IPythonRunCellObservation("2", code="1 + 1"),
        {
            "message": "Code executed in IPython cell.",
            "observation": "run_ipython",
            "content": "2",
            "extras": {"code": "1 + 1", "image_urls": None},
            "success": True,
        },
        {"code": "1 + 1"},
    ),
    (
        BrowserOutputObservation(
            "page text", url="https://example.org", trigger_by_action="browse"
        ),
        {
            "message": "Visited https://example.org",
            "observation": "browse",
            "content": "page text",
            "extras": {
                "url": "https://example.org",
                "trigger_by_action": "browse",
                "screenshot": "",
                "screenshot_path": None,
                "set_of_marks": "",
                "error": False,
                "goal_image_urls": [],
                "open_pages_urls": [],
                "active_page_index": -1,
                "dom_object": {},
                "axtree_object": {},
                "extra_element_properties": {},
                "last_browser_action": "",
                "last_browser_action_error": "",
                "focused_element_bid": "",
                "filter_visible_only": False,
            },
        },
        {"url": "https://example.org", "trigger_by_action": "browse"},
    ),
    (
        FileReadObservation("line 1", path="/workspace/a.py"),
        {
            "message": "I read the file /workspace/a.py.",
            "observation": "read",
            "content": "line 1",
            "extras": {"path": "/workspace/a.py", "impl_source": "default"},
        },
        {"path": "/workspace/a.py"},
    ),
    (
        FileWriteObservation("", path="/workspace/b.py"),
        {
            "message": "I wrote to the file /workspace/b.py.",
            "observation": "write",
            "content": "",
            "extras": {"path": "/workspace/b.py"},
        },
        {"path": "/workspace/b.py"},
    ),
    (
        FileEditObservation("edited", path="/workspace/c.py"),
        {
            "message": "I edited the file /workspace/c.py.",
            "observation": "edit",
            "content": "edited",
            "extras": {
                "path": "/workspace/c.py",
                "prev_exist": False,
                "old_content": None,
                "new_content": None,
                "impl_source": "llm_based_edit",  # not oh_aci as on FileEditAction
                "diff": None,
                "_diff_cache": None,
            },
        },
        {"path": "/workspace/c.py"},
    ),
    (
        AgentDelegateObservation("done", outputs={"answer": 42}),
        {
            "message": "",
            "observation": "delegate",
            "content": "done",
            "extras": {"outputs": {"answer": 42}},
        },
        {"outputs": {"answer": 42}},
    ),
    (
        SuccessObservation("ok"),
        {"message": "ok", "observation": "success", "content": "ok", "extras": {}},
        {},
    ),
    (
        ErrorObservation("File not found: /x"),
        {
            "message": "File not found: /x",
            "observation": "error",
            "content": "File not found: /x",
            "extras": {"error_id": ""},
        },
        {},
    ),
    (
        AgentStateChangedObservation("", agent_state="awaiting_user_input"),
        {
            "message": "",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {"agent_state": "awaiting_user_input", "reason": ""},
        },
        {"agent_state": "awaiting_user_input"},
    ),
    (
        UserRejectObservation("rejected by the user"),
        {
            "message": "rejected by the user",
            "observation": "user_rejected",
            "content": "rejected by the user",
            "extras": {},
        },
        {},
    ),
    (
        AgentCondensationObservation("summary so far"),
        {
            "message": "summary so far",
            "observation": "condense",
            "content": "summary so far",
            "extras": {},
        },
        {},
    ),
    (
        AgentThinkObservation("noted"),
        {"message": "noted", "observation": "think", "content": "noted", "extras": {}},
        {},
    ),
    (
        RecallObservation("", recall_type=RecallType.WORKSPACE_CONTEXT),
        {
            "message": "Added workspace context",
            "observation": "recall",
            "content": "",
            "extras": {
                "recall_type": "workspace_context",
                "repo_name": "",
                "repo_directory": "",
                "repo_branch": "",
                "repo_instructions": "",
                "runtime_hosts": {},
                "additional_agent_instructions": "",
                "date": "",
                "custom_secrets_descriptions": {},
                "conversation_instructions": "",
                "working_dir": "",
                "microagent_knowledge": [],
            },
        },
        {"recall_type": "workspace_context"},
    ),
    (
        MCPObservation('{"result": 1}'),
        {
            "message": '{"result": 1}',
            "observation": "mcp",
            "content": '{"result": 1}',
            "extras": {"name": "", "arguments": {}},
        },
        {},
    ),
    (
        FileDownloadObservation("", file_path="/workspace/out.zip"),
        {
            "message": "Downloaded the file at location: /workspace/out.zip",
            "observation": "download",
            "content": "",
            "extras": {"file_path": "/workspace/out.zip"},
        },
        {"file_path": "/workspace/out.zip"},
    ),
    (
        TaskTrackingObservation("Task list updated"),
        {
            "message": "Task list updated",
            "observation": "task_tracking",
            "content": "Task list updated",
            "extras": {"command": "", "task_list": []},
        },
        {},
    ),
]


def _name(case: tuple[Any, ...]) -> str:
    return type(case[0]).__name__


def test_the_tables_cover_every_registered_class_once() -> None:
    assert sorted(_name(c) for c in ACTION_CASES) == sorted(c.__name__ for c in ACTION_CLASSES)
    assert sorted(_name(c) for c in OBSERVATION_CASES) == sorted(
        c.__name__ for c in OBSERVATION_CLASSES
    )


@pytest.mark.parametrize("case", ACTION_CASES + OBSERVATION_CASES, ids=_name)
def test_defaults_serialize_exactly_as_the_spec_lists_them(case) -> None:
    event, expected, _ = case
    got = event_to_dict(copy.deepcopy(event))
    assert got == expected
    # Order matters for byte-identical files: the envelope, then the body in field order.
    assert list(got) == list(expected)
    body = "args" if "args" in expected else "extras"
    assert list(got[body]) == list(expected[body])


@pytest.mark.parametrize("case", ACTION_CASES, ids=_name)
def test_an_action_with_only_its_required_args_gets_every_default(case) -> None:
    event, expected, minimal = case
    rebuilt = event_from_dict({"action": expected["action"], "args": copy.deepcopy(minimal)})
    assert type(rebuilt) is type(event)
    assert event_to_dict(rebuilt) == expected


@pytest.mark.parametrize("case", OBSERVATION_CASES, ids=_name)
def test_an_observation_with_only_its_required_extras_gets_every_default(case) -> None:
    event, expected, minimal = case
    data: dict[str, Any] = {"observation": expected["observation"], "extras": minimal}
    if expected["content"]:
        data["content"] = expected["content"]  # absent content means ""
    rebuilt = event_from_dict(copy.deepcopy(data))
    assert type(rebuilt) is type(event)
    assert event_to_dict(rebuilt) == expected


@pytest.mark.parametrize("case", ACTION_CASES + OBSERVATION_CASES, ids=_name)
def test_the_spec_json_survives_a_text_round_trip(case) -> None:
    _, expected, _ = case
    text = json.dumps(expected)
    assert event_to_dict(event_from_dict(json.loads(text))) == expected


RUNNABLE = {
    "CmdRunAction",
    "IPythonRunCellAction",
    "BrowseURLAction",
    "BrowseInteractiveAction",
    "FileReadAction",
    "FileWriteAction",
    "FileEditAction",
    "MCPAction",
}


@pytest.mark.parametrize("cls", ACTION_CLASSES, ids=lambda c: c.__name__)
def test_runnable_flag(cls) -> None:
    assert cls.runnable is (cls.__name__ in RUNNABLE)
    # A class flag, never part of the wire form.
    case = next(c for c in ACTION_CASES if type(c[0]) is cls)
    assert "runnable" not in event_to_dict(case[0])["args"]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (AgentThinkAction("weighing options"), "I am thinking...: weighing options"),
        # final_thought is not part of the message, only thought is.
        (AgentFinishAction(final_thought="final"), "All done! What's next on the agenda?"),
        (
            CondensationAction(forgotten_event_ids=[1], summary="short", summary_offset=2),
            "Summary: short",
        ),
        (
            CondensationAction(forgotten_events_start_id=3, forgotten_events_end_id=3),
            "Condenser is dropping the events: [3].",
        ),
        (TaskTrackingAction(command="plan", task_list=[{}, {}, {}]), "Managing 3 task items."),
        (RecallAction(RecallType.KNOWLEDGE, query="x" * 49), "Retrieving content for: " + "x" * 49),
        (
            CmdOutputObservation("", command="false", metadata={"exit_code": 1}),
            "Command `false` executed with exit code 1.",
        ),
        (
            MCPAction("m", {"k": "v", "n": [1]}),
            "I am interacting with the MCP server with name:\n"
            f"{FENCE}\nm\n{FENCE}\nand arguments:\n{FENCE}\n{{'k': 'v', 'n': [1]}}\n{FENCE}",
        ),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else "",
)
def test_more_message_rules(event, message: str) -> None:
    assert event_to_dict(event)["message"] == message
    assert event.message == message


def test_message_is_computed_and_ignored_on_input() -> None:
    data = {
        "message": "something else entirely",
        "action": "run",
        "args": {"command": "ls"},
    }
    assert event_to_dict(event_from_dict(data))["message"] == "Running command: ls"


def test_enum_wire_values() -> None:
    assert [s.value for s in EventSource] == ["agent", "user", "environment"]
    assert {r.name: int(r) for r in ActionSecurityRisk} == {
        "UNKNOWN": -1,
        "LOW": 0,
        "MEDIUM": 1,
        "HIGH": 2,
    }
    assert [s.value for s in ActionConfirmationStatus] == [
        "confirmed",
        "rejected",
        "awaiting_confirmation",
    ]
    assert {s.value for s in FileEditSource} == {"llm_based_edit", "oh_aci"}
    assert {s.value for s in FileReadSource} == {"oh_aci", "default"}
    assert {s.value for s in RecallType} == {"workspace_context", "knowledge"}
    assert EventStreamSubscriber.RESOLVER.value == "openhands_resolver"
    assert {s.value for s in EventStreamSubscriber} == {
        "agent_controller",
        "openhands_resolver",
        "server",
        "runtime",
        "memory",
        "main",
        "test",
    }


def test_non_default_enum_fields_are_written_as_their_values() -> None:
    action = CmdRunAction(
        "rm -rf /tmp/x",
        confirmation_state=ActionConfirmationStatus.AWAITING_CONFIRMATION,
        security_risk=ActionSecurityRisk.MEDIUM,
    )
    args = json.loads(json.dumps(event_to_dict(action)))["args"]
    assert args["confirmation_state"] == "awaiting_confirmation"
    assert args["security_risk"] == 1
    edit = FileEditAction("/f", impl_source=FileEditSource.LLM_BASED_EDIT)
    assert event_to_dict(edit)["args"]["impl_source"] == "llm_based_edit"
    obs = FileEditObservation("", path="/f", impl_source=FileEditSource.OH_ACI)
    assert event_to_dict(obs)["extras"]["impl_source"] == "oh_aci"


def _metadata() -> ToolCallMetadata:
    return ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id="call_9",
        model_response={"id": "resp-9", "choices": []},
        total_calls_in_response=2,
    )


def _fill_envelope(event, *, id: int, cause: int) -> None:
    event.id = id
    event.timestamp = "2025-01-15T10:00:00"
    event.source = "agent"
    event.cause = cause
    event.tool_call_metadata = _metadata()
    event.llm_metrics = Metrics("gpt")


def test_action_envelope_key_order_and_zero_values() -> None:
    action = CmdRunAction("ls")
    _fill_envelope(action, id=0, cause=0)
    action.set_hard_timeout(0.0, blocking=False)
    d = event_to_dict(action)
    assert list(d) == [
        "id",
        "timestamp",
        "source",
        "message",
        "cause",
        "action",
        "tool_call_metadata",
        "llm_metrics",
        "args",
        "timeout",
    ]
    # Zero is a real id, a real cause and a real timeout: only -1 / None are left out.
    assert (d["id"], d["cause"], d["timeout"]) == (0, 0, 0.0)
    back = event_from_dict(json.loads(json.dumps(d)))
    assert (back.id, back.cause, back.timeout) == (0, 0, 0.0)
    assert back.source is EventSource.AGENT
    assert event_to_dict(back) == d


def test_observation_envelope_key_order() -> None:
    obs = CmdOutputObservation("x", command="ls", metadata={"exit_code": 0})
    _fill_envelope(obs, id=4, cause=3)
    obs.set_hard_timeout(5)  # never written for observations
    d = event_to_dict(obs)
    assert list(d) == [
        "id",
        "timestamp",
        "source",
        "message",
        "cause",
        "observation",
        "tool_call_metadata",
        "llm_metrics",
        "content",
        "extras",
        "success",
    ]
    assert d["tool_call_metadata"] == {
        "function_name": "execute_bash",
        "tool_call_id": "call_9",
        "model_response": {"id": "resp-9", "choices": []},
        "total_calls_in_response": 2,
    }
    assert list(d["llm_metrics"]) == [
        "accumulated_cost",
        "max_budget_per_task",
        "accumulated_token_usage",
        "costs",
        "response_latencies",
        "token_usages",
    ]
    assert d["llm_metrics"]["accumulated_token_usage"] == {
        "model": "gpt",
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "context_window": 0,
        "per_turn_token": 0,
        "response_id": "",
    }
    back = event_from_dict(json.loads(json.dumps(d)))
    assert back.tool_call_metadata == _metadata()
    assert event_to_dict(back) == d


def test_unset_base_attributes_are_left_out() -> None:
    d = event_to_dict(MessageAction("x"))
    assert list(d) == ["message", "action", "args"]
    obs = event_to_dict(ErrorObservation("e"))
    assert list(obs) == ["message", "observation", "content", "extras"]


def test_legacy_import_path_of_the_delegate_observation() -> None:
    from openhands.events.observation.delegate import (
        AgentDelegateObservation as FromOldPath,
    )

    assert FromOldPath is AgentDelegateObservation
