"""Reference import paths and patch points of the server (python-api.md §6), and the
behaviour behind them: routers usable outside our app, CORS origins from the environment,
upload-extension rules read from the module, read-only tokens in the start data."""

from __future__ import annotations

import inspect
from types import MappingProxyType
from typing import Any
from unittest.mock import AsyncMock, MagicMock

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from openhands.events.action import MessageAction, NullAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.stream import EventStream
from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.server import file_config, listen_socket
from openhands.server.middleware import LocalhostCORSMiddleware
from openhands.server.models.conversation import ProvidersSetRequest
from openhands.server.routes import conversation as conversation_routes
from openhands.server.routes import feedback as feedback_routes
from openhands.server.routes import files as files_routes
from openhands.server.routes import manage_conversations as manage_routes
from openhands.server.routes import mcp as mcp_routes
from openhands.server.routes import public as public_routes
from openhands.server.routes import secrets as secrets_routes
from openhands.server.routes import security as security_routes
from openhands.server.routes import trajectory as trajectory_routes
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.settings import POSTProviderModel
from openhands.server.types import AppMode
from openhands.storage.memory import InMemoryFileStore

from .conftest import Harness


def _echo_app() -> FastAPI:
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    return app


async def _origin_header(app: Any, origin: str) -> str | None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.get("/ping", headers={"Origin": origin})
    assert response.status_code == 200
    return response.headers.get("access-control-allow-origin")


async def test_cors_origins_come_from_the_environment_when_not_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PERMITTED_CORS_ORIGINS", "https://one.example, https://two.example")
    middleware = LocalhostCORSMiddleware(_echo_app())
    assert middleware.allow_origins == ("https://one.example", "https://two.example")
    assert await _origin_header(middleware, "https://two.example") == "https://two.example"
    assert await _origin_header(middleware, "http://localhost:3001") is None
    assert await _origin_header(middleware, "https://three.example") is None


async def test_cors_without_environment_allows_only_local_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PERMITTED_CORS_ORIGINS", raising=False)
    middleware = LocalhostCORSMiddleware(_echo_app())
    assert middleware.allow_origins == ()
    assert await _origin_header(middleware, "http://127.0.0.1:9") == "http://127.0.0.1:9"
    assert await _origin_header(middleware, "https://elsewhere.example") is None


def test_extension_rule_reads_the_module_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_config, "RESTRICT_FILE_TYPES", True, raising=False)
    monkeypatch.setattr(file_config, "ALLOWED_EXTENSIONS", [".md"], raising=False)
    assert file_config.is_extension_allowed("notes.md")
    assert not file_config.is_extension_allowed("notes.exe")
    assert not file_config.is_extension_allowed("no_extension")
    monkeypatch.setattr(file_config, "ALLOWED_EXTENSIONS", [".*"], raising=False)
    assert file_config.is_extension_allowed("notes.exe")
    monkeypatch.setattr(file_config, "RESTRICT_FILE_TYPES", False, raising=False)
    monkeypatch.setattr(file_config, "ALLOWED_EXTENSIONS", [".md"], raising=False)
    assert file_config.is_extension_allowed("notes.exe")


def test_provider_token_request_takes_stored_token_objects() -> None:
    request = POSTProviderModel(
        provider_tokens={
            ProviderType.GITLAB: ProviderToken(token=SecretStr("glpat-x"), host="gl.example")
        }
    )
    entry = request.provider_tokens[ProviderType.GITLAB]
    assert entry.token == "glpat-x"
    assert entry.host == "gl.example"


def test_start_data_keeps_tokens_and_secrets_read_only() -> None:
    data = ConversationInitData(
        git_provider_tokens={ProviderType.GITHUB: ProviderToken(token=SecretStr("ghp"))},
        custom_secrets={"API": CustomSecret(secret=SecretStr("v"), description="d")},
    )
    assert isinstance(data.git_provider_tokens, MappingProxyType)
    assert isinstance(data.custom_secrets, MappingProxyType)
    with pytest.raises(TypeError):
        data.custom_secrets["OTHER"] = CustomSecret(secret=SecretStr("w"))  # type: ignore[index]
    data.custom_secrets = {}
    assert isinstance(data.custom_secrets, MappingProxyType)
    dumped = data.model_dump(mode="json")
    assert dumped["git_provider_tokens"]["github"]["token"] == "**********"
    assert dumped["custom_secrets"] == {}
    assert ConversationInitData().git_provider_tokens is None


async def test_conversation_link_follows_the_module_server_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = MagicMock()
    service.get_user = AsyncMock(return_value=MagicMock(login="octo"))
    monkeypatch.setattr(mcp_routes, "server_config", MagicMock(app_mode=AppMode.OSS), raising=False)
    assert await mcp_routes.get_conversation_link(service, "c1", "body") == "body"
    service.get_user.assert_not_called()

    monkeypatch.setattr(
        mcp_routes, "server_config", MagicMock(app_mode=AppMode.SAAS), raising=False
    )
    monkeypatch.setattr(mcp_routes, "CONVERSATION_URL", "https://oh.example/c/{}")
    linked = await mcp_routes.get_conversation_link(service, "c1", "")
    assert (
        linked == "\n\n@octo can click here to [continue refining the PR](https://oh.example/c/c1)"
    )


