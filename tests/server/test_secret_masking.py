"""Custom secrets are masked where they are stored and shown, never where they are used.

A real server (LocalRuntime) with a stored custom secret; the scripted model answers "write
the files" with a command that holds the secret's value literally (a model that knows the
value) and also reads it from the environment. The agent itself only ever sees the masked
form (the user's message, its own past command); the runtime gets the real one. The command
runs with the real value (the files it writes hold it), while the stored event files, the
REST event list and the socket's `oh_event`s show `<secret_hidden>` and never the value.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import scripted_agent, settle, start_server, wait_agent_state
from tests.server.server_process import ServerProcess
from tests.support.scripted_llm import ScriptedLLMServer, ScriptItem, tool_call
from tests.unit.server.socket_client import Recorder

SECRET = f"lit-{secrets.token_hex(10)}"
MASK = "<secret_hidden>"


def command_for(out_dir: Path) -> str:
    literal, env = out_dir / "literal.txt", out_dir / "env.txt"
    return f"echo literal:{SECRET} > {literal} && echo env:$MY_LITERAL > {env}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    def model(body: dict[str, Any]) -> ScriptItem:
        messages = body.get("messages") or []
        last = messages[-1] if messages else {}
        if body.get("tools") and last.get("role") == "user" and "write the files" in str(last):
            return tool_call(
                "execute_bash", {"command": command_for(tmp_path), "security_risk": "LOW"}
            )
        return scripted_agent(body)

    llm = ScriptedLLMServer([], fallback=model).start()
    process = start_server(tmp_path / "masking", llm)
    try:
        yield process
    finally:
        process.stop()
        llm.stop()


def _run_action(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(
        e for e in events if e.get("action") == "run" and "literal:" in e["args"]["command"]
    )


async def test_commands_use_the_secret_while_clients_see_it_masked(
    server: ServerProcess, tmp_path: Path, sockets: Callable[[], Recorder]
) -> None:
    literal_file = tmp_path / "literal.txt"
    env_file = tmp_path / "env.txt"
    command = command_for(tmp_path)
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        stored = await http.post(
            "/api/secrets", json={"name": "MY_LITERAL", "value": SECRET, "description": "t"}
        )
        assert stored.status_code == 201, stored.text
        created = await http.post("/api/conversations", json={"initial_user_msg": "hello"})
        assert created.status_code == 200, created.text
        conversation_id = created.json()["conversation_id"]
        before = await settle(http, conversation_id)

        socket = sockets()
        await socket.connect(server.url, conversation_id=conversation_id)
        message = {"action": "message", "args": {"content": "write the files"}}
        await socket.emit("oh_user_action", message)
        events = await wait_agent_state(
            http, conversation_id, "awaiting_user_input", after_id=before[-1]["id"]
        )
        observation = await socket.wait_for(
            lambda e: e.get("observation") == "run" and e.get("cause") is not None
        )
        assert observation["extras"]["metadata"]["exit_code"] == 0, observation

    # The command ran with the real value, literally and from the environment.
    assert literal_file.read_text() == f"literal:{SECRET}\n"
    assert env_file.read_text() == f"env:{SECRET}\n"

    # REST: masked.
    action = _run_action(events)
    assert action["args"]["command"] == command.replace(SECRET, MASK)
    assert SECRET not in json.dumps(events)

    # Socket: masked.
    live = _run_action(socket.events)
    assert live["args"]["command"] == command.replace(SECRET, MASK)
    assert SECRET not in json.dumps(socket.events)

    # Event files on disk: masked.
    events_dir = server.store / "sessions" / conversation_id
    blobs = "".join(p.read_text() for p in events_dir.rglob("*.json"))
    assert MASK in blobs
    assert SECRET not in blobs
