"""The reference's `openhands.server` import paths (python-api §6, checklist 17 and 18):
each name is the project's object and behaves as the spec says."""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, HTTPException
from pydantic import SecretStr
from starlette.requests import Request

from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.storage.data_models.settings import Settings
from openhands.storage.settings.file_settings_store import FileSettingsStore

# --- checklist 17: the module-level app and AppMode -----------------------------------------


def test_module_level_app_is_the_real_app_built_once() -> None:
    from openhands.server import app as app_module

    app = app_module.app
    assert isinstance(app, FastAPI)
    assert app_module.app is app
    assert app_module.mcp_app is app.state.mcp_app
    paths = set(app.openapi()["paths"])
    for path in (
        "/api/conversations",
        "/api/conversations/{conversation_id}/events",
        "/api/settings",
        "/api/secrets",
        "/api/add-git-providers",
        "/api/options/config",
        "/api/user/repositories",
        "/alive",
    ):
        assert path in paths


def test_app_mode_enum_is_the_server_configs() -> None:
    from openhands.server.types import AppMode

    assert AppMode.OSS.value == "oss" and AppMode.SAAS.value == "saas"
    assert ServerConfig().app_mode is AppMode.OSS
    assert ServerConfig.from_env({"APP_MODE": "saas"}).app_mode is AppMode.SAAS
    assert ServerConfig(posthog_client_key="k").get_config() == {
        "APP_MODE": "oss",
        "GITHUB_CLIENT_ID": "",
        "POSTHOG_CLIENT_KEY": "k",
        "FEATURE_FLAGS": {"ENABLE_BILLING": False, "HIDE_LLM_SETTINGS": False},
    }


async def test_options_config_is_served_from_get_config(harness) -> None:
    body = (await harness.client.get("/api/options/config")).json()
    assert body == harness.services.server_config.get_config()


def test_server_types() -> None:
    from openhands.server import errors
    from openhands.server.types import (
        LLMAuthenticationError,
        MissingSettingsError,
        ServerConfigInterface,
    )

    assert issubclass(MissingSettingsError, ValueError)
    assert isinstance(errors.SettingsRequiredError(), MissingSettingsError)
    assert isinstance(errors.LLMKeyMissingError(), LLMAuthenticationError)
    assert isinstance(ServerConfig(), ServerConfigInterface)
    with pytest.raises(TypeError):
        ServerConfigInterface()  # type: ignore[abstract]


async def test_combine_lifespans_enters_in_order_and_leaves_in_reverse() -> None:
    from openhands.server.app import combine_lifespans

    calls: list[str] = []

    def lifespan(name: str) -> Any:
        @contextlib.asynccontextmanager
        async def run(app: FastAPI) -> AsyncIterator[None]:
            calls.append(f"enter {name}")
            yield
            calls.append(f"leave {name}")

        return run

    async with combine_lifespans(lifespan("a"), lifespan("b"))(FastAPI()):
        calls.append("serving")
    assert calls == ["enter a", "enter b", "serving", "leave b", "leave a"]


async def test_authentication_error_handler_answers_401() -> None:
    from openhands.integrations.service_types import AuthenticationError
    from openhands.server.app import authentication_error_handler

    response = await authentication_error_handler(
        Request({"type": "http", "headers": []}), AuthenticationError("bad token")
    )
    assert response.status_code == 401
    assert response.body == b'"bad token"'


# --- config and extension points -------------------------------------------------------------


class _OtherConfig(ServerConfig):
    settings_store_class: str = "tests.unit.server.test_public_api_server._Store"


class _Store(FileSettingsStore):
    pass


def test_load_server_config_honours_config_cls_and_manager_env() -> None:
    from openhands.server.config.server_config import ServerConfig as RefServerConfig
    from openhands.server.config.server_config import load_server_config

    assert RefServerConfig is ServerConfig
    env = {
        "OPENHANDS_CONFIG_CLS": f"{__name__}._OtherConfig",
        "CONVERSATION_MANAGER_CLASS": "pkg.Manager",
    }
    loaded = load_server_config(env)
    assert type(loaded) is _OtherConfig
    assert loaded.config_cls == env["OPENHANDS_CONFIG_CLS"]
    assert loaded.settings_store_class.endswith("._Store")
    assert loaded.conversation_manager_class == "pkg.Manager"
    assert type(load_server_config({})) is ServerConfig
    with pytest.raises(ValueError):
        ServerConfig(user_auth_class="NoDots").verify_config()


