"""ReadOnlyAgent, LocAgent, DummyAgent, BrowsingAgent and the registry (spec §10)."""

from __future__ import annotations

import json
import shlex

import pytest

import openhands.agenthub as agenthub
from openhands.agenthub.browsing_agent import BrowsingAgent, VisualBrowsingAgent
from openhands.agenthub.browsing_agent.axtree import flatten_axtree
from openhands.agenthub.browsing_agent.response_parser import parse_action
from openhands.agenthub.dummy_agent import DummyAgent
from openhands.agenthub.loc_agent import LocAgent
from openhands.agenthub.loc_agent.function_calling import response_to_actions as loc_actions
from openhands.agenthub.readonly_agent import ReadOnlyAgent
from openhands.agenthub.readonly_agent.function_calling import (
    response_to_actions as readonly_actions,
)
from openhands.controller.agent import Agent
from openhands.core.exceptions import FunctionCallNotExistsError, FunctionCallValidationError
from openhands.events.action import (
    AgentFinishAction,
    AgentRejectAction,
    BrowseInteractiveAction,
    CmdRunAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MessageAction,
)
from openhands.events.event import EventSource, FileReadSource
from openhands.events.observation import BrowserOutputObservation
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.agenthub.agents import agent_config, registry, state_with, user_message
from tests.unit.agenthub.responses import model_response


def test_every_agent_is_registered() -> None:
    for name, cls in agenthub.AGENTS.items():
        assert Agent.get_cls(name) is cls
    assert set(agenthub.AGENTS) == {
        "CodeActAgent",
        "ReadOnlyAgent",
        "LocAgent",
        "BrowsingAgent",
        "VisualBrowsingAgent",
        "DummyAgent",
    }


# --- ReadOnlyAgent ---------------------------------------------------------------------------


def test_readonly_tools_and_prompt() -> None:
    agent = ReadOnlyAgent(agent_config(), registry())
    assert [t["function"]["name"] for t in agent.tools] == [
        "think",
        "finish",
        "grep",
        "glob",
        "view",
    ]
    assert agent.VERSION == "1.0"
    system = agent.get_system_message()
    assert system is not None and "read-only" in system.content
    agent.set_mcp_tools(
        [{"type": "function", "function": {"name": "m", "description": "", "parameters": {}}}]
    )
    assert len(agent.tools) == 5


def test_readonly_grep_glob_view() -> None:
    grep, glob, view = readonly_actions(
        model_response(
            ("grep", {"pattern": "def main", "path": "/w", "include": "*.py"}),
            ("glob", {"pattern": "**/*.md"}),
            ("view", {"path": "/w/a.py", "view_range": [1, 5]}),
        )
    )
    assert isinstance(grep, CmdRunAction)
    assert f"rg -li {shlex.quote('def main')} --sortr=modified --glob '*.py' /w | head -n 100" in (
        grep.command
    )
    assert grep.command.startswith("echo ")
    assert isinstance(glob, CmdRunAction)
    assert "rg --files . -g '**/*.md' --sortr=modified | head -n 100" in glob.command
    assert isinstance(view, FileReadAction)
    assert (view.view_range, view.impl_source) == ([1, 5], FileReadSource.OH_ACI)
    with pytest.raises(FunctionCallValidationError):
        readonly_actions(model_response(("grep", {})))
    with pytest.raises(FunctionCallNotExistsError):
        readonly_actions(model_response(("execute_bash", {"command": "rm -rf /"})))


# --- LocAgent --------------------------------------------------------------------------------


def test_loc_tools_and_kernel_calls() -> None:
    agent = LocAgent(agent_config(), registry())
    assert [t["function"]["name"] for t in agent.tools] == [
        "finish",
        "search_code_snippets",
        "get_entity_contents",
        "explore_tree_structure",
    ]
    explore = agent.tools[3]["function"]["parameters"]
    assert explore["required"] == ["start_entities"]
    assert explore["properties"]["direction"]["enum"] == ["upstream", "downstream", "both"]
    assert agent.tools[1]["function"]["parameters"]["required"] == []

    (action,) = loc_actions(model_response(("search_code_snippets", {"search_terms": ["Foo"]})))
    assert isinstance(action, IPythonRunCellAction)
    assert action.code == "print(search_code_snippets(**{'search_terms': ['Foo']}))"


# --- DummyAgent ------------------------------------------------------------------------------


