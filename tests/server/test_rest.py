"""REST conformance against a real server process (server-api §6, §10 items 1–12, 14, 22, 23).

The shared server (`oss`) already holds LLM settings; the tests that need an empty store
start their own (`fresh_server`). The §10 → test table is in ``conftest.py``.
"""

from __future__ import annotations

import io
import json
import re
import uuid
import zipfile
from base64 import b64decode, b64encode
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from openhands.core.schema import AgentState
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import AgentStateChangedObservation
from openhands.storage.data_models.conversation_metadata import ConversationTrigger
from tests.server.helpers import settings_body, stop, wait_status, write_conversation
from tests.server.server_process import ServerProcess

HEX32 = re.compile(r"^[0-9a-f]{32}$")
ATTACHED_ROUTES = [
    ("GET", "config"),
    ("GET", "vscode-url"),
    ("GET", "web-hosts"),
    ("GET", "list-files"),
    ("GET", "select-file?file=a.txt"),
    ("GET", "zip-directory"),
    ("GET", "git/changes"),
    ("GET", "git/diff?path=a.txt"),
    ("GET", "trajectory"),
    ("POST", "upload-files"),
    ("POST", "submit-feedback"),
]


def metadata_file(server: ServerProcess, conversation_id: str) -> dict[str, Any]:
    path = server.store / "sessions" / conversation_id / "metadata.json"
    return json.loads(path.read_text())  # type: ignore[no-any-return]


# --- item 1 ------------------------------------------------------------------------------------


