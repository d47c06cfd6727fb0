"""DummyAgent: scripted actions without an LLM, for end-to-end tests."""

from openhands.agenthub.dummy_agent.agent import DummyAgent

__all__ = ["DummyAgent"]