async def test_shared_serves_the_running_apps_objects(harness) -> None:
    from openhands.server import shared
    from openhands.server.monitoring import MonitoringListener
    from openhands.storage.secrets.file_secrets_store import FileSecretsStore

    services = harness.services
    assert shared.config is services.config
    assert shared.server_config is services.server_config
    assert shared.file_store is services.file_store
    assert shared.sio is services.sio
    assert shared.conversation_manager is services.conversation_manager
    assert isinstance(shared.monitoring_listener, MonitoringListener)
    assert shared.SettingsStoreImpl is FileSettingsStore
    assert shared.SecretsStoreImpl is FileSecretsStore
    assert shared.ConversationStoreImpl is type(services.conversation_store)
    with pytest.raises(AttributeError):
        _ = shared.nothing_here


def test_monitoring_listener_is_a_no_op() -> None:
    from openhands.core.config import OpenHandsConfig
    from openhands.server.monitoring import MonitoringListener

    listener = MonitoringListener.get_instance(OpenHandsConfig())
    assert isinstance(listener, MonitoringListener)
    assert listener.on_create_conversation() is None
    assert listener.on_agent_session_start(True, 1.0) is None
    assert listener.on_session_event(object()) is None  # type: ignore[arg-type]


# --- checklist 18 and §6.3: user auth ----------------------------------------------------------


async def test_default_user_auth_needs_no_arguments() -> None:
    from openhands.server.user_auth import DefaultUserAuth

    assert await DefaultUserAuth().get_user_id() is None
    assert DefaultUserAuth().get_auth_type() is None


def _request(app: FastAPI) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "headers": [], "app": app})


async def test_request_helpers_cache_one_user_auth(harness) -> None:
    from openhands.server import user_auth

    request = _request(harness.app)
    first = await user_auth.get_user_auth(request)
    assert await user_auth.get_user_auth(request) is first
    assert request.state.user_auth is first
    assert await user_auth.get_user_id(request) is None
    assert await user_auth.get_access_token(request) is None
    assert await user_auth.get_auth_type(request) is None
    assert await user_auth.get_user_settings(request) is None
    await harness.store_settings(llm_model="openai/x")
    settings = await user_auth.get_user_settings(_request(harness.app))
    assert settings is not None and settings.llm_model == "openai/x"
    store = await user_auth.get_user_settings_store(request)
    assert isinstance(store, FileSettingsStore)
    assert await user_auth.get_user_secrets(request) is None
    assert await user_auth.get_provider_tokens(request) is None
    assert (await user_auth.get_secrets_store(request)) is not None
    for name in ("get_user_auth", "get_user_id", "get_provider_tokens", "get_auth_type"):
        assert inspect.iscoroutinefunction(getattr(user_auth, name))


async def test_user_auth_get_instance_is_an_async_classmethod() -> None:
    from openhands.server.user_auth import DefaultUserAuth, UserAuth

    assert inspect.iscoroutinefunction(UserAuth.get_instance)
    made = await DefaultUserAuth.get_instance(Request({"type": "http", "headers": []}))
    assert isinstance(made, DefaultUserAuth)


# --- utils ----------------------------------------------------------------------------------


async def test_utils(harness) -> None:
    from openhands.server import utils
    from openhands.storage.data_models.conversation_metadata import ConversationMetadata

    with pytest.raises(HTTPException) as caught:
        utils.validate_conversation_id("../etc")
    assert caught.value.status_code == 400
    store = await utils.get_conversation_store(_request(harness.app))
    assert store is harness.services.conversation_store
    new_id = await utils.generate_unique_conversation_id(store)
    assert len(new_id) == 32 and not await store.exists(new_id)
    with pytest.raises(HTTPException) as caught:
        await utils.get_conversation_metadata(new_id, store)
    assert caught.value.status_code == 404
    await store.save_metadata(ConversationMetadata(conversation_id=new_id, user_id="u1"))
    assert (await utils.get_conversation_metadata(new_id, store)).user_id == "u1"
    assert (await utils.get_conversation(new_id, "u1")).conversation_id == new_id
    with pytest.raises(HTTPException) as caught:
        await utils.get_conversation(new_id, "u2")
    assert caught.value.status_code == 403


