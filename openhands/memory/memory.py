"""Memory: answers RecallActions with workspace context and triggered microagent knowledge.

It subscribes to the event stream as ``memory``. For the first user message of a
conversation the controller publishes a WORKSPACE_CONTEXT recall; Memory answers with the
repository and runtime information, repository instructions and any knowledge microagent
the message triggers. Later messages get KNOWLEDGE recalls, answered with triggered
microagents only. When there is nothing to add, the answer is an empty NullObservation,
so the controller can go on.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Generator, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

from openhands.core.config.mcp_config import MCPConfig
from openhands.core.logger import openhands_logger as logger
from openhands.events.action.agent import RecallAction
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation.agent import MicroagentKnowledge, RecallObservation
from openhands.events.observation.empty import NullObservation
from openhands.events.stream import EventStreamSubscriber
from openhands.microagent.microagent import (
    BaseMicroagent,
    KnowledgeMicroagent,
    RepoMicroagent,
    load_microagents_from_dir,
)
from openhands.runtime.runtime_status import RuntimeStatus, StatusCallback
from openhands.utils.prompt import ConversationInstructions, RepositoryInfo, RuntimeInfo

GLOBAL_MICROAGENTS_DIR = Path(__file__).resolve().parents[2] / "microagents"
USER_MICROAGENTS_DIR = Path(os.path.expanduser("~")) / ".openhands" / "microagents"

WORKSPACE_CONTEXT_CONTENT = "Added workspace context"
KNOWLEDGE_CONTENT = "Retrieved knowledge from microagents"


class _FromModule:
    """Default for a microagents folder: the module constant, read when Memory is built
    (so patching ``GLOBAL_MICROAGENTS_DIR``/``USER_MICROAGENTS_DIR`` takes effect)."""


_FROM_MODULE: Final = _FromModule()


class _Done:
    """Returned by ``Memory._on_event``, which finishes before returning; code written
    for an asynchronous Memory may await it, which completes at once."""

    __slots__ = ()

    def __await__(self) -> Generator[None, None, None]:
        yield from ()


_DONE: Final = _Done()


class _EventStream(Protocol):
    def subscribe(
        self, subscriber_id: Any, callback: Callable[[Event], None], callback_id: str
    ) -> None: ...

    def add_event(self, event: Event, source: EventSource) -> None: ...


class _RuntimeHosts(Protocol):
    @property
    def web_hosts(self) -> dict[str, int]: ...

    @property
    def additional_agent_instructions(self) -> str: ...


class Memory:
    def __init__(
        self,
        event_stream: _EventStream,
        sid: str | None = None,
        status_callback: StatusCallback | None = None,
        global_microagents_dir: str | Path | _FromModule | None = _FROM_MODULE,
        user_microagents_dir: str | Path | _FromModule | None = _FROM_MODULE,
    ) -> None:
        """``None`` for a folder skips it; by default the module's folders are used."""
        self.event_stream = event_stream
        self.sid = sid or uuid.uuid4().hex
        self.status_callback = status_callback
        self.repo_microagents: dict[str, RepoMicroagent] = {}
        self.knowledge_microagents: dict[str, KnowledgeMicroagent] = {}
        self.repository_info: RepositoryInfo | None = None
        self.runtime_info: RuntimeInfo | None = None
        self.conversation_instructions: ConversationInstructions | None = None

        if isinstance(global_microagents_dir, _FromModule):
            global_microagents_dir = GLOBAL_MICROAGENTS_DIR
        if isinstance(user_microagents_dir, _FromModule):
            user_microagents_dir = USER_MICROAGENTS_DIR
        if global_microagents_dir is not None:
            self._load_dir(Path(global_microagents_dir), create=False)
        if user_microagents_dir is not None:
            self._load_dir(Path(user_microagents_dir), create=True)
        self.event_stream.subscribe(EventStreamSubscriber.MEMORY, self.on_event, self.sid)

    # --- the stream -------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Stream callback: answer a RecallAction (errors go to the status callback)."""
        self._on_event(event)

    def _on_event(self, event: Event) -> _Done:
        if not isinstance(event, RecallAction):
            return _DONE
        try:
            answer = self._answer(event)
        except Exception as exc:
            message = f"Error: {type(exc).__name__}"
            logger.error("Memory could not answer recall %s: %s", event.id, exc)
            self._report_error(message)
            return _DONE
        if answer is None:
            return _DONE
        answer.cause = event.id
        self.event_stream.add_event(answer, EventSource.ENVIRONMENT)
        return _DONE

    def _answer(self, recall: RecallAction) -> RecallObservation | NullObservation | None:
        """The observation to publish; None when this recall is not Memory's to answer."""
        observation: RecallObservation | None
        if recall.recall_type == RecallType.WORKSPACE_CONTEXT:
            if recall.source != EventSource.USER:
                return None
            observation = self._on_workspace_context_recall(recall)
        elif recall.recall_type == RecallType.KNOWLEDGE:
            if recall.source not in (EventSource.USER, EventSource.AGENT):
                return None
            observation = self._on_microagent_recall(recall)
        else:
            return None
        return observation if observation is not None else NullObservation(content="")

    def _on_workspace_context_recall(self, recall: RecallAction) -> RecallObservation | None:
        return self.workspace_context(recall.query)

    def _on_microagent_recall(self, recall: RecallAction) -> RecallObservation | None:
        return self.knowledge(recall.query)

    def workspace_context(self, query: str) -> RecallObservation | None:
        """Everything known about the workspace, or None if there is nothing at all."""
        knowledge = self._find_microagent_knowledge(query)
        # Repo microagents without a body (e.g. default-tools, which only brings MCP tools)
        # have nothing to say here.
        repo_instructions = "\n\n".join(
            a.content for a in self.repo_microagents.values() if a.content
        )
        if not (
            self.repository_info
            or self.runtime_info
            or repo_instructions
            or knowledge
            or self.conversation_instructions
        ):
            return None
        repo = self.repository_info or RepositoryInfo()
        runtime = self.runtime_info
        return RecallObservation(
            content=WORKSPACE_CONTEXT_CONTENT,
            recall_type=RecallType.WORKSPACE_CONTEXT,
            repo_name=repo.repo_name or "",
            repo_directory=repo.repo_directory or "",
            repo_branch=repo.branch_name or "",
            repo_instructions=repo_instructions,
            runtime_hosts=dict(runtime.available_hosts) if runtime else {},
            additional_agent_instructions=runtime.additional_agent_instructions if runtime else "",
            date=runtime.date if runtime else "",
            custom_secrets_descriptions=(
                dict(runtime.custom_secrets_descriptions) if runtime else {}
            ),
            conversation_instructions=(
                self.conversation_instructions.content if self.conversation_instructions else ""
            ),
            working_dir=runtime.working_dir if runtime else "",
            microagent_knowledge=knowledge,
        )

    def knowledge(self, query: str) -> RecallObservation | None:
        knowledge = self._find_microagent_knowledge(query)
        if not knowledge:
            return None
        return RecallObservation(
            content=KNOWLEDGE_CONTENT,
            recall_type=RecallType.KNOWLEDGE,
            microagent_knowledge=knowledge,
        )

    def find_microagent_knowledge(self, query: str) -> list[MicroagentKnowledge]:
        """Knowledge microagents whose trigger appears in ``query``."""
        return self._find_microagent_knowledge(query)

    def _find_microagent_knowledge(self, query: str) -> list[MicroagentKnowledge]:
        if not query:
            return []
        found = []
        for agent in self.knowledge_microagents.values():
            trigger = agent.match_trigger(query)
            if trigger:
                found.append(
                    MicroagentKnowledge(name=agent.name, trigger=trigger, content=agent.content)
                )
        return found

    # --- setup by the session -----------------------------------------------------------------

    def load_user_workspace_microagents(self, microagents: Iterable[BaseMicroagent]) -> None:
        """Add microagents found in the workspace/repository (they replace same-named ones)."""
        for agent in microagents:
            if isinstance(agent, KnowledgeMicroagent):
                self.knowledge_microagents[agent.name] = agent
            elif isinstance(agent, RepoMicroagent):
                self.repo_microagents[agent.name] = agent

    def set_repository_info(
        self, repo_name: str | None, repo_directory: str | None, branch_name: str | None = None
    ) -> None:
        if repo_name or repo_directory:
            self.repository_info = RepositoryInfo(repo_name, repo_directory, branch_name)
        else:
            self.repository_info = None

    def set_runtime_info(
        self,
        runtime: _RuntimeHosts,
        custom_secrets_descriptions: dict[str, str],
        working_dir: str,
    ) -> None:
        self.runtime_info = RuntimeInfo(
            date=datetime.now(UTC).date().isoformat(),
            available_hosts=dict(runtime.web_hosts or {}),
            additional_agent_instructions=runtime.additional_agent_instructions or "",
            custom_secrets_descriptions=dict(custom_secrets_descriptions),
            working_dir=working_dir,
        )

    def set_conversation_instructions(self, conversation_instructions: str | None) -> None:
        self.conversation_instructions = ConversationInstructions(
            content=conversation_instructions or ""
        )

    def get_microagent_mcp_tools(self) -> list[MCPConfig]:
        """MCP servers declared by repository microagents."""
        return [
            agent.metadata.mcp_tools
            for agent in self.repo_microagents.values()
            if agent.metadata.mcp_tools is not None
        ]

    # --- internals ----------------------------------------------------------------------------

    def _load_dir(self, directory: Path, create: bool) -> None:
        try:
            if create:
                directory.mkdir(parents=True, exist_ok=True)
            repo_agents, knowledge_agents = load_microagents_from_dir(directory)
        except Exception as exc:
            logger.warning("Could not load microagents from %s: %s", directory, exc)
            return
        self.repo_microagents.update(repo_agents)
        self.knowledge_microagents.update(knowledge_agents)

    def _report_error(self, message: str) -> None:
        if self.status_callback is None:
            return
        try:
            self.status_callback("error", RuntimeStatus.ERROR_MEMORY, message)
        except Exception as exc:
            logger.error("Memory status callback failed: %s", exc)
