"""The background warm-up of a fresh server (issue: hardening, slow first conversation).

With the warm-up on, a server serves right away while it imports LiteLLM, the agent and the
runtime in a background thread. Requests and a conversation started at once, while those
imports run, must work as usual: the model list waits for the LiteLLM import instead of
importing in parallel, and the conversation's own imports share Python's import locks with
the warm-up (no deadlock, no half-initialized module). How fast this is, is measured in
bench/first_conversation.py, not here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from tests.server.helpers import settings_body, stop, wait_agent_state, wait_status
from tests.server.server_process import ServerProcess
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

WARM_UP_DONE = "Warm-up done"


async def _wait_for_log(server: ServerProcess, text: str, timeout: float = 120) -> str:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        log = server.log_path.read_text(errors="replace")
        if text in log:
            return log
        assert loop.time() < deadline, f"no {text!r} in the server log:\n{log[-3000:]}"
        await asyncio.sleep(0.1)


async def test_requests_and_a_conversation_during_the_warm_up(tmp_path: Path) -> None:
    def agent(body: dict) -> s.ScriptItem:
        return s.text("Hello there" if body.get("tools") else "A title")

    with (
        ScriptedLLMServer([], fallback=agent) as llm,
        ServerProcess(tmp_path / "server", env={"OPENHANDS_WARMUP": "true"}) as server,
    ):
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
            stored = await client.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200, stored.text
            # Both at once, right after start-up, while the warm-up imports.
            created, models = await asyncio.gather(
                client.post("/api/conversations", json={"initial_user_msg": "hi"}),
                client.get("/api/options/models"),
            )
            assert models.status_code == 200
            listed = models.json()
            assert listed == sorted(listed) and "openai/gpt-4o" in listed
            assert created.status_code == 200, created.text
            conversation_id = created.json()["conversation_id"]
            await wait_status(client, conversation_id, "RUNNING")
            events = await wait_agent_state(client, conversation_id, "awaiting_user_input")
            assert any(e.get("action") == "message" and e.get("source") == "agent" for e in events)
            log = await _wait_for_log(server, WARM_UP_DONE)
            assert "Warm-up step" not in log  # no step failed
            assert (await client.get("/api/options/models")).json() == listed
            await stop(client, conversation_id)
