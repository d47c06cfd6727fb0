"""Fixtures: a real app (lifespan included) over a temp file store, driven by httpx or by a
real uvicorn server on 127.0.0.1 with a python-socketio client."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.server.app import create_app
from openhands.server.app_services import AppServices
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.server_config import ServerConfig
from openhands.storage.data_models.settings import Settings
from openhands.storage.settings.file_settings_store import FileSettingsStore
from tests.support.fixtures import scripted_llm  # noqa: F401
from tests.unit.server.fakes import fake_agent_session_cls


@dataclass
class Harness:
    app: FastAPI
    client: httpx.AsyncClient
    workspace: Path

    @property
    def services(self) -> AppServices:
        return self.app.state.services  # type: ignore[no-any-return]

    @property
    def manager(self) -> StandaloneConversationManager:
        return self.services.conversation_manager  # type: ignore[return-value]

    async def store_settings(self, **values: Any) -> None:
        values.setdefault("llm_model", "openai/test-model")
        values.setdefault("llm_api_key", SecretStr("sk-test"))
        # Nothing listens there: title generation fails at once and falls back.
        values.setdefault("llm_base_url", "http://127.0.0.1:9/v1")
        store = await FileSettingsStore.get_instance(self.services.config, None)
        await store.store(Settings(**values))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def app_config(tmp_path: Path) -> OpenHandsConfig:
    return OpenHandsConfig(
        file_store="local",
        file_store_path=str(tmp_path / "store"),
        runtime="local",
        jwt_secret=SecretStr("unit-test-secret-of-at-least-32-bytes"),
    )


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        rate_limit_enabled=False, serve_frontend=False, cleanup_interval_seconds=3600
    )


def build_app(
    config: OpenHandsConfig, server: ServerConfig, workspace: Path, connect: bool = True
) -> FastAPI:
    session_cls = fake_agent_session_cls(workspace, connect=connect)

    def manager_factory(sio: Any, cfg: Any, store: Any, srv: ServerConfig, listener: Any) -> Any:
        return StandaloneConversationManager(
            sio,
            cfg,
            store,
            cleanup_interval=srv.cleanup_interval_seconds,
            agent_session_cls=session_cls,
            monitoring_listener=listener,
        )

    return create_app(config, server, manager_factory=manager_factory)


@contextlib.asynccontextmanager
async def running(
    app: FastAPI, workspace: Path, base_url: str = "http://testserver"
) -> AsyncIterator[Harness]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=base_url) as client:
            yield Harness(app, client, workspace)


@pytest.fixture
async def harness(
    app_config: OpenHandsConfig, server_config: ServerConfig, workspace: Path
) -> AsyncIterator[Harness]:
    async with running(build_app(app_config, server_config, workspace), workspace) as h:
        yield h


class _QuietServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def serve(asgi_app: Any) -> AsyncIterator[str]:
    """Run ``asgi_app`` under uvicorn on 127.0.0.1 (random port) in this event loop."""
    # log_config=None: uvicorn's default logging setup (dictConfig) would re-enable every
    # logger this process disabled (the LLM prompt/response loggers), for later tests too.
    config = uvicorn.Config(
        asgi_app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", log_config=None
    )
    server = _QuietServer(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
