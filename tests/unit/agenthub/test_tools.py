"""CodeActAgent's tool list and the exact tool schemas (spec §2.1, §2.2, checklist 1-2)."""

from __future__ import annotations

from typing import Any

import pytest

from openhands.agenthub.codeact_agent import CodeActAgent
from openhands.agenthub.codeact_agent.function_calling import check_tools
from openhands.agenthub.codeact_agent.tools import (
    BrowserTool,
    CondensationRequestTool,
    FinishTool,
    IPythonTool,
    LLMBasedFileEditTool,
    ThinkTool,
    create_cmd_run_tool,
    create_str_replace_editor_tool,
    create_task_tracker_tool,
)
from openhands.agenthub.codeact_agent.tools.browser import BROWSER_FUNCTIONS
from openhands.agenthub.codeact_agent.tools.str_replace_editor import workspace_path_hint
from openhands.core.config import LLMConfig
from tests.unit.agenthub.agents import agent_config, registry

RISK = {"type": "string", "enum": ["LOW", "MEDIUM", "HIGH"]}


def _names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def _shape(tool: dict[str, Any]) -> dict[str, Any]:
    """The schema without descriptions (those are free text)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "description"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    assert tool["type"] == "function"
    assert isinstance(tool["function"]["description"], str) and tool["function"]["description"]
    return strip(tool["function"]["parameters"])


def test_default_tools_in_order() -> None:
    agent = CodeActAgent(agent_config(), registry())
    assert _names(agent.tools) == [
        "execute_bash",
        "think",
        "finish",
        "browser",
        "execute_ipython_cell",
        "task_tracker",
        "str_replace_editor",
    ]


def test_flags_switch_tools() -> None:
    config = agent_config(
        enable_condensation_request=True,
        enable_llm_editor=True,
        enable_browsing=False,
        enable_jupyter=False,
        enable_plan_mode=False,
        enable_think=False,
    )
    agent = CodeActAgent(config, registry())
    assert _names(agent.tools) == ["execute_bash", "finish", "request_condensation", "edit_file"]

    none = agent_config(
        enable_cmd=False,
        enable_think=False,
        enable_finish=False,
        enable_browsing=False,
        enable_jupyter=False,
        enable_plan_mode=False,
        enable_editor=False,
    )
    assert CodeActAgent(none, registry()).tools == []


def test_execute_bash_schema() -> None:
    assert _shape(create_cmd_run_tool()) == {
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "is_input": {"type": "string", "enum": ["true", "false"]},
            "timeout": {"type": "number"},
            "security_risk": RISK,
        },
        "required": ["command", "security_risk"],
    }


def test_simple_tool_schemas() -> None:
    assert _shape(ThinkTool) == {
        "type": "object",
        "properties": {"thought": {"type": "string"}},
        "required": ["thought"],
    }
    assert _shape(FinishTool) == {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    }
    assert _shape(CondensationRequestTool) == {"type": "object", "properties": {}, "required": []}
    for tool in (BrowserTool, IPythonTool):
        assert _shape(tool) == {
            "type": "object",
            "properties": {"code": {"type": "string"}, "security_risk": RISK},
            "required": ["code", "security_risk"],
        }
    assert _names([ThinkTool, FinishTool, CondensationRequestTool, BrowserTool, IPythonTool]) == [
        "think",
        "finish",
        "request_condensation",
        "browser",
        "execute_ipython_cell",
    ]


def test_browser_description_lists_the_fifteen_functions() -> None:
    description = BrowserTool["function"]["description"]
    names = [signature.split("(")[0] for signature, _, _ in BROWSER_FUNCTIONS]
    assert names == [
        "goto",
        "go_back",
        "go_forward",
        "noop",
        "scroll",
        "fill",
        "select_option",
        "click",
        "dblclick",
        "hover",
        "press",
        "focus",
        "clear",
        "drag_and_drop",
        "upload_file",
    ]
    for name in names:
        assert f"\n{name}(" in description


def test_task_tracker_schema() -> None:
    assert _shape(create_task_tracker_tool()) == {
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": ["view", "plan"]},
            "task_list": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "title": {"type": "string"},
                        "status": {"type": "string", "enum": ["todo", "in_progress", "done"]},
                        "notes": {"type": "string"},
                    },
                    "required": ["id", "title", "status"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }


def test_str_replace_editor_schema() -> None:
    assert _shape(create_str_replace_editor_tool()) == {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
            },
            "path": {"type": "string"},
            "file_text": {"type": "string"},
            "old_str": {"type": "string"},
            "new_str": {"type": "string"},
            "insert_line": {"type": "integer"},
            "view_range": {"type": "array", "items": {"type": "integer"}},
            "security_risk": RISK,
        },
        "required": ["command", "path", "security_risk"],
    }


def test_edit_file_schema() -> None:
    assert _shape(LLMBasedFileEditTool) == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "start": {"type": "integer"},
            "end": {"type": "integer"},
            "security_risk": RISK,
        },
        "required": ["path", "content", "security_risk"],
    }


def test_short_descriptions_same_schemas() -> None:
    for factory in (create_cmd_run_tool, create_str_replace_editor_tool, create_task_tracker_tool):
        long, short = factory(), factory(use_short_description=True)
        assert _shape(long) == _shape(short)
        assert len(short["function"]["description"]) < len(long["function"]["description"])


@pytest.mark.parametrize(
    ("model", "short"),
    [
        ("gpt-4o", True),
        ("openai/o3-mini", True),
        ("o1-preview", True),
        ("o4-mini", True),
        ("claude-sonnet-4-20250514", False),
        ("openai/test-model", False),
    ],
)
def test_short_descriptions_by_model(model: str, short: bool) -> None:
    agent = CodeActAgent(agent_config(), registry(LLMConfig(model=model)))
    by_name = {t["function"]["name"]: t for t in agent.tools}
    for name, factory in (
        ("execute_bash", create_cmd_run_tool),
        ("task_tracker", create_task_tracker_tool),
        ("str_replace_editor", create_str_replace_editor_tool),
    ):
        expected = factory(use_short_description=short)["function"]["description"]
        assert by_name[name]["function"]["description"] == expected


def test_workspace_path_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.delenv("SANDBOX_VOLUMES", raising=False)
    assert workspace_path_hint("docker") == "/workspace"
    assert workspace_path_hint(None) == "/workspace"
    monkeypatch.chdir(tmp_path)
    assert workspace_path_hint("local") == str(tmp_path)
    monkeypatch.setenv("SANDBOX_VOLUMES", "/data:/data:ro,/home/me/proj:/workspace:rw")
    assert workspace_path_hint("cli") == "/home/me/proj"
    tool = create_str_replace_editor_tool(runtime_type="cli")
    assert "/home/me/proj" in tool["function"]["parameters"]["properties"]["path"]["description"]


def test_editor_workspace_path_from_env_and_explicit_override(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from openhands.agenthub.codeact_agent.tools.str_replace_editor import (
        _get_workspace_mount_path_from_env,
    )

    monkeypatch.chdir(tmp_path)
    # a relative host side of the /workspace mount is reported as an absolute path
    monkeypatch.setenv("SANDBOX_VOLUMES", "./sub/dir:/workspace:rw")
    assert _get_workspace_mount_path_from_env("local") == str(tmp_path / "sub" / "dir")
    # sandboxed runtimes always see /workspace
    assert _get_workspace_mount_path_from_env("remote") == "/workspace"
    # the explicit path (second positional parameter) wins over the environment
    tool = create_str_replace_editor_tool(False, "/srv/code", "local")
    desc = tool["function"]["parameters"]["properties"]["path"]["description"]
    assert "/srv/code/" in desc
    assert str(tmp_path) not in desc


def test_check_tools_strips_defaults_and_formats_for_gemini() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "t",
                "description": "d",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "string", "default": "x", "format": "uri"},
                        "b": {"type": "string", "format": "date-time"},
                        "c": {"type": "string", "format": "enum", "enum": ["p"]},
                        "d": {"type": "integer", "default": 2},
                    },
                },
            },
        }
    ]
    assert check_tools(tools, "gpt-4o") is tools
    checked = check_tools(tools, "gemini/gemini-2.5-pro")
    props = checked[0]["function"]["parameters"]["properties"]
    assert props == {
        "a": {"type": "string"},
        "b": {"type": "string", "format": "date-time"},
        "c": {"type": "string", "format": "enum", "enum": ["p"]},
        "d": {"type": "integer"},
    }
    assert "default" in tools[0]["function"]["parameters"]["properties"]["a"]  # original intact


SHORT_DESCRIPTION_MODELS = ["gpt-4o", "openai/gpt-4.1", "o1-preview", "openai/o3-mini", "o4-mini"]


@pytest.mark.parametrize("model", SHORT_DESCRIPTION_MODELS)
def test_models_with_a_description_limit_get_every_tool_under_1024_chars(model: str) -> None:
    # python-api.md §11 (defect a5): for these models every tool description the agent can be
    # offered stays under 1,024 characters, the browser tool's included.
    from openhands.agenthub.loc_agent.loc_agent import LocAgent
    from openhands.agenthub.readonly_agent.readonly_agent import ReadOnlyAgent

    everything_on = agent_config(
        enable_cmd=True,
        enable_think=True,
        enable_finish=True,
        enable_condensation_request=True,
        enable_browsing=True,
        enable_jupyter=True,
        enable_plan_mode=True,
        enable_editor=True,
    )
    offered: list[dict[str, Any]] = []
    for agent_cls in (CodeActAgent, ReadOnlyAgent, LocAgent):
        offered += agent_cls(everything_on, registry(LLMConfig(model=model))).tools
    llm_editor = CodeActAgent(
        agent_config(enable_llm_editor=True), registry(LLMConfig(model=model))
    ).tools
    offered += llm_editor
    names = {t["function"]["name"] for t in offered}
    assert {"browser", "execute_bash", "str_replace_editor", "edit_file", "task_tracker"} <= names
    for tool in offered:
        description = tool["function"]["description"]
        assert len(description) < 1024, (tool["function"]["name"], len(description))


def test_browser_description_examples_are_runnable_action_code() -> None:
    # The compact description keeps the calling convention the sandbox browser parses.
    from openhands.runtime.browser.actions import parse_actions

    description = BrowserTool["function"]["description"]
    example = description.split("Example:\n", 1)[1]
    calls = parse_actions(example)
    assert [c.name for c in calls] == ["fill", "click"]
    for line in description.split("Functions:\n", 1)[1].split("\n\n", 1)[0].splitlines():
        name = line.split("(", 1)[0]
        # Every listed function is one the sandbox accepts (checked with minimal arguments).
        args = {
            "goto": "'http://x'",
            "go_back": "",
            "go_forward": "",
            "noop": "",
            "scroll": "0, 1",
            "drag_and_drop": "'1', '2'",
            "select_option": "'1', 'a'",
            "fill": "'1', 'v'",
            "press": "'1', 'Enter'",
            "upload_file": "'1', '/f'",
        }.get(name, "'1'")
        assert [c.name for c in parse_actions(f"{name}({args})")] == [name]


def test_browser_description_constants() -> None:
    from openhands.agenthub.codeact_agent.tools.browser import (
        _BROWSER_DESCRIPTION,
        _BROWSER_TOOL_DESCRIPTION,
        BrowserTool,
    )

    assert BrowserTool["function"]["description"] == _BROWSER_DESCRIPTION
    for call in ("goto(", "go_back()", "select_option(", "drag_and_drop(", "upload_file("):
        assert call in _BROWSER_TOOL_DESCRIPTION
    assert _BROWSER_TOOL_DESCRIPTION in _BROWSER_DESCRIPTION
