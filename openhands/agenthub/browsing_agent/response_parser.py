"""Reading a browser action out of the BrowsingAgent's text reply.

The model answers with its reasoning followed by the action in a fenced code block. The
stop words cut the reply right after the action's closing parenthesis, so the fence is
restored before parsing. A reply without a fence is a message for the user.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from openhands.events.action import BrowseInteractiveAction

FENCE = "```"
_SEND_MSG = re.compile(r"send_msg_to_user\((['\"])(.*?)\1\)", re.DOTALL)


def reply_text(response: Any) -> str:
    """The reply text with its code fence closed again (the stop word removed it)."""
    text = response.choices[0].message.content
    if not text:
        return ""
    text = text.strip()
    if text and not text.endswith(FENCE):
        text += FENCE if text.endswith(")") else ")" + FENCE
    return text


def parse_action(text: str) -> BrowseInteractiveAction:
    if FENCE not in text:
        # Not an action at all: pass the text on to the user.
        return BrowseInteractiveAction(
            browser_actions=f'send_msg_to_user("""{text}""")',
            thought=text,
            browsergym_send_msg_to_user=text,
        )
    before, code = text.split(FENCE)[:2]
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


def parse_response(response: Any) -> BrowseInteractiveAction:
    return parse_action(reply_text(response))


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