async def test_module_socket_handlers_forward_to_the_manager(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    manager = MagicMock()
    manager.send_to_event_stream = AsyncMock()
    monkeypatch.setattr(listen_socket, "conversation_manager", manager, raising=False)
    action = {"action": "message", "args": {"content": "hi"}}
    await listen_socket.oh_user_action("sid-1", action)
    await listen_socket.oh_action("sid-2", action)
    assert [c.args for c in manager.send_to_event_stream.await_args_list] == [
        ("sid-1", action),
        ("sid-2", action),
    ]


async def test_secrets_router_in_a_foreign_app_uses_the_running_app(harness: Harness) -> None:
    foreign = FastAPI()
    foreign.include_router(secrets_routes.app)
    transport = httpx.ASGITransport(app=foreign)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        created = await client.post("/api/secrets", json={"name": "TOKEN_A", "value": "v"})
        assert created.status_code == 201
        listed = await client.get("/api/secrets")
    assert [s["name"] for s in listed.json()["custom_secrets"]] == ["TOKEN_A"]
    # The same store as the app's own routes.
    own = await harness.client.get("/api/secrets")
    assert own.json() == listed.json()


async def test_a_router_in_a_bare_app_answers_errors_as_the_server_does(
    harness: Harness,
) -> None:
    """The bare app has none of the server's exception handlers: the routes answer the
    error table's errors themselves, with the same status and body."""
    foreign = FastAPI()
    foreign.include_router(secrets_routes.app)
    transport = httpx.ASGITransport(app=foreign)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        created = await client.post("/api/secrets", json={"name": "DUP", "value": "v"})
        duplicate = await client.post("/api/secrets", json={"name": "DUP", "value": "w"})
        missing = await client.delete("/api/secrets/NOT_THERE")
    own_missing = await harness.client.delete("/api/secrets/NOT_THERE")
    assert created.status_code == 201
    assert (missing.status_code, missing.json()) == (own_missing.status_code, own_missing.json())
    assert missing.status_code == 404 and "error" in missing.json()
    assert duplicate.status_code == 400 and "message" in duplicate.json()


async def test_git_provider_check_is_looked_up_on_the_routes_module(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = AsyncMock(return_value="")
    monkeypatch.setattr(secrets_routes, "check_provider_tokens", check)
    body = {"provider_tokens": {"github": {"token": "ghp-new", "host": "ghe.example"}}}
    response = await harness.client.post("/api/add-git-providers", json=body)
    assert response.status_code == 200
    check.assert_awaited_once()
    settings = await harness.client.get("/api/secrets")
    assert settings.status_code == 200

    check.return_value = "Invalid token. Please make sure it is a valid github token."
    refused = await harness.client.post("/api/add-git-providers", json=body)
    assert refused.status_code == 401
    assert refused.json() == {"error": check.return_value}


async def test_token_validation_is_looked_up_on_the_routes_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[tuple[str, tuple[ProviderType, ...]]] = []

    async def validate(
        token: SecretStr, host: str | None, *, providers: Any, api_urls: Any
    ) -> ProviderType | None:
        asked.append((token.get_secret_value(), tuple(providers)))
        return ProviderType.GITHUB if token.get_secret_value() == "ghp-good" else None

    monkeypatch.setattr(secrets_routes, "validate_provider_token", validate)

    def request(token: str) -> POSTProviderModel:
        return POSTProviderModel(
            provider_tokens={ProviderType.GITHUB: ProviderToken(token=SecretStr(token))}
        )

    assert await secrets_routes.check_provider_tokens(request("ghp-good"), {}) == ""
    refused = await secrets_routes.check_provider_tokens(request("ghp-bad"), {})
    assert refused == "Invalid token. Please make sure it is a valid github token."
    # Only the provider the token is stored for is asked.
    assert asked == [("ghp-good", (ProviderType.GITHUB,)), ("ghp-bad", (ProviderType.GITHUB,))]


def test_route_modules_keep_the_reference_names() -> None:
    assert conversation_routes.app is conversation_routes.conversation_api_router
    assert feedback_routes.app is feedback_routes.feedback_api_router
    assert files_routes.app is files_routes.files_api_router
    assert public_routes.app is public_routes.public_api_router
    assert security_routes.app is security_routes.security_api_router
    assert trajectory_routes.app is trajectory_routes.trajectory_router
    assert manage_routes.app is manage_routes.manage_conversation_api_router
    assert manage_routes.ProvidersSetModel is ProvidersSetRequest
    # The reference's function (store and tokens as arguments) beside the served route.
    assert inspect.iscoroutinefunction(manage_routes.get_microagent_management_conversations)
    assert list(
        inspect.signature(manage_routes.get_microagent_management_conversations).parameters
    ) == ["selected_repository", "page_id", "limit", "conversation_store", "provider_tokens"]


async def test_route_modules_serve_the_running_apps_shared_objects(harness: Harness) -> None:
    assert manage_routes.conversation_manager is harness.manager
    assert manage_routes.file_store is harness.services.file_store
    assert conversation_routes.conversation_manager is harness.manager
    with pytest.raises(AttributeError):
        _ = manage_routes.server_config  # not a name the reference module had


def test_contextual_events_are_the_remember_prompt_window() -> None:
    stream = EventStream("contextual", InMemoryFileStore())
    try:
        events: list[Event] = []
        for index in range(33):
            event: Event
            if index % 3 == 1:
                event = NullAction()  # never shown to the LLM
            elif index % 3 == 2:
                event = AgentStateChangedObservation("", "running")  # nor this
            else:
                event = MessageAction(content=f"message {index}")
            stream.add_event(event, EventSource.USER)
            events.append(event)
        text = manage_routes._get_contextual_events(stream, 15)
    finally:
        stream.close()
    # Messages have ids 0, 3, …, 30: four shown before id 15, then five from it on.
    shown = [e for e in events if isinstance(e, MessageAction) and 3 <= e.id <= 27]
    assert len(shown) == 9
    assert text == "\n".join(str(e) for e in shown)
