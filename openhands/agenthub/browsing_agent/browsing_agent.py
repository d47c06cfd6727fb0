"""BrowsingAgent: reaches a goal on the web by choosing BrowserGym actions as text.

It does not use function calling. Each step shows the LLM the goal, the current page
(accessibility tree) and the actions so far, and parses one action from the reply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.agenthub.browsing_agent import prompt
from openhands.agenthub.browsing_agent.axtree import flatten_axtree
from openhands.agenthub.browsing_agent.response_parser import parse_response
from openhands.controller.agent import Agent
from openhands.core.message import Content, Message, TextContent
from openhands.events.action import (
    Action,
    AgentFinishAction,
    BrowseInteractiveAction,
    MessageAction,
)
from openhands.events.event import EventSource
from openhands.events.observation import BrowserOutputObservation, Observation

if TYPE_CHECKING:
    from openhands.controller.state.state import State
    from openhands.core.config import AgentConfig
    from openhands.llm.llm_registry import LLMRegistry

STOP_WORDS = [")```", ")\n```"]
MAX_BROWSER_ERRORS = 5


class BrowsingAgent(Agent):
    VERSION = "1.0"

    def __init__(self, config: AgentConfig, llm_registry: LLMRegistry) -> None:
        super().__init__(config, llm_registry)
        self.error_count = 0

    def reset(self) -> None:
        super().reset()
        self.error_count = 0

    def step(self, state: State) -> Action:
        previous_actions: list[str] = []
        last_action: BrowseInteractiveAction | None = None
        last_obs: Observation | None = None
        for event in state.view:
            if isinstance(event, BrowseInteractiveAction):
                previous_actions.append(event.browser_actions)
                last_action = event
            elif isinstance(event, MessageAction) and event.source == EventSource.AGENT:
                return AgentFinishAction(outputs={"content": event.content})
            elif isinstance(event, Observation):
                last_obs = event

        if last_action is not None and last_action.browsergym_send_msg_to_user:
            return MessageAction(last_action.browsergym_send_msg_to_user)

        error, url, tree = "", "", ""
        if isinstance(last_obs, BrowserOutputObservation):
            if last_obs.error:
                error = prompt.error_prefix(last_obs.last_browser_action)
                self.error_count += 1
                if self.error_count > MAX_BROWSER_ERRORS:
                    return MessageAction("Too many browser errors; giving up on this task.")
            url = last_obs.url
            tree = flatten_axtree(last_obs.axtree_object) or last_obs.content

        goal, _ = state.get_current_user_intent()
        if goal is None:
            goal = str(state.inputs.get("task", ""))
        messages = [
            Message(role="system", content=[TextContent(text=prompt.system_message(goal))]),
            Message(
                role="user",
                content=self._user_content(
                    prompt.user_message(error, url, tree, "\n".join(previous_actions)),
                    last_obs,
                ),
            ),
        ]
        response = self.llm.completion(messages=messages, stop=STOP_WORDS)
        return parse_response(response)

    def _user_content(self, text: str, last_obs: Observation | None) -> list[Content]:
        return [TextContent(text=text)]

    def response_to_actions(self, response: Any) -> list[Action]:
        return [parse_response(response)]
