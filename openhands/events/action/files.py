from dataclasses import dataclass

from openhands.core.schema import ActionType
from openhands.events.action.action import Action, ActionSecurityRisk
from openhands.events.event import FileEditSource, FileReadSource


@dataclass
class FileReadAction(Action):
    """Read a file; ``end=-1`` means to the end. ``view_range`` is used by the oh_aci editor."""

    path: str
    start: int = 0
    end: int = -1
    thought: str = ""
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
    impl_source: FileReadSource = FileReadSource.DEFAULT
    view_range: list[int] | None = None

    action = ActionType.READ.value
    runnable = True

    @property
    def message(self) -> str:
        return f"Reading file: {self.path}"


@dataclass
class FileWriteAction(Action):
    path: str
    content: str
    start: int = 0
    end: int = -1
    thought: str = ""
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN

    action = ActionType.WRITE.value
    runnable = True

    @property
    def message(self) -> str:
        return f"Writing file: {self.path}"

    def __repr__(self) -> str:
        return (
            f"**FileWriteAction**\nPath: {self.path}\nRange: [L{self.start}:L{self.end}]\n"
            f"Thought: {self.thought}\nContent:\n```\n{self.content}\n```\n"
        )


@dataclass
class FileEditAction(Action):
    """Edit a file with the str_replace_editor (oh_aci) or the LLM-based editor."""

    path: str
    command: str = ""
    file_text: str | None = None
    old_str: str | None = None
    new_str: str | None = None
    insert_line: int | None = None
    content: str = ""
    start: int = 1
    end: int = -1
    thought: str = ""
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
    impl_source: FileEditSource = FileEditSource.OH_ACI

    action = ActionType.EDIT.value
    runnable = True

    # ``message`` is deliberately not overridden: the wire form carries "" (reference quirk).

    def __repr__(self) -> str:
        text = f"**FileEditAction**\nPath: [{self.path}]\n"
        if self.thought:
            text += f"Thought: {self.thought}\n"
        if self.impl_source == FileEditSource.LLM_BASED_EDIT:
            return (
                text + f"Range: [L{self.start}:L{self.end}]\nContent:\n```\n{self.content}\n```\n"
            )
        text += f"Command: {self.command}\n"
        if self.command == "create":
            text += f"Created File with Text:\n```\n{self.file_text}\n```\n"
        elif self.command == "str_replace":
            text += f"Old String: ```\n{self.old_str}\n```\nNew String: ```\n{self.new_str}\n```\n"
        elif self.command == "insert":
            text += f"Insert Line: {self.insert_line}\nNew String: ```\n{self.new_str}\n```\n"
        return text
