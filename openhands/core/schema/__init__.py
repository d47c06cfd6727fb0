from openhands.core.schema.action import ActionType
from openhands.core.schema.agent import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.core.schema.observation import ObservationType

__all__ = ["ActionType", "AgentState", "ExitReason", "ObservationType"]
