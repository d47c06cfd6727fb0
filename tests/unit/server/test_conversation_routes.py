"""The conversation collection routes (server-api §6.3)."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from openhands.storage.data_models.conversation_metadata import ConversationMetadata

HEX32 = re.compile(r"^[0-9a-f]{32}$")


async def eventually(check: Any, timeout: float = 30.0) -> None:
    """Wait until ``check()`` is true (LiteLLM's first import alone can take seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "condition never became true"
        await asyncio.sleep(0.05)


async def create(harness, **body: Any) -> str:
    response = await harness.client.post("/api/conversations", json=body)
    assert response.status_code == 200, response.text
    return response.json()["conversation_id"]


async def wait_running(harness, conversation_id: str) -> dict:
    for _ in range(200):
        info = (await harness.client.get(f"/api/conversations/{conversation_id}")).json()
        if info["status"] == "RUNNING" and info["runtime_status"] == "STATUS$READY":
            return info
        await asyncio.sleep(0.02)
    raise AssertionError(f"{conversation_id} never became RUNNING")


def metadata_file(harness, conversation_id: str) -> dict:
    root = Path(harness.services.config.file_store_path)
    return json.loads((root / "sessions" / conversation_id / "metadata.json").read_text())


async def test_create_rejects_unknown_keys(harness) -> None:
    await harness.store_settings()
    response = await harness.client.post("/api/conversations", json={"bogus": 1})
    assert response.status_code == 422
    not_allowed = await harness.client.post("/api/conversations", json={"conversation_id": "abc"})
    assert not_allowed.status_code == 422


async def test_create_needs_settings_and_a_key(harness) -> None:
    response = await harness.client.post("/api/conversations", json={})
    assert response.status_code == 400
    assert response.json() == {
        "status": "error",
        "message": "Settings not found",
        "msg_id": "CONFIGURATION$SETTINGS_NOT_FOUND",
    }
    await harness.store_settings(llm_api_key=None)
    no_key = await harness.client.post("/api/conversations", json={})
    assert no_key.status_code == 400
    assert no_key.json()["msg_id"] == "STATUS$ERROR_LLM_AUTHENTICATION"
    assert no_key.json()["message"] == (
        "Error authenticating with the LLM provider. Please check your API key"
    )
    await harness.store_settings(llm_api_key=None, llm_model="bedrock/claude")
    assert (await harness.client.post("/api/conversations", json={})).status_code == 200


async def test_create_starts_a_conversation(harness) -> None:
    await harness.store_settings()
    response = await harness.client.post(
        "/api/conversations", json={"initial_user_msg": "hello there"}
    )
    body = response.json()
    assert body["status"] == "ok"
    assert body["message"] is None
    assert body["conversation_status"] in ("STARTING", "RUNNING")
    conversation_id = body["conversation_id"]
    assert HEX32.match(conversation_id)
    stored = metadata_file(harness, conversation_id)
    assert stored["trigger"] == "gui"
    assert stored["created_at"].endswith("Z")
    info = await wait_running(harness, conversation_id)
    assert info["url"] == f"/api/conversations/{conversation_id}"
    assert info["session_api_key"] is None
    assert info["num_connections"] == 0
    # The initial message went into the stream and the echo controller answered it.
    events: list[dict[str, Any]] = []

    async def echoed() -> bool:
        nonlocal events
        url = f"/api/conversations/{conversation_id}/events?limit=100"
        events = (await harness.client.get(url)).json()["events"]
        return any(
            e["source"] == "agent" and e.get("message") == "echo: hello there" for e in events
        )

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30.0
    while not await echoed():
        assert loop.time() < deadline, f"no echo of the initial message in {events}"
        await asyncio.sleep(0.05)
    kinds = [(e["source"], e.get("action") or e.get("observation")) for e in events]
    assert kinds[0] == ("environment", "agent_state_changed")
    assert ("user", "message") in kinds
    assert ("environment", "change_agent_state") in kinds
    # The metadata updater titled the conversation after the first message (no LLM: cut).
    await eventually(lambda: metadata_file(harness, conversation_id)["title"] == "hello there")
    assert metadata_file(harness, conversation_id)["last_updated_at"] is not None


async def test_allow_set_conversation_id(harness) -> None:
    await harness.store_settings()
    harness.services.server_config.allow_set_conversation_id = True
    conversation_id = await create(harness, conversation_id="myconversation1")
    assert conversation_id == "myconversation1"


async def test_list_sorting_paging_and_filters(harness) -> None:
    store = harness.services.conversation_store
    now = datetime.now(UTC)
    for index, (repo, trigger) in enumerate(
        [("a/b", "gui"), ("a/b", "suggested_task"), ("c/d", "gui")]
    ):
        await store.save_metadata(
            ConversationMetadata(
                conversation_id=f"conv{index}",
                selected_repository=repo,
                trigger=trigger,
                created_at=now - timedelta(minutes=10 - index),
            )
        )
    await store.save_metadata(
        ConversationMetadata(conversation_id="ancient", created_at=now - timedelta(days=11))
    )
    everything = (await harness.client.get("/api/conversations")).json()
    assert [c["conversation_id"] for c in everything["results"]] == ["conv2", "conv1", "conv0"]
    assert everything["next_page_id"] is None
    first = (await harness.client.get("/api/conversations?limit=2")).json()
    assert [c["conversation_id"] for c in first["results"]] == ["conv2", "conv1"]
    assert first["next_page_id"] == "Mg=="
    second = (await harness.client.get("/api/conversations?limit=2&page_id=Mg==")).json()
    assert [c["conversation_id"] for c in second["results"]] == ["conv0"]
    by_repo = (await harness.client.get("/api/conversations?selected_repository=a/b")).json()
    assert {c["conversation_id"] for c in by_repo["results"]} == {"conv0", "conv1"}
    by_trigger = (
        await harness.client.get("/api/conversations?conversation_trigger=suggested_task")
    ).json()
    assert [c["conversation_id"] for c in by_trigger["results"]] == ["conv1"]
    info = by_trigger["results"][0]
    assert info["status"] == "STOPPED" and info["url"] is None
    assert info["title"] == "Conversation conv1"
    bad_trigger = await harness.client.get("/api/conversations?conversation_trigger=nope")
    assert bad_trigger.status_code == 422
    bad_page = await harness.client.get("/api/conversations?page_id=%%%")
    assert bad_page.status_code == 400
    assert "detail" in bad_page.json()


async def test_get_unknown_and_invalid_ids(harness) -> None:
    unknown = await harness.client.get("/api/conversations/" + "f" * 32)
    assert unknown.status_code == 200 and unknown.json() is None
    cases = {
        "x" * 101: "Conversation ID is too long",
        "a..b": "Conversation ID contains invalid path characters",
        "a%5Cb": "Conversation ID contains invalid path characters",
        "a%01b": "Conversation ID contains control characters",
    }
    for conversation_id, detail in cases.items():
        response = await harness.client.get(f"/api/conversations/{conversation_id}")
        assert response.status_code == 400
        assert response.json() == {"detail": detail}


async def test_rename(harness) -> None:
    await harness.store_settings()
    conversation_id = await create(harness)
    response = await harness.client.patch(
        f"/api/conversations/{conversation_id}", json={"title": "  New title  "}
    )
    assert response.status_code == 200 and response.json() is True
    assert metadata_file(harness, conversation_id)["title"] == "New title"
    unknown = await harness.client.patch("/api/conversations/" + "e" * 32, json={"title": "x"})
    assert unknown.status_code == 404
    assert unknown.json() == {
        "status": "error",
        "message": "Conversation not found",
        "msg_id": "CONVERSATION$NOT_FOUND",
    }
    empty = await harness.client.patch(f"/api/conversations/{conversation_id}", json={"title": ""})
    assert empty.status_code == 422


async def test_delete(harness) -> None:
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    runtime = harness.manager.get_agent_session(conversation_id).runtime
    assert (await harness.client.delete(f"/api/conversations/{conversation_id}")).json() is True
    await eventually(lambda: runtime.closed)  # closed in the background
    assert not await harness.manager.is_agent_loop_running(conversation_id)
    root = Path(harness.services.config.file_store_path)
    assert not (root / "sessions" / conversation_id).exists()
    assert (await harness.client.delete(f"/api/conversations/{conversation_id}")).json() is False


async def test_start_and_stop(harness) -> None:
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    stopped = (await harness.client.post(f"/api/conversations/{conversation_id}/stop")).json()
    assert stopped == {
        "status": "ok",
        "conversation_id": conversation_id,
        "message": "Conversation stopped successfully",
        "conversation_status": "RUNNING",
    }
    again = (await harness.client.post(f"/api/conversations/{conversation_id}/stop")).json()
    assert again["message"] == "Conversation was not running"
    assert again["conversation_status"] == "STOPPED"
    info = (await harness.client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["status"] == "STOPPED"

    no_body = await harness.client.post(f"/api/conversations/{conversation_id}/start")
    assert no_body.status_code == 422
    started = await harness.client.post(
        f"/api/conversations/{conversation_id}/start", json={"providers_set": ["github"]}
    )
    assert started.status_code == 200
    assert started.json()["conversation_status"] in ("STARTING", "RUNNING")
    await wait_running(harness, conversation_id)
    unknown = await harness.client.post("/api/conversations/" + "d" * 32 + "/start", json={})
    assert unknown.status_code == 404
    assert unknown.json() == {"status": "error", "conversation_id": "d" * 32}


async def test_start_without_settings_is_a_400(harness) -> None:
    store = harness.services.conversation_store
    await store.save_metadata(ConversationMetadata(conversation_id="nosettings"))
    response = await harness.client.post("/api/conversations/nosettings/start", json={})
    assert response.status_code == 400  # 0.59: 500; the caller has to store settings first
    body = response.json()
    assert body["status"] == "error" and body["conversation_id"] == "nosettings"
    assert body["message"].startswith("Failed to start conversation: ")


async def test_experiment_config_written_once(harness) -> None:
    store = harness.services.conversation_store
    await store.save_metadata(ConversationMetadata(conversation_id="exp"))
    url = "/api/conversations/exp/exp-config"
    assert (await harness.client.post(url, json={"config": {"a": "b"}})).json() is False
    assert (await harness.client.post(url, json={"config": {"a": "c"}})).json() is False
    root = Path(harness.services.config.file_store_path)
    saved = json.loads((root / "sessions" / "exp" / "exp_config.json").read_text())
    assert saved == {"config": {"a": "b"}}


async def test_title_from_the_users_llm(harness, scripted_llm) -> None:
    from tests.support.scripted_llm import text

    scripted_llm.push(text('"Fixing the flaky login test"'))
    await harness.store_settings(llm_model="openai/test-model", llm_base_url=scripted_llm.base_url)
    conversation_id = await create(harness, initial_user_msg="please fix the flaky login test")
    await eventually(
        lambda: metadata_file(harness, conversation_id)["title"] == "Fixing the flaky login test"
    )
    prompt = scripted_llm.completion_requests[0].messages[-1]["content"]
    assert "please fix the flaky login test" in prompt


async def test_remember_prompt(harness, scripted_llm) -> None:
    from tests.support.scripted_llm import text

    await harness.store_settings(llm_model="openai/test-model", llm_base_url=scripted_llm.base_url)

    def answer(request: dict[str, Any]) -> Any:
        prompt = str(request["messages"][-1]["content"])
        if "<update_prompt>" in prompt:
            return text("Sure.\n<update_prompt>Run make lint before committing.</update_prompt>")
        return text("A title")

    scripted_llm.fallback = answer  # titles and the prompt, in whatever order they come
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    for content in ("use ruff", "ok"):
        await harness.client.post(
            f"/api/conversations/{conversation_id}/message", json={"message": content}
        )
    response = await harness.client.get(
        f"/api/conversations/{conversation_id}/remember-prompt", params={"event_id": 2}
    )
    assert response.json() == {"status": "success", "prompt": "Run make lint before committing."}
    sent = [str(r.messages[-1]["content"]) for r in scripted_llm.completion_requests]
    assert any("<update_prompt>" in p and "use ruff" in p for p in sent)


async def test_create_from_a_suggested_task(harness) -> None:
    """The first message is the task's own prompt (SuggestedTask.get_prompt_for_task)."""
    from openhands.integrations.service_types import ProviderType, SuggestedTask, TaskType

    await harness.store_settings()
    task = {
        "git_provider": "gitlab",
        "task_type": "FAILING_CHECKS",
        "repo": "o/r",
        "issue_number": 7,
        "title": "Fix CI",
    }
    response = await harness.client.post("/api/conversations", json={"suggested_task": task})
    assert response.status_code == 200
    conversation_id = response.json()["conversation_id"]
    assert metadata_file(harness, conversation_id)["trigger"] == "suggested_task"
    expected = SuggestedTask(
        git_provider=ProviderType.GITLAB,
        task_type=TaskType.FAILING_CHECKS,
        repo="o/r",
        issue_number=7,
        title="Fix CI",
    ).get_prompt_for_task()
    assert "Merge Request" in expected  # the provider's wording

    async def first_message() -> bool:
        events = (
            await harness.client.get(f"/api/conversations/{conversation_id}/events?limit=100")
        ).json()["events"]
        return any(e.get("source") == "user" and e.get("message") == expected for e in events)

    for _ in range(200):
        if await first_message():
            break
        await asyncio.sleep(0.02)
    assert await first_message()

    unknown_type = await harness.client.post(
        "/api/conversations", json={"suggested_task": {**task, "task_type": "DO_SOMETHING"}}
    )
    assert unknown_type.status_code == 422
    no_wording = await harness.client.post(
        "/api/conversations", json={"suggested_task": {**task, "git_provider": "enterprise_sso"}}
    )
    assert no_wording.status_code == 400
    assert "enterprise_sso" in no_wording.json()
