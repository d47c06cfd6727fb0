"""Reading a browser action out of the BrowsingAgent's text reply.

The model answers with its reasoning followed by the action in a fenced code block. The
stop words cut the reply right after the action's closing parenthesis, so the fence is
restored before parsing. A reply without a fence is a message for the user.

``BrowsingResponseParser`` tries its ``ActionParser``s in order: the message parser for
text without a fence, else the browse-interactive parser for the fenced action.
"""

from __future__ import annotations

import ast
import re
from abc import ABC, abstractmethod
from typing import Any

from openhands.events.action import Action, BrowseInteractiveAction

FENCE = "```"
_SEND_MSG = re.compile(r"send_msg_to_user\((['\"])(.*?)\1\)", re.DOTALL)


class ActionParser(ABC):
    """Turns one kind of reply text into an Action."""

    @abstractmethod
    def check_condition(self, action_str: str) -> bool:
        """Whether this parser handles ``action_str``."""

    @abstractmethod
    def parse(self, action_str: str) -> Action:
        """The action ``action_str`` stands for."""


class ResponseParser(ABC):
    """Turns an LLM response into an Action through a list of ActionParsers."""

    def __init__(self) -> None:
        self.action_parsers: list[ActionParser] = []

    @abstractmethod
    def parse(self, response: str | dict[str, Any]) -> Action: ...

    @abstractmethod
    def parse_response(self, response: Any) -> str: ...

    @abstractmethod
    def parse_action(self, action_str: str) -> Action: ...


class BrowsingActionParserMessage(ActionParser):
    """Text without a code fence: the model is talking to the user."""

    def check_condition(self, action_str: str) -> bool:
        return FENCE not in action_str

    def parse(self, action_str: str) -> Action:
        return BrowseInteractiveAction(
            browser_actions=f'send_msg_to_user("""{action_str}""")',
            thought=action_str,
            browsergym_send_msg_to_user=action_str,
        )


class BrowsingActionParserBrowseInteractive(ActionParser):
    """Reasoning, then the browser actions in a fenced block."""

    def check_condition(self, action_str: str) -> bool:
        return True

    def parse(self, action_str: str) -> Action:
        before, code = [*action_str.split(FENCE), ""][:2]
        code = code.strip()
        if code:
            thought, actions = before.strip(), code
        else:
            thought, actions = "", before.strip()
        return BrowseInteractiveAction(
            browser_actions=actions,
            thought=thought,
            browsergym_send_msg_to_user=_message_to_user(actions),
        )


class BrowsingResponseParser(ResponseParser):
    """The BrowsingAgent's reply → a BrowseInteractiveAction."""

    def __init__(self) -> None:
        super().__init__()
        self.action_parsers = [BrowsingActionParserMessage()]
        self.default_parser = BrowsingActionParserBrowseInteractive()

    def parse(self, response: str | dict[str, Any]) -> Action:
        """Parse a reply text, or a completion response (a dict, or LiteLLM's object)."""
        action_str = response if isinstance(response, str) else self.parse_response(response)
        return self.parse_action(action_str)

    def parse_response(self, response: Any) -> str:
        """The reply text, stripped, with its code fence closed again (the stop word
        removed it); ``''`` for an empty reply."""
        text = _content_of(response)
        if not text:
            return ""
        text = text.strip()
        if text and not text.endswith(FENCE):
            text += FENCE if text.endswith(")") else ")" + FENCE
        return text

    def parse_action(self, action_str: str) -> Action:
        for parser in self.action_parsers:
            if parser.check_condition(action_str):
                return parser.parse(action_str)
        return self.default_parser.parse(action_str)


_PARSER = BrowsingResponseParser()


def reply_text(response: Any) -> str:
    """The reply text with its code fence closed again (the stop word removed it)."""
    return _PARSER.parse_response(response)


def parse_action(text: str) -> Action:
    return _PARSER.parse_action(text)


def parse_response(response: Any) -> Action:
    return _PARSER.parse(response)


def _content_of(response: Any) -> str | None:
    choice = response["choices"][0] if isinstance(response, dict) else response.choices[0]
    message = choice["message"] if isinstance(choice, dict) else choice.message
    content = message["content"] if isinstance(message, dict) else message.content
    return None if content is None else str(content)


def _message_to_user(actions: str) -> str:
    message = ""
    for line in actions.split("\n"):
        if "send_msg_to_user(" not in line:
            continue
        try:
            call = ast.parse(line.strip()).body[0]
            value = call.value.args[0]  # type: ignore[attr-defined]
            message = str(value.value)
        except (SyntaxError, IndexError, AttributeError):
            match = _SEND_MSG.search(line)
            message = match.group(2) if match else ""
    return message
