"""The whole path with real parts: a server process, CodeActAgent through LiteLLM against a
scripted LLM server over HTTP, a Docker sandbox, a Socket.IO client watching live; then a
crash (SIGKILL) and a restart on the same file store.

After the restart the conversation's list entry, metadata and every event are as before
the crash, and agree with what the socket saw live; a reconnect with ``latest_event_id=N``
replays exactly the events after N.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import (
    SuiteRecorder,
    all_events,
    live_eligible,
    replay_of,
    settings_body,
    stop,
    with_id,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer, ScriptItem, text, tool_call


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

TASK = "Say hi in the shell, then finish."


def _agent(body: dict[str, Any]) -> ScriptItem:
    """echo hi, then finish; title requests (no tools) get a title."""
    if not body.get("tools"):
        return text("Saying hi")
    ran = any(message.get("role") == "tool" for message in body.get("messages", []))
    if not ran:
        return tool_call("execute_bash", {"command": "echo hi", "security_risk": "LOW"})
    return tool_call("finish", {"message": "Said hi."})


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer([], fallback=_agent).start()
    try:
        yield server
    finally:
        server.stop()


def _stamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _remove_sandbox(conversation_id: str) -> None:
    subprocess.run(
        ["docker", "rm", "-f", f"openhands-runtime-{conversation_id}"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )


async def test_docker_run_survives_a_server_crash(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    root = tmp_path / "server"
    config = config_toml(root, runtime="docker")
    server = ServerProcess(root, config=config).start()
    restarted: ServerProcess | None = None
    conversation_id = ""
    socket = SuiteRecorder()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            stored = await http.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200
            created = await http.post("/api/conversations", json={"initial_user_msg": TASK})
            assert created.status_code == 200, created.text
            conversation_id = created.json()["conversation_id"]

            await socket.connect(server.url, conversation_id=conversation_id)
            seen_at_connect = len(socket.events)
            await socket.wait_for(
                lambda e: (
                    e.get("observation") == "agent_state_changed"
                    and e["extras"]["agent_state"] == "finished"
                ),
                timeout=600,
            )
            live = socket.events[seen_at_connect:]
            command = next(e for e in live if e.get("action") == "run")
            assert command["args"]["command"] == "echo hi" and command["source"] == "agent"
            output = next(e for e in live if e.get("observation") == "run")
            assert output["content"].strip() == "hi" and output["cause"] == command["id"]
            assert output["extras"]["metadata"]["exit_code"] == 0
            assert any(e.get("action") == "finish" for e in live)

            before_events = await all_events(http, conversation_id)
            before_info = (await http.get(f"/api/conversations/{conversation_id}")).json()
            before_list = (await http.get("/api/conversations")).json()["results"]
        await socket.close()
        assert before_info["status"] == "RUNNING"

        server.kill()  # SIGKILL: no shutdown, no state saved on the way out
        _remove_sandbox(conversation_id)
        restarted = ServerProcess(root, config=config).start()
        async with httpx.AsyncClient(base_url=restarted.url, timeout=120) as http:
            after_list = (await http.get("/api/conversations")).json()["results"]
            assert [c["conversation_id"] for c in after_list] == [
                c["conversation_id"] for c in before_list
            ]
            after_info = (await http.get(f"/api/conversations/{conversation_id}")).json()
            unchanged = ("title", "created_at", "trigger", "pr_number")
            assert {k: after_info[k] for k in unchanged} == {k: before_info[k] for k in unchanged}
            # The metadata updater may still have been writing the last events' updates when
            # `before_info` was read: the stored time can only have moved on, never back.
            assert _stamp(after_info["last_updated_at"]) >= _stamp(before_info["last_updated_at"])
            assert after_info["title"] == "Saying hi"
            assert after_info["status"] == "STOPPED"
            after_events = await all_events(http, conversation_id)
            assert after_events == before_events

            # What the socket saw live is what is stored (environment shown as agent).
            stored = {e["id"]: e for e in after_events}
            received = with_id(socket.events)
            ids = [e["id"] for e in received]
            assert len(ids) == len(set(ids))
            for event in received:
                original = stored[event["id"]]
                if original["source"] == "environment" and event["source"] == "agent":
                    original = {**original, "source": "agent"}
                assert event == original
            first_live = min(e["id"] for e in live if isinstance(e.get("id"), int))
            expected_live = {i for i, e in stored.items() if i >= first_live and live_eligible(e)}
            assert expected_live <= set(ids), sorted(expected_live - set(ids))

            # A reconnect after event N replays exactly N+1.. (server-api §7.4).
            n = command["id"]
            back = SuiteRecorder()
            try:
                await back.connect(
                    restarted.url, conversation_id=conversation_id, latest_event_id=n
                )
                replayed = [e["id"] for e in with_id(back.events)]
                assert len(replayed) == len(set(replayed))
                expected = replay_of(after_events, n)
                assert replayed[: len(expected)] == expected
                newer = replayed[len(expected) :]
                assert all(i > after_events[-1]["id"] for i in newer)  # the new loop's own
            finally:
                await back.close()
                await stop(http, conversation_id)
    finally:
        await socket.close()
        server.kill()
        if restarted is not None:
            restarted.stop()
        if conversation_id:
            _remove_sandbox(conversation_id)
