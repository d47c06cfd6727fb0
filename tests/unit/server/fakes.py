"""Test doubles for the agent stack behind the server.

The server's REST/socket layer is exercised for real; only the sandbox and the agent are
replaced: ``FakeRuntime`` keeps the "sandbox" workspace in a host directory and
``EchoController`` answers user messages and state changes the way a controller does.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from openhands.core.schema import AgentState
from openhands.events.action import ChangeAgentStateAction, FileReadAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    ErrorObservation,
    FileReadObservation,
)
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.server.session.agent_session import AgentSession

SANDBOX_ROOT = "/workspace"


class FakeRuntime:
    """A sandbox whose `/workspace` is a host directory."""

    runtime_id = None

    def __init__(self, root: Path) -> None:
        self.root = root
        self.closed = False
        self.web_hosts = {"http://localhost:4141": 4141}
        self.vscode_url = "http://localhost:3333/?tkn=token&folder=/workspace"
        # Paths the server passes in are sandbox paths, as with a Docker runtime.
        self.workspace_root = Path("/workspace")

    def _host(self, path: str | None) -> Path:
        path = path or ""
        if path.startswith(SANDBOX_ROOT):
            path = path[len(SANDBOX_ROOT) :]
        return self.root / path.lstrip("/")

    def list_files(self, path: str | None = None) -> list[str]:
        base = self._host(path)
        return sorted(entry.name + ("/" if entry.is_dir() else "") for entry in base.iterdir())

    def read(self, action: FileReadAction) -> Any:
        target = self._host(action.path)
        if not target.is_file():
            return ErrorObservation(f"File not found: {action.path}")
        data = target.read_bytes()
        if b"\x00" in data:
            return ErrorObservation("ERROR_BINARY_FILE")
        return FileReadObservation(content=data.decode(), path=action.path)

    def copy_to(self, host_src: str, sandbox_dest: str, recursive: bool = False) -> None:
        destination = self._host(sandbox_dest)
        destination.mkdir(parents=True, exist_ok=True)
        shutil.copy(host_src, destination / os.path.basename(host_src))

    def copy_from(self, path: str) -> Path:
        handle, name = tempfile.mkstemp(suffix=".zip")
        os.close(handle)
        with zipfile.ZipFile(name, "w") as archive:
            for file in self._host(path).rglob("*"):
                archive.write(file, file.relative_to(self.root))
        return Path(name)

    def get_git_changes(self, cwd: str) -> list[dict[str, str]] | None:
        if not (self._host(cwd) / ".git").exists():
            return None
        return [{"status": "M", "path": "hello.py"}]

    def get_git_diff(self, file_path: str, cwd: str) -> dict[str, str]:
        return {"modified": self._host(file_path).read_text(), "original": ""}

    def get_workspace_branch(self, repo_path: str | None = None) -> str | None:
        return "main"

    def close(self) -> None:
        self.closed = True


class EchoController:
    """Answers like a controller: user message → running → agent echo → awaiting input."""

    def __init__(self, stream: EventStream) -> None:
        self.stream = stream
        self.state = AgentState.LOADING
        self.closed = False
        stream.subscribe(EventStreamSubscriber.AGENT_CONTROLLER, self.on_event, stream.sid)

    def get_agent_state(self) -> AgentState:
        return self.state

    async def set_agent_state_to(self, state: AgentState) -> None:
        self._set_state(state)

    def _set_state(self, state: AgentState) -> None:
        if state == self.state:
            return
        self.state = AgentState(state)
        self.stream.add_event(
            AgentStateChangedObservation("", self.state.value), EventSource.ENVIRONMENT
        )

    def on_event(self, event: Event) -> None:
        if isinstance(event, ChangeAgentStateAction):
            self._set_state(AgentState(event.agent_state))
        elif isinstance(event, MessageAction) and event.source == EventSource.USER:
            self._set_state(AgentState.RUNNING)
            self.stream.add_event(MessageAction(f"echo: {event.content}"), EventSource.AGENT)
            self._set_state(AgentState.AWAITING_USER_INPUT)

    def save_state(self) -> None:
        pass

    async def close(self, set_stop_state: bool = True) -> None:
        self.closed = True


def fake_agent_session_cls(workspace: Path, connect: bool = True) -> type[AgentSession]:
    """An AgentSession whose runtime and controller are the fakes above."""

    class FakeAgentSession(AgentSession):
        def _create_llm_registry(self, config: Any, agent_name: str) -> tuple[Any, Any]:
            return None, None

        def _create_agent(self, config: Any, agent_name: str) -> Any:
            return SimpleNamespace(sandbox_plugins=[], config=SimpleNamespace(enable_mcp=False))

        async def _create_runtime(self, config: Any, agent: Any, init_data: Any) -> bool:
            if not connect:
                self.status_callback("error", "STATUS$ERROR_RUNTIME_DISCONNECTED", "no sandbox")
                return False
            self.runtime = FakeRuntime(workspace)
            self.runtime_connected = True
            self.status_callback("info", "STATUS$READY", "Runtime is ready")
            return True

        async def _setup_workspace(self, init_data: Any) -> str | None:
            return None

        async def _create_memory(self, config: Any, init_data: Any) -> Any:
            return SimpleNamespace(repo_microagents={}, knowledge_microagents={})

        def _create_controller(self, config: Any, agent: Any, init_data: Any, replay: Any) -> Any:
            return EchoController(self.event_stream)

    return FakeAgentSession
