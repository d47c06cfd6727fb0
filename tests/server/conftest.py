"""Server conformance suite: a real ``uvicorn openhands.server.listen:app`` process.

Every test talks to server processes started by ``server_process.ServerProcess`` (their own
config.toml, file store and workspace in a temporary directory, a free 127.0.0.1 port)
through httpx and python-socketio. Conversations run CodeActAgent through LiteLLM against
a scripted OpenAI-compatible server (``helpers.scripted_agent``), on LocalRuntime, or on a
Docker sandbox in ``test_docker_end_to_end``.

server-api.md §10, item → test:

| # | behaviour | test |
|---|---|---|
| 1 | `/api/options/config` keys | `test_rest::test_options_config` |
| 2 | settings 404 on a fresh store; nulled keys + `*_set` after POST | `test_rest::test_settings_lifecycle_on_a_fresh_store` |
| 3 | POST settings keeps key/model/base URL, `""` clears, rest resets | `test_rest::test_settings_lifecycle_on_a_fresh_store` |
| 4 | create: extra keys 422, no settings 400, no key 400 | `test_rest::test_settings_lifecycle_on_a_fresh_store` |
| 5 | create response and `metadata.json` | `test_rest::test_create_start_stop_cycle` |
| 6 | list order, base64 pages, repository/trigger/age filters | `test_rest::test_list_sorts_pages_and_filters` |
| 7 | unknown id → `null`; invalid ids → 400 `detail` | `test_rest::test_get_unknown_and_invalid_ids` |
| 8 | STOPPED → STARTING → RUNNING, `STATUS$READY`, `url` | `test_rest::test_create_start_stop_cycle` |
| 9 | PATCH title: stripped, `true`, title `oh_event`; unknown 404 | `test_rest::test_rename` |
| 10 | DELETE true/false and directory gone; stop when not running | `test_rest::test_delete`, `test_rest::test_create_start_stop_cycle` |
| 11 | `/start` needs a body, ConversationResponse, 404 for unknown | `test_rest::test_create_start_stop_cycle` |
| 12 | `/events` start/end/reverse/limit/has_more, limit > 100 | `test_rest::test_events_route` |
| 13 | socket refusals: no conversation id; wrong session key | `test_socket::test_connect_without_conversation_id_is_refused`, `test_middleware::test_socket_session_key` |
| 14 | socket refused without settings, with the msg_id | `test_rest::test_settings_lifecycle_on_a_fresh_store` |
| 15 | replay from `latest_event_id+1`, skips, last agent state last | `test_socket::test_replay_rules` |
| 16 | nothing lost or repeated at the replay/live seam | `test_socket::test_no_event_lost_or_repeated_at_the_replay_live_seam` |
| 17 | live `oh_event` order and source rewriting; hidden env events | `test_socket::test_live_delivery_and_agent_state_changes` |
| 18 | `oh_user_action`/`oh_action` stored as user events, echoed to the room | `test_socket::test_user_actions_are_stored_and_echoed_to_the_room` |
| 19 | pause/stop from the client reach the controller | `test_socket::test_live_delivery_and_agent_state_changes` |
| 20 | disconnect keeps the loop; reconnect replays after N | `test_socket::test_disconnect_keeps_the_loop_and_reconnect_replays_after_n` |
| 21 | a fourth start closes the least recently updated loop | `test_socket::test_a_fourth_start_closes_the_least_recently_updated` |
| 22 | per-conversation 404s; list/select/upload/zip on the sandbox | `test_rest::test_per_conversation_routes_of_an_unknown_conversation`, `test_rest::test_workspace_routes_work_against_the_sandbox` |
| 23 | secrets CRUD | `test_rest::test_secrets_crud` |
| 24 | CORS, cache headers, rate limit 429 | `test_middleware::test_cors`, `::test_cache_headers`, `::test_rate_limit` |
| 25 | SPA fallback; health without key; socket.io never limited | `test_middleware::test_spa_fallback`, `::test_rest_session_key`, `::test_socket_io_is_never_rate_limited` |

Beyond §10: multi-user isolation in JWT mode (`test_multi_user`), bad input
(`test_bad_input`), and a Docker run that survives a SIGKILL of the server
(`test_docker_end_to_end`, marked ``docker``).

This conftest holds the fixtures: real `uvicorn` processes (one shared per session where the
tests can share it), a scripted OpenAI-compatible LLM server, httpx and python-socketio
clients. Every server keeps its config, file store and workspace in its own temporary
directory. (No ``__init__.py`` here: ``tests/unit/server`` is the package named ``server``.)
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import pytest

from tests.server.helpers import (
    SuiteRecorder,
    run_in_thread,
    scripted_agent,
    start_server,
    wait_agent_state,
    wait_status,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.server.socket_client import Recorder

# The shared server runs many conversations at once; the limit is tested on its own server.
SHARED_LIMIT = 30


@pytest.fixture(scope="session")
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer([], fallback=scripted_agent).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def oss(
    tmp_path_factory: pytest.TempPathFactory, llm: ScriptedLLMServer
) -> Iterator[ServerProcess]:
    """The shared single-user server (runtime: local), with LLM settings stored."""
    root = tmp_path_factory.mktemp("oss")
    server = start_server(
        root, llm, config=config_toml(root, max_concurrent_conversations=SHARED_LIMIT)
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start servers on empty stores (no settings) for this test; stopped afterwards."""
    started: list[ServerProcess] = []

    def start(name: str = "fresh", **kwargs: Any) -> ServerProcess:
        server = start_server(tmp_path / name, settings=False, **kwargs)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture
async def client(oss: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=oss.url, timeout=60) as http:
        yield http


@pytest.fixture
async def sockets() -> AsyncIterator[Callable[[], Recorder]]:
    """Make Socket.IO clients that record every `oh_event`; all closed after the test."""
    made: list[Recorder] = []

    def new() -> Recorder:
        recorder = SuiteRecorder()
        made.append(recorder)
        return recorder

    yield new
    for recorder in made:
        await recorder.close()


# --- a conversation that is running (the agent waits for the user) -----------------------------


async def _start_live(url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        created = await http.post("/api/conversations", json={"initial_user_msg": "hello"})
        assert created.status_code == 200, created.text
        conversation_id = created.json()["conversation_id"]
        await wait_status(http, conversation_id, "RUNNING")
        await wait_agent_state(http, conversation_id, "awaiting_user_input")
        return {"created": created.json(), "id": conversation_id}


@pytest.fixture(scope="session")
def live(oss: ServerProcess) -> dict[str, Any]:
    """``{"id", "created"}`` of a conversation on the shared server, created with POST and an
    initial message, whose agent answered and now waits for the user. Tests that use it
    leave it waiting for the user again."""
    return run_in_thread(_start_live(oss.url))
