"""Stop, then start again at once, on a Docker sandbox: ten times in a row, every start gets
its sandbox back and the agent answers (the start waits for the stop's teardown instead of
attaching to a container that is going away)."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.helpers import (
    START_TIMEOUT,
    all_events,
    scripted_agent,
    settings_body,
    stop,
    wait_agent_state,
    wait_status,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer


def _docker_available() -> bool:
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False


pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif(
        not _docker_available(),
        reason="no Docker engine: run `bash containers/dev/ensure-docker.sh` (make test does)",
    ),
]

ROUNDS = 10


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer([], fallback=scripted_agent).start()
    try:
        yield server
    finally:
        server.stop()


def _remove_sandbox(conversation_id: str) -> None:
    subprocess.run(
        ["docker", "rm", "-f", f"openhands-runtime-{conversation_id}"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )


async def _latest_id(http: httpx.AsyncClient, conversation_id: str) -> int:
    events = await all_events(http, conversation_id)
    return max((e["id"] for e in events), default=-1)


async def _wait_answer(
    http: httpx.AsyncClient, conversation_id: str, content: str, after_id: int
) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        events = await all_events(http, conversation_id)
        if any(
            e["id"] > after_id
            and e.get("action") == "message"
            and e["source"] == "agent"
            and e["args"]["content"] == content
            for e in events
        ):
            return
        await asyncio.sleep(0.25)  # a polling interval, not a synchronisation
    raise AssertionError(f"no agent answer {content!r} after event {after_id}")


async def test_stop_then_start_ten_times_on_docker(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    root = tmp_path / "server"
    server = ServerProcess(root, config=config_toml(root, runtime="docker")).start()
    conversation_id = ""
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            stored = await http.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200, stored.text
            created = await http.post("/api/conversations", json={"initial_user_msg": "hello"})
            assert created.status_code == 200, created.text
            conversation_id = created.json()["conversation_id"]
            await wait_status(http, conversation_id, "RUNNING")
            await wait_agent_state(http, conversation_id, "awaiting_user_input")

            for round_ in range(ROUNDS):
                stopped = await stop(http, conversation_id)
                assert stopped.status_code == 200, stopped.text
                assert stopped.json()["message"] == "Conversation stopped successfully"
                before = await _latest_id(http, conversation_id)
                started = await http.post(f"/api/conversations/{conversation_id}/start", json={})
                assert started.status_code == 200, started.text

                info = await wait_status(http, conversation_id, "RUNNING")
                assert info["runtime_status"] == "STATUS$READY", (round_, info)
                await wait_agent_state(http, conversation_id, "awaiting_user_input", before)
                asked = await _latest_id(http, conversation_id)
                sent = await http.post(
                    f"/api/conversations/{conversation_id}/message",
                    json={"message": f"ping {round_}"},
                )
                assert sent.status_code == 200, sent.text
                await _wait_answer(http, conversation_id, f"echo: ping {round_}", asked)
            await stop(http, conversation_id)
    except BaseException:
        print(server.log_tail(200, access=False))
        raise
    finally:
        server.stop()
        if conversation_id:
            _remove_sandbox(conversation_id)
