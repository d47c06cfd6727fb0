from openhands.events.observation.agent import (
    AgentCondensationObservation,
    AgentDelegateObservation,
    AgentStateChangedObservation,
    AgentThinkObservation,
    MicroagentKnowledge,
    RecallObservation,
)
from openhands.events.observation.browse import BrowserOutputObservation
from openhands.events.observation.commands import (
    CmdOutputMetadata,
    CmdOutputObservation,
    IPythonRunCellObservation,
)
from openhands.events.observation.empty import NullObservation
from openhands.events.observation.error import ErrorObservation
from openhands.events.observation.file_download import FileDownloadObservation
from openhands.events.observation.files import (
    FileEditObservation,
    FileReadObservation,
    FileWriteObservation,
)
from openhands.events.observation.mcp import MCPObservation
from openhands.events.observation.observation import Observation
from openhands.events.observation.reject import UserRejectObservation
from openhands.events.observation.success import SuccessObservation
from openhands.events.observation.task_tracking import TaskTrackingObservation

__all__ = [
    "AgentCondensationObservation",
    "AgentDelegateObservation",
    "AgentStateChangedObservation",
    "AgentThinkObservation",
    "BrowserOutputObservation",
    "CmdOutputMetadata",
    "CmdOutputObservation",
    "ErrorObservation",
    "FileDownloadObservation",
    "FileEditObservation",
    "FileReadObservation",
    "FileWriteObservation",
    "IPythonRunCellObservation",
    "MCPObservation",
    "MicroagentKnowledge",
    "NullObservation",
    "Observation",
    "RecallObservation",
    "SuccessObservation",
    "TaskTrackingObservation",
    "UserRejectObservation",
]
