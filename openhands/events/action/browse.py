from dataclasses import dataclass

from openhands.core.schema import ActionType
from openhands.events.action.action import Action, ActionSecurityRisk


@dataclass
class BrowseURLAction(Action):
    url: str
    thought: str = ""
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
    return_axtree: bool = False

    action = ActionType.BROWSE.value
    runnable = True

    @property
    def message(self) -> str:
        return f"I am browsing the URL: {self.url}"

    def __str__(self) -> str:
        text = "**BrowseURLAction**\n"
        if self.thought:
            text += f"THOUGHT: {self.thought}\n"
        return text + f"URL: {self.url}"


@dataclass
class BrowseInteractiveAction(Action):
    browser_actions: str
    thought: str = ""
    browsergym_send_msg_to_user: str = ""
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
    return_axtree: bool = False

    action = ActionType.BROWSE_INTERACTIVE.value
    runnable = True

    @property
    def message(self) -> str:
        return f"I am interacting with the browser:\n```\n{self.browser_actions}\n```"

    def __str__(self) -> str:
        text = "**BrowseInteractiveAction**\n"
        if self.thought:
            text += f"THOUGHT: {self.thought}\n"
        return text + f"BROWSER_ACTIONS: {self.browser_actions}"
