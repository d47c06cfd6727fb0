"""One conversation manager per process, and every manager gets the app's store.

``openhands.server.shared`` (the compatibility adapter) builds its own objects only while
no app runs. An app that starts afterwards retires them, so the adapter serves the app's
manager from then on; when conversations already run on the adapter's manager, the app
refuses to start instead of running a second manager beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import socketio
from fastapi import FastAPI
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.server import shared
from openhands.server.app_services import adapter_built, running_services, services_of
from openhands.server.composition import build_services
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.memory import InMemoryFileStore
from tests.unit.server.conftest import build_app, running
from tests.unit.server.fakes import fake_agent_session_cls


@pytest.fixture
def adapter_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenHandsConfig]:
    """What the adapter loads when no app runs (instead of config.toml + environment)."""
    assert running_services() is None
    loaded = OpenHandsConfig(
        file_store="local",
        file_store_path=str(tmp_path / "adapter-store"),
        jwt_secret=SecretStr("adapter-test-secret-of-at-least-32-bytes"),
    )
    monkeypatch.setattr("openhands.core.config.load_openhands_config", lambda: loaded)
    saved = dict(adapter_built())
    adapter_built().clear()
    yield loaded
    adapter_built().clear()
    adapter_built().update(saved)


async def test_the_adapter_builds_one_manager_and_an_app_retires_it(
    adapter_config: OpenHandsConfig,
    app_config: OpenHandsConfig,
    server_config: ServerConfig,
    workspace: Path,
) -> None:
    adapter_manager = shared.conversation_manager
    assert shared.config is adapter_config
    # The services a plain FastAPI app is served (the reference's routers mounted without
    # our lifespan) hold that same manager, not a second one.
    process = await shared.process_services()
    assert process.conversation_manager is adapter_manager
    assert process.conversation_store is adapter_manager.conversation_store
    assert await shared.process_services() is process

    async with running(build_app(app_config, server_config, workspace), workspace) as harness:
        assert adapter_built() == {}
        assert shared.conversation_manager is harness.services.conversation_manager
        assert await shared.process_services() is harness.services
        assert shared.config is app_config

    # With the app gone the adapter builds afresh: the retired manager is not served again.
    assert shared.conversation_manager is not adapter_manager
    assert shared.conversation_manager is not harness.services.conversation_manager


async def test_an_app_refuses_to_start_beside_a_busy_adapter_manager(
    adapter_config: OpenHandsConfig,
    app_config: OpenHandsConfig,
    server_config: ServerConfig,
    workspace: Path,
) -> None:
    busy = StandaloneConversationManager(
        socketio.AsyncServer(async_mode="asgi"),
        adapter_config,
        InMemoryFileStore(),
        cleanup_interval=3600,
        agent_session_cls=fake_agent_session_cls(workspace),
        monitoring_listener=MonitoringListener(),
    )
    async with busy:
        await busy.maybe_start_agent_loop(
            "adapterconv1", ConversationInitData(llm_api_key=SecretStr("x")), None
        )
        adapter_built()["conversation_manager"] = busy
        app = build_app(app_config, server_config, workspace)
        with pytest.raises(RuntimeError, match="one process runs one manager"):
            async with running(app, workspace):
                pass
        assert shared.conversation_manager is busy  # kept: its conversation still runs

        await busy.close_session("adapterconv1")
        async with running(build_app(app_config, server_config, workspace), workspace) as h:
            assert shared.conversation_manager is h.services.conversation_manager


class _OtherManager(StandaloneConversationManager):
    """A manager class other than the standalone one (an extension point's choice)."""


class _RecordingStore(FileConversationStore):
    """A configured (non-default) conversation store class."""


async def test_every_manager_class_gets_the_configured_store(
    app_config: OpenHandsConfig,
) -> None:
    module = __name__
    server = ServerConfig(
        conversation_manager_class=f"{module}._OtherManager",
        conversation_store_class=f"{module}._RecordingStore",
        serve_frontend=False,
    )
    services = await build_services(app_config, server, socketio.AsyncServer(async_mode="asgi"))
    assert isinstance(services.conversation_manager, _OtherManager)
    assert isinstance(services.conversation_store, _RecordingStore)
    assert services.conversation_manager.conversation_store is services.conversation_store


async def test_the_default_store_is_one_instance_for_routes_and_manager(
    app_config: OpenHandsConfig, server_config: ServerConfig
) -> None:
    services = await build_services(
        app_config, server_config, socketio.AsyncServer(async_mode="asgi")
    )
    assert type(services.conversation_store) is FileConversationStore
    assert services.conversation_manager.conversation_store is services.conversation_store


async def test_an_app_state_without_app_services_is_served_the_adapters(
    adapter_config: OpenHandsConfig,
) -> None:
    app = FastAPI()
    app.state.services = "not services"
    assert await services_of(app) is await shared.process_services()
