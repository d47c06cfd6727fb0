"""The agent controller package; ``AgentController`` is re-exported here.

Loaded on first access, so importing a submodule (``openhands.controller.agent``) does
not pull in the controller and its LLM dependencies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openhands.controller.agent_controller import AgentController

__all__ = ["AgentController"]


def __getattr__(name: str) -> Any:
    if name == "AgentController":
        from openhands.controller.agent_controller import AgentController

        return AgentController
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
