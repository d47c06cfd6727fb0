from dataclasses import dataclass

from openhands.core.schema import ActionType
from openhands.events.action.action import Action, ActionSecurityRisk


@dataclass
class MessageAction(Action):
    content: str
    file_urls: list[str] | None = None
    image_urls: list[str] | None = None
    wait_for_response: bool = False
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN

    action = ActionType.MESSAGE.value

    @property
    def message(self) -> str:
        return self.content

    @property
    def images_urls(self) -> list[str] | None:
        """Deprecated alias of ``image_urls`` kept for old callers."""
        return self.image_urls

    @images_urls.setter
    def images_urls(self, value: list[str] | None) -> None:
        self.image_urls = value

    def __str__(self) -> str:
        text = f"**MessageAction** (source={self.source})\nCONTENT: {self.content}"
        for url in self.image_urls or []:
            text += f"\nIMAGE_URL: {url}"
        for url in self.file_urls or []:
            text += f"\nFILE_URL: {url}"
        return text


@dataclass
class SystemMessageAction(Action):
    """The system prompt and tools the agent starts a conversation with."""

    content: str
    tools: list | None = None
    openhands_version: str | None = "0.59.0"
    agent_class: str | None = None

    action = ActionType.SYSTEM.value

    @property
    def message(self) -> str:
        return self.content

    def __str__(self) -> str:
        text = f"**SystemMessageAction** (source={self.source})\nCONTENT: {self.content}"
        if self.tools:
            text += f"\nTOOLS: {len(self.tools)} tools available"
        if self.agent_class:
            text += f"\nAGENT_CLASS: {self.agent_class}"
        return text
