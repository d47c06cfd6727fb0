from openhands.events.action.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
)
from openhands.events.action.agent import (
    AgentDelegateAction,
    AgentFinishAction,
    AgentRejectAction,
    AgentThinkAction,
    ChangeAgentStateAction,
    CondensationAction,
    CondensationRequestAction,
    RecallAction,
    TaskTrackingAction,
)
from openhands.events.action.browse import BrowseInteractiveAction, BrowseURLAction
from openhands.events.action.commands import CmdRunAction, IPythonRunCellAction
from openhands.events.action.empty import NullAction
from openhands.events.action.files import FileEditAction, FileReadAction, FileWriteAction
from openhands.events.action.mcp import MCPAction
from openhands.events.action.message import MessageAction, SystemMessageAction

__all__ = [
    "Action",
    "ActionConfirmationStatus",
    "ActionSecurityRisk",
    "AgentDelegateAction",
    "AgentFinishAction",
    "AgentRejectAction",
    "AgentThinkAction",
    "BrowseInteractiveAction",
    "BrowseURLAction",
    "ChangeAgentStateAction",
    "CmdRunAction",
    "CondensationAction",
    "CondensationRequestAction",
    "FileEditAction",
    "FileReadAction",
    "FileWriteAction",
    "IPythonRunCellAction",
    "MCPAction",
    "MessageAction",
    "NullAction",
    "RecallAction",
    "SystemMessageAction",
    "TaskTrackingAction",
]
