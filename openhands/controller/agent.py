"""The Agent seam: what the controller calls, and the registry of agent classes by name.

An agent turns a :class:`State` into the next :class:`Action`. It owns its LLM (taken
from the registry under the ``agent`` service id) and, usually, a prompt manager that
renders the system prompt. Concrete agents live in ``openhands.agenthub`` and register
themselves with :meth:`Agent.register`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from openhands.core.config import AgentConfig
from openhands.core.config.agent_config import load_class
from openhands.core.exceptions import AgentAlreadyRegisteredError, AgentNotRegisteredError
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import Action, SystemMessageAction

if TYPE_CHECKING:
    from openhands.controller.state.state import State
    from openhands.core.config import OpenHandsConfig
    from openhands.llm.llm import LLM
    from openhands.llm.llm_registry import LLMRegistry

AGENT_LLM_SERVICE_ID = "agent"


class Agent(ABC):
    """Base class of every agent.

    Subclasses implement :meth:`step`; they may set ``_prompt_manager`` (anything with a
    ``get_system_message(cli_mode=...) -> str`` method) and ``tools`` (tool schemas sent
    to the LLM) so the default :meth:`get_system_message` works for them.
    """

    DEPRECATED: ClassVar[bool] = False
    # Runtime plugin requirements (objects from the runtime package); order matters.
    sandbox_plugins: ClassVar[list[Any]] = []
    # The config model of this agent's `[agent.<Name>]` section.
    config_model: ClassVar[type[AgentConfig]] = AgentConfig

    _registry: ClassVar[dict[str, type[Agent]]] = {}

    def __init__(self, config: AgentConfig, llm_registry: LLMRegistry) -> None:
        self.config = config
        self.llm_registry = llm_registry
        self.llm: LLM = llm_registry.get_llm_from_agent_config(AGENT_LLM_SERVICE_ID, config)
        self._complete = False
        self._prompt_manager: Any | None = None
        self.tools: list[dict[str, Any]] = []
        self.mcp_tools: dict[str, dict[str, Any]] = {}

    # --- what the controller uses ---------------------------------------------------------

    @abstractmethod
    def step(self, state: State) -> Action:
        """Return the next action for ``state``. May raise the LLM/agent errors of §8.4."""

    def reset(self) -> None:
        """Forget in-flight work (queued actions, completion flag). Called on STOP/ERROR."""
        self._complete = False

    @property
    def complete(self) -> bool:
        return self._complete

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def prompt_manager(self) -> Any:
        if self._prompt_manager is None:
            raise RuntimeError(f"{self.name} has no prompt manager")
        return self._prompt_manager

    def get_system_message(self) -> SystemMessageAction | None:
        """The system prompt and tools, or None when this agent has no prompt manager.

        The controller publishes it once at the start of a conversation (source agent).
        """
        if self._prompt_manager is None:
            return None
        content = self._prompt_manager.get_system_message(cli_mode=self.config.cli_mode)
        return SystemMessageAction(
            content=content, tools=list(self.tools) or None, agent_class=self.name
        )

    def set_mcp_tools(self, mcp_tools: list[dict[str, Any]]) -> None:
        """Add MCP tool schemas (OpenAI function format). A name already known is skipped."""
        known = {_tool_name(tool) for tool in self.tools}
        for tool in mcp_tools:
            name = _tool_name(tool)
            if not name or name in known or name in self.mcp_tools:
                continue
            self.mcp_tools[name] = tool
            self.tools.append(tool)
            known.add(name)

    # --- registry -------------------------------------------------------------------------

    @classmethod
    def register(cls, name: str, agent_cls: type[Agent]) -> None:
        """Register ``agent_cls`` under ``name``. Re-registering the same class is a no-op."""
        existing = cls._registry.get(name)
        if existing is not None and existing is not agent_cls:
            raise AgentAlreadyRegisteredError(name)
        cls._registry[name] = agent_cls

    @classmethod
    def get_cls(cls, name: str) -> type[Agent]:
        try:
            return cls._registry[name]
        except KeyError:
            raise AgentNotRegisteredError(name) from None

    @classmethod
    def list_agents(cls) -> list[str]:
        """Registered names, in registration order."""
        return list(cls._registry)


def register_custom_agents(config: OpenHandsConfig) -> None:
    """Register every ``[agent.<Name>]`` section that names a ``classpath`` under ``<Name>``.

    Called where agents are built and listed (the conversation builder, server and terminal
    app start); repeating it is harmless, since a class re-registered under its name is a
    no-op. One broken classpath is logged and skipped so the built-in agents still run.
    """
    for name, agent_config in config.agents.items():
        if not agent_config.classpath:
            continue
        try:
            agent_cls = load_class(agent_config.classpath)
            if not issubclass(agent_cls, Agent):
                raise TypeError(f"{agent_cls.__qualname__} is not an Agent")
            Agent.register(name, agent_cls)
        except Exception as exc:
            logger.error("Cannot register agent %r (%s): %s", name, agent_config.classpath, exc)


def _tool_name(tool: dict[str, Any]) -> str:
    function = tool.get("function") if isinstance(tool, dict) else None
    if isinstance(function, dict):
        return str(function.get("name", ""))
    return ""
