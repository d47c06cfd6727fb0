"""The security analyzer a user picks reaches the agent controller of a server conversation.

Settings: confirmation mode on, the ``llm`` analyzer (it trusts the risk the model gives each
tool call). A LOW-risk command runs without asking; a HIGH-risk one waits for the user
(``awaiting_user_confirmation``) and runs once confirmed. The conversation's security route
reaches the analyzer (it is not a 404).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import (
    agent_states,
    scripted_agent,
    settings_body,
    stop,
    wait_agent_state,
    wait_status,
)
from tests.server.server_process import ServerProcess
from tests.support.scripted_llm import ScriptedLLMServer, ScriptItem, tool_call

RISKY = "risky: "


def _agent(body: dict[str, Any]) -> ScriptItem:
    """The suite's scripted agent, plus ``risky: <command>``: run it, rated HIGH."""
    messages = body.get("messages") or []
    if body.get("tools") and messages and messages[-1].get("role") == "user":
        # What the user said since the assistant's last turn: the workspace context the
        # agent adds may come after the user's message, as a user message of its own.
        turn: list[str] = []
        for message in reversed(messages):
            if message.get("role") != "user":
                break
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            turn.insert(0, content if isinstance(content, str) else "")
        lines = "\n".join(turn).splitlines()
        risky = [line for line in lines if line.startswith(RISKY)]
        if risky:
            command = risky[-1][len(RISKY) :]
            return tool_call("execute_bash", {"command": command, "security_risk": "HIGH"})
    return scripted_agent(body)


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer([], fallback=_agent).start()
    try:
        yield server
    finally:
        server.stop()


def _runs(events: list[dict[str, Any]], command: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("action") == "run" and e["args"]["command"] == command]


def _outputs(events: list[dict[str, Any]], action_ids: set[int]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("observation") == "run" and e.get("cause") in action_ids]


async def test_the_chosen_analyzer_decides_what_asks_for_confirmation(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    server = ServerProcess(tmp_path / "server").start()
    conversation_id = ""
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
            settings = settings_body(llm.base_url, confirmation_mode=True, security_analyzer="llm")
            stored = await http.post("/api/settings", json=settings)
            assert stored.status_code == 200, stored.text

            # LOW: runs at once, nobody is asked.
            created = await http.post(
                "/api/conversations", json={"initial_user_msg": "run: echo low-risk"}
            )
            assert created.status_code == 200, created.text
            conversation_id = created.json()["conversation_id"]
            await wait_status(http, conversation_id, "RUNNING")
            events = await wait_agent_state(http, conversation_id, "awaiting_user_input")
            low = _runs(events, "echo low-risk")
            assert len(low) == 1 and low[0]["args"]["security_risk"] == 0
            output = _outputs(events, {low[0]["id"]})
            assert len(output) == 1 and output[0]["content"].strip() == "low-risk"
            assert "awaiting_user_confirmation" not in agent_states(events)
            before = max(e["id"] for e in events)

            # HIGH: the agent waits for the user, and nothing runs yet.
            sent = await http.post(
                f"/api/conversations/{conversation_id}/message",
                json={"message": f"{RISKY}echo high-risk"},
            )
            assert sent.status_code == 200, sent.text
            events = await wait_agent_state(
                http,
                conversation_id,
                "awaiting_user_confirmation",
                before,
                until=lambda stored: bool(_runs(stored, "echo high-risk")),
            )
            high = _runs(events, "echo high-risk")
            assert len(high) == 1, [
                (e["id"], e.get("action") or e.get("observation"), str(e.get("message"))[:60])
                for e in events
                if e["id"] > before
            ]
            assert high[0]["args"]["security_risk"] == 2
            assert high[0]["args"]["confirmation_state"] == "awaiting_confirmation"
            assert _outputs(events, {high[0]["id"]}) == []

            # The conversation's security route reaches the analyzer.
            security = await http.get(f"/api/conversations/{conversation_id}/security/settings")
            assert security.status_code == 200, security.text
            assert security.json() == {"status": "ok", "analyzer": "llm"}

            # Confirmed: it runs, and the agent waits for the user again.
            asked = max(e["id"] for e in events)
            confirmed = await http.post(
                f"/api/conversations/{conversation_id}/events",
                json={"action": "change_agent_state", "args": {"agent_state": "user_confirmed"}},
            )
            assert confirmed.status_code == 200, confirmed.text
            events = await wait_agent_state(http, conversation_id, "awaiting_user_input", asked)
            ran = [e for e in _runs(events, "echo high-risk") if e["id"] > asked]
            assert ran and ran[0]["args"]["confirmation_state"] == "confirmed"
            output = _outputs(events, {e["id"] for e in ran})
            assert len(output) == 1 and output[0]["content"].strip() == "high-risk"
            await stop(http, conversation_id)
    except BaseException:
        print(server.log_tail(120))
        raise
    finally:
        server.stop()