def test_dummy_agent_follows_its_script_by_iteration() -> None:
    agent = DummyAgent(agent_config(), registry())
    state = state_with(user_message("go"))
    kinds = []
    for iteration in range(1, 10):
        state.iteration_flag.current_value = iteration
        kinds.append(type(agent.step(state)))
    assert kinds == [
        MessageAction,
        CmdRunAction,
        FileWriteAction,
        FileReadAction,
        CmdRunAction,
        AgentRejectAction,
        AgentFinishAction,
        AgentFinishAction,
        AgentFinishAction,
    ]
    state.iteration_flag.current_value = 2
    first, second = agent.step(state), agent.step(state)
    assert first is not second and first.id == -1


# --- BrowsingAgent ---------------------------------------------------------------------------


def test_parse_fenced_action_and_messages() -> None:
    action = parse_action("I click the button.\n```click('a12')```")
    assert (action.browser_actions, action.thought) == ("click('a12')", "I click the button.")
    assert action.browsergym_send_msg_to_user == ""

    reply = parse_action("Done.\n```send_msg_to_user('The price is $5')```")
    assert reply.browsergym_send_msg_to_user == "The price is $5"

    plain = parse_action("I cannot find it.")
    assert plain.browsergym_send_msg_to_user == "I cannot find it."
    assert plain.browser_actions == 'send_msg_to_user("""I cannot find it.""")'


def test_flatten_axtree() -> None:
    tree = {
        "nodes": [
            {
                "nodeId": "1",
                "role": {"value": "RootWebArea"},
                "name": {"value": "Shop"},
                "childIds": ["2", "3"],
                "browsergym_id": "0",
            },
            {
                "nodeId": "2",
                "role": {"value": "button"},
                "name": {"value": "Buy"},
                "childIds": [],
                "browsergym_id": "12",
            },
            {"nodeId": "3", "role": {"value": "generic"}, "name": {"value": ""}, "childIds": ["4"]},
            {
                "nodeId": "4",
                "role": {"value": "link"},
                "name": {"value": "Home"},
                "childIds": [],
                "browsergym_id": "13",
            },
        ]
    }
    assert flatten_axtree(tree) == (
        "[0] RootWebArea 'Shop'\n  [12] button 'Buy'\n  [13] link 'Home'"
    )


def test_browsing_agent_step(scripted_llm: ScriptedLLMServer) -> None:
    agent = BrowsingAgent(agent_config(), registry(scripted_llm.llm_config()))
    page = BrowserOutputObservation(
        content="page",
        url="http://localhost:8000",
        trigger_by_action="browse_interactive",
        axtree_object={
            "nodes": [
                {
                    "nodeId": "1",
                    "role": {"value": "button"},
                    "name": {"value": "Buy"},
                    "childIds": [],
                    "browsergym_id": "7",
                }
            ]
        },
    )
    previous = BrowseInteractiveAction(browser_actions="goto('http://localhost:8000')")
    state = state_with(user_message("Buy the item"), previous, page)
    scripted_llm.push(s.text("The buy button is 7.\n```click('7'"))
    action = agent.step(state)
    assert isinstance(action, BrowseInteractiveAction)
    assert action.browser_actions == "click('7')"
    body = scripted_llm.last_request.body or {}
    assert body["stop"] == [")```", ")\n```"]
    prompt = json.dumps(body["messages"])
    assert "Buy the item" in prompt and "[7] button 'Buy'" in prompt
    assert "goto('http://localhost:8000')" in prompt


def test_browsing_agent_hands_back_and_finishes() -> None:
    agent = BrowsingAgent(agent_config(), registry())
    said = BrowseInteractiveAction(
        browser_actions="send_msg_to_user('42')", browsergym_send_msg_to_user="42"
    )
    message = agent.step(state_with(user_message("q"), said))
    assert isinstance(message, MessageAction) and message.content == "42"

    answer = MessageAction(content="42")
    answer.source = EventSource.AGENT
    finish = agent.step(state_with(user_message("q"), said, answer))
    assert isinstance(finish, AgentFinishAction)
    assert finish.outputs == {"content": "42"}


def test_browsing_agent_gives_up_after_repeated_errors() -> None:
    agent = BrowsingAgent(agent_config(), registry())
    failed = BrowserOutputObservation(
        content="", url="http://x", trigger_by_action="browse_interactive", error=True
    )
    agent.error_count = 5
    action = agent.step(state_with(user_message("q"), failed))
    assert isinstance(action, MessageAction)
    assert agent.error_count == 6


def test_visual_browsing_agent_is_a_browsing_agent() -> None:
    assert issubclass(VisualBrowsingAgent, BrowsingAgent)