async def test_invalid_id_keeps_the_projects_error_body(harness) -> None:
    response = await harness.client.get(f"/api/conversations/{'x' * 101}")
    assert response.status_code == 400
    assert response.json() == {"detail": "Conversation ID is too long"}


# --- conversation service functions ----------------------------------------------------------


async def test_conversation_service_functions(harness) -> None:
    from openhands.integrations.provider import ProviderType
    from openhands.server.data_models.agent_loop_info import AgentLoopInfo
    from openhands.server.services import conversation_service as cs
    from openhands.server.types import LLMAuthenticationError, MissingSettingsError

    tokens = cs.create_provider_tokens_object([ProviderType.GITHUB])
    assert list(tokens) == [ProviderType.GITHUB] and not tokens[ProviderType.GITHUB].has_token
    args: dict[str, Any] = {
        "user_id": None,
        "git_provider_tokens": None,
        "custom_secrets": None,
        "selected_repository": None,
        "selected_branch": None,
        "initial_user_msg": None,
        "image_urls": None,
        "replay_json": None,
    }
    with pytest.raises(MissingSettingsError):
        await cs.create_new_conversation(**args)
    await harness.store_settings(llm_api_key=None, llm_model="openai/x")
    with pytest.raises(LLMAuthenticationError):
        await cs.create_new_conversation(**args)
    await harness.store_settings()
    loop = await cs.create_new_conversation(**args, conversation_id="f" * 32)
    assert isinstance(loop, AgentLoopInfo) and loop.conversation_id == "f" * 32
    assert await harness.services.conversation_store.exists("f" * 32)
    init = await cs.setup_init_conversation_settings(None, "f" * 32, [ProviderType.GITLAB])
    assert init.llm_model == "openai/test-model"
    assert list(init.git_provider_tokens or {}) == [ProviderType.GITLAB]
    metadata = await cs.initialize_conversation(None, None, "o/r", "main")
    assert metadata is not None and metadata.selected_repository == "o/r"
    for name in ("initialize_conversation", "start_conversation", "create_new_conversation"):
        assert inspect.iscoroutinefunction(getattr(cs, name))


# --- settings / secrets routes and models ----------------------------------------------------


async def test_settings_route_helpers(tmp_path: Path) -> None:
    from openhands.integrations.provider import ProviderToken, ProviderType
    from openhands.server.routes import settings as routes
    from openhands.storage.data_models.user_secrets import UserSecrets
    from openhands.storage.local import LocalFileStore

    store = FileSettingsStore(LocalFileStore(str(tmp_path)))
    await store.store(Settings(llm_api_key=SecretStr("k"), llm_model="m", language="de"))
    merged = await routes.store_llm_settings(Settings(language="fr"), store)
    assert merged.llm_api_key is not None and merged.llm_api_key.get_secret_value() == "k"
    assert (merged.llm_model, merged.language) == ("m", "fr")
    with_tokens = Settings(
        llm_model="m",
        secrets_store=UserSecrets(
            provider_tokens={ProviderType.GITHUB: ProviderToken(token=SecretStr("t"))}
        ),
    )
    plain = routes.convert_to_settings(with_tokens)
    assert type(plain) is Settings and not plain.secrets_store.provider_tokens
    assert plain.llm_model == "m"
    assert routes.app is routes.settings_router


async def test_secrets_router_moved_with_same_urls(harness) -> None:
    from openhands.integrations.service_types import ProviderType
    from openhands.server.routes import secrets

    paths = {route.path for route in secrets.app.routes}  # type: ignore[attr-defined]
    assert paths == {
        "/api/secrets",
        "/api/secrets/{secret_id}",
        "/api/add-git-providers",
        "/api/unset-provider-tokens",
    }
    assert secrets.process_token_validation_result(ProviderType.GITHUB, ProviderType.GITHUB) == ""
    assert "gitlab" in secrets.process_token_validation_result(None, ProviderType.GITLAB)
    created = await harness.client.post("/api/secrets", json={"name": "A", "value": "v"})
    assert created.status_code == 201
    listed = (await harness.client.get("/api/secrets")).json()
    assert listed == {"custom_secrets": [{"name": "A", "description": None}]}
    bad = await harness.client.post(
        "/api/add-git-providers", json={"provider_tokens": {"gitlab": {"token": "a b"}}}
    )
    assert bad.status_code == 401
    assert bad.json() == {"error": "Invalid token. Please make sure it is a valid gitlab token."}


