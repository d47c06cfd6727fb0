"""Socket.IO conformance against a real server process (server-api §7, §10 items 13, 15–21).

Conversations run CodeActAgent on LocalRuntime against the scripted LLM of the suite
(see ``helpers.scripted_agent``: ``run: <command>`` runs a command, other messages are
echoed).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest

from openhands.core.schema import AgentState
from openhands.events.action import CmdRunAction, MessageAction, NullAction, RecallAction
from openhands.events.event import EventSource, RecallType
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputMetadata,
    CmdOutputObservation,
    NullObservation,
    RecallObservation,
)
from tests.server.helpers import (
    all_events,
    assert_id_order,
    live_eligible,
    replay_of,
    settle,
    start_server,
    stop,
    wait_agent_state,
    wait_status,
    with_id,
    write_conversation,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.unit.server.socket_client import Recorder

# --- item 13 (the session-key half is in test_middleware.py) ---------------------------------------


async def test_connect_without_conversation_id_is_refused(oss: ServerProcess, sockets) -> None:
    error = await sockets().refused(oss.url)
    assert error == {"message": "No conversation_id in query params"}
    error = await sockets().refused(oss.url, conversation_id="a..b")
    assert error["message"] == "Conversation ID contains invalid path characters"


# --- item 15 --------------------------------------------------------------------------------------


async def test_replay_rules(oss: ServerProcess, client: httpx.AsyncClient, sockets) -> None:
    output = CmdOutputObservation(
        "hi\n", command="echo hi", metadata=CmdOutputMetadata(exit_code=0)
    )
    conversation_id = write_conversation(
        oss.store,
        events=[
            (MessageAction("first"), EventSource.USER),  # 0
            (NullAction(), EventSource.AGENT),  # 1
            (AgentStateChangedObservation("", AgentState.RUNNING), EventSource.ENVIRONMENT),  # 2
            (RecallAction(RecallType.WORKSPACE_CONTEXT, "first"), EventSource.USER),  # 3
            (RecallObservation("", RecallType.WORKSPACE_CONTEXT), EventSource.ENVIRONMENT),  # 4
            (NullObservation(""), EventSource.ENVIRONMENT),  # 5
            (CmdRunAction("echo hi"), EventSource.AGENT),  # 6
            (output, EventSource.ENVIRONMENT),  # 7
            (
                AgentStateChangedObservation("", AgentState.AWAITING_USER_INPUT),
                EventSource.ENVIRONMENT,
            ),  # 8
            (MessageAction("second"), EventSource.AGENT),  # 9
        ],
    )
    stored = await all_events(client, conversation_id)
    try:
        socket = sockets()
        await socket.connect(oss.url, conversation_id=conversation_id, latest_event_id=2)
        # Everything replayed arrived before (or with) the connect: no waiting here.
        replayed = [e for e in with_id(socket.events) if e["id"] <= 9]
        assert [e["id"] for e in replayed] == [4, 6, 7, 9, 8]
        assert replayed == [stored[i] for i in (4, 6, 7, 9, 8)]  # the stored dicts, unchanged
        assert replayed[2]["source"] == "environment"  # no live-style rewriting in replay

        # A non-integer latest_event_id (the frontend may send "undefined") means -1.
        everything = sockets()
        await everything.connect(
            oss.url, conversation_id=conversation_id, latest_event_id="undefined"
        )
        ids = [e["id"] for e in with_id(everything.events) if e["id"] <= 9]
        assert ids[:6] == [0, 4, 6, 7, 9, 8] or ids[:5] == [0, 4, 6, 7, 9]
    finally:
        await stop(client, conversation_id)


# --- item 16 --------------------------------------------------------------------------------------


async def test_no_event_lost_or_repeated_at_the_replay_live_seam(
    oss: ServerProcess, client: httpx.AsyncClient, live, sockets
) -> None:
    conversation_id = live["id"]
    tag = uuid.uuid4().hex[:6]
    count = 30

    async def produce() -> None:
        for index in range(count):
            response = await client.post(
                f"/api/conversations/{conversation_id}/message",
                json={"message": f"seam {tag} {index}"},
            )
            assert response.json() == {"success": True}
            await asyncio.sleep(0.03)

    connected: list[Recorder] = []

    async def connect_during() -> None:
        for _ in range(6):
            socket = sockets()
            await socket.connect(oss.url, conversation_id=conversation_id)
            connected.append(socket)
            await asyncio.sleep(0.1)

    await asyncio.gather(produce(), connect_during())
    events = await all_events(client, conversation_id)
    last_message = max(e["id"] for e in events if _is_seam_message(e, tag))
    settled = await wait_agent_state(
        client, conversation_id, "awaiting_user_input", after_id=last_message
    )
    # Deliveries still in flight: each socket gets events in id order, and the newest one
    # (that agent state, sent live and last in a replay) reaches every socket; once it is
    # there, everything before it is too.
    newest = max(e["id"] for e in settled)
    for socket in connected:
        await socket.wait_for(lambda e: isinstance(e.get("id"), int) and e["id"] >= newest)
    stored = {e["id"]: e for e in await all_events(client, conversation_id)}
    messages = {i for i, e in stored.items() if _is_seam_message(e, tag)}
    assert len(messages) == count

    for socket in connected:
        ids = [e["id"] for e in with_id(socket.events)]
        assert len(ids) == len(set(ids)), "an event was sent twice"
        assert set(ids) <= set(stored), "an event that is not stored was sent"
        missing = messages - set(ids)
        assert not missing, f"lost at the seam: {sorted(missing)}"
        # Every event that both replay and live delivery send arrived, from the first one
        # this socket saw. (Replay drops recall actions and all but the last agent state;
        # live delivery drops most environment events.)
        first = min(ids)
        expected = {
            i
            for i, e in stored.items()
            if i >= first
            and live_eligible(e)
            and e.get("observation") != "agent_state_changed"
            and e.get("action") != "recall"
        }
        assert expected <= set(ids), sorted(expected - set(ids))
        assert_id_order(socket.events)


def _is_seam_message(event: dict[str, Any], tag: str) -> bool:
    return (
        event.get("action") == "message"
        and event["source"] == "user"
        and event["args"]["content"].startswith(f"seam {tag} ")
    )


# --- items 17 and 19 --------------------------------------------------------------------------------


async def test_live_delivery_and_agent_state_changes(
    oss: ServerProcess, client: httpx.AsyncClient, sockets
) -> None:
    conversation_id = uuid.uuid4().hex
    socket = sockets()
    # Connecting to a conversation nobody created creates it and starts its loop.
    await socket.connect(oss.url, conversation_id=conversation_id)
    try:
        await socket.wait_for(
            lambda e: (
                e.get("observation") == "agent_state_changed"
                and e["extras"]["agent_state"] == "awaiting_user_input"
            ),
            timeout=180,
        )
        await socket.emit(
            "oh_user_action", {"action": "message", "args": {"content": "run: echo live-17"}}
        )
        output = await socket.wait_for(
            lambda e: e.get("observation") == "run" and "live-17" in e.get("content", ""),
            timeout=120,
        )
        assert output["source"] == "agent"
        await socket.wait_for(lambda e: e.get("message") == "done", timeout=120)

        stored = {e["id"]: e for e in await all_events(client, conversation_id)}
        received = with_id(socket.events)
        assert_id_order(received)
        for event in received:
            original = stored[event["id"]]
            assert live_eligible(original), original
            if original["source"] == "environment":
                assert event["source"] == "agent"
                assert {**event, "source": "environment"} == original
            else:
                assert event == original
        relabelled = [e for e in received if stored[e["id"]]["source"] == "environment"]
        assert {e.get("observation") for e in relabelled} >= {"agent_state_changed", "recall"}
        hidden = [i for i, e in stored.items() if not live_eligible(e)]
        assert hidden, "the start appends environment actions that are not pushed live"
        assert not set(hidden) & {e["id"] for e in received}
        shown = [i for i, e in stored.items() if live_eligible(e)]
        assert set(shown) <= {e["id"] for e in received}

        # 19: pause while a command runs, then stop.
        await socket.emit(
            "oh_user_action", {"action": "message", "args": {"content": "run: sleep 4"}}
        )
        await socket.wait_for(
            lambda e: e.get("action") == "run" and e["args"]["command"] == "sleep 4", timeout=120
        )
        await socket.emit(
            "oh_user_action",
            {"action": "change_agent_state", "args": {"agent_state": "paused"}},
        )
        await socket.wait_for(
            lambda e: (
                e.get("observation") == "agent_state_changed"
                and e["extras"]["agent_state"] == "paused"
            ),
            timeout=60,
        )
        await socket.emit(
            "oh_action", {"action": "change_agent_state", "args": {"agent_state": "stopped"}}
        )
        await socket.wait_for(
            lambda e: (
                e.get("observation") == "agent_state_changed"
                and e["extras"]["agent_state"] == "stopped"
            ),
            timeout=60,
        )
        stored_actions = [
            e
            for e in await all_events(client, conversation_id)
            if e.get("action") == "change_agent_state"
        ]
        assert {"paused", "stopped"} <= {
            e["args"]["agent_state"] for e in stored_actions if e["source"] == "user"
        }
    finally:
        await stop(client, conversation_id)


# --- item 18 --------------------------------------------------------------------------------------


async def test_user_actions_are_stored_and_echoed_to_the_room(
    oss: ServerProcess, client: httpx.AsyncClient, live, sockets
) -> None:
    conversation_id = live["id"]
    first, second = sockets(), sockets()
    await first.connect(oss.url, conversation_id=conversation_id)
    await second.connect(oss.url, conversation_id=conversation_id)
    for sender, event_name in ((first, "oh_user_action"), (second, "oh_action")):
        content = f"{event_name} {uuid.uuid4().hex[:6]}"
        await sender.emit(event_name, {"action": "message", "args": {"content": content}})
        for socket in (first, second):
            echoed = await socket.wait_for(
                lambda e, c=content: e.get("action") == "message" and e["args"]["content"] == c,
                timeout=30,
            )
            assert echoed["source"] == "user"
        stored = [
            e
            for e in await all_events(client, conversation_id)
            if e.get("action") == "message" and e["args"]["content"] == content
        ]
        assert len(stored) == 1 and stored[0]["source"] == "user"
        await settle(client, conversation_id)


# --- item 20 --------------------------------------------------------------------------------------


async def test_disconnect_keeps_the_loop_and_reconnect_replays_after_n(
    oss: ServerProcess, client: httpx.AsyncClient, live, sockets
) -> None:
    conversation_id = live["id"]
    socket = sockets()
    await socket.connect(oss.url, conversation_id=conversation_id)
    await socket.close()
    last_seen = max(e["id"] for e in with_id(socket.events))

    info = (await client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["status"] == "RUNNING"
    # The agent keeps working while nobody watches.
    await client.post(
        f"/api/conversations/{conversation_id}/message", json={"message": "while away"}
    )
    await wait_agent_state(client, conversation_id, "awaiting_user_input", after_id=last_seen)
    stored = await all_events(client, conversation_id)
    assert any(e.get("message") == "echo: while away" for e in stored)

    back = sockets()
    await back.connect(oss.url, conversation_id=conversation_id, latest_event_id=last_seen)
    replayed = [e["id"] for e in with_id(back.events)]
    expected = replay_of(stored, last_seen)
    assert replayed[: len(expected)] == expected
    assert min(replayed) > last_seen


# --- item 21 --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory, llm) -> Any:
    root = tmp_path_factory.mktemp("limited")
    server = start_server(root, llm, config=config_toml(root, max_concurrent_conversations=3))
    try:
        yield server
    finally:
        server.stop()


async def test_a_fourth_start_closes_the_least_recently_updated(
    limited: ServerProcess, sockets
) -> None:
    async with httpx.AsyncClient(base_url=limited.url, timeout=120) as http:
        ids = []
        for _ in range(3):
            created = await http.post("/api/conversations", json={})
            ids.append(created.json()["conversation_id"])
        for conversation_id in ids:
            await wait_status(http, conversation_id, "RUNNING")
        for conversation_id in ids:
            await wait_agent_state(http, conversation_id, "awaiting_user_input")
        oldest, *others = ids
        for conversation_id in others:  # newer activity than the oldest one
            await http.post(f"/api/conversations/{conversation_id}/message", json={"message": "hi"})
        for conversation_id in others:
            events = await all_events(http, conversation_id)
            await _wait_for_echo(http, conversation_id, "echo: hi", events)
        watcher = sockets()
        await watcher.connect(limited.url, conversation_id=oldest)

        fourth = await http.post("/api/conversations", json={})
        assert fourth.status_code == 200
        notice = await watcher.wait_for(
            lambda e: e.get("id") == "AGENT_ERROR$TOO_MANY_CONVERSATIONS", timeout=120
        )
        assert notice == {
            "status_update": True,
            "type": "error",
            "id": "AGENT_ERROR$TOO_MANY_CONVERSATIONS",
            "message": (
                "Too many conversations at once. If you are still using this one, try "
                "reactivating it by prompting the agent to continue"
            ),
        }
        await asyncio.wait_for(watcher.disconnected.wait(), 120)
        assert (await http.get(f"/api/conversations/{oldest}")).json()["status"] == "STOPPED"
        for conversation_id in [*others, fourth.json()["conversation_id"]]:
            status = (await http.get(f"/api/conversations/{conversation_id}")).json()["status"]
            assert status in ("STARTING", "RUNNING"), conversation_id
        for conversation_id in [*others, fourth.json()["conversation_id"]]:
            await stop(http, conversation_id)


async def _wait_for_echo(
    http: httpx.AsyncClient, conversation_id: str, message: str, events: list[dict[str, Any]]
) -> None:
    for _ in range(600):
        if any(e.get("message") == message for e in events):
            return
        await asyncio.sleep(0.2)
        events = await all_events(http, conversation_id)
    raise AssertionError(f"no {message!r} in {conversation_id}")
