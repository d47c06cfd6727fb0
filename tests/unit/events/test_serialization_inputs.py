"""What ``event_from_dict`` accepts, ignores and rejects (events.md §2, §3.4–§3.6).

The golden tables cover what we write; these cover the many shapes we must read: keys we
ignore, partial nested objects, base-attribute setters, legacy rewrites that fail to parse.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime

import pytest

from openhands.core.exceptions import LLMMalformedActionError
from openhands.events.action import (
    ActionConfirmationStatus,
    AgentFinishAction,
    CmdRunAction,
    CondensationAction,
    FileEditAction,
    FileReadAction,
    IPythonRunCellAction,
    MessageAction,
    NullAction,
    RecallAction,
)
from openhands.events.event import Event, EventSource, FileEditSource, FileReadSource, RecallType
from openhands.events.observation import (
    CmdOutputObservation,
    FileEditObservation,
    IPythonRunCellObservation,
    NullObservation,
    RecallObservation,
)
from openhands.events.serialization import event_from_dict, event_to_dict
from openhands.llm.metrics import Metrics


def test_unknown_top_level_keys_and_derived_keys_are_ignored() -> None:
    data = {
        "id": 2,
        "message": "ignored",
        "observation": "run_ipython",
        "content": "out",
        "extras": {"code": "1/0"},
        "success": False,  # IPython observations always report success
        "ui_hint": {"color": "red"},
    }
    event = event_from_dict(data)
    assert isinstance(event, IPythonRunCellObservation)
    d = event_to_dict(event)
    assert d["success"] is True and d["message"] == "Code executed in IPython cell."
    assert "ui_hint" not in d


def test_content_at_the_top_of_an_action_is_ignored() -> None:
    event = event_from_dict({"action": "think", "content": "not a field", "args": {"thought": "t"}})
    assert event_to_dict(event) == {
        "message": "I am thinking...: t",
        "action": "think",
        "args": {"thought": "t"},
    }


@pytest.mark.parametrize("missing", [{}, {"args": None}])
def test_missing_args_mean_an_empty_object(missing) -> None:
    assert isinstance(event_from_dict({"action": "null", **missing}), NullAction)
    assert isinstance(event_from_dict({"action": "finish", **missing}), AgentFinishAction)


@pytest.mark.parametrize("missing", [{}, {"extras": None}])
def test_missing_content_and_extras_mean_empty(missing) -> None:
    event = event_from_dict({"observation": "null", **missing})
    assert isinstance(event, NullObservation) and event.content == ""


def test_string_enum_fields_compare_equal_to_their_members_after_loading() -> None:
    run = event_from_dict(
        {"action": "run", "args": {"command": "x", "confirmation_state": "awaiting_confirmation"}}
    )
    assert run.confirmation_state == ActionConfirmationStatus.AWAITING_CONFIRMATION
    read = event_from_dict({"action": "read", "args": {"path": "/a", "impl_source": "oh_aci"}})
    assert read.impl_source == FileReadSource.OH_ACI
    edit = event_from_dict(
        {"action": "edit", "args": {"path": "/a", "impl_source": "llm_based_edit"}}
    )
    assert edit.impl_source == FileEditSource.LLM_BASED_EDIT
    recall = event_from_dict({"action": "recall", "args": {"recall_type": "knowledge"}})
    assert recall.recall_type == RecallType.KNOWLEDGE
    for event, key, value in (
        (run, "confirmation_state", "awaiting_confirmation"),
        (read, "impl_source", "oh_aci"),
        (edit, "impl_source", "llm_based_edit"),
        (recall, "recall_type", "knowledge"),
    ):
        assert json.loads(json.dumps(event_to_dict(event)))["args"][key] == value


def test_recall_observation_round_trip_with_knowledge() -> None:
    data = {
        "observation": "recall",
        "content": "",
        "extras": {
            "recall_type": "workspace_context",
            "repo_name": "org/repo",
            "repo_directory": "/workspace/repo",
            "repo_branch": "main",
            "repo_instructions": "be nice",
            "runtime_hosts": {"http://localhost:5000": 5000},
            "additional_agent_instructions": "more",
            "date": "2025-01-15",
            "custom_secrets_descriptions": {"GH": "token"},
            "conversation_instructions": "ci",
            "working_dir": "/workspace",
            "microagent_knowledge": [{"name": "git", "trigger": "commit", "content": "use -s"}],
        },
    }
    event = event_from_dict(copy.deepcopy(data))
    assert isinstance(event, RecallObservation)
    assert event.recall_type is RecallType.WORKSPACE_CONTEXT
    assert event.microagent_knowledge[0].trigger == "commit"
    assert event_to_dict(event) == {**data, "message": "Added workspace context"}


def test_timeout_restores_blocking_from_args() -> None:
    action = CmdRunAction("sleep 5")
    action.set_hard_timeout(30)
    d = event_to_dict(action)
    assert d["timeout"] == 30 and d["args"]["blocking"] is True
    back = event_from_dict(json.loads(json.dumps(d)))
    assert back.timeout == 30 and back.blocking is True

    # A type without a ``blocking`` field keeps its timeout and gains no such field.
    cell = IPythonRunCellAction("1")
    cell.set_hard_timeout(7, blocking=True)
    d = event_to_dict(cell)
    assert d["timeout"] == 7 and "blocking" not in d["args"]
    back = event_from_dict(d)
    assert back.timeout == 7 and not hasattr(back, "blocking")


def test_set_hard_timeout_blocking_argument() -> None:
    action = CmdRunAction("x")
    action.set_hard_timeout(3, blocking=False)
    assert (action.timeout, action.blocking) == (3, False)
    action.set_hard_timeout(None)
    assert action.timeout is None and action.blocking is True
    assert "timeout" not in event_to_dict(action)


def test_base_attribute_setters() -> None:
    event = NullAction()
    assert (event.id, event.timestamp, event.source, event.cause) == (-1, None, None, None)
    assert Event.INVALID_ID == -1
    event.id = 5
    event.id = None
    assert event.id == -1 and "id" not in event_to_dict(event)
    event.source = "user"
    assert event.source is EventSource.USER
    with pytest.raises(ValueError):
        event.source = "robot"
    event.source = None
    assert event.source is None
    event.timestamp = "2025-01-01T00:00:00"
    event.timestamp = None  # anything but a string or datetime is ignored
    assert event.timestamp == "2025-01-01T00:00:00"
    event.timestamp = datetime(2025, 3, 4, 5, 6, 7, 89)
    assert event.timestamp == "2025-03-04T05:06:07.000089"


def test_unknown_source_value_is_rejected() -> None:
    with pytest.raises(ValueError):
        event_from_dict({"source": "robot", "action": "null"})


def test_event_to_dict_rejects_a_bare_event() -> None:
    with pytest.raises(ValueError):
        event_to_dict(Event())


def test_partial_llm_metrics_take_defaults() -> None:
    event = event_from_dict(
        {
            "action": "null",
            "llm_metrics": {
                "accumulated_cost": 1.25,
                "costs": [{"model": "m", "cost": 1.25, "timestamp": 1.0}],
            },
        }
    )
    metrics = event_to_dict(event)["llm_metrics"]
    assert metrics == {
        "accumulated_cost": 1.25,
        "max_budget_per_task": None,
        # Absent, so it is the fresh Metrics() one, named after its default model.
        "accumulated_token_usage": {
            "model": "default",
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "context_window": 0,
            "per_turn_token": 0,
            "response_id": "",
        },
        "costs": [{"model": "m", "cost": 1.25, "timestamp": 1.0}],
        "response_latencies": [],
        "token_usages": [],
    }


def test_full_llm_metrics_round_trip() -> None:
    metrics = Metrics("gpt")
    metrics.max_budget_per_task = 3.0
    metrics.add_cost(0.25)
    metrics.add_response_latency(1.5, "resp-1")
    metrics.add_token_usage(100, 20, 5, 1, 8000, "resp-1")
    event = MessageAction("x")
    event.llm_metrics = metrics
    d = json.loads(json.dumps(event_to_dict(event)))
    assert d["llm_metrics"]["max_budget_per_task"] == 3.0
    assert d["llm_metrics"]["response_latencies"] == [
        {"model": "gpt", "latency": 1.5, "response_id": "resp-1"}
    ]
    assert d["llm_metrics"]["token_usages"][0]["prompt_tokens"] == 100
    back = event_from_dict(d)
    assert back.llm_metrics == metrics
    assert event_to_dict(back) == d


def test_legacy_translated_code_that_does_not_parse_is_dropped() -> None:
    # Matches the print(file_editor(**{...})) shape, but the dict is not a literal.
    code = "print(file_editor(**{'command': 'create', 'path': some_variable}))"
    event = event_from_dict(
        {"action": "edit", "args": {"path": "/kept", "translated_ipython_code": code}}
    )
    assert isinstance(event, FileEditAction)
    assert event.path == "/kept" and event.command == ""
    assert "translated_ipython_code" not in event_to_dict(event)["args"]


def test_legacy_view_command_is_removed_even_without_parsable_code() -> None:
    # Old read actions carried the editor's "view" command, which FileReadAction lacks.
    event = event_from_dict(
        {
            "action": "read",
            "args": {"path": "/a", "command": "view", "translated_ipython_code": None},
        }
    )
    assert isinstance(event, FileReadAction) and event.path == "/a"
    # Without the legacy key the same args are simply malformed.
    with pytest.raises(LLMMalformedActionError):
        event_from_dict({"action": "read", "args": {"path": "/a", "command": "view"}})


def test_legacy_is_confirmed_and_args_timestamp_round_trip_to_current_form() -> None:
    data = {
        "action": "run",
        "args": {
            "command": "ls",
            "is_confirmed": "awaiting_confirmation",
            "timestamp": "2024-05-05T05:05:05",
        },
    }
    d = event_to_dict(event_from_dict(data))
    assert d["timestamp"] == "2024-05-05T05:05:05"
    assert d["args"]["confirmation_state"] == "awaiting_confirmation"
    assert "is_confirmed" not in d["args"] and "timestamp" not in d["args"]


def test_images_urls_alias_on_message_action() -> None:
    action = MessageAction("see", image_urls=["a.png"])
    assert action.images_urls == ["a.png"]
    action.images_urls = ["b.png"]
    d = event_to_dict(action)
    assert d["args"]["image_urls"] == ["b.png"] and "images_urls" not in d["args"]


def test_condensation_errors_are_plain_value_errors() -> None:
    for args in (
        {},
        {"forgotten_event_ids": [1], "forgotten_events_start_id": 1, "forgotten_events_end_id": 2},
        {"forgotten_events_start_id": 1},
        {"forgotten_event_ids": [1], "summary_offset": 0},
    ):
        with pytest.raises(ValueError) as info:
            event_from_dict({"action": "condensation", "args": args})
        assert not isinstance(info.value, LLMMalformedActionError)
    ok = event_from_dict(
        {
            "action": "condensation",
            "args": {
                "forgotten_events_start_id": 2,
                "forgotten_events_end_id": 5,
                "summary": "",
                "summary_offset": 0,
            },
        }
    )
    assert isinstance(ok, CondensationAction) and ok.forgotten == [2, 3, 4, 5]
    # An empty summary does not count as a summary for the message.
    assert ok.message == "Condenser is dropping the events: [2, 3, 4, 5]."


def test_cmd_output_legacy_keys_override_metadata() -> None:
    event = event_from_dict(
        {
            "observation": "run",
            "content": "",
            "extras": {
                "command": "ls",
                "metadata": {"exit_code": 0, "pid": 1, "working_dir": "/w"},
                "exit_code": 2,
                "command_id": 77,
            },
        }
    )
    meta = event_to_dict(event)["extras"]["metadata"]
    assert (meta["exit_code"], meta["pid"], meta["working_dir"]) == (2, 77, "/w")
    assert event_to_dict(event)["success"] is False


def test_cmd_output_constructor_accepts_legacy_keywords() -> None:
    obs = CmdOutputObservation("out", command="make", exit_code=0, command_id=12)
    assert (obs.exit_code, obs.command_id, obs.success, obs.error) == (0, 12, True, False)
    assert obs.metadata.exit_code == 0 and obs.metadata.pid == 12


def test_file_edit_observation_diff_cache_is_accepted_back() -> None:
    data = {
        "observation": "edit",
        "content": "",
        "extras": {
            "path": "/f",
            "prev_exist": True,
            "old_content": "a",
            "new_content": "b",
            "impl_source": "llm_based_edit",
            "diff": None,
            "_diff_cache": "pre-rendered diff",
        },
    }
    event = event_from_dict(copy.deepcopy(data))
    assert isinstance(event, FileEditObservation)
    # The stored rendering is used as is, not recomputed.
    assert event.visualize_diff() == "pre-rendered diff"
    assert str(event) == "pre-rendered diff\n"
    assert event_to_dict(event)["extras"] == data["extras"]


def test_recall_action_requires_its_type() -> None:
    with pytest.raises(LLMMalformedActionError):
        event_from_dict({"action": "recall", "args": {"query": "x"}})
    assert isinstance(
        event_from_dict({"action": "recall", "args": {"recall_type": "knowledge"}}), RecallAction
    )
