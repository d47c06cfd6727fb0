"""Hardening on a real process: inputs that 0.59 answered with a 500, a hang or silence
get a 4xx (or, for a failing LLM, a 502 / 503) with a message, and change nothing.

The bounded schemathesis run over the whole OpenAPI document is in ``test_fuzz_openapi``.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from openhands.events.action import MessageAction
from openhands.events.event import EventSource
from tests.server.helpers import all_events, settings_body, settle, write_conversation
from tests.server.server_process import ServerProcess, free_port

# --- the conversation list ------------------------------------------------------------------------


@pytest.mark.parametrize("limit", ["-1", "0", "-96109584", "10001"])
async def test_a_list_limit_out_of_range_is_a_422(client: httpx.AsyncClient, limit: str) -> None:
    for path in ("/api/conversations", "/api/microagent-management/conversations"):
        response = await client.get(path, params={"limit": limit, "selected_repository": "a/b"})
        assert response.status_code == 422, (path, response.text)
        assert response.json()["detail"][0]["loc"] == ["query", "limit"]
        assert response.json()["detail"][0]["msg"]
    assert (await client.get("/api/conversations", params={"limit": 1})).status_code == 200


async def test_a_malformed_page_id_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/conversations", params={"page_id": "not base64!"})
    assert response.status_code == 400
    assert "page id" in response.json()["detail"]


# --- git-provider tokens --------------------------------------------------------------------------


async def test_a_token_that_cannot_be_a_token_is_refused(oss: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=oss.url, timeout=60) as http:
        before = (await http.get("/api/settings")).json()["provider_tokens_set"]
        for provider, token in (
            ("github", "ghp_tökén"),
            ("gitlab", "glpat-ünicode"),
            ("github", "two words"),
            ("bitbucket", "line\nbreak"),
        ):
            response = await http.post(
                "/api/add-git-providers",
                json={"provider_tokens": {provider: {"token": token, "host": None}}},
            )
            assert response.status_code == 401, response.text
            assert response.json() == {
                "error": f"Invalid token. Please make sure it is a valid {provider} token."
            }
        assert (await http.get("/api/settings")).json()["provider_tokens_set"] == before


# --- messages and events for conversations that are missing or not running ----------------------


async def test_sending_to_a_missing_or_stopped_conversation_is_a_4xx(
    oss: ServerProcess, client: httpx.AsyncClient
) -> None:
    missing = uuid.uuid4().hex
    stopped = write_conversation(oss.store)
    message = {"message": "hello"}
    event = {"action": "message", "args": {"content": "hello"}}
    for suffix, body in (("message", message), ("events", event)):
        gone = await client.post(f"/api/conversations/{missing}/{suffix}", json=body)
        assert gone.status_code == 404, gone.text
        assert gone.json() == {"detail": f"Conversation {missing} not found"}
        idle = await client.post(f"/api/conversations/{stopped}/{suffix}", json=body)
        assert idle.status_code == 409, idle.text
        assert idle.json()["success"] is False and "no_conversation" in idle.json()["error"]
    assert not (oss.store / "sessions" / missing).exists()
    assert await all_events(client, stopped) == []


async def test_a_bad_event_for_a_running_conversation_is_a_400(
    client: httpx.AsyncClient, live: dict[str, Any]
) -> None:
    conversation_id = live["id"]
    before = await settle(client, conversation_id)
    for body in ({}, {"action": "no_such_action"}, {"observation": "run", "content": "x"}):
        response = await client.post(f"/api/conversations/{conversation_id}/events", json=body)
        assert response.status_code == 400, response.text
        assert response.json()["success"] is False and response.json()["error"]
    assert await all_events(client, conversation_id) == before


# --- event ids far past the end ---------------------------------------------------------------------


async def test_huge_event_ids_answer_at_once(oss: ServerProcess, client: httpx.AsyncClient) -> None:
    """0.59 (and the first version here) walked every id up to the one asked for: a request
    with ``end_id=10**15`` held a worker thread for hours."""
    conversation_id = write_conversation(
        oss.store,
        events=[(MessageAction(content=f"m{i}"), EventSource.USER) for i in range(3)],
    )
    base = f"/api/conversations/{conversation_id}"
    page = await client.get(f"{base}/events", params={"end_id": 10**15, "reverse": True})
    assert page.status_code == 200
    assert [e["id"] for e in page.json()["events"]] == [2, 1, 0]
    prompt = await client.get(f"{base}/remember-prompt", params={"event_id": 117618617019})
    assert prompt.status_code == 200, prompt.text
    assert prompt.json()["status"] == "success"
    negative = await client.get(f"{base}/remember-prompt", params={"event_id": -282})
    assert negative.status_code == 200, negative.text


async def test_a_mistyped_event_filter_is_a_422(
    oss: ServerProcess, client: httpx.AsyncClient
) -> None:
    conversation_id = write_conversation(
        oss.store,
        events=[(MessageAction(content=f"note {i}"), EventSource.USER) for i in range(3)],
    )
    url = f"/api/conversations/{conversation_id}/events"
    for body in ({"query": 5}, {"start_date": "not a date"}, {"exclude_hidden": "perhaps"}):
        response = await client.request("GET", url, json=body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["detail"][0]["msg"]
    found = await client.request("GET", url, json={"query": "NOTE 1", "unknown": "ignored"})
    assert found.status_code == 200, found.text
    assert [e["args"]["content"] for e in found.json()["events"]] == ["note 1"]


# --- remember-prompt with an LLM that cannot answer ------------------------------------------------


@pytest.fixture
def black_hole() -> Iterator[str]:
    """An OpenAI base URL whose server accepts connections and never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()