def test_settings_models_are_the_projects() -> None:
    from openhands.server import settings as ref
    from openhands.server.models import settings as models

    assert ref.GETSettingsModel is models.SettingsResponse
    assert ref.POSTProviderModel is models.ProviderTokensRequest
    assert ref.CustomSecretWithoutValueModel is models.CustomSecretName
    assert ref.CustomSecretModel is models.CustomSecretCreate
    assert ref.GETCustomSecrets is models.CustomSecretNames
    secret = ref.CustomSecretModel(name="N", value=SecretStr("s3cr3t"))
    assert "s3cr3t" not in repr(secret)
    posted = ref.POSTCustomSecrets.model_validate({"custom_secrets": {"N": {"secret": "v"}}})
    assert posted.custom_secrets["N"].secret.get_secret_value() == "v"


# --- data models, file config, conversation, mcp ---------------------------------------------


def test_data_models_are_the_projects() -> None:
    from openhands.server.conversation_manager.conversation_manager import AgentLoopInfo
    from openhands.server.data_models import agent_loop_info, conversation_info
    from openhands.server.data_models import conversation_info_result_set as result_set
    from openhands.server.models import conversation
    from openhands.storage.data_models.conversation_status import ConversationStatus

    assert agent_loop_info.AgentLoopInfo is AgentLoopInfo
    info = AgentLoopInfo("c", None, None)
    assert info.status is ConversationStatus.RUNNING and info.event_store is None
    assert conversation_info.ConversationInfo is conversation.ConversationInfo
    assert result_set.ConversationInfoResultSet is conversation.ConversationInfoResultSet


async def test_store_feedback_is_sync_and_writes_a_record(harness) -> None:
    from openhands.server.data_models.feedback import FeedbackDataModel, store_feedback

    assert not inspect.iscoroutinefunction(store_feedback)
    feedback = FeedbackDataModel(
        email="a@b.c", version="1", polarity="positive", feedback="positive", trajectory=[]
    )
    answer = store_feedback(feedback)
    assert answer["statusCode"] == 200
    root = Path(harness.services.config.file_store_path)
    folder = root / harness.services.server_config.feedback_dir
    assert (folder / f"{answer['body']['feedback_id']}.json").exists()


def test_file_config(tmp_path: Path) -> None:
    from openhands.core.config import OpenHandsConfig
    from openhands.server import file_config
    from openhands.server.services import workspace

    assert file_config.FILES_TO_IGNORE is workspace.FILES_TO_IGNORE
    assert ".git/" in file_config.FILES_TO_IGNORE
    assert file_config.sanitize_filename("../a b/c?d.txt") == "c_d.txt"
    assert len(file_config.sanitize_filename("x" * 300 + ".py")) == 255
    (tmp_path / "f.txt").write_text("")
    assert file_config.get_unique_filename("f.txt", str(tmp_path)) == "f(1).txt"
    assert file_config.get_unique_filename("g.txt", str(tmp_path)) == "g.txt"
    config = OpenHandsConfig(
        file_uploads_max_file_size_mb=-1,
        file_uploads_restrict_file_types=True,
        file_uploads_allowed_extensions=["PY", ".md"],
    )
    assert file_config.load_file_upload_config(config) == (0, True, [".py", ".md"])
    assert workspace.extension_allowed("a.py", [".py"]) is True
    assert workspace.extension_allowed("a.js", [".py"]) is False
    assert workspace.extension_allowed("a.js", [".*"]) is True


async def test_server_conversation_connect_and_disconnect(tmp_path: Path) -> None:
    from openhands.server.session import server_conversation
    from openhands.server.session.conversation import ServerConversation

    assert ServerConversation is server_conversation.ServerConversation
    assert inspect.iscoroutinefunction(ServerConversation.connect)
    assert inspect.iscoroutinefunction(ServerConversation.disconnect)

    class Runtime:
        connected = closed = False

        async def connect(self) -> None:
            self.connected = True

        def close(self) -> None:
            self.closed = True

    from openhands.core.config import OpenHandsConfig
    from openhands.storage.memory import InMemoryFileStore

    # A running loop's runtime is borrowed: connect and disconnect leave it alone.
    store = InMemoryFileStore()
    config = OpenHandsConfig(runtime="cli", workspace_base=str(tmp_path))
    borrowed = Runtime()
    conversation = ServerConversation("s", store, config, None, runtime=borrowed)  # type: ignore[arg-type]
    assert not conversation.owns_runtime and conversation.security_analyzer is None
    await conversation.connect()
    await conversation.disconnect()
    assert not borrowed.connected and not borrowed.closed

    # Without a runtime it attaches one of the configured kind and owns it.
    attached = ServerConversation("s", store, config, "u")
    assert attached.owns_runtime and attached.runtime.attach_to_existing
    assert type(attached.runtime).__name__ == "CLIRuntime"
    assert attached.event_stream.sid == "s" and attached.event_stream.user_id == "u"
    await attached.disconnect()
    assert attached.runtime.closed


