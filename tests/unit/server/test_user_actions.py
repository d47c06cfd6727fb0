"""parse_user_action: what a browser may append to a conversation (server-api §7.6)."""

from __future__ import annotations

from typing import Any

import pytest

from openhands.events.action import ChangeAgentStateAction, CmdRunAction, MessageAction
from openhands.server.session.user_actions import InvalidUserActionError, parse_user_action


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        # What the 0.59 frontend sends.
        (
            {
                "action": "message",
                "args": {
                    "content": "hi",
                    "image_urls": ["data:image/png;base64,AAAA"],
                    "file_urls": ["/workspace/a.txt"],
                    "timestamp": "2025-10-10T10:00:00.000Z",
                },
            },
            MessageAction,
        ),
        (
            {"action": "change_agent_state", "args": {"agent_state": "stopped"}},
            ChangeAgentStateAction,
        ),
        (
            {"action": "change_agent_state", "args": {"agent_state": "user_confirmed"}},
            ChangeAgentStateAction,
        ),
        ({"action": "run", "args": {"command": "ls", "hidden": False}}, CmdRunAction),
        ({"action": "message", "args": {"content": ""}}, MessageAction),
    ],
)
def test_frontend_actions_are_accepted(payload: dict[str, Any], expected: type) -> None:
    assert isinstance(parse_user_action(payload), expected)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("text", "JSON object"),
        (["a"], "JSON object"),
        ({}, "Only actions"),
        ({"observation": "run", "content": "x", "extras": {}}, "Only actions"),
        ({"action": "no_such_action", "args": {}}, "Invalid action"),
        ({"action": "message", "args": "text"}, "Invalid action"),
        ({"action": "message", "args": {"content": {"a": 1}}}, "content"),
        ({"action": "message", "args": {"content": "x", "image_urls": "one"}}, "image_urls"),
        (
            {"action": "message", "args": {"content": "x", "wait_for_response": "yes"}},
            "wait_for_response",
        ),
        ({"action": "run", "args": {"command": 7}}, "command"),
        ({"action": "change_agent_state", "args": {"agent_state": "sleepy"}}, "agent state"),
    ],
)
def test_malformed_payloads_are_refused(payload: Any, reason: str) -> None:
    with pytest.raises(InvalidUserActionError, match=reason):
        parse_user_action(payload)
