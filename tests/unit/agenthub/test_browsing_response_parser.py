"""BrowsingResponseParser (python-api.md §11): reply text → BrowseInteractiveAction."""

from __future__ import annotations

from typing import Any

import pytest
from litellm import ModelResponse

from openhands.agenthub.browsing_agent import response_parser
from openhands.agenthub.browsing_agent.response_parser import (
    BrowsingActionParserBrowseInteractive,
    BrowsingActionParserMessage,
    BrowsingResponseParser,
)
from openhands.events.action import BrowseInteractiveAction


def completion(content: str | None) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


@pytest.mark.parametrize(
    ("content", "text"),
    [
        (None, ""),
        ("", ""),
        ("  Click it.\n```click('a1')  ", "Click it.\n```click('a1')```"),
        ("Click it.\n```click('a1'", "Click it.\n```click('a1')```"),
        ("Done.\n```noop()```", "Done.\n```noop()```"),
    ],
)
def test_parse_response_closes_the_fence(content: str | None, text: str) -> None:
    assert BrowsingResponseParser().parse_response(completion(content)) == text


def test_parse_response_reads_litellm_responses() -> None:
    response = ModelResponse(
        choices=[{"message": {"role": "assistant", "content": "Go.\n```goto('http://x')"}}]
    )
    assert BrowsingResponseParser().parse_response(response) == "Go.\n```goto('http://x')```"


def test_text_without_a_fence_is_a_message_to_the_user() -> None:
    action = BrowsingResponseParser().parse("I could not find the price.")

    assert isinstance(action, BrowseInteractiveAction)
    assert action.browser_actions == 'send_msg_to_user("""I could not find the price.""")'
    assert action.thought == "I could not find the price."
    assert action.browsergym_send_msg_to_user == "I could not find the price."


def test_a_fenced_action_with_its_thought() -> None:
    parser = BrowsingResponseParser()
    action = parser.parse(completion("I open the page.\n```goto('http://example.com')"))

    assert isinstance(action, BrowseInteractiveAction)
    assert action.browser_actions == "goto('http://example.com')"
    assert action.thought == "I open the page."
    assert action.browsergym_send_msg_to_user == ""


def test_send_msg_to_user_sets_the_message() -> None:
    action = BrowsingResponseParser().parse_action(
        "Found it.\n```send_msg_to_user('The price is $5')```"
    )
    assert isinstance(action, BrowseInteractiveAction)
    assert action.browser_actions == "send_msg_to_user('The price is $5')"
    assert action.browsergym_send_msg_to_user == "The price is $5"


def test_the_action_parsers_and_their_order() -> None:
    parser = BrowsingResponseParser()
    message, interactive = BrowsingActionParserMessage(), BrowsingActionParserBrowseInteractive()

    assert message.check_condition("plain text") is True
    assert message.check_condition("x ```click('a')```") is False
    assert interactive.check_condition("anything") is True
    assert [type(p) for p in parser.action_parsers] == [BrowsingActionParserMessage]
    assert isinstance(parser.default_parser, BrowsingActionParserBrowseInteractive)

    action = interactive.parse("```scroll(0, 200)```")
    assert isinstance(action, BrowseInteractiveAction)
    assert (action.browser_actions, action.thought) == ("scroll(0, 200)", "")


def test_module_functions_go_through_the_parser() -> None:
    text = "Done.\n```send_msg_to_user('ok')```"
    via_function = response_parser.parse_action(text)
    via_class = BrowsingResponseParser().parse_action(text)
    assert isinstance(via_function, BrowseInteractiveAction)
    assert isinstance(via_class, BrowseInteractiveAction)
    assert via_function.browser_actions == via_class.browser_actions
    assert response_parser.reply_text(completion("x\n```noop(")) == "x\n```noop()```"