async def test_routes_mcp_alias(harness) -> None:
    from openhands.server.routes import mcp
    from openhands.storage.data_models.conversation_metadata import ConversationMetadata

    assert mcp.CONVERSATION_URL == mcp.HOST + "/conversations/{}"
    tools = {tool.name for tool in await mcp.mcp_server.list_tools()}
    assert tools == {"create_pr", "create_mr", "create_bitbucket_pr"}
    assert await mcp.get_conversation_link(object(), "c", "body") == "body"
    store = harness.services.conversation_store
    await store.save_metadata(ConversationMetadata(conversation_id="c" * 32))
    await mcp.save_pr_metadata(None, "c" * 32, "https://github.com/o/r/pull/42")
    await mcp.save_pr_metadata(None, "c" * 32, "no number here")
    assert (await store.get_metadata("c" * 32)).pr_number == [42]
    for name in ("create_pr", "create_mr", "create_bitbucket_pr"):
        assert inspect.iscoroutinefunction(getattr(mcp, name))


def test_routes_git_app() -> None:
    from openhands.server.routes import git

    assert git.app is git.github_api_router


# --- leftovers: microagent types and the condenser registry -----------------------------------


def test_microagent_response_types_are_the_integrations() -> None:
    from openhands.integrations import service_types
    from openhands.microagent.types import MicroagentContentResponse, MicroagentResponse

    assert MicroagentResponse is service_types.MicroagentResponse
    assert MicroagentContentResponse is service_types.MicroagentContentResponse


def test_condenser_registry_and_metadata() -> None:
    from openhands.core.config.condenser_config import NoOpCondenserConfig
    from openhands.memory.condenser import CONDENSER_REGISTRY, get_condensation_metadata
    from openhands.memory.condenser.impl import NoOpCondenser

    assert CONDENSER_REGISTRY[NoOpCondenserConfig] is NoOpCondenser

    class State:
        extra_data: dict[str, Any] = {}

    assert get_condensation_metadata(State()) == []  # type: ignore[arg-type]
    State.extra_data = {"condenser_meta": [{"a": 1}]}
    assert get_condensation_metadata(State()) == [{"a": 1}]  # type: ignore[arg-type]


def test_no_env_leak() -> None:
    assert "OPENHANDS_CONFIG_CLS" not in os.environ


class _Listener:
    calls: list[tuple[str, Any]] = []


class RecordingListener(MonitoringListener):
    def on_create_conversation(self) -> None:
        _Listener.calls.append(("create", None))

    def on_agent_session_start(self, success: bool, duration: float) -> None:
        _Listener.calls.append(("start", success))

    def on_session_event(self, event: Any) -> None:
        _Listener.calls.append(("event", type(event).__name__))


async def test_monitoring_listener_extension_point_is_called(
    app_config: Any, server_config: ServerConfig, workspace: Path
) -> None:
    import asyncio

    from tests.unit.server.conftest import build_app, running

    server = server_config.model_copy(
        update={"monitoring_listener_class": f"{__name__}.RecordingListener"}
    )
    _Listener.calls = []
    async with running(build_app(app_config, server, workspace), workspace) as harness:
        assert isinstance(harness.services.monitoring_listener, RecordingListener)
        await harness.store_settings()
        created = await harness.client.post("/api/conversations", json={"initial_user_msg": "hi"})
        assert created.status_code == 200, created.text
        assert ("create", None) in _Listener.calls
        async with asyncio.timeout(20):  # a bound on a broken wiring, not a wait
            while not {"start", "event"} <= {kind for kind, _ in _Listener.calls}:
                await asyncio.sleep(0.01)
    assert ("start", True) in _Listener.calls, _Listener.calls
