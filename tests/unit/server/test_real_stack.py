"""The server over the real agent stack: AgentController, Memory, LLMRegistry and the
LocalRuntime (a local action execution server), with a tiny scripted agent."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import socketio
from pydantic import SecretStr

from openhands.controller.agent import Agent
from openhands.core.config import OpenHandsConfig
from openhands.events.action import Action, MessageAction
from openhands.server.app import create_app
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import Harness, serve
from tests.unit.server.socket_client import Recorder

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="LocalRuntime needs tmux")


class ServerEchoAgent(Agent):
    """Answers every user message with `echo: <text>` and waits for the next one."""

    def step(self, state: Any) -> Action:
        last = state.get_last_user_message()
        return MessageAction(f"echo: {last.content if last else ''}", wait_for_response=True)


Agent.register("ServerEchoAgent", ServerEchoAgent)


@pytest.fixture
async def real_server(tmp_path: Path, monkeypatch) -> AsyncIterator[tuple[Harness, str]]:
    monkeypatch.setenv("SKIP_DEPENDENCY_CHECK", "1")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    config = OpenHandsConfig(
        file_store="local",
        file_store_path=str(tmp_path / "store"),
        runtime="local",
        workspace_base=str(workspace),
        jwt_secret=SecretStr("real-stack-secret-of-32-bytes-or-more"),
    )
    server = ServerConfig(rate_limit_enabled=False, serve_frontend=False)
    app = create_app(config, server)
    asgi_app = socketio.ASGIApp(app.state.sio, other_asgi_app=app)
    async with serve(asgi_app) as url, httpx.AsyncClient(base_url=url, timeout=60) as client:
        yield Harness(app, client, workspace), url


async def wait_running_within(harness: Harness, conversation_id: str, timeout: float) -> None:
    """Poll until the conversation is RUNNING with a ready runtime; fail after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        info = (await harness.client.get(f"/api/conversations/{conversation_id}")).json()
        if info["status"] == "RUNNING" and info["runtime_status"] == "STATUS$READY":
            return
        assert loop.time() < deadline, f"{conversation_id} never became RUNNING: {info}"
        await asyncio.sleep(0.1)


async def test_conversation_over_the_real_stack(real_server) -> None:
    harness, url = real_server
    await harness.store_settings(agent="ServerEchoAgent", enable_default_condenser=False)
    (harness.workspace / "readme.md").write_text("hello")
    created = await harness.client.post("/api/conversations", json={})
    conversation_id = created.json()["conversation_id"]
    # The local action server takes seconds to come up (more on a busy machine).
    await wait_running_within(harness, conversation_id, timeout=120.0)
    client = Recorder()
    try:
        await client.connect(url, conversation_id=conversation_id)
        await client.wait_for(
            lambda e: (
                e.get("observation") == "agent_state_changed"
                and e["extras"]["agent_state"] == "awaiting_user_input"
            ),
            timeout=60,
        )
        await client.emit("oh_user_action", {"action": "message", "args": {"content": "ping"}})
        reply = await client.wait_for(lambda e: e.get("message") == "echo: ping", timeout=60)
        assert reply["source"] == "agent"
        files = await harness.client.get(f"/api/conversations/{conversation_id}/list-files")
        assert "readme.md" in files.json()
        code = await harness.client.get(
            f"/api/conversations/{conversation_id}/select-file", params={"file": "readme.md"}
        )
        assert code.json() == {"code": "hello"}
    finally:
        await client.close()
    stopped = await harness.client.post(f"/api/conversations/{conversation_id}/stop")
    assert stopped.json()["message"] == "Conversation stopped successfully"
    assert os.path.exists(harness.workspace / "readme.md")
