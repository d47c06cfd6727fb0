"""Golden-JSON tests for event_to_dict / event_from_dict (events.md §3–§6, §11)."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from openhands.core.exceptions import LLMMalformedActionError
from openhands.events.action import (
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
    CmdOutputMetadata,
    CmdOutputObservation,
    ErrorObservation,
    FileDownloadObservation,
    FileEditObservation,
    FileReadObservation,
    FileWriteObservation,
    IPythonRunCellObservation,
    MCPObservation,
    MicroagentKnowledge,
    NullObservation,
    RecallObservation,
    SuccessObservation,
    TaskTrackingObservation,
    UserRejectObservation,
)
from openhands.events.serialization import event_from_dict, event_to_dict, event_to_trajectory
from openhands.events.serialization.registry import ACTION_CLASSES, OBSERVATION_CLASSES
from openhands.events.tool import ToolCallMetadata
from openhands.llm.metrics import Metrics

# One instance of every class, with non-default values where a field has one.
ACTIONS = [
    MessageAction("hi", file_urls=["f"], image_urls=["i"], wait_for_response=True),
    SystemMessageAction("sys", tools=[{"type": "function"}], agent_class="CodeActAgent"),
    CmdRunAction("ls -la", is_input=False, thought="look", blocking=True, cwd="/w", hidden=True),
    IPythonRunCellAction("print(1)", thought="t", include_extra=False, kernel_init_code="x=1"),
    BrowseURLAction("http://x", thought="t", return_axtree=True),
    BrowseInteractiveAction("click('1')", thought="t", browsergym_send_msg_to_user="m"),
    FileReadAction("/a", start=1, end=5, impl_source=FileReadSource.OH_ACI, view_range=[1, 5]),
    FileWriteAction("/a", "content", start=0, end=-1, thought="t"),
    FileEditAction("/a", command="str_replace", old_str="a", new_str="b"),
    MCPAction("tool", arguments={"a": 1}, thought="t"),
    AgentThinkAction("hmm"),
    AgentFinishAction(final_thought="done", outputs={"k": 1}, thought="bye"),
    AgentRejectAction(outputs={"reason": "no"}, thought="t"),
    AgentDelegateAction("BrowsingAgent", {"task": "x"}, thought="t"),
    RecallAction(RecallType.KNOWLEDGE, query="git", thought="t"),
    ChangeAgentStateAction("paused", thought="t"),
    NullAction(),
    CondensationAction(forgotten_event_ids=[1, 2], summary="s", summary_offset=1),
    CondensationRequestAction(),
    TaskTrackingAction(command="plan", task_list=[{"id": "1", "title": "a"}], thought="t"),
]

OBSERVATIONS = [
    NullObservation(""),
    CmdOutputObservation(
        "out", command="ls", metadata=CmdOutputMetadata(exit_code=0, working_dir="/w"), hidden=True
    ),
    IPythonRunCellObservation("1", code="print(1)", image_urls=["data:x"]),
    BrowserOutputObservation("page", url="http://x", trigger_by_action="browse", error=True),
    FileReadObservation("text", path="/a", impl_source=FileReadSource.OH_ACI),
    FileWriteObservation("", path="/a"),
    FileEditObservation(
        "edited", path="/a", prev_exist=True, old_content="a", new_content="b", diff="d"
    ),
    AgentDelegateObservation("", outputs={"r": 1}),
    SuccessObservation("ok"),
    ErrorObservation("bad", error_id="AGENT_ERROR$BAD_ACTION"),
    AgentStateChangedObservation("", agent_state="running", reason="r"),
    UserRejectObservation("rejected"),
    AgentCondensationObservation("summary"),
    AgentThinkObservation("thinking"),
    RecallObservation(
        "",
        recall_type=RecallType.KNOWLEDGE,
        runtime_hosts={"http://h": 1},
        microagent_knowledge=[MicroagentKnowledge(name="git", trigger="git", content="c")],
    ),
    MCPObservation("{}", name="tool", arguments={"a": 1}),
    FileDownloadObservation("", file_path="/f"),
    TaskTrackingObservation("plan", command="plan", task_list=[{"id": "1"}]),
]


def test_every_class_is_covered_exactly_once() -> None:
    assert len(ACTION_CLASSES) == 20 and len(OBSERVATION_CLASSES) == 18
    assert sorted(type(a).__name__ for a in ACTIONS) == sorted(c.__name__ for c in ACTION_CLASSES)
    assert sorted(type(o).__name__ for o in OBSERVATIONS) == sorted(
        c.__name__ for c in OBSERVATION_CLASSES
    )


@pytest.mark.parametrize("event", ACTIONS + OBSERVATIONS, ids=lambda e: type(e).__name__)
def test_round_trip_dict_event_dict(event) -> None:
    event = copy.deepcopy(event)
    event.id = 7
    event.timestamp = "2025-01-15T10:00:00.5"
    event.source = EventSource.AGENT
    event.cause = 3
    first = event_to_dict(event)
    rebuilt = event_from_dict(json.loads(json.dumps(first)))
    assert type(rebuilt) is type(event)
    assert event_to_dict(rebuilt) == first
    assert list(first)[:4] == ["id", "timestamp", "source", "message"]


@pytest.mark.parametrize("event", ACTIONS, ids=lambda e: type(e).__name__)
def test_action_args_hold_every_declared_field(event) -> None:
    d = event_to_dict(event)
    assert "id" not in d  # -1 is never written
    assert d["action"] == type(event).action
    fields = [f.name for f in dataclasses.fields(event)]
    assert list(d["args"]) == fields
    for base in ("id", "timestamp", "source", "cause", "message", "timeout", "action"):
        assert base not in d["args"]


@pytest.mark.parametrize("event", OBSERVATIONS, ids=lambda e: type(e).__name__)
def test_observation_extras_hold_every_field_but_content(event) -> None:
    d = event_to_dict(event)
    fields = [f.name for f in dataclasses.fields(event) if f.name != "content"]
    assert list(d["extras"]) == fields
    assert d["content"] == event.content
    has_success = isinstance(event, (CmdOutputObservation, IPythonRunCellObservation))
    assert ("success" in d) == has_success


def test_spec_example_user_message() -> None:
    data = {
        "id": 3,
        "timestamp": "2025-01-15T10:00:00.123456",
        "source": "user",
        "message": "Write hello.py",
        "action": "message",
        "args": {
            "content": "Write hello.py",
            "file_urls": [],
            "image_urls": [],
            "wait_for_response": False,
            "security_risk": -1,
        },
    }
    event = event_from_dict(data)
    assert isinstance(event, MessageAction)
    assert event.content == "Write hello.py" and event.source == EventSource.USER
    assert event.id == 3 and event.security_risk == ActionSecurityRisk.UNKNOWN
    assert event_to_dict(event) == data


def test_spec_example_cmd_run_with_metadata_and_metrics() -> None:
    data = {
        "id": 5,
        "timestamp": "2025-01-15T10:00:05.000001",
        "source": "agent",
        "message": "Running command: python hello.py",
        "action": "run",
        "tool_call_metadata": {
            "function_name": "execute_bash",
            "tool_call_id": "call_1",
            "model_response": {"id": "chatcmpl-1"},
            "total_calls_in_response": 1,
        },
        "llm_metrics": {
            "accumulated_cost": 0.0012,
            "max_budget_per_task": None,
            "accumulated_token_usage": {
                "model": "gpt",
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "cache_read_tokens": 0,
                "cache_write_tokens": 0,
                "context_window": 0,
                "per_turn_token": 0,
                "response_id": "",
            },
            "costs": [{"model": "gpt", "cost": 0.0012, "timestamp": 1736935205.0}],
            "response_latencies": [{"model": "gpt", "latency": 1.5, "response_id": "chatcmpl-1"}],
            "token_usages": [],
        },
        "args": {
            "command": "python hello.py",
            "is_input": False,
            "thought": "Run it",
            "blocking": False,
            "is_static": False,
            "cwd": None,
            "hidden": False,
            "confirmation_state": "confirmed",
            "security_risk": -1,
        },
        "timeout": 120.0,
    }
    event = event_from_dict(data)
    assert isinstance(event, CmdRunAction)
    assert event.timeout == 120.0 and event.blocking is False
    assert event.tool_call_metadata == ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id="call_1",
        model_response={"id": "chatcmpl-1"},
        total_calls_in_response=1,
    )
    assert event.llm_metrics is not None and event.llm_metrics.accumulated_cost == 0.0012
    assert event.confirmation_state == ActionConfirmationStatus.CONFIRMED
    assert event_to_dict(event) == data


def test_spec_example_cmd_output() -> None:
    data = {
        "id": 6,
        "timestamp": "2025-01-15T10:00:06.5",
        "source": "agent",
        "message": "Command `python hello.py` executed with exit code 0.",
        "cause": 5,
        "observation": "run",
        "content": "hello",
        "extras": {
            "command": "python hello.py",
            "metadata": {
                "exit_code": 0,
                "pid": -1,
                "username": "root",
                "hostname": "box",
                "working_dir": "/workspace",
                "py_interpreter_path": "/usr/bin/python",
                "prefix": "",
                "suffix": "",
            },
            "hidden": False,
        },
        "success": True,
    }
    event = event_from_dict(data)
    assert isinstance(event, CmdOutputObservation)
    assert event.exit_code == 0 and event.cause == 5 and event.success
    assert event_to_dict(event) == data
    text = event.to_agent_observation()
    assert text.endswith(
        "hello\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]"
        "\n[Command finished with exit code 0]"
    )


def test_spec_examples_state_change_and_error() -> None:
    state = {
        "id": 7,
        "timestamp": "2025-01-15T10:00:07",
        "source": "environment",
        "message": "",
        "observation": "agent_state_changed",
        "content": "",
        "extras": {"agent_state": "awaiting_user_input", "reason": ""},
    }
    error = {
        "id": 8,
        "timestamp": "2025-01-15T10:00:08",
        "source": "agent",
        "message": "File not found: /x",
        "cause": 7,
        "observation": "error",
        "content": "File not found: /x",
        "extras": {"error_id": "AGENT_ERROR$BAD_ACTION"},
    }
    for data in (state, error):
        assert event_to_dict(event_from_dict(data)) == data


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (FileEditAction("/a"), ""),
        (AgentFinishAction(), "All done! What's next on the agenda?"),
        (AgentFinishAction(final_thought="x", thought="bye"), "bye"),
        (AgentRejectAction(), "Task is rejected by the agent."),
        (AgentRejectAction(outputs={"reason": "r"}), "Task is rejected by the agent. Reason: r"),
        (RecallAction(RecallType.KNOWLEDGE, query="q" * 60), "Retrieving content for: " + "q" * 50),
        (
            CondensationAction(forgotten_events_start_id=1, forgotten_events_end_id=3),
            "Condenser is dropping the events: [1, 2, 3].",
        ),
        (TaskTrackingAction(), "Clearing the task list."),
        (TaskTrackingAction(task_list=[{}]), "Managing 1 task item."),
        (TaskTrackingAction(task_list=[{}, {}]), "Managing 2 task items."),
        (
            MCPAction("n", {"a": 1}),
            "I am interacting with the MCP server with name:\n```\nn\n```\nand arguments:\n```\n{'a': 1}\n```",
        ),
        (
            BrowseInteractiveAction("go('x')"),
            "I am interacting with the browser:\n```\ngo('x')\n```",
        ),
        (
            RecallObservation("", recall_type=RecallType.WORKSPACE_CONTEXT),
            "Added workspace context",
        ),
        (RecallObservation("", recall_type=RecallType.KNOWLEDGE), "Added microagent knowledge"),
        (AgentDelegateObservation("x", outputs={}), ""),
        (FileDownloadObservation("", file_path="/f"), "Downloaded the file at location: /f"),
        (NullObservation(""), "No observation"),
        (NullAction(), "No action"),
    ],
)
def test_message_rules(event, message: str) -> None:
    assert event_to_dict(event)["message"] == message


def test_security_risk_rules() -> None:
    base = {"action": "run", "args": {"command": "ls"}}
    for bad in (9, "high", True, 1.5):
        data = copy.deepcopy(base)
        data["args"]["security_risk"] = bad
        assert event_from_dict(data).security_risk == ActionSecurityRisk.UNKNOWN
    data = copy.deepcopy(base)
    data["args"]["security_risk"] = 2
    event = event_from_dict(data)
    assert event.security_risk is ActionSecurityRisk.HIGH
    assert event_to_dict(event)["args"]["security_risk"] == 2
    data["args"]["security_risk"] = None
    assert "security_risk" not in event_to_dict(event_from_dict(data))["args"]


def test_every_security_risk_defaults_to_unknown() -> None:
    # Decoding replaces an invalid stored value with UNKNOWN, as if the key were dropped.
    for cls in ACTION_CLASSES:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        if "security_risk" in fields:
            assert fields["security_risk"].default is ActionSecurityRisk.UNKNOWN, cls


@pytest.mark.parametrize("event", ACTIONS + OBSERVATIONS, ids=lambda e: type(e).__name__)
def test_decoding_does_not_depend_on_key_order_or_touch_the_input(event) -> None:
    # Stored bodies (every field, in declaration order) take a positional fast path; any
    # other order or a missing optional field takes the keyword path. Same result.
    data = json.loads(json.dumps(event_to_dict(copy.deepcopy(event))))
    body = "args" if "args" in data else "extras"
    shuffled = copy.deepcopy(data)
    shuffled[body] = dict(reversed(list(data[body].items())))
    original = copy.deepcopy(data)
    fast, slow = event_from_dict(data), event_from_dict(shuffled)
    assert data == original
    assert type(fast) is type(slow)
    assert event_to_dict(fast) == event_to_dict(slow) == data
    if "security_risk" in data.get("args", {}):
        assert type(fast.security_risk) is ActionSecurityRisk
        for bad, expected in ((9, ActionSecurityRisk.UNKNOWN), (2, ActionSecurityRisk.HIGH)):
            data["args"]["security_risk"] = bad
            assert event_from_dict(data).security_risk is expected
            assert data["args"]["security_risk"] == bad


def test_timeout_is_top_level_for_actions_only() -> None:
    action = CmdRunAction("sleep 1")
    action.set_hard_timeout(5)
    assert action.blocking is True  # set_hard_timeout defaults blocking to true
    d = event_to_dict(action)
    assert d["timeout"] == 5 and "timeout" not in d["args"]
    restored = event_from_dict({"action": "run", "args": {"command": "x"}, "timeout": None})
    assert restored.timeout is None and restored.blocking is False
    obs = NullObservation("")
    obs.set_hard_timeout(3)
    assert "timeout" not in event_to_dict(obs)


def test_legacy_action_args_are_rewritten_without_touching_the_input() -> None:
    data = {
        "action": "message",
        "args": {
            "content": "x",
            "images_urls": ["a"],
            "keep_prompt": True,
            "timestamp": "2024-01-01T00:00:00",
        },
    }
    original = copy.deepcopy(data)
    event = event_from_dict(data)
    assert data == original
    assert event.image_urls == ["a"] and event.timestamp == "2024-01-01T00:00:00"
    top = copy.deepcopy(data)
    top["timestamp"] = "2025-02-02T00:00:00"
    assert event_from_dict(top).timestamp == "2025-02-02T00:00:00"

    run = event_from_dict({"action": "run", "args": {"command": "x", "is_confirmed": "rejected"}})
    assert run.confirmation_state == ActionConfirmationStatus.REJECTED
    finish = event_from_dict({"action": "finish", "args": {"task_completed": "true"}})
    assert isinstance(finish, AgentFinishAction)


def test_legacy_translated_ipython_code() -> None:
    code = "print(file_editor(**{'command': 'view', 'path': '/a.py', 'view_range': [1, 2]}))"
    event = event_from_dict(
        {"action": "read", "args": {"path": "/x", "translated_ipython_code": code}}
    )
    assert isinstance(event, FileReadAction)
    assert event.path == "/a.py" and event.view_range == [1, 2]
    edit = event_from_dict(
        {
            "action": "edit",
            "args": {
                "path": "/x",
                "translated_ipython_code": "print(file_editor(**{'command': 'create', "
                "'path': '/b', 'file_text': 'hi'}))",
            },
        }
    )
    assert isinstance(edit, FileEditAction)
    assert edit.command == "create" and edit.file_text == "hi"
    broken = event_from_dict(
        {"action": "edit", "args": {"path": "/x", "translated_ipython_code": "print(oops"}}
    )
    assert broken.path == "/x"


def test_legacy_observation_extras() -> None:
    event = event_from_dict(
        {
            "observation": "run",
            "content": "x",
            "extras": {
                "command": "ls",
                "exit_code": 3,
                "command_id": 42,
                "formatted_output_and_error": "x",
                "unknown": 1,
            },
        }
    )
    assert isinstance(event, CmdOutputObservation)
    assert event.exit_code == 3 and event.command_id == 42 and not event.success
    no_meta = event_from_dict({"observation": "run", "extras": {"command": "ls"}})
    assert no_meta.metadata == CmdOutputMetadata() and event_to_dict(no_meta)["success"] is False


def test_recall_observation_rebuilds_nested_records() -> None:
    event = event_from_dict(
        {
            "observation": "recall",
            "extras": {
                "recall_type": "knowledge",
                "microagent_knowledge": [{"name": "n", "trigger": "t", "content": "c"}],
            },
        }
    )
    assert event.recall_type is RecallType.KNOWLEDGE
    assert event.microagent_knowledge == [MicroagentKnowledge("n", "t", "c")]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"action": "fly", "args": {}}, LLMMalformedActionError),
        ({"action": 3}, LLMMalformedActionError),
        ({"action": "run", "args": {}}, LLMMalformedActionError),
        ({"action": "run", "args": {"command": "x", "bogus": 1}}, LLMMalformedActionError),
        ({"action": "run", "args": "ls"}, LLMMalformedActionError),
        ({"observation": "teleport"}, KeyError),
        ({"observation": "error", "extras": {"bogus": 1}}, TypeError),
        ({"content": "neither"}, ValueError),
        ([1, 2], ValueError),
        ({"action": "condensation", "args": {}}, ValueError),
    ],
)
def test_malformed_input_raises_clear_errors(data, error) -> None:
    with pytest.raises(error):
        event_from_dict(data)


def test_action_wins_when_both_keys_present() -> None:
    event = event_from_dict({"action": "null", "observation": "null"})
    assert isinstance(event, NullAction)


def test_cmd_output_truncation_is_idempotent_and_skips_hidden() -> None:
    long = "a" * 20_000 + "b" * 20_000
    obs = CmdOutputObservation(long, command="x")
    assert len(obs.content) < 30_100
    assert obs.content.startswith("a" * 15_000) and obs.content.endswith("b" * 15_000)
    assert "[... Observation truncated due to length ...]" in obs.content
    again = CmdOutputObservation(obs.content, command="x")
    assert again.content == obs.content
    assert CmdOutputObservation(long, command="x", hidden=True).content == long


def test_file_edit_observation_diff_rendering_and_cache_key() -> None:
    obs = FileEditObservation(
        "", path="/f", prev_exist=True, old_content="a\nb\nc", new_content="a\nB\nc"
    )
    text = obs.visualize_diff()
    assert text.startswith("[Existing file /f is edited with 1 changes.]")
    assert "-2|b" in text and "+2|B" in text and "[begin of edit 1 / 1]" in text
    assert event_to_dict(obs)["extras"]["_diff_cache"] == text
    new = FileEditObservation("", path="/n", prev_exist=False, new_content="x")
    assert str(new) == "[New file /n is created with the provided content.]\n"
    same = FileEditObservation("", path="/s", prev_exist=True, old_content="x", new_content="x")
    assert same.visualize_diff().startswith("(no changes detected.")
    aci = FileEditObservation("tool message", path="/a", impl_source=FileEditSource.OH_ACI)
    assert str(aci) == "tool message"


def test_condensation_validity() -> None:
    with pytest.raises(ValueError):
        CondensationAction()
    with pytest.raises(ValueError):
        CondensationAction(
            forgotten_event_ids=[1], forgotten_events_start_id=1, forgotten_events_end_id=2
        )
    with pytest.raises(ValueError):
        CondensationAction(forgotten_event_ids=[1], summary="s")
    assert CondensationAction(forgotten_events_start_id=2, forgotten_events_end_id=4).forgotten == [
        2,
        3,
        4,
    ]


def test_metrics_and_response_id() -> None:
    action = MessageAction("x")
    action.response_id = "resp-1"
    metrics = Metrics("m")
    metrics.add_cost(0.5)
    metrics.add_token_usage(10, 5, 1, 2, 100, "r")
    action.llm_metrics = metrics
    d = event_to_dict(action)
    assert "response_id" not in json.dumps({k: v for k, v in d.items() if k != "llm_metrics"})
    assert set(d["llm_metrics"]) == {
        "accumulated_cost",
        "max_budget_per_task",
        "accumulated_token_usage",
        "costs",
        "response_latencies",
        "token_usages",
    }
    back = event_from_dict(d)
    assert back.llm_metrics == metrics and back.response_id is None
    empty = event_from_dict({**d, "llm_metrics": None})
    assert empty.llm_metrics is not None and empty.llm_metrics.accumulated_cost == 0.0


def test_trajectory_drops_browser_internals() -> None:
    obs = BrowserOutputObservation(
        "c", url="u", trigger_by_action="t", screenshot="img", dom_object={"a": 1}
    )
    plain = event_to_trajectory(obs)
    assert "dom_object" not in plain["extras"] and "screenshot" not in plain["extras"]
    assert event_to_trajectory(obs, include_screenshots=True)["extras"]["screenshot"] == "img"


def test_timestamp_setter_rules() -> None:
    from datetime import datetime

    event = NullAction()
    event.timestamp = datetime(2025, 1, 1, 12, 0, 0)
    assert event.timestamp == "2025-01-01T12:00:00"
    event.timestamp = 12345  # ignored
    assert event.timestamp == "2025-01-01T12:00:00"


@pytest.mark.parametrize("event", OBSERVATIONS, ids=lambda e: type(e).__name__)
def test_legacy_formatted_output_and_error_is_dropped_for_every_observation(event) -> None:
    # Old conversations and trajectories carry this key in the extras of editor and command
    # observations (and replays copy it around); it must load everywhere and never come back.
    d = json.loads(json.dumps(event_to_dict(event)))
    expected = copy.deepcopy(d)
    d["extras"]["formatted_output_and_error"] = "legacy text"
    rebuilt = event_from_dict(d)
    assert type(rebuilt) is type(event)
    assert "formatted_output_and_error" not in event_to_dict(rebuilt)["extras"]
    assert event_to_dict(rebuilt) == expected
    assert d["extras"]["formatted_output_and_error"] == "legacy text"  # input left untouched


def test_legacy_file_edit_observation_with_formatted_output_loads() -> None:
    event = event_from_dict(
        {
            "id": 5,
            "observation": "edit",
            "content": "The file /w/a.py has been edited.",
            "extras": {
                "path": "/w/a.py",
                "prev_exist": True,
                "old_content": "a",
                "new_content": "b",
                "impl_source": "oh_aci",
                "formatted_output_and_error": "The file /w/a.py has been edited.",
            },
        }
    )
    assert isinstance(event, FileEditObservation)
    assert event.path == "/w/a.py" and event.new_content == "b"


def test_mcp_action_str() -> None:
    text = str(MCPAction(name="t", arguments={"a": 1}, thought="x"))
    assert text == "**MCPAction**\nTHOUGHT: x\nNAME: t\nARGUMENTS: {'a': 1}"
    assert str(MCPAction(name="t")) == "**MCPAction**\nNAME: t\nARGUMENTS: {}"
