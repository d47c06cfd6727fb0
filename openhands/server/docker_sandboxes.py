"""The server's Docker sandbox services: built at start-up, closed at shutdown.

With ``runtime = "docker"`` the app builds one ``DockerSandboxes`` (warm pool, owner
label, deletes) and gives it to the conversation manager, which hands it to every agent
session's runtime. At start-up it cleans up after earlier processes of this server in the
background (``/alive`` does not wait for it) and logs how many sandboxes it removed or
stopped; at shutdown it removes the pool's idle sandboxes. A clustered manager shares its
conversations with other nodes, so only the pool clean-up applies there.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, TypeGuard

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.conversation_manager import ConversationManager
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.files import FileStore
from openhands.storage.locations import get_conversation_dir, session_exists

if TYPE_CHECKING:
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
    from openhands.server.conversation_manager.standalone_conversation_manager import (
        StandaloneConversationManager,
    )

logger = logging.getLogger(__name__)


def wants_docker_sandboxes(
    manager: ConversationManager, config: OpenHandsConfig
) -> TypeGuard[StandaloneConversationManager]:
    if config.runtime != "docker":
        return False
    from openhands.server.conversation_manager.standalone_conversation_manager import (
        StandaloneConversationManager,
    )

    return isinstance(manager, StandaloneConversationManager)


async def start_docker_sandboxes(
    config: OpenHandsConfig,
    manager: StandaloneConversationManager,
    file_store: FileStore,
    store: ConversationStore,
) -> tuple[DockerSandboxes, asyncio.Task[None]]:
    """Build the services, give them to ``manager`` and start the clean-up and the pool."""
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
    from openhands.server.conversation_manager.clustered_conversation_manager import (
        ClusteredConversationManager,
    )

    sandboxes = await asyncio.to_thread(
        DockerSandboxes.for_server, config, server_sandbox_plugins(config)
    )
    manager.docker_sandboxes = sandboxes
    clustered = isinstance(manager, ClusteredConversationManager)
    loop = asyncio.get_running_loop()

    def conversation_exists(sid: str) -> bool:
        if clustered:
            return True  # other nodes run them: never judged from here
        found = asyncio.run_coroutine_threadsafe(store.exists(sid), loop).result(60)
        return found or _stored_anywhere(file_store, sid)

    def loop_running(sid: str) -> bool:
        if clustered:
            return True
        running = manager.get_running_agent_loops(filter_to_sids={sid})
        return bool(asyncio.run_coroutine_threadsafe(running, loop).result(60))

    async def sweep_then_fill() -> None:
        from openhands.runtime.impl.docker.docker_runtime import (
            CONTAINER_NAME_PREFIX,
            stop_container,
        )

        try:
            report = await asyncio.to_thread(
                sandboxes.sweep,
                conversation_exists,
                loop_running,
                CONTAINER_NAME_PREFIX,
                stop_container,
            )
            logger.info("Sandbox clean-up at start-up: %s", report)
        except Exception:
            logger.exception("Sandbox clean-up at start-up failed")
        sandboxes.start()

    task = asyncio.create_task(sweep_then_fill(), name="docker-sandbox-sweep")
    return sandboxes, task


async def close_docker_sandboxes(sandboxes: DockerSandboxes, task: asyncio.Task[None]) -> None:
    if not task.done():
        await asyncio.wait({task}, timeout=60)
    await asyncio.to_thread(sandboxes.close)


def server_sandbox_plugins(config: OpenHandsConfig) -> tuple[str, ...]:
    """The plugins of a UI conversation of the default agent (the server is not headless,
    so VS Code is always asked for): what a warm sandbox must have to be claimed."""
    import openhands.agenthub  # noqa: F401  (registers the agents)
    from openhands.controller.agent import Agent
    from openhands.runtime.utils.command import plugin_names

    plugins = list(Agent.get_cls(config.default_agent).sandbox_plugins)
    return tuple(plugin_names([*plugins, "vscode"]))


def _stored_anywhere(file_store: FileStore, sid: str) -> bool:
    """Whether ``sid`` has a conversation directory, shared or under any user's."""
    if session_exists(sid, file_store):
        try:
            if file_store.list(get_conversation_dir(sid)):
                return True
        except FileNotFoundError:
            pass
    try:
        users = file_store.list("users/")
    except FileNotFoundError:
        return False
    for entry in users:
        user_id = entry.rstrip("/").rsplit("/", 1)[-1]
        try:
            if file_store.list(get_conversation_dir(sid, user_id)):
                return True
        except FileNotFoundError:
            continue
    return False
