from dataclasses import dataclass

from openhands.core.schema import ActionType
from openhands.events.action.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
)


@dataclass
class CmdRunAction(Action):
    command: str
    is_input: bool = False
    thought: str = ""
    blocking: bool = False
    is_static: bool = False
    cwd: str | None = None
    hidden: bool = False
    confirmation_state: ActionConfirmationStatus = ActionConfirmationStatus.CONFIRMED
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN

    action = ActionType.RUN.value
    runnable = True

    @property
    def message(self) -> str:
        return f"Running command: {self.command}"

    def __str__(self) -> str:
        text = f"**CmdRunAction (source={self.source}, is_input={self.is_input})**\n"
        if self.thought:
            text += f"THOUGHT: {self.thought}\n"
        return text + f"COMMAND:\n{self.command}"


@dataclass
class IPythonRunCellAction(Action):
    code: str
    thought: str = ""
    include_extra: bool = True
    confirmation_state: ActionConfirmationStatus = ActionConfirmationStatus.CONFIRMED
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
    kernel_init_code: str = ""

    action = ActionType.RUN_IPYTHON.value
    runnable = True

    @property
    def message(self) -> str:
        return f"Running Python code interactively: {self.code}"

    def __str__(self) -> str:
        text = "**IPythonRunCellAction**\n"
        if self.thought:
            text += f"THOUGHT: {self.thought}\n"
        return text + f"CODE:\n{self.code}"
