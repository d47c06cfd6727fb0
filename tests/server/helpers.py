"""Helpers of the server conformance suite: the scripted agent's LLM, waiting on a
conversation over REST, and writing conversations straight into a server's file store."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import jwt

from openhands.events.event import Event, EventSource
from openhands.events.stream import EventStream
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    default_title,
)
from openhands.storage.local import LocalFileStore
from openhands.storage.locations import get_conversation_metadata_filename
from tests.server.server_process import JWT_SECRET, ServerProcess
from tests.support.scripted_llm import ScriptedLLMServer, ScriptItem, text, tool_call
from tests.unit.server.socket_client import Recorder

T = TypeVar("T")
START_TIMEOUT = 180.0  # a LocalRuntime start on a busy 2-core machine
_CONTEXT_BLOCK = re.compile(r"<([A-Z_]+)>.*?</\1>", re.DOTALL)


# --- the LLM of every conversation ----------------------------------------------------------


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def scripted_agent(body: dict[str, Any]) -> ScriptItem:
    """CodeActAgent's model in this suite. The reply depends on the request alone, so any
    number of conversations can share one scripted server. It reads what the user said
    since the assistant's last turn:

    - no tools offered: a title request, answered ``Scripted title``;
    - the last message is a tool result: ``done`` (the agent then waits for the user);
    - the user said ``run: <command>``: run it with ``execute_bash``;
    - the user said ``finish``: the ``finish`` tool;
    - anything else: ``echo: <the user's last line>``.
    """
    if not body.get("tools"):
        return text("Scripted title")
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        return text("done")
    turn: list[str] = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        if message.get("role") == "user":
            turn.insert(0, _text_of(message))
    said = _CONTEXT_BLOCK.sub("", "\n".join(turn))  # workspace context the agent added
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    commands = [line[len("run: ") :] for line in lines if line.startswith("run: ")]
    if commands:
        return tool_call("execute_bash", {"command": commands[-1], "security_risk": "LOW"})
    if "finish" in lines:
        return tool_call("finish", {"message": "Finished as asked."})
    return text(f"echo: {lines[-1] if lines else ''}")


def settings_body(llm_base_url: str, **extra: Any) -> dict[str, Any]:
    return {
        "llm_model": "openai/test-model",
        "llm_base_url": llm_base_url,
        "llm_api_key": "sk-conformance",
        "agent": "CodeActAgent",
        "enable_default_condenser": False,
        **extra,
    }


def user_token(user_id: str, ttl: int = 3600) -> str:
    """An HS256 token for ``user_id``, signed with the suite servers' ``jwt_secret``."""
    claims = {"sub": user_id, "exp": int(time.time()) + ttl}
    return jwt.encode(claims, JWT_SECRET, algorithm="HS256")


