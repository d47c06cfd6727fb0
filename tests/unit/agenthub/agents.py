"""Building agents and states for tests."""

from __future__ import annotations

from typing import Any

from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, LLMConfig, OpenHandsConfig
from openhands.events.action import MessageAction
from openhands.events.event import Event, EventSource
from openhands.llm.llm_registry import LLMRegistry


def registry(llm_config: LLMConfig | None = None) -> LLMRegistry:
    config = OpenHandsConfig()
    if llm_config is not None:
        config.set_llm_config(llm_config)
    return LLMRegistry(config)


def agent_config(**overrides: Any) -> AgentConfig:
    return AgentConfig(**overrides)


def state_with(*events: Event) -> State:
    """A State whose history holds ``events`` with stream-like ids and sources."""
    for index, event in enumerate(events):
        event.id = index
        if event.source is None:
            event.source = EventSource.AGENT
    return State(history=list(events))


def user_message(text: str) -> MessageAction:
    message = MessageAction(content=text)
    message.source = EventSource.USER
    return message