async def test_remember_prompt_with_an_llm_that_cannot_answer(
    fresh_server: Callable[..., ServerProcess], black_hole: str
) -> None:
    """0.59 waited through its retries (over 120 s) and then answered 500. Here one attempt,
    bounded by ``REMEMBER_PROMPT_TIMEOUT``, then 503 (no answer in time) or 502 (failed)."""
    server = fresh_server(env={"REMEMBER_PROMPT_TIMEOUT": "2"})
    conversation_id = write_conversation(
        server.store, events=[(MessageAction(content="remember me"), EventSource.USER)]
    )
    url = f"/api/conversations/{conversation_id}/remember-prompt"
    # The client's own timeout is what catches a hang; it is far above the server's bound.
    async with httpx.AsyncClient(base_url=server.url, timeout=90) as http:
        no_settings = await http.get(url, params={"event_id": 0})
        assert no_settings.status_code == 400
        assert no_settings.json()["msg_id"] == "CONFIGURATION$SETTINGS_NOT_FOUND"

        stored = await http.post("/api/settings", json=settings_body(black_hole))
        assert stored.status_code == 200
        silent = await http.get(url, params={"event_id": 0})
        assert silent.status_code == 503, silent.text
        assert silent.json() == {"error": "The LLM did not answer within 2 s"}

        closed = f"http://127.0.0.1:{free_port()}/v1"
        stored = await http.post("/api/settings", json=settings_body(closed))
        assert stored.status_code == 200
        refused = await http.get(url, params={"event_id": 0})
        assert refused.status_code == 502, refused.text
        assert refused.json()["error"].startswith("The LLM request failed: ")

        no_model = await http.post("/api/settings", json={**settings_body(closed), "llm_model": ""})
        assert no_model.status_code == 200
        missing_model = await http.get(url, params={"event_id": 0})
        assert missing_model.status_code == 400
        assert missing_model.json() == {"error": "No LLM model configured in the settings"}
        assert (await http.get("/alive")).status_code == 200


# --- socket actions without a payload ---------------------------------------------------------------


async def test_socket_actions_without_one_object_get_an_error_reply(
    oss: ServerProcess, client: httpx.AsyncClient, live: dict[str, Any], sockets
) -> None:
    """No payload, an explicit null, or several arguments: 0.59 raised inside the handler and
    sent nothing back. Each gets an error reply to the sender alone, and nothing is stored."""
    conversation_id = live["id"]
    before = await settle(client, conversation_id)
    sender, bystander = sockets(), sockets()
    for recorder in (sender, bystander):
        await recorder.connect(
            oss.url, conversation_id=conversation_id, latest_event_id=before[-1]["id"]
        )
    action = {"action": "message", "args": {"content": "x"}}
    for event_name in ("oh_user_action", "oh_action"):
        for data in (None, (None,), (action, action), ("a", 1)):
            sender.events.clear()
            await sender.client.emit(event_name, data)
            reply = await sender.wait_for(lambda e: e.get("error") is True, timeout=30)
            assert isinstance(reply["message"], str) and reply["message"], data
    # A valid action afterwards still goes through (and proves the bad ones were handled
    # before it, in order): the bystander sees its echo, and never an error.
    await sender.emit("oh_user_action", {"action": "message", "args": {"content": "after"}})
    await bystander.wait_for(lambda e: e.get("args", {}).get("content") == "after", timeout=60)
    assert not [e for e in bystander.events if e.get("error")]
    after = await settle(client, conversation_id)
    assert after[: len(before)] == before
    added = [e for e in after[len(before) :] if e.get("source") == "user"]
    assert [e["args"]["content"] for e in added if e.get("action") == "message"] == ["after"]


# --- the OpenAPI document ---------------------------------------------------------------------------


async def test_openapi_declares_the_real_error_responses(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    for model in ("DetailErrorBody", "ErrorTextBody", "StatusErrorBody", "MessageErrorBody"):
        assert model in schemas
    operations = [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]
    for method, path, operation in operations:
        declared = set(operation["responses"])
        if path.startswith("/api/"):
            errors = {code for code in declared if code[0] in "45" and code != "422"}
            assert errors, (method, path, declared)
        if "{conversation_id}" in path:
            assert {"400", "403"} <= declared, (method, path, declared)
        if operation.get("requestBody"):
            assert "413" in declared, (method, path, declared)
    remember = document["paths"]["/api/conversations/{conversation_id}/remember-prompt"]["get"]
    assert {"400", "404", "502", "503"} <= set(remember["responses"])
    ref = remember["responses"]["503"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/ErrorTextBody"
    settings = document["paths"]["/api/settings"]["get"]["responses"]
    assert settings["404"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "ErrorTextBody"
    )
    git = document["paths"]["/api/user/info"]["get"]["responses"]
    assert {"401", "502"} <= set(git) and git["401"]["content"]["application/json"]["schema"] == {
        "type": "string"
    }