async def test_options_config(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/options/config")
    assert response.status_code == 200
    body = response.json()
    assert body["APP_MODE"] == "oss"
    assert body["GITHUB_CLIENT_ID"] == ""
    assert body["POSTHOG_CLIENT_KEY"] == ""  # no analytics host is reachable
    assert body["FEATURE_FLAGS"]["ENABLE_BILLING"] is False
    assert body["FEATURE_FLAGS"]["HIDE_LLM_SETTINGS"] is False
    for path in ("agents", "security-analyzers", "models"):
        listed = (await client.get(f"/api/options/{path}")).json()
        assert listed == sorted(listed) and len(listed) == len(set(listed))
    assert "CodeActAgent" in (await client.get("/api/options/agents")).json()


# --- items 2, 3, 4 and 14: an empty store ---------------------------------------------------------


async def test_settings_lifecycle_on_a_fresh_store(fresh_server, llm, sockets) -> None:
    server = fresh_server()
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        # 2: nothing stored yet.
        missing = await http.get("/api/settings")
        assert (missing.status_code, missing.json()) == (404, {"error": "Settings not found"})

        # 4: no settings at all.
        refused = await http.post("/api/conversations", json={"initial_user_msg": "hi"})
        assert refused.status_code == 400
        assert refused.json() == {
            "status": "error",
            "message": "Settings not found",
            "msg_id": "CONFIGURATION$SETTINGS_NOT_FOUND",
        }
        # 14: a socket is refused the same way.
        error = await sockets().refused(server.url, conversation_id=uuid.uuid4().hex)
        assert error == {
            "message": "Settings not found",
            "data": {"msg_id": "CONFIGURATION$SETTINGS_NOT_FOUND"},
        }

        # 4: settings without an LLM key.
        no_key = settings_body(llm.base_url)
        del no_key["llm_api_key"]
        assert (await http.post("/api/settings", json=no_key)).status_code == 200
        refused = await http.post("/api/conversations", json={})
        assert refused.status_code == 400
        assert refused.json() == {
            "status": "error",
            "message": "Error authenticating with the LLM provider. Please check your API key",
            "msg_id": "STATUS$ERROR_LLM_AUTHENTICATION",
        }
        # 4: unknown keys are a validation error, before anything else.
        extra = await http.post("/api/conversations", json={"initial_user_msg": "x", "nope": 1})
        assert extra.status_code == 422
        assert extra.json()["detail"][0]["loc"] == ["body", "nope"]

        # 2: stored settings come back with every secret nulled and "is set" flags.
        full = settings_body(llm.base_url, max_iterations=7, confirmation_mode=True)
        full["search_api_key"] = "search-secret"
        assert (await http.post("/api/settings", json=full)).json() == {
            "message": "Settings stored"
        }
        stored = (await http.get("/api/settings")).json()
        assert stored["llm_api_key"] is None and stored["llm_api_key_set"] is True
        assert stored["search_api_key"] is None and stored["search_api_key_set"] is True
        assert stored["sandbox_api_key"] is None
        assert stored["provider_tokens_set"] == {}
        assert stored["llm_model"] == "openai/test-model"
        assert stored["max_iterations"] == 7 and stored["confirmation_mode"] is True
        on_disk = json.loads((server.store / "settings.json").read_text())
        assert on_disk["llm_api_key"] == "sk-conformance"  # kept in clear for restarts

        # 3: omitted (or null) key, model and base URL are kept; other fields reset.
        await http.post("/api/settings", json={"language": "fr", "llm_model": None})
        kept = (await http.get("/api/settings")).json()
        assert kept["llm_api_key_set"] is True
        assert kept["llm_model"] == "openai/test-model"
        assert kept["llm_base_url"] == llm.base_url
        assert kept["search_api_key_set"] is True
        assert kept["language"] == "fr"
        assert kept["max_iterations"] is None and kept["confirmation_mode"] is None
        assert kept["enable_default_condenser"] is True  # back to its default
        # 3: an empty key clears it.
        await http.post("/api/settings", json={"llm_api_key": ""})
        cleared = (await http.get("/api/settings")).json()
        assert cleared["llm_api_key_set"] is False
        assert cleared["llm_model"] == "openai/test-model"


# --- items 5, 8, 10 (stop) and 11: create, run, stop, start again --------------------------------


async def test_create_start_stop_cycle(oss: ServerProcess, client: httpx.AsyncClient) -> None:
    created = await client.post("/api/conversations", json={})
    assert created.status_code == 200, created.text
    body = created.json()
    conversation_id = body["conversation_id"]
    # 5: the response and the metadata written at creation.
    assert HEX32.match(conversation_id)
    assert body["status"] == "ok" and body["message"] is None
    assert body["conversation_status"] in ("STARTING", "RUNNING")
    metadata = metadata_file(oss, conversation_id)
    assert metadata["trigger"] == "gui"
    assert metadata["title"] == f"Conversation {conversation_id[:5]}"
    assert metadata["created_at"].endswith("Z") and metadata["user_id"] is None

    # 8: STARTING (or already RUNNING) → RUNNING with a ready runtime.
    running = await wait_status(client, conversation_id, "RUNNING")
    assert running["runtime_status"] == "STATUS$READY"
    assert running["url"] == f"/api/conversations/{conversation_id}"
    assert running["session_api_key"] is None

    stopped = await client.post(f"/api/conversations/{conversation_id}/stop")
    assert stopped.json() == {
        "status": "ok",
        "conversation_id": conversation_id,
        "message": "Conversation stopped successfully",
        "conversation_status": "RUNNING",
    }
    info = (await client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["status"] == "STOPPED" and info["url"] is None and info["runtime_status"] is None
    # 10: stopping a stopped conversation.
    again = await client.post(f"/api/conversations/{conversation_id}/stop")
    assert again.json() == {
        "status": "ok",
        "conversation_id": conversation_id,
        "message": "Conversation was not running",
        "conversation_status": "STOPPED",
    }

    # 11: /start needs a JSON body, then STOPPED → STARTING → RUNNING.
    no_body = await client.post(f"/api/conversations/{conversation_id}/start")
    assert no_body.status_code == 422
    started = await client.post(
        f"/api/conversations/{conversation_id}/start", json={"providers_set": []}
    )
    assert started.status_code == 200
    assert started.json()["status"] == "ok"
    assert started.json()["conversation_id"] == conversation_id
    assert started.json()["conversation_status"] in ("STARTING", "RUNNING")
    assert (await wait_status(client, conversation_id, "RUNNING"))["url"]
    await stop(client, conversation_id)

    unknown = uuid.uuid4().hex
    missing = await client.post(f"/api/conversations/{unknown}/start", json={})
    assert (missing.status_code, missing.json()) == (
        404,
        {"status": "error", "conversation_id": unknown},
    )


# --- item 6 ---------------------------------------------------------------------------------------


async def _every_page(
    client: httpx.AsyncClient, limit: int, **params: Any
) -> tuple[list[dict[str, Any]], list[str | None]]:
    results: list[dict[str, Any]] = []
    page_ids: list[str | None] = []
    page_id: str | None = None
    while True:
        query = {"limit": limit, **params}
        if page_id:
            query["page_id"] = page_id
        response = await client.get("/api/conversations", params=query)
        assert response.status_code == 200, response.text
        page = response.json()
        results.extend(page["results"])
        page_id = page["next_page_id"]
        page_ids.append(page_id)
        if page_id is None:
            return results, page_ids


async def test_list_sorts_pages_and_filters(oss: ServerProcess, client: httpx.AsyncClient) -> None:
    repository = f"conformance/list-{uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC)
    written: dict[str, datetime] = {}
    for index in range(23):
        created_at = now - timedelta(minutes=7 * index + 1, seconds=index)
        trigger = ConversationTrigger.SUGGESTED_TASK if index % 3 == 0 else ConversationTrigger.GUI
        cid = write_conversation(
            oss.store, selected_repository=repository, trigger=trigger, created_at=created_at
        )
        written[cid] = created_at
    too_old = write_conversation(
        oss.store, selected_repository=repository, created_at=now - timedelta(days=11)
    )

    mine, page_ids = await _every_page(client, 5, selected_repository=repository)
    assert [c["conversation_id"] for c in mine] == sorted(written, key=written.get, reverse=True)
    assert all(c["selected_repository"] == repository for c in mine)
    # Page ids are the base64 of the next offset.
    assert page_ids[0] == b64encode(b"5").decode() and page_ids[-1] is None
    assert [int(b64decode(p)) for p in page_ids[:-1]] == list(range(5, 5 * len(page_ids), 5))

    # The whole list (other tests' conversations too) is newest first, without repeats.
    everything, _ = await _every_page(client, 7)
    stamps = [c["created_at"] for c in everything]
    assert stamps == sorted(stamps, reverse=True)
    ids = [c["conversation_id"] for c in everything]
    assert len(ids) == len(set(ids)) and set(written) <= set(ids)
    assert too_old not in ids  # older than 10 days: never listed ...
    old = (await client.get(f"/api/conversations/{too_old}")).json()
    assert old["conversation_id"] == too_old  # ... but still readable by id

    suggested, _ = await _every_page(
        client, 100, selected_repository=repository, conversation_trigger="suggested_task"
    )
    assert {c["conversation_id"] for c in suggested} == {
        cid for index, cid in enumerate(written) if index % 3 == 0
    }
    assert all(c["trigger"] == "suggested_task" for c in suggested)
    assert (await client.get("/api/conversations?conversation_trigger=bogus")).status_code == 422
    bad_page = await client.get("/api/conversations?page_id=%%%")
    assert bad_page.status_code == 400 and "detail" in bad_page.json()
    # A listed conversation has the ConversationInfo shape.
    first = mine[0]
    assert set(first) == {
        "conversation_id",
        "title",
        "last_updated_at",
        "status",
        "runtime_status",
        "selected_repository",
        "selected_branch",
        "git_provider",
        "trigger",
        "num_connections",
        "url",
        "session_api_key",
        "created_at",
        "pr_number",
    }
    assert first["status"] == "STOPPED" and first["num_connections"] == 0


# --- item 7 ---------------------------------------------------------------------------------------


async def test_get_unknown_and_invalid_ids(client: httpx.AsyncClient) -> None:
    unknown = await client.get(f"/api/conversations/{uuid.uuid4().hex}")
    assert unknown.status_code == 200 and unknown.json() is None
    cases = {
        "a..b": "Conversation ID contains invalid path characters",
        "a%5Cb": "Conversation ID contains invalid path characters",
        "x" * 101: "Conversation ID is too long",
        "a%01b": "Conversation ID contains control characters",
        "a%00b": "Conversation ID contains invalid characters",
    }
    for raw, detail in cases.items():
        for method in ("GET", "PATCH", "DELETE"):
            body = {"title": "t"} if method == "PATCH" else None
            response = await client.request(method, f"/api/conversations/{raw}", json=body)
            assert (response.status_code, response.json()) == (400, {"detail": detail}), raw


# --- item 9 ---------------------------------------------------------------------------------------


async def test_rename(oss: ServerProcess, client: httpx.AsyncClient, live, sockets) -> None:
    conversation_id = live["id"]
    watcher = sockets()
    await watcher.connect(oss.url, conversation_id=conversation_id)
    response = await client.patch(
        f"/api/conversations/{conversation_id}", json={"title": "  Renamed by the suite  "}
    )
    assert (response.status_code, response.json()) == (200, True)
    # The agent's own title for this conversation may still be on its way: wait for ours.
    update = await watcher.wait_for(
        lambda e: e.get("conversation_title") == "Renamed by the suite", timeout=30
    )
    assert update == {
        "status_update": True,
        "type": "info",
        "message": conversation_id,
        "conversation_title": "Renamed by the suite",
    }
    info = (await client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["title"] == "Renamed by the suite"
    assert metadata_file(oss, conversation_id)["title"] == "Renamed by the suite"

    unknown = await client.patch(f"/api/conversations/{uuid.uuid4().hex}", json={"title": "x"})
    assert (unknown.status_code, unknown.json()) == (
        404,
        {
            "status": "error",
            "message": "Conversation not found",
            "msg_id": "CONVERSATION$NOT_FOUND",
        },
    )
    for bad in ({"title": ""}, {"title": "x" * 201}, {"title": "x", "extra": 1}, {}):
        invalid = await client.patch(f"/api/conversations/{conversation_id}", json=bad)
        assert invalid.status_code == 422, bad


# --- item 10 --------------------------------------------------------------------------------------


async def test_delete(oss: ServerProcess, client: httpx.AsyncClient) -> None:
    conversation_id = write_conversation(
        oss.store, events=[(MessageAction("to be deleted"), EventSource.USER)]
    )
    directory = oss.store / "sessions" / conversation_id
    assert directory.is_dir()
    deleted = await client.delete(f"/api/conversations/{conversation_id}")
    assert (deleted.status_code, deleted.json()) == (200, True)
    assert not directory.exists()
    again = await client.delete(f"/api/conversations/{conversation_id}")
    assert (again.status_code, again.json()) == (200, False)
    assert (await client.get(f"/api/conversations/{conversation_id}")).json() is None


# --- item 12 --------------------------------------------------------------------------------------


async def test_events_route(oss: ServerProcess, client: httpx.AsyncClient) -> None:
    events: list[Any] = []
    for index in range(30):
        if index % 3 == 2:
            events.append((AgentStateChangedObservation("", AgentState.RUNNING), EventSource.AGENT))
        elif index % 3 == 1:
            events.append((CmdRunAction(f"echo {index}"), EventSource.AGENT))
        else:
            events.append((MessageAction(f"message {index}"), EventSource.USER))
    conversation_id = write_conversation(oss.store, events=events)
    url = f"/api/conversations/{conversation_id}/events"

    async def ids(**params: Any) -> tuple[list[int], bool]:
        response = await client.get(url, params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        return [e["id"] for e in page["events"]], page["has_more"]

    assert await ids() == (list(range(20)), True)  # default limit 20
    assert await ids(start_id=5, end_id=9) == ([5, 6, 7, 8, 9], False)  # end_id inclusive
    assert await ids(start_id=5, end_id=9, reverse="true") == ([9, 8, 7, 6, 5], False)
    assert await ids(start_id=5, limit=3) == ([5, 6, 7], True)
    assert await ids(start_id=27, limit=3) == ([27, 28, 29], False)
    assert await ids(reverse="true", limit=2) == ([29, 28], True)
    assert await ids(start_id=0, limit=100) == (list(range(30)), False)
    stored = (await client.get(url, params={"start_id": 1, "limit": 1})).json()["events"][0]
    on_disk = json.loads(
        (oss.store / "sessions" / conversation_id / "events" / "1.json").read_text()
    )
    assert stored == on_disk  # exactly as stored, no source rewriting

    too_many = await client.get(url, params={"limit": 101})
    assert (too_many.status_code, too_many.json()) == (400, {"detail": "Invalid limit"})
    unknown = uuid.uuid4().hex
    missing = await client.get(f"/api/conversations/{unknown}/events")
    assert (missing.status_code, missing.json()) == (
        404,
        {"detail": f"Conversation {unknown} not found"},
    )


# --- item 22 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "route"), ATTACHED_ROUTES)
async def test_per_conversation_routes_of_an_unknown_conversation(
    client: httpx.AsyncClient, method: str, route: str
) -> None:
    unknown = uuid.uuid4().hex
    response = await client.request(method, f"/api/conversations/{unknown}/{route}")
    assert (response.status_code, response.json()) == (
        404,
        {"detail": f"Conversation {unknown} not found"},
    )


async def test_workspace_routes_work_against_the_sandbox(
    oss: ServerProcess, client: httpx.AsyncClient, live
) -> None:
    base = f"/api/conversations/{live['id']}"
    name = f"upload-{uuid.uuid4().hex[:8]}.txt"
    binary_name = f"bytes-{uuid.uuid4().hex[:8]}.bin"
    payload = b"\x00\x01\xfe\xffbinary"
    uploaded = await client.post(
        f"{base}/upload-files",
        files=[
            ("files", (name, b"hello from the suite\n", "text/plain")),
            ("files", (binary_name, payload, "application/octet-stream")),
        ],
    )
    assert uploaded.status_code == 200, uploaded.text
    result = uploaded.json()
    assert set(result) == {"uploaded_files", "skipped_files"}
    assert [path.rsplit("/", 1)[-1] for path in result["uploaded_files"]] == [name, binary_name]
    assert result["skipped_files"] == []
    # Bytes arrive unchanged (the reference decoded them as text: QUIRK fixed).
    assert (oss.root / "workspace" / binary_name).read_bytes() == payload

    listing = await client.get(f"{base}/list-files")
    assert listing.status_code == 200
    entries = listing.json()
    assert name in entries and binary_name in entries
    assert all(entry not in (".git/", "node_modules/", "__pycache__/") for entry in entries)

    selected = await client.get(f"{base}/select-file", params={"file": name})
    assert (selected.status_code, selected.json()) == (200, {"code": "hello from the suite\n"})
    binary = await client.get(f"{base}/select-file", params={"file": binary_name})
    assert binary.status_code == 415
    assert binary.json()["error"].startswith("Unable to open binary file")
    assert (await client.get(f"{base}/select-file")).status_code == 422

    archive = await client.get(f"{base}/zip-directory")
    assert archive.status_code == 200
    assert archive.headers["content-type"] == "application/zip"
    assert 'filename="workspace.zip"' in archive.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zipped:
        names = zipped.namelist()
        member = next(n for n in names if n.endswith(name))
        assert zipped.read(member) == b"hello from the suite\n"

    config = (await client.get(f"{base}/config")).json()
    assert config == {"runtime_id": config["runtime_id"], "session_id": live["id"]}
    hosts = (await client.get(f"{base}/web-hosts")).json()
    assert isinstance(hosts["hosts"], dict)


# --- item 23 --------------------------------------------------------------------------------------


async def test_secrets_crud(oss: ServerProcess, client: httpx.AsyncClient) -> None:
    name = f"SUITE_SECRET_{uuid.uuid4().hex[:6].upper()}"
    value = f"value-{uuid.uuid4().hex}"
    created = await client.post(
        "/api/secrets", json={"name": name, "value": value, "description": "for the suite"}
    )
    assert (created.status_code, created.json()) == (
        201,
        {"message": "Secret created successfully"},
    )
    duplicate = await client.post("/api/secrets", json={"name": name, "value": "other"})
    assert (duplicate.status_code, duplicate.json()) == (
        400,
        {"message": f"Secret {name} already exists"},
    )
    listed = await client.get("/api/secrets")
    assert {"name": name, "description": "for the suite"} in listed.json()["custom_secrets"]
    assert value not in listed.text

    renamed = f"{name}_RENAMED"
    updated = await client.put(f"/api/secrets/{name}", json={"name": renamed})
    assert (updated.status_code, updated.json()) == (
        200,
        {"message": "Secret updated successfully"},
    )
    names = [s["name"] for s in (await client.get("/api/secrets")).json()["custom_secrets"]]
    assert renamed in names and name not in names
    stored = json.loads((oss.store / "secrets.json").read_text())["custom_secrets"]
    assert stored[renamed]["secret"] == value  # the value moved with the name

    unknown = await client.delete("/api/secrets/NO_SUCH_SECRET")
    assert (unknown.status_code, unknown.json()) == (
        404,
        {"error": "Secret with ID NO_SUCH_SECRET not found"},
    )
    deleted = await client.delete(f"/api/secrets/{renamed}")
    assert (deleted.status_code, deleted.json()) == (
        200,
        {"message": "Secret deleted successfully"},
    )
    names = [s["name"] for s in (await client.get("/api/secrets")).json()["custom_secrets"]]
    assert renamed not in names
