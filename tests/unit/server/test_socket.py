"""The Socket.IO protocol over a real uvicorn server (server-api §7)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import socketio

from openhands.core.config import OpenHandsConfig
from openhands.events.action import MessageAction, NullAction, RecallAction
from openhands.events.event import EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    FileReadObservation,
    NullObservation,
)
from openhands.events.stream import EventStream
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import Harness, build_app, serve
from tests.unit.server.socket_client import Recorder
from tests.unit.server.test_conversation_routes import create, wait_running


@contextlib.asynccontextmanager
async def live(
    app_config: OpenHandsConfig, server: ServerConfig, workspace: Path
) -> AsyncIterator[tuple[Harness, str]]:
    app = build_app(app_config, server, workspace)
    asgi_app = socketio.ASGIApp(app.state.sio, other_asgi_app=app)
    async with serve(asgi_app) as url, httpx.AsyncClient(base_url=url) as client:
        yield Harness(app, client, workspace), url


@pytest.fixture
async def live_server(app_config, server_config, workspace) -> AsyncIterator[tuple[Harness, str]]:
    async with live(app_config, server_config, workspace) as pair:
        yield pair


@pytest.fixture
async def recorders() -> AsyncIterator[list[Recorder]]:
    made: list[Recorder] = []
    yield made
    for recorder in made:
        await recorder.close()


def recorder(made: list[Recorder]) -> Recorder:
    r = Recorder()
    made.append(r)
    return r


def message_ids(events: list[dict[str, Any]]) -> list[int]:
    return [e["id"] for e in events if e.get("action") == "message" and "id" in e]


async def test_refusals(live_server, recorders, app_config, workspace) -> None:
    harness, url = live_server
    error = await recorder(recorders).refused(url)
    assert error == {"message": "No conversation_id in query params"}
    error = await recorder(recorders).refused(url, conversation_id="a" * 32)
    assert error == {
        "message": "Settings not found",
        "data": {"msg_id": "CONFIGURATION$SETTINGS_NOT_FOUND"},
    }
    error = await recorder(recorders).refused(url, conversation_id="a..b")
    assert error["message"] == "Conversation ID contains invalid path characters"
    await harness.store_settings()
    error = await recorder(recorders).refused(url, conversation_id="a" * 32, providers_set="svn")
    assert error["message"].startswith("Invalid provider in providers_set")


async def test_session_key_refusal(app_config, workspace, recorders) -> None:
    server = ServerConfig(rate_limit_enabled=False, serve_frontend=False, session_api_key="s3")
    async with live(app_config, server, workspace) as (harness, url):
        await harness.store_settings()
        for query in ({"session_api_key": "wrong"}, {"session_api_key": "null"}, {}):
            error = await recorder(recorders).refused(url, conversation_id="b" * 32, **query)
            assert error == {"message": "invalid_session_api_key"}
        ok = recorder(recorders)
        await ok.connect(url, conversation_id="b" * 32, session_api_key="s3")
        assert ok.client.connected


def seed_events(harness: Harness, conversation_id: str) -> None:
    stream = EventStream(conversation_id, harness.services.file_store)
    stream.add_event(MessageAction("first"), EventSource.USER)  # 0
    stream.add_event(AgentStateChangedObservation("", "running"), EventSource.ENVIRONMENT)  # 1
    stream.add_event(NullAction(), EventSource.AGENT)  # 2
    stream.add_event(
        RecallAction(recall_type="workspace_context", query="first"), EventSource.USER
    )  # 3
    stream.add_event(NullObservation(""), EventSource.ENVIRONMENT)  # 4
    stream.add_event(
        FileReadObservation(content="x", path="/workspace/a"), EventSource.ENVIRONMENT
    )  # 5
    stream.add_event(MessageAction("reply"), EventSource.AGENT)  # 6
    stream.add_event(
        AgentStateChangedObservation("", "awaiting_user_input"), EventSource.ENVIRONMENT
    )  # 7
    stream.close()


async def test_replay_rules(live_server, recorders) -> None:
    harness, url = live_server
    await harness.store_settings()
    conversation_id = "c" * 32
    seed_events(harness, conversation_id)
    client = recorder(recorders)
    await client.connect(url, conversation_id=conversation_id, latest_event_id=-1)
    # The replay is complete by the time the client sees `connect`.
    replayed = [e for e in client.events if isinstance(e.get("id"), int) and e["id"] <= 7]
    assert [e["id"] for e in replayed] == [0, 5, 6, 7]
    assert replayed[-1]["extras"]["agent_state"] == "awaiting_user_input"
    assert replayed[1]["source"] == "environment"  # replayed unchanged
    # Connecting started the loop; its own events follow.
    await client.wait_for(lambda e: e.get("observation") == "agent_state_changed" and e["id"] > 7)
    assert await harness.manager.is_agent_loop_running(conversation_id)

    again = recorder(recorders)
    await again.connect(url, conversation_id=conversation_id, latest_event_id=5)
    assert min(again.ids()) == 6
    assert again.ids() == sorted(set(again.ids())) or len(again.ids()) == len(set(again.ids()))


async def test_live_events_and_relabelling(live_server, recorders) -> None:
    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    client = recorder(recorders)
    await client.connect(url, conversation_id=conversation_id)
    stream = harness.manager.get_agent_session(conversation_id).event_stream
    stream.add_event(
        FileReadObservation(content="secret file", path="/workspace/f"), EventSource.ENVIRONMENT
    )
    stream.add_event(
        CmdOutputObservation(content="ok", command="ls", exit_code=0), EventSource.ENVIRONMENT
    )
    stream.add_event(NullObservation(""), EventSource.AGENT)
    stream.add_event(MessageAction("done"), EventSource.AGENT)
    await client.wait_for(lambda e: e.get("message") == "done")
    run = await client.wait_for(lambda e: e.get("observation") == "run")
    assert run["source"] == "agent"
    assert not any(e.get("observation") in ("read", "null") for e in client.events)


async def test_user_actions(live_server, recorders) -> None:
    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    first, second = recorder(recorders), recorder(recorders)
    await first.connect(url, conversation_id=conversation_id)
    await second.connect(url, conversation_id=conversation_id)
    await first.emit("oh_user_action", {"action": "message", "args": {"content": "hi agent"}})
    for client in (first, second):
        echoed = await client.wait_for(lambda e: e.get("message") == "hi agent")
        assert echoed["source"] == "user" and echoed["action"] == "message"
        await client.wait_for(lambda e: e.get("message") == "echo: hi agent")
    await second.emit("oh_action", {"action": "message", "args": {"content": "legacy"}})
    await first.wait_for(lambda e: e.get("message") == "legacy")
    await first.emit(
        "oh_user_action", {"action": "change_agent_state", "args": {"agent_state": "paused"}}
    )
    paused = await first.wait_for(
        lambda e: (
            e.get("observation") == "agent_state_changed" and e["extras"]["agent_state"] == "paused"
        )
    )
    assert paused["source"] == "agent"
    stored = (
        await harness.client.get(f"/api/conversations/{conversation_id}/events?limit=100")
    ).json()["events"]
    assert any(e.get("message") == "hi agent" and e["source"] == "user" for e in stored)
    # A bad payload is answered to the sender only and never stored.
    await second.emit("oh_user_action", {"action": "no-such-action"})
    error = await second.wait_for(lambda e: e.get("error") is True)
    assert error["message"].startswith("Invalid action")
    await asyncio.sleep(0.2)
    assert not any(e.get("error") for e in first.events)


async def test_disconnect_keeps_the_loop_and_reconnect_resumes(live_server, recorders) -> None:
    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    client = recorder(recorders)
    await client.connect(url, conversation_id=conversation_id)
    await client.emit("oh_user_action", {"action": "message", "args": {"content": "one"}})
    await client.wait_for(lambda e: e.get("message") == "echo: one")
    last_seen = max(client.ids())
    await client.close()
    await asyncio.sleep(0.2)
    assert await harness.manager.is_agent_loop_running(conversation_id)
    assert await harness.manager.get_connections(filter_to_sids={conversation_id}) == {}
    stream = harness.manager.get_agent_session(conversation_id).event_stream
    stream.add_event(MessageAction("while away"), EventSource.AGENT)
    back = recorder(recorders)
    await back.connect(url, conversation_id=conversation_id, latest_event_id=last_seen)
    # (the newest agent_state_changed is replayed last, so compare the smallest id)
    assert min(back.ids()) == last_seen + 1
    assert any(e.get("message") == "while away" for e in back.events)


async def test_title_update_reaches_the_room(live_server, recorders) -> None:
    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    client = recorder(recorders)
    await client.connect(url, conversation_id=conversation_id)
    await harness.client.patch(f"/api/conversations/{conversation_id}", json={"title": "Renamed"})
    update = await client.wait_for(lambda e: e.get("conversation_title") == "Renamed")
    assert update == {
        "status_update": True,
        "type": "info",
        "message": conversation_id,
        "conversation_title": "Renamed",
    }
    info = (await harness.client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["num_connections"] == 1


async def test_no_event_lost_or_duplicated_at_the_replay_seam(
    live_server, recorders, monkeypatch
) -> None:
    """Events added while the replay runs reach the socket exactly once."""
    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    manager = harness.manager
    stream = manager.get_agent_session(conversation_id).event_stream
    original = manager._replay

    async def replay_with_races(sid: str, connection_id: str, *args: Any) -> int:
        # One event lands before the replay reads the store (it is replayed AND, later,
        # delivered live), one right after (only live delivery can carry it).
        stream.add_event(MessageAction("before-read"), EventSource.AGENT)
        last = await original(sid, connection_id, *args)
        stream.add_event(MessageAction("after-read"), EventSource.AGENT)
        # Live delivery of both happens while the socket is held: wait until it has.
        held = manager.rooms.delivery(sid)._held[connection_id]
        deadline = asyncio.get_running_loop().time() + 20
        while not any(p.get("message") == "after-read" for p in held):
            assert asyncio.get_running_loop().time() < deadline, "no live delivery"
            await asyncio.sleep(0.01)
        return last

    monkeypatch.setattr(manager, "_replay", replay_with_races)
    client = recorder(recorders)
    await client.connect(url, conversation_id=conversation_id)
    await client.wait_for(lambda e: e.get("message") == "after-read")
    # A marker added last arrives after every earlier delivery (one socket, id order), so
    # a duplicate still in flight would be in by then.
    stream.add_event(MessageAction("marker"), EventSource.AGENT)
    await client.wait_for(lambda e: e.get("message") == "marker")
    texts = [e.get("message") for e in client.events]
    assert texts.count("before-read") == 1
    assert texts.count("after-read") == 1
    ids = client.ids()
    assert len(ids) == len(set(ids))


async def test_concurrent_writer_during_connect(live_server, recorders) -> None:
    """A writer thread adds events the whole time a client connects: the client ends up
    with every message exactly once, in id order."""
    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    stream = harness.manager.get_agent_session(conversation_id).event_stream
    stop = asyncio.Event()

    async def writer() -> None:
        index = 0
        while not stop.is_set():
            await asyncio.to_thread(stream.add_event, MessageAction(f"w{index}"), EventSource.AGENT)
            index += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(writer())
    await asyncio.sleep(0.05)
    client = recorder(recorders)
    await client.connect(url, conversation_id=conversation_id)
    await asyncio.sleep(0.2)
    stop.set()
    await task
    last_id = stream.get_latest_event_id()
    await client.wait_for(lambda e: e.get("id") == last_id)
    stored = (
        await harness.client.get(f"/api/conversations/{conversation_id}/events?limit=100")
    ).json()
    page = stored["events"]
    while stored["has_more"]:
        stored = (
            await harness.client.get(
                f"/api/conversations/{conversation_id}/events",
                params={"start_id": page[-1]["id"] + 1, "limit": 100},
            )
        ).json()
        page += stored["events"]
    expected = message_ids(page)
    received = message_ids(client.events)
    assert received == expected


async def test_replay_streams_events_as_they_are_read(live_server, recorders, monkeypatch) -> None:
    """The first replayed event reaches the client while the replay is still reading, and a
    live event added mid-replay arrives exactly once, after every replayed one."""
    import threading

    from openhands.server.conversation_manager import socket_rooms as scm

    harness, url = live_server
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    stream = harness.manager.get_agent_session(conversation_id).event_stream
    for index in range(60):  # more than one hand-over batch
        stream.add_event(MessageAction(f"stored-{index}"), EventSource.USER)
    first_seen = threading.Event()
    waited: list[bool] = []
    original = scm.iter_replay_payloads

    def reading_slowly(events: Any) -> Any:
        payloads = original(events)
        yield next(payloads)
        # Not streamed, this would wait for the whole read (the timeout would say so).
        waited.append(first_seen.wait(timeout=30))
        stream.add_event(MessageAction("live-during-replay"), EventSource.AGENT)
        yield from payloads

    monkeypatch.setattr(scm, "iter_replay_payloads", reading_slowly)
    client = recorder(recorders)

    async def on_event(data: dict[str, Any]) -> None:
        first_seen.set()
        client.events.append(data)

    client.client.on("oh_event", on_event)
    await client.connect(url, conversation_id=conversation_id)
    await client.wait_for(lambda e: e.get("message") == "live-during-replay")
    assert waited == [True]
    texts = [e.get("message") for e in client.events if e.get("action") == "message"]
    stored_texts = [t for t in texts if t and t.startswith("stored-")]
    assert stored_texts == [f"stored-{index}" for index in range(60)]
    assert texts.count("live-during-replay") == 1
    assert texts.index("live-during-replay") > texts.index("stored-59")
    ids = client.ids()
    assert len(ids) == len(set(ids))
