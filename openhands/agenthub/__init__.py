"""The agents OpenHands can run, registered with :class:`~openhands.controller.agent.Agent`.

Importing this package registers every agent under its class name:
CodeActAgent (default), ReadOnlyAgent, LocAgent, BrowsingAgent, VisualBrowsingAgent and
DummyAgent. ``tool_calls`` holds the tool call → Action machinery they share.
"""

from openhands.agenthub.browsing_agent import BrowsingAgent, VisualBrowsingAgent
from openhands.agenthub.codeact_agent import CodeActAgent
from openhands.agenthub.dummy_agent import DummyAgent
from openhands.agenthub.loc_agent import LocAgent
from openhands.agenthub.readonly_agent import ReadOnlyAgent
from openhands.controller.agent import Agent

AGENTS: dict[str, type[Agent]] = {
    "CodeActAgent": CodeActAgent,
    "ReadOnlyAgent": ReadOnlyAgent,
    "LocAgent": LocAgent,
    "BrowsingAgent": BrowsingAgent,
    "VisualBrowsingAgent": VisualBrowsingAgent,
    "DummyAgent": DummyAgent,
}

for _name, _cls in AGENTS.items():
    Agent.register(_name, _cls)

__all__ = [
    "AGENTS",
    "BrowsingAgent",
    "CodeActAgent",
    "DummyAgent",
    "LocAgent",
    "ReadOnlyAgent",
    "VisualBrowsingAgent",
]
