"""The repository-microagent routes and the microagent-management function where 0.59's
code reaches them: a router mounted in a bare app takes the caller's tokens from an
overridden `get_provider_tokens`, builds `routes.git.ProviderHandler` when called (a
provider's RuntimeError is a 500 with its text), and `get_microagent_management_conversations`
pages a given store. Provider APIs are local stand-ins."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import MappingProxyType

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from openhands.integrations.provider import ProviderHandler, ProviderToken
from openhands.integrations.service_types import MicroagentContentResponse, ProviderType
from openhands.server.dependencies import check_session_api_key
from openhands.server.routes import git as git_routes
from openhands.server.routes import manage_conversations as manage_routes
from openhands.server.user_auth import get_provider_tokens
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
)
from openhands.storage.memory import InMemoryFileStore
from tests.unit.integrations.stand_in_api import Recorded, Reply, StandInAPI, stand_in_api
from tests.unit.server.conftest import Harness

GITLAB_TOKEN = "glpat-bare-app"
GITHUB_TOKEN = "ghp-manage"


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as served:
        yield served


def _serve_gitlab_microagents(api: StandInAPI) -> None:
    def tree(request: Recorded) -> Reply:
        if request.headers.get("authorization") != f"Bearer {GITLAB_TOKEN}":
            return 401, {"message": "401 Unauthorized"}, {}
        files = [("deploy.md", ".openhands/microagents/deploy.md")]
        return 200, [{"name": n, "path": p, "type": "blob"} for n, p in files], {}

    api.respond("/api/v4/projects/g%2Fp/repository/tree", tree)
    api.add(
        "/api/v4/projects/g%2Fp/repository/files/.openhands%2Fmicroagents%2Fdeploy.md/raw",
        "---\ntriggers:\n- deploy\n---\nHow to deploy.\n",
    )


def _bare_app(token: str, host: str) -> TestClient:
    app = FastAPI()
    app.include_router(git_routes.app)
    tokens = MappingProxyType(
        {ProviderType.GITLAB: ProviderToken(token=SecretStr(token), host=host)}
    )
    app.dependency_overrides[get_provider_tokens] = lambda: tokens
    app.dependency_overrides[check_session_api_key] = lambda: None
    return TestClient(app)


def test_the_overridden_tokens_reach_the_provider(api: StandInAPI) -> None:
    _serve_gitlab_microagents(api)
    client = _bare_app(GITLAB_TOKEN, api.url)

    listed = client.get("/api/user/repository/g/p/microagents")
    assert listed.status_code == 200, listed.text
    assert listed.json() == [
        {"name": "deploy", "path": ".openhands/microagents/deploy.md", "created_at": None}
    ]
    content = client.get(
        "/api/user/repository/g/p/microagents/content",
        params={"file_path": ".openhands/microagents/deploy.md"},
    )
    assert content.json()["triggers"] == ["deploy"]

    refused = _bare_app("glpat-wrong", api.url).get("/api/user/repository/g/p/microagents")
    assert refused.status_code == 401


def test_a_replaced_provider_handler_is_used_and_its_runtime_error_is_a_500(
    api: StandInAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Handler(ProviderHandler):
        async def get_microagent_content(
            self, repository: str, file_path: str
        ) -> MicroagentContentResponse:
            raise RuntimeError(f"{file_path} is not in {repository}")

    monkeypatch.setattr(git_routes, "ProviderHandler", Handler)
    answer = _bare_app(GITLAB_TOKEN, api.url).get(
        "/api/user/repository/g/p/microagents/content", params={"file_path": "gone.md"}
    )
    assert (answer.status_code, answer.json()) == (500, "gone.md is not in g/p")


def _metadata(sid: str, **fields: object) -> ConversationMetadata:
    base: dict[str, object] = {
        "conversation_id": sid,
        "selected_repository": "o/r",
        "git_provider": ProviderType.GITHUB,
        "trigger": ConversationTrigger.MICROAGENT_MANAGEMENT,
    }
    return ConversationMetadata.model_validate({**base, **fields})


async def test_the_management_function_pages_a_given_store(
    harness: Harness, api: StandInAPI
) -> None:
    # A token's own host is GitHub Enterprise: its REST API is under /api/v3.
    api.add("/api/v3/repos/o/r/pulls/1", {"state": "open"})
    api.add("/api/v3/repos/o/r/pulls/2", {"state": "closed"})
    store = FileConversationStore(InMemoryFileStore())
    old = datetime.now(UTC) - timedelta(days=3650)
    for metadata in (
        _metadata("a" * 32, pr_number=[1]),
        _metadata("b" * 32, pr_number=[2]),  # its PR is closed
        _metadata("c" * 32),  # no PR yet
        _metadata("d" * 32, selected_repository="o/other"),
        _metadata("e" * 32, trigger=ConversationTrigger.GUI),
        _metadata("f" * 32, created_at=old),  # older than the configured age
    ):
        await store.save_metadata(metadata)
    tokens = MappingProxyType(
        {ProviderType.GITHUB: ProviderToken(token=SecretStr(GITHUB_TOKEN), host=api.url)}
    )

    page = await manage_routes.get_microagent_management_conversations(
        "o/r", None, 20, conversation_store=store, provider_tokens=tokens
    )

    assert sorted(info.conversation_id for info in page.results) == ["a" * 32, "c" * 32]
    assert {info.status.value for info in page.results} == {"STOPPED"}
    asked = [r.path for r in api.requests]
    assert sorted(asked) == ["/api/v3/repos/o/r/pulls/1", "/api/v3/repos/o/r/pulls/2"]