def bearer(user_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {user_token(user_id)}"}


def run_in_thread(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code (a session fixture), on a new
    event loop in its own thread: the calling thread may already run a loop (Playwright's
    sync API keeps one), which ``asyncio.run`` there would refuse."""
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


# --- waiting on a conversation ---------------------------------------------------------------


async def wait_status(
    client: httpx.AsyncClient,
    conversation_id: str,
    status: str,
    timeout: float = START_TIMEOUT,
    **kwargs: Any,
) -> dict[str, Any]:
    """Poll ``GET /api/conversations/{id}`` until it reports ``status``."""
    deadline = time.monotonic() + timeout
    info: Any = None
    while time.monotonic() < deadline:
        info = (await client.get(f"/api/conversations/{conversation_id}", **kwargs)).json()
        ready = status != "RUNNING" or (info and info["runtime_status"] == "STATUS$READY")
        if info and info["status"] == status and ready:
            return info  # type: ignore[no-any-return]
        await asyncio.sleep(0.2)
    raise AssertionError(f"{conversation_id} did not reach {status}; last seen {info}")


async def stop(client: httpx.AsyncClient, conversation_id: str) -> httpx.Response:
    """POST /stop. A conversation still starting is closed once its start is done (the
    server waits up to 90 s for it), so this may take that long."""
    return await client.post(f"/api/conversations/{conversation_id}/stop", timeout=150)


async def all_events(
    client: httpx.AsyncClient, conversation_id: str, **kwargs: Any
) -> list[dict[str, Any]]:
    """Every stored event, through ``GET …/events`` pages of 100."""
    events: list[dict[str, Any]] = []
    start = 0
    while True:
        response = await client.get(
            f"/api/conversations/{conversation_id}/events",
            params={"start_id": start, "limit": 100},
            **kwargs,
        )
        assert response.status_code == 200, response.text
        page = response.json()
        events.extend(page["events"])
        if not page["has_more"]:
            return events
        start = page["events"][-1]["id"] + 1


def agent_states(events: list[dict[str, Any]]) -> list[str]:
    return [
        e["extras"]["agent_state"] for e in events if e.get("observation") == "agent_state_changed"
    ]


async def wait_agent_state(
    client: httpx.AsyncClient,
    conversation_id: str,
    state: str,
    after_id: int = -1,
    timeout: float = START_TIMEOUT,
    until: Callable[[list[dict[str, Any]]], bool] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Poll the stored events until an ``agent_state_changed`` to ``state`` with an id above
    ``after_id`` is the latest state change (and ``until(events)`` holds, when given: the
    controller announces a state before it stores the action that caused it, as 0.59 does);
    returns every stored event."""
    deadline = time.monotonic() + timeout
    events: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        events = await all_events(client, conversation_id, **kwargs)
        changes = [
            e
            for e in events
            if e.get("observation") == "agent_state_changed" and e["id"] > after_id
        ]
        settled = bool(changes) and changes[-1]["extras"]["agent_state"] == state
        if settled and (until is None or until(events)):
            return events
        await asyncio.sleep(0.25)
    reasons = [
        e["extras"].get("reason") or e.get("content")
        for e in events
        if e.get("observation") in ("agent_state_changed", "error")
        and (e.get("observation") == "error" or e["extras"].get("reason"))
    ]
    raise AssertionError(
        f"{conversation_id} never settled in {state}; states {agent_states(events)}; "
        f"errors {reasons[-3:]}"
    )


# --- writing straight into a server's file store -----------------------------------------------


def write_conversation(
    store_root: Path,
    conversation_id: str | None = None,
    events: list[tuple[Event, EventSource]] | None = None,
    **fields: Any,
) -> str:
    """Metadata (and events) of a conversation that no agent loop has touched, written the
    way the conversation store and the event stream write them."""
    conversation_id = conversation_id or uuid.uuid4().hex
    fields.setdefault("title", default_title(conversation_id))
    metadata = ConversationMetadata(conversation_id=conversation_id, **fields)
    file_store = LocalFileStore(str(store_root))
    path = get_conversation_metadata_filename(conversation_id)
    file_store.write(path, metadata.model_dump_json())
    if events:
        stream = EventStream(conversation_id, file_store, fields.get("user_id"))
        try:
            for event, source in events:
                stream.add_event(event, source)
        finally:
            stream.close()
    return conversation_id


# --- servers and sockets ------------------------------------------------------------------------


def start_server(
    root: Path, llm: ScriptedLLMServer | None = None, *, settings: bool = True, **kwargs: Any
) -> ServerProcess:
    """Start a server in ``root``; with ``settings``, store LLM settings pointing at ``llm``."""
    server = ServerProcess(root, **kwargs).start()
    if settings and llm is not None:
        headers = {}
        key = server.extra_env.get("SESSION_API_KEY")
        if key:
            headers["X-Session-API-Key"] = key
        response = httpx.post(
            f"{server.url}/api/settings", json=settings_body(llm.base_url), headers=headers
        )
        assert response.status_code == 200, response.text
    return server


class SuiteRecorder(Recorder):
    """A recorder whose failures list the events briefly (system prompts are long)."""

    async def wait_for(self, predicate: Any, timeout: float = 20.0) -> dict[str, Any]:
        try:
            return await super().wait_for(predicate, timeout)
        except AssertionError:
            seen = [
                {k: str(v)[:80] for k, v in e.items() if k not in ("args", "extras", "llm_metrics")}
                for e in self.events
            ]
            raise AssertionError(f"no matching oh_event in {timeout}s; got {seen}") from None


async def settle(client: httpx.AsyncClient, conversation_id: str) -> list[dict[str, Any]]:
    """Wait until the agent waits for the user again; returns every stored event."""
    return await wait_agent_state(client, conversation_id, "awaiting_user_input")


# --- what a socket should see (server-api §7.4, §7.5) ----------------------------------------

LIVE_ENVIRONMENT = {"run", "agent_state_changed", "recall", "error"}


def with_id(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if isinstance(e.get("id"), int)]


def replay_of(stored: list[dict[str, Any]], after: int) -> list[int]:
    """The ids a replay from ``after + 1`` sends, in order (server-api §7.4)."""
    sent: list[int] = []
    last_state: int | None = None
    for event in stored:
        if event["id"] <= after or event.get("action") in ("null", "recall"):
            continue
        if event.get("observation") == "null":
            continue
        if event.get("observation") == "agent_state_changed":
            last_state = event["id"]
            continue
        sent.append(event["id"])
    return sent + ([last_state] if last_state is not None else [])


def live_eligible(event: dict[str, Any]) -> bool:
    """Whether a stored event is pushed live (server-api §7.5)."""
    if event.get("action") == "null" or event.get("observation") == "null":
        return False
    return event["source"] != "environment" or event.get("observation") in LIVE_ENVIRONMENT


def assert_id_order(events: list[dict[str, Any]]) -> None:
    """Ids only grow, apart from the replay's held-back last agent state."""
    ids = [e["id"] for e in with_id(events) if e.get("observation") != "agent_state_changed"]
    assert ids == sorted(ids) and len(ids) == len(set(ids)), ids
